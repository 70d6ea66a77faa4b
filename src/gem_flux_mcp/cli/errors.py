"""How every command reports a GemFluxError on stderr (its code and message, then its hints),
and how the model-file commands answer: a JSON document or their summary lines."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from typing import Any

from gem_flux_mcp.config import Settings
from gem_flux_mcp.errors import GemFluxError

EXIT_UNFINISHED = 3  # a batch's genome or sample failed, or the batch stopped before every one was done


def report_error(command: str, exc: GemFluxError) -> int:
    """Print the error for `gem-flux <command>`; the exit code 1 to return."""
    print(f"gem-flux {command}: {exc.code}: {exc.message}", file=sys.stderr)
    for hint in exc.suggestions:
        print(f"  - {hint}", file=sys.stderr)
    return 1


def answer(args: argparse.Namespace, compute: Callable[[argparse.Namespace, Settings], dict[str, Any]]) -> int:
    """Run a command on the resolved settings and print its answer (`--json`: the whole result,
    else its `lines`); an error is reported as `report_error` does. Returns the exit code:
    EXIT_UNFINISHED when a batch's items did not all finish (`unfinished` in the result, or its
    cluster lost)."""
    try:
        settings = Settings.resolve(data_dir=args.data_dir, cache_dir=args.cache_dir)
        result = compute(args, settings)
    except GemFluxError as exc:
        from gem_flux_mcp.services.batch.lost import ClusterLost

        code = report_error(args.command, exc)
        return EXIT_UNFINISHED if isinstance(exc, ClusterLost) else code
    if args.json:
        print(json.dumps(result, indent=1, default=str))
    else:
        for line in result["lines"]:
            print(line)
    return EXIT_UNFINISHED if result.get("unfinished") else 0
