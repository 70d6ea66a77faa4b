"""Command-line options read through the argument rules (rules/catalog.py): a refused value gets
the same error code and hints as the MCP tool gives it, and the choices shown in --help are the
rule's values."""

from __future__ import annotations

import argparse
from typing import Any

from gem_flux_mcp.rules import Choice, Rule


def add_rule_option(parser: Any, flag: str, rule: Rule, **kwargs: Any) -> argparse.Action:
    """`parser.add_argument(flag, type=rule.parse, ...)`; a choice shows its values as metavar."""
    if isinstance(rule, Choice):
        kwargs.setdefault("metavar", "{" + ",".join(str(v) for v in rule.values) + "}")
    action: argparse.Action = parser.add_argument(flag, type=rule.parse, **kwargs)
    return action
