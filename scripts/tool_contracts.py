"""Check or update the versioned tool-contract snapshot (contracts/tools.json):

    python scripts/tool_contracts.py --check | --update | --diff

The command the README, CHANGELOG.md and the checker's own messages give; the code is the
package ``gem_flux_mcp.contracts`` (``python -m gem_flux_mcp.contracts`` runs the same).
"""

from __future__ import annotations

import sys

from gem_flux_mcp.contracts.cli import main

if __name__ == "__main__":
    sys.exit(main())
