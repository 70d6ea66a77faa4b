"""The file-level check (live app, snapshot file, CHANGELOG.md) and the snapshot's update."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gem_flux_mcp.contracts.changes import compare, required_bump
from gem_flux_mcp.contracts.schema_walk import canon
from gem_flux_mcp.contracts.snapshot import (
    CHANGELOG_PATH,
    SNAPSHOT_PATH,
    UPDATE_COMMAND,
    live_snapshot,
    read_snapshot,
    render,
)
from gem_flux_mcp.contracts.versions import bump_problems, review


def check(snapshot_path: Path | str = SNAPSHOT_PATH, changelog_path: Path | str = CHANGELOG_PATH,
          live: Mapping[str, Any] | None = None) -> list[str]:
    """Human-readable problems (empty when all is well) between the live app (or ``live``),
    the snapshot file and CHANGELOG.md."""
    live = live_snapshot() if live is None else live
    snapshot, error = read_snapshot(Path(snapshot_path))
    try:
        changelog: str | None = Path(changelog_path).read_text(encoding="utf-8")
    except FileNotFoundError:
        changelog = None
    if snapshot is None:
        return [error or "no snapshot", *review(live, live, changelog)]
    problems = review(snapshot, live, changelog)
    if canon(snapshot) != canon(live):
        changes = compare(snapshot, live)
        what = []
        if changes:
            what.append(f"{len(changes)} contract change(s), {required_bump(changes)} bump")
        if snapshot.get("contract_version") != live.get("contract_version"):
            what.append(f"contract_version {snapshot.get('contract_version')} → {live.get('contract_version')}")
        if not what:
            what.append("documentation-only differences such as schema titles; no version bump needed")
        problems.append(f"{snapshot_path} is out of date with the live app ({'; '.join(what)}): "
                        f"run `{UPDATE_COMMAND}`")
    return problems


def update(snapshot_path: Path | str = SNAPSHOT_PATH, live: Mapping[str, Any] | None = None) -> list[str]:
    """Write the live snapshot to ``snapshot_path`` unless the contract changed without a large
    enough CONTRACT_VERSION bump; returns those problems (nothing is written then)."""
    live = live_snapshot() if live is None else live
    path = Path(snapshot_path)
    old, _ = read_snapshot(path)
    if old is not None:
        problems = bump_problems(old, live, compare(old, live))
        if problems:
            return problems
    text = render(live)
    try:
        if path.read_text(encoding="utf-8") == text:
            return []
    except OSError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return []
