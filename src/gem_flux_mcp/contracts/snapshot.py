"""The snapshot: contracts/tools.json in the repository, each tool's contract as stored there,
the live app's contract (as ``create_app()`` builds it), and the file's text.

The snapshot lives in the repository, so the paths below are those of a source checkout (an
editable install)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from gem_flux_mcp import CONTRACT_VERSION
from gem_flux_mcp.contracts.schema_walk import strip_keys

REPO_ROOT = Path(__file__).resolve().parents[3]
SNAPSHOT_PATH = REPO_ROOT / "contracts" / "tools.json"
CHANGELOG_PATH = REPO_ROOT / "CHANGELOG.md"
UPDATE_COMMAND = "python scripts/tool_contracts.py --update"


def tool_contract(input_schema: Any, output_schema: Any, annotations: Any, title: Any) -> dict[str, Any]:
    """The contract of one tool as stored in the snapshot: descriptions stripped, keys sorted
    when serialised. ``annotations`` is the wire dict (camelCase) or None."""
    return {
        "annotations": dict(annotations) if annotations else None,
        "input_schema": strip_keys(input_schema, frozenset({"description"})),
        "output_schema": strip_keys(output_schema, frozenset({"description"})) if output_schema else None,
        "title": title,
    }


async def _live_snapshot_async() -> dict[str, Any]:
    from gem_flux_mcp.server.app import create_app  # lazy: FastMCP and the tools load only when needed

    tools: dict[str, Any] = {}
    for tool in await create_app().list_tools():
        wire = tool.to_mcp_tool()  # what tools/list sends (title falls back to annotations.title)
        annotations = (
            wire.annotations.model_dump(by_alias=True, exclude_none=True, mode="json") if wire.annotations else None
        )
        tools[wire.name] = tool_contract(wire.input_schema, wire.output_schema, annotations, wire.title)
    return {"contract_version": CONTRACT_VERSION, "tools": dict(sorted(tools.items()))}


def live_snapshot() -> dict[str, Any]:
    """The contract of the app as built by ``create_app()`` (no resources needed)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_live_snapshot_async())
    # called from async code: run the app's event-loop work on a thread of its own
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, _live_snapshot_async()).result()


def render(snapshot: Mapping[str, Any]) -> str:
    """The snapshot file's text: pretty JSON, sorted keys, trailing newline."""
    return json.dumps(snapshot, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def read_snapshot(path: Path) -> tuple[dict[str, Any] | None, str | None]:
    """(the snapshot at ``path``, None) or (None, what is wrong with it and what to run)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None, f"no contract snapshot at {path}: run `{UPDATE_COMMAND}`"
    except (OSError, ValueError) as exc:
        return None, f"cannot read the contract snapshot {path} ({exc}): run `{UPDATE_COMMAND}`"
    if not isinstance(data, dict) or not isinstance(data.get("tools"), dict):
        return None, f"{path} is not a contract snapshot: run `{UPDATE_COMMAND}`"
    return data, None
