"""Argument rules, each declared once (catalog.py) from a few kinds (kinds.py), and used by the
MCP tools' input schemas, the services and the CLI alike."""

from gem_flux_mcp.rules.kinds import RULE_ERROR, Choice, Items, Number, Rule, Text

__all__ = ["RULE_ERROR", "Choice", "Items", "Number", "Rule", "Text"]
