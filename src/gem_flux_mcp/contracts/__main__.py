"""``python -m gem_flux_mcp.contracts --check | --update | --diff`` (the same command as
``python scripts/tool_contracts.py``)."""

from __future__ import annotations

import sys

from gem_flux_mcp.contracts.cli import main

if __name__ == "__main__":
    sys.exit(main())
