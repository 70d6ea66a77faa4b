"""Versioned tool contracts: a checked-in snapshot of every tool's schemas and a checker.

The tool contract (each tool's input schema, output schema, annotations and title, as a
client sees them in ``tools/list``) carries its own semantic version, ``CONTRACT_VERSION``,
separate from the package version. Within a major version the contract only grows:

* **major** (X+1.0.0): a tool removed or renamed; an input property removed; a new required
  input; an input type changed or narrowed (enum values removed, nullable removed, tighter
  bounds, ...); an output property removed, its type changed or widened (e.g. may now be
  null), or no longer required; annotations that make a tool less safe to call
  (readOnlyHint true→false, destructiveHint false→true, idempotentHint true→false,
  openWorldHint false→true); anything else the checker cannot classify.
* **minor** (X.Y+1.0): a new tool; a new optional input; a new output property; an input
  widened (made nullable, enum values added, looser bounds); an output narrowed (never null
  now, now always present); annotation changes in the safe direction; title changes.

Descriptions (of tools and inside schemas) are not part of the contract: they are left out
of the snapshot and may change freely. Schema titles are kept in the snapshot but are
documentation: a change there only needs ``--update``, no version bump.

Workflow after changing a tool: bump ``CONTRACT_VERSION`` (in ``gem_flux_mcp/__init__.py``) as
``--check`` says, run ``python scripts/tool_contracts.py --update`` (it refuses while the bump is
missing or too small) and add a ``## <version>`` entry to CHANGELOG.md.
``tests/test_contracts.py`` runs the same check.

The snapshot it reads and writes lives in the repository, so the checker works from a source
checkout. The live contract comes from the server app as ``create_app()`` builds it, imported
only when needed (``snapshot.live_snapshot``): the package reads the server, so it is the layer
above it (docs/architecture.md). Modules: ``schema_walk`` (JSON Schema walking), ``snapshot``
(contracts/tools.json and the live app's contract), ``changes`` (changes and their kind),
``versions`` (the bump and CHANGELOG entry they need), ``checks`` (check and update of the
file), ``cli`` (``python scripts/tool_contracts.py`` = ``python -m gem_flux_mcp.contracts``).
"""

from __future__ import annotations

from gem_flux_mcp import CONTRACT_VERSION
from gem_flux_mcp.contracts.changes import Change, compare, required_bump
from gem_flux_mcp.contracts.checks import check, update
from gem_flux_mcp.contracts.cli import main
from gem_flux_mcp.contracts.snapshot import CHANGELOG_PATH, SNAPSHOT_PATH, live_snapshot, render, tool_contract
from gem_flux_mcp.contracts.versions import next_version, parse_version, review

__all__ = [
    "CHANGELOG_PATH",
    "CONTRACT_VERSION",
    "SNAPSHOT_PATH",
    "Change",
    "check",
    "compare",
    "live_snapshot",
    "main",
    "next_version",
    "parse_version",
    "render",
    "required_bump",
    "review",
    "tool_contract",
    "update",
]
