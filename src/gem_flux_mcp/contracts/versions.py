"""Contract versions (MAJOR.MINOR.PATCH), the bump a set of changes needs against the one made,
and the CHANGELOG.md entry for the new version."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from gem_flux_mcp.contracts.changes import Bump, Change, compare, required_bump
from gem_flux_mcp.contracts.snapshot import UPDATE_COMMAND

_VERSION = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")


def parse_version(version: Any) -> tuple[int, int, int]:
    match = _VERSION.match(str(version))
    if not match:
        raise ValueError(f"not a MAJOR.MINOR.PATCH version: {version!r}")
    return int(match[1]), int(match[2]), int(match[3])


def next_version(version: str, bump: Bump) -> str:
    major, minor, patch = parse_version(version)
    if bump == "major":
        return f"{major + 1}.0.0"
    if bump == "minor":
        return f"{major}.{minor + 1}.0"
    return f"{major}.{minor}.{patch}"


def _bump_level(old: tuple[int, int, int], new: tuple[int, int, int]) -> int:
    """0 none or patch, 1 minor, 2 major."""
    if new[0] > old[0]:
        return 2
    if new[0] == old[0] and new[1] > old[1]:
        return 1
    return 0


def has_changelog_heading(changelog: str, version: str) -> bool:
    """Whether CHANGELOG.md's text has a ``## <version>`` heading."""
    pattern = rf"^##\s+\[?v?{re.escape(version)}\]?(?=\s|$)"
    return re.search(pattern, changelog, flags=re.MULTILINE) is not None


def _todo(version: str) -> str:
    return (f"bump CONTRACT_VERSION to {version}, run `{UPDATE_COMMAND}`, "
            f"and add a `## {version}` entry to CHANGELOG.md (CONTRACT_VERSION is in src/gem_flux_mcp/__init__.py)")


def bump_problems(old: Mapping[str, Any], new: Mapping[str, Any], changes: list[Change]) -> list[str]:
    """One problem per change that the step from ``old``'s version to ``new``'s does not cover."""
    try:
        old_v = parse_version(old.get("contract_version"))
    except ValueError as exc:
        return [f"snapshot: {exc}; run `{UPDATE_COMMAND}` to rewrite it"]
    try:
        new_v = parse_version(new.get("contract_version"))
    except ValueError as exc:
        return [f"CONTRACT_VERSION: {exc}"]
    old_s, new_s = ".".join(map(str, old_v)), ".".join(map(str, new_v))
    if new_v < old_v:
        return [f"CONTRACT_VERSION went backwards: {new_s} is lower than the snapshot's {old_s}"]
    needed = required_bump(changes)
    if needed == "none":
        return []
    target = next_version(old_s, needed)
    level = _bump_level(old_v, new_v)
    return [
        f"{change.path}: {change.kind} change ({change.message}) needs at least a {change.kind} version bump, "
        f"but CONTRACT_VERSION is {new_s} (snapshot {old_s}): {_todo(target)}"
        for change in changes
        if (2 if change.kind == "major" else 1) > level
    ]


def review(old: Mapping[str, Any], new: Mapping[str, Any], changelog: str | None) -> list[str]:
    """Problems with the step from snapshot ``old`` to snapshot ``new``: the version bump the
    changes need and the CHANGELOG entry for the new version. ``changelog`` is the text of
    CHANGELOG.md (None when it is missing)."""
    problems = bump_problems(old, new, compare(old, new))
    version = str(new.get("contract_version"))
    if changelog is None:
        problems.append(f"CHANGELOG.md is missing: create it with a `## {version}` entry")
    elif not has_changelog_heading(changelog, version):
        problems.append(f"CHANGELOG.md has no `## {version}` entry for the current contract version: add one "
                        "that lists the contract changes")
    return problems
