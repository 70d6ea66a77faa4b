"""The command: ``--check``, ``--update`` and ``--diff`` of the snapshot against the live app
(``python scripts/tool_contracts.py ...`` or ``python -m gem_flux_mcp.contracts ...``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from gem_flux_mcp.contracts.changes import compare, required_bump
from gem_flux_mcp.contracts.checks import check, update
from gem_flux_mcp.contracts.snapshot import CHANGELOG_PATH, SNAPSHOT_PATH, live_snapshot, read_snapshot, render
from gem_flux_mcp.contracts.versions import has_changelog_heading


def main(argv: list[str] | None = None) -> int:
    """Run the command with ``argv`` (default: the process's arguments); the exit status."""
    parser = argparse.ArgumentParser(prog="python scripts/tool_contracts.py",
                                     description="Check or update the versioned tool-contract snapshot.")
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--check", action="store_true", help="print problems; exit 1 if there are any")
    action.add_argument("--update", action="store_true", help="write the snapshot from the live app")
    action.add_argument("--diff", action="store_true", help="list contract changes against the snapshot")
    parser.add_argument("--snapshot", type=Path, default=SNAPSHOT_PATH, help=f"default {SNAPSHOT_PATH}")
    parser.add_argument("--changelog", type=Path, default=CHANGELOG_PATH, help=f"default {CHANGELOG_PATH}")
    args = parser.parse_args(argv)
    live = live_snapshot()
    old, _ = read_snapshot(args.snapshot)
    changes = compare(old, live) if old is not None else []
    if args.check:
        problems = check(args.snapshot, args.changelog, live)
        for problem in problems:
            print(problem)
        if not problems:
            print(f"tool contract {live['contract_version']}: {len(live['tools'])} tools match {args.snapshot}")
        return 1 if problems else 0
    if args.diff:
        for change in changes:
            print(change)
        print(f"required bump: {required_bump(changes)}")
        return 0
    try:
        before: str | None = args.snapshot.read_text(encoding="utf-8")
    except OSError:
        before = None
    problems = update(args.snapshot, live)
    if problems:
        print(f"not updating {args.snapshot}:", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return 1
    for change in changes:
        print(change)
    verb = "already up to date:" if before == render(live) else "wrote"
    print(f"{verb} {args.snapshot}: contract {live['contract_version']}, {len(live['tools'])} tools")
    try:
        changelog = args.changelog.read_text(encoding="utf-8")
    except OSError:
        changelog = ""
    if not has_changelog_heading(changelog, str(live["contract_version"])):
        print(f"now add a `## {live['contract_version']}` entry to {args.changelog}", file=sys.stderr)
    return 0
