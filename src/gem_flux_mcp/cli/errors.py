"""How every command reports a GemFluxError on stderr: its code and message, then its hints."""

from __future__ import annotations

import sys

from gem_flux_mcp.errors import GemFluxError


def report_error(command: str, exc: GemFluxError) -> int:
    """Print the error for `gem-flux <command>`; the exit code 1 to return."""
    print(f"gem-flux {command}: {exc.code}: {exc.message}", file=sys.stderr)
    for hint in exc.suggestions:
        print(f"  - {hint}", file=sys.stderr)
    return 1
