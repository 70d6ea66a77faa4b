"""Versioned tool contracts: the live app matches contracts/tools.json, the checker classifies
changes as the versioning policy says, and clients are told the contract version."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from mcp.types import DiscoverResult

from conftest import REPO
from gem_flux_mcp import CONTRACT_VERSION, contracts
from gem_flux_mcp.contracts import Change, check, compare, required_bump, review, update
from mcp_client import PROTOCOL_MODES, stdio_client

SNAPSHOT = REPO / "contracts" / "tools.json"
CHANGELOG = REPO / "CHANGELOG.md"
TOOL = "search_compounds"

Snapshot = dict[str, Any]


@pytest.fixture(scope="module")
def live() -> Snapshot:
    return contracts.live_snapshot()


@pytest.fixture()
def base() -> Snapshot:
    """A scratch copy of the checked-in snapshot (the repo's files are never written), at version
    1.0.0 so the checker tests below read the same whatever the current contract version is."""
    snapshot: Snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    snapshot["contract_version"] = "1.0.0"
    return snapshot


def changed(snapshot: Snapshot, mutate: Callable[[Snapshot], None], version: str | None = None) -> Snapshot:
    new = copy.deepcopy(snapshot)
    mutate(new)
    if version:
        new["contract_version"] = version
    return new


def tool(snapshot: Snapshot, name: str = TOOL) -> dict[str, Any]:
    return snapshot["tools"][name]  # type: ignore[no-any-return]


def inputs(snapshot: Snapshot, name: str = TOOL) -> dict[str, Any]:
    return tool(snapshot, name)["input_schema"]  # type: ignore[no-any-return]


def outputs(snapshot: Snapshot, name: str = TOOL) -> dict[str, Any]:
    return tool(snapshot, name)["output_schema"]  # type: ignore[no-any-return]


def write(path: Path, snapshot: Snapshot) -> Path:
    path.write_text(contracts.render(snapshot), encoding="utf-8")
    return path


def changelog(tmp_path: Path, *versions: str) -> Path:
    path = tmp_path / "CHANGELOG.md"
    path.write_text("# Changelog\n\n" + "".join(f"## {v}\n\n- changes\n\n" for v in versions), encoding="utf-8")
    return path


# ---- the live app against the checked-in snapshot ------------------------------------


def test_live_app_matches_the_checked_in_snapshot(live: Snapshot) -> None:
    problems = check(SNAPSHOT, CHANGELOG, live)
    assert not problems, "tool contract problems:\n" + "\n".join(problems)


def test_snapshot_file_is_the_canonical_rendering(live: Snapshot) -> None:
    text = SNAPSHOT.read_text(encoding="utf-8")
    assert text == contracts.render(json.loads(text)), "run `python scripts/tool_contracts.py --update`"
    assert json.loads(text)["contract_version"] == CONTRACT_VERSION
    contracts.parse_version(CONTRACT_VERSION)
    assert list(live["tools"]) == sorted(live["tools"])


def test_descriptions_are_not_part_of_the_contract() -> None:
    schema = {"type": "object", "description": "doc", "properties": {
        "description": {"type": "string", "description": "a property called description stays"},
        "xs": {"type": "array", "items": {"type": "string", "description": "doc"}},
    }}
    contract = contracts.tool_contract(schema, None, {"readOnlyHint": True}, "T")
    assert contract["input_schema"] == {"type": "object", "properties": {
        "description": {"type": "string"}, "xs": {"type": "array", "items": {"type": "string"}}}}
    # the snapshot holds no description keyword: stripping again changes nothing
    for entry in json.loads(SNAPSHOT.read_text(encoding="utf-8"))["tools"].values():
        assert contracts.tool_contract(entry["input_schema"], entry["output_schema"], entry["annotations"],
                                       entry["title"]) == entry


# ---- the classifier ---------------------------------------------------------------------


def _remove_output_field(s: Snapshot) -> None:
    del outputs(s)["properties"]["num_results"]
    outputs(s)["required"].remove("num_results")


def _add_optional_input(s: Snapshot) -> None:
    inputs(s)["properties"]["min_score"] = {"type": "number", "default": 0.0}


def _add_required_input(s: Snapshot) -> None:
    inputs(s)["properties"]["namespace"] = {"type": "string"}
    inputs(s)["required"].append("namespace")


def _retype_input(s: Snapshot) -> None:
    inputs(s)["properties"]["limit"] = {"type": "string", "default": "10"}


def _rename_tool(s: Snapshot) -> None:
    s["tools"]["find_compounds"] = s["tools"].pop(TOOL)


def _nullable_input(s: Snapshot) -> None:
    inputs(s)["properties"]["limit"] = {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": 10}


def _not_read_only(s: Snapshot) -> None:
    tool(s)["annotations"]["readOnlyHint"] = False


def _read_only(s: Snapshot) -> None:
    tool(s, "build_media")["annotations"]["readOnlyHint"] = True


def _destructive(s: Snapshot) -> None:
    tool(s)["annotations"]["destructiveHint"] = True


def _open_world_dropped(s: Snapshot) -> None:
    del tool(s)["annotations"]["openWorldHint"]  # absent means true (MCP spec default)


def _remove_input(s: Snapshot) -> None:
    del inputs(s)["properties"]["limit"]


def _output_no_longer_required(s: Snapshot) -> None:
    outputs(s)["required"].remove("truncated")


def _output_nullable(s: Snapshot) -> None:
    outputs(s)["properties"]["num_results"] = {"anyOf": [{"type": "integer"}, {"type": "null"}]}


def _output_never_null(s: Snapshot) -> None:
    prop = outputs(s, "get_compound_name")["properties"]["mass"]
    outputs(s, "get_compound_name")["properties"]["mass"] = {"type": "number", "title": prop.get("title")}


def _new_output_property(s: Snapshot) -> None:
    outputs(s)["properties"]["elapsed_ms"] = {"type": "number"}


def _input_no_longer_nullable(s: Snapshot) -> None:
    inputs(s, "build_media")["properties"]["media_name"] = {"type": "string", "default": None}


def _input_becomes_optional(s: Snapshot) -> None:
    inputs(s)["required"].remove("query")


def _integer_to_number(s: Snapshot) -> None:
    inputs(s)["properties"]["limit"]["type"] = "number"


def _tighter_bound(s: Snapshot) -> None:
    inputs(s)["properties"]["limit"]["maximum"] = 50


def _default_changed(s: Snapshot) -> None:
    inputs(s)["properties"]["limit"]["default"] = 20


def _title(s: Snapshot) -> None:
    tool(s)["title"] = "Find compounds"
    tool(s)["annotations"]["title"] = "Find compounds"


def _unknown_keyword(s: Snapshot) -> None:
    inputs(s)["properties"]["query"]["not"] = {"const": ""}


def _unknown_annotation(s: Snapshot) -> None:
    tool(s)["annotations"]["x-cost"] = "high"


CASES: list[tuple[str, Callable[[Snapshot], None], str, str]] = [
    # (case, mutation, required bump, a path that must be reported with that kind)
    ("output field removed", _remove_output_field, "major", f"{TOOL}.output.num_results"),
    ("optional input added", _add_optional_input, "minor", f"{TOOL}.input.min_score"),
    ("required input added", _add_required_input, "major", f"{TOOL}.input.namespace"),
    ("input type changed", _retype_input, "major", f"{TOOL}.input.limit"),
    ("tool renamed", _rename_tool, "major", TOOL),
    ("input made nullable", _nullable_input, "minor", f"{TOOL}.input.limit"),
    ("readOnlyHint true->false", _not_read_only, "major", f"{TOOL}.annotations.readOnlyHint"),
    ("readOnlyHint false->true", _read_only, "minor", "build_media.annotations.readOnlyHint"),
    ("destructiveHint false->true", _destructive, "major", f"{TOOL}.annotations.destructiveHint"),
    ("openWorldHint false->absent", _open_world_dropped, "major", f"{TOOL}.annotations.openWorldHint"),
    ("input removed", _remove_input, "major", f"{TOOL}.input.limit"),
    ("output no longer required", _output_no_longer_required, "major", f"{TOOL}.output.truncated"),
    ("output made nullable", _output_nullable, "major", f"{TOOL}.output.num_results"),
    ("output never null now", _output_never_null, "minor", "get_compound_name.output.mass"),
    ("output property added", _new_output_property, "minor", f"{TOOL}.output.elapsed_ms"),
    ("input nullable removed", _input_no_longer_nullable, "major", "build_media.input.media_name"),
    ("required input made optional", _input_becomes_optional, "minor", f"{TOOL}.input.query"),
    ("integer widened to number", _integer_to_number, "minor", f"{TOOL}.input.limit"),
    ("input bound tightened", _tighter_bound, "major", f"{TOOL}.input.limit"),
    ("input default changed", _default_changed, "major", f"{TOOL}.input.limit"),
    ("title changed", _title, "minor", f"{TOOL}.title"),
    ("unclassified keyword", _unknown_keyword, "major", f"{TOOL}.input.query"),
    ("unclassified annotation", _unknown_annotation, "major", f"{TOOL}.annotations.x-cost"),
]


@pytest.mark.parametrize(("case", "mutate", "bump", "path"), CASES, ids=[c[0] for c in CASES])
def test_changes_are_classified(base: Snapshot, case: str, mutate: Callable[[Snapshot], None],
                                bump: str, path: str) -> None:
    changes = compare(base, changed(base, mutate))
    assert required_bump(changes) == bump, changes
    assert any(c.path == path and c.kind == bump for c in changes), changes
    assert all(c.tool and c.message and c.path.startswith(c.tool) for c in changes)


def test_rename_is_a_removal_plus_a_new_tool(base: Snapshot) -> None:
    changes = compare(base, changed(base, _rename_tool))
    assert Change("minor", "find_compounds", "find_compounds", "new tool") in changes
    removed = [c for c in changes if c.tool == TOOL]
    assert len(removed) == 1 and removed[0].kind == "major" and "renamed to find_compounds" in removed[0].message


def test_enum_values_added_is_minor_and_removed_is_major(base: Snapshot) -> None:
    old = changed(base, lambda s: inputs(s)["properties"].update(mode={"enum": ["a", "b"], "default": "a"}))
    wider = changed(old, lambda s: inputs(s)["properties"]["mode"]["enum"].append("c"))
    narrower = changed(old, lambda s: inputs(s)["properties"]["mode"]["enum"].remove("b"))
    assert required_bump(compare(old, wider)) == "minor"
    (removed,) = compare(old, narrower)
    assert removed.kind == "major" and removed.path == f"{TOOL}.input.mode" and '"b"' in removed.message


def test_refs_are_resolved_before_comparing(base: Snapshot) -> None:
    inline = {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}
    old = changed(base, lambda s: inputs(s)["properties"].update(target=copy.deepcopy(inline)))

    def by_ref(s: Snapshot) -> None:
        inputs(s)["$defs"] = {"Target": copy.deepcopy(inline)}
        inputs(s)["properties"]["target"] = {"$ref": "#/$defs/Target", "title": "Target"}

    with_ref = changed(base, by_ref)
    assert compare(old, with_ref) == []
    tightened = changed(with_ref, lambda s: inputs(s)["$defs"]["Target"]["properties"]["id"].update(minLength=3))
    (change,) = compare(old, tightened)
    assert change.kind == "major" and change.path == f"{TOOL}.input.target.id"


def test_documentation_only_differences_need_an_update_but_no_bump(base: Snapshot, tmp_path: Path) -> None:
    new = changed(base, lambda s: outputs(s).update(title="RenamedResultModel"))
    assert compare(base, new) == []
    problems = check(write(tmp_path / "tools.json", base), changelog(tmp_path, "1.0.0"), new)
    assert len(problems) == 1 and "no version bump needed" in problems[0] and "--update" in problems[0]


# ---- check / update on scratch files ------------------------------------------------------


def test_minor_change_with_minor_bump_and_changelog_entry(base: Snapshot, tmp_path: Path) -> None:
    snapshot_file = write(tmp_path / "tools.json", base)
    log = changelog(tmp_path, "1.0.0", "1.1.0")
    new = changed(base, _add_optional_input, version="1.1.0")
    assert review(base, new, log.read_text()) == []
    # the only thing left is to write the snapshot...
    (stale,) = check(snapshot_file, log, new)
    assert "out of date" in stale and "--update" in stale
    assert update(snapshot_file, new) == []
    # ...after which everything is consistent
    assert check(snapshot_file, log, new) == []
    assert json.loads(snapshot_file.read_text()) == new


def test_minor_change_without_a_bump(base: Snapshot, tmp_path: Path) -> None:
    snapshot_file = write(tmp_path / "tools.json", base)
    before = snapshot_file.read_text()
    new = changed(base, _add_optional_input)
    problems = check(snapshot_file, changelog(tmp_path, "1.0.0"), new)
    bump = [p for p in problems if f"{TOOL}.input.min_score" in p]
    assert len(bump) == 1, problems
    assert "minor" in bump[0] and "bump CONTRACT_VERSION to 1.1.0" in bump[0]
    assert "--update" in bump[0] and "## 1.1.0" in bump[0]
    # --update refuses to record an unversioned change
    assert update(snapshot_file, new) == bump
    assert snapshot_file.read_text() == before


@pytest.mark.parametrize("version", ["1.0.1", "1.0.0"])
def test_patch_bump_is_not_enough_for_a_schema_change(base: Snapshot, tmp_path: Path, version: str) -> None:
    new = changed(base, _add_optional_input, version=version)
    problems = check(write(tmp_path / "tools.json", base), changelog(tmp_path, version), new)
    assert any("minor" in p and "1.1.0" in p for p in problems), problems


def test_major_change_with_only_a_minor_bump(base: Snapshot, tmp_path: Path) -> None:
    new = changed(base, _add_required_input, version="1.1.0")
    problems = check(write(tmp_path / "tools.json", base), changelog(tmp_path, "1.1.0"), new)
    assert any(f"{TOOL}.input.namespace" in p and "major" in p and "bump CONTRACT_VERSION to 2.0.0" in p
               and "## 2.0.0" in p for p in problems), problems
    assert update(tmp_path / "tools.json", new)  # refused
    # with the major bump and its entry, review passes
    bumped = changed(base, _add_required_input, version="2.0.0")
    assert review(base, bumped, changelog(tmp_path, "2.0.0").read_text()) == []


def test_mixed_changes_need_the_largest_bump(base: Snapshot) -> None:
    new = changed(changed(base, _add_optional_input), _remove_output_field, version="1.1.0")
    problems = review(base, new, "## 1.1.0\n")
    assert len(problems) == 1 and f"{TOOL}.output.num_results" in problems[0] and "2.0.0" in problems[0]


def test_missing_changelog_entry(base: Snapshot, tmp_path: Path) -> None:
    new = changed(base, _add_optional_input, version="1.1.0")
    snapshot_file = write(tmp_path / "tools.json", new)
    problems = check(snapshot_file, changelog(tmp_path, "1.0.0"), new)
    assert len(problems) == 1 and "## 1.1.0" in problems[0] and "CHANGELOG.md" in problems[0]
    problems = check(snapshot_file, tmp_path / "absent.md", new)
    assert len(problems) == 1 and "missing" in problems[0]


def test_version_cannot_go_backwards(base: Snapshot, tmp_path: Path) -> None:
    old = changed(base, lambda s: None, version="1.2.0")
    problems = check(write(tmp_path / "tools.json", old), changelog(tmp_path, "1.0.0"), base)
    assert any("backwards" in p for p in problems), problems


def test_missing_or_broken_snapshot_is_reported_and_update_recreates_it(base: Snapshot, tmp_path: Path) -> None:
    log = changelog(tmp_path, "1.0.0")
    path = tmp_path / "contracts" / "tools.json"
    assert any("--update" in p for p in check(path, log, base))
    assert update(path, base) == []
    assert check(path, log, base) == []
    path.write_text("{ not json", encoding="utf-8")
    assert any("cannot read" in p for p in check(path, log, base))
    assert update(path, base) == [] and check(path, log, base) == []


def test_cli_update_and_check(tmp_path: Path) -> None:
    """The real entry point, as the README and the problem messages tell developers to run it."""
    target = tmp_path / "tools.json"
    script = str(REPO / "scripts" / "tool_contracts.py")
    done = subprocess.run([sys.executable, script, "--update", "--snapshot", str(target),
                           "--changelog", str(CHANGELOG)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert target.read_text(encoding="utf-8") == SNAPSHOT.read_text(encoding="utf-8")
    assert contracts.main(["--check", "--snapshot", str(target), "--changelog", str(CHANGELOG)]) == 0
    write(target, changed(json.loads(target.read_text()), _remove_input))
    assert contracts.main(["--check", "--snapshot", str(target), "--changelog", str(CHANGELOG)]) == 1


# ---- what an MCP client sees ----------------------------------------------------------


@pytest.mark.anyio
@pytest.mark.parametrize("mode", PROTOCOL_MODES)
async def test_clients_see_the_contract_version_and_the_snapshot_schemas(server_env: dict[str, str],
                                                                         mode: str) -> None:
    snapshot = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    async with stdio_client(server_env, mode) as client:
        if mode == "legacy":
            init = client.session.initialize_result
            assert init is not None
            instructions, capabilities = init.instructions, init.capabilities
        else:
            # A 2026-07-28 client adopts a synthesized discover result; ask the server for its own.
            discover = DiscoverResult.model_validate(await client.session.send_discover(client.protocol_version))
            instructions, capabilities = discover.instructions, discover.capabilities
        assert instructions and f"Tool contract version: {CONTRACT_VERSION}" in instructions
        assert capabilities.experimental == {"gem-flux/tool-contract": {"version": CONTRACT_VERSION}}
        listed = (await client.list_tools()).tools
    wire = {
        t.name: contracts.tool_contract(
            t.input_schema, t.output_schema,
            t.annotations.model_dump(by_alias=True, exclude_none=True, mode="json") if t.annotations else None,
            t.title)
        for t in listed
    }
    over_the_wire = {"contract_version": CONTRACT_VERSION, "tools": dict(sorted(wire.items()))}
    assert compare(snapshot, over_the_wire) == []
    assert over_the_wire == snapshot


def test_a_real_tightening_of_the_live_app_needs_a_major_bump(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Input constraints live in the argument rules the tool signatures use, so the published
    schemas carry them and the checker sees a real narrowing: target_growth_rate <= 10 tightened
    to <= 5, and a gapfill mode dropped from the enum."""
    import dataclasses
    from typing import Annotated, Literal

    from gem_flux_mcp.rules.catalog import GAPFILL_MODE, TARGET_GROWTH_RATE
    from gem_flux_mcp.server.tools import gapfill

    tighter = dataclasses.replace(TARGET_GROWTH_RATE, le=5.0)
    monkeypatch.setattr(gapfill, "TargetGrowthRateArg", Annotated[float, tighter])
    monkeypatch.setattr(gapfill, "GapfillModeArg", Annotated[Literal["full", "genomescale_only"], GAPFILL_MODE])
    tightened = contracts.live_snapshot()
    field = tightened["tools"]["gapfill_model"]["input_schema"]["properties"]
    assert field["target_growth_rate"]["maximum"] == 5.0 and "atp_only" not in json.dumps(field["gapfill_mode"])
    changes = compare(json.loads(SNAPSHOT.read_text(encoding="utf-8")), tightened)
    found = {(c.path, c.kind) for c in changes}
    assert found == {("gapfill_model.input.target_growth_rate", "major"), ("gapfill_model.input.gapfill_mode", "major")}
    assert required_bump(changes) == "major"
    snapshot = write(tmp_path / "tools.json", json.loads(SNAPSHOT.read_text(encoding="utf-8")))
    problems = check(snapshot, CHANGELOG, tightened)
    assert any("major" in p and "target_growth_rate" in p for p in problems), problems


def test_tool_docs_are_generated_from_the_snapshot() -> None:
    import tool_docs

    expected = tool_docs.render(json.loads(SNAPSHOT.read_text(encoding="utf-8")))
    assert (REPO / "docs" / "tools.md").read_text(encoding="utf-8") == expected, "run `python scripts/tool_docs.py`"
    assert "| `target_growth_rate` | number |  | `0.01` | > 0, <= 10.0 |" in expected
