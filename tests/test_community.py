"""Communities on MICOM (modeling/community, services/community, the community tools and
`gem-flux community`), checked against MICOM called directly on the same member models: two
auxotrophs that rescue each other (each makes the amino acid the other needs), a member alone
against COBRApy's FBA, member knockouts against `knockout_taxa`, cross-feeding against
`micom.interaction.interactions`, and the mass balance of the shared medium."""

from __future__ import annotations

import csv
import json
import subprocess
import warnings
from pathlib import Path
from typing import Any

import cobra
import micom
import pandas as pd
import pytest
from cobra.io import save_json_model, to_json

from conftest import GEM_FLUX, CliRun
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling.community import (
    Member,
    build_micom_community,
    check_member,
    cooperative_growth,
    limiting_compounds,
    member_knockouts,
    minimal_community_medium,
    put_community_on_medium,
    relative_abundances,
)
from mcp_client import call, in_process_client
from models import ARGININE, GLUCOSE, LYSINE, small_member, textbook

UPTAKE = 10.0
TOLERANCE = 1e-4


def lysine_auxotroph() -> cobra.Model:
    return small_member("lys_minus", makes=(ARGININE,), needs=(LYSINE,))


def arginine_auxotroph() -> cobra.Model:
    return small_member("arg_minus", makes=(LYSINE,), needs=(ARGININE,))


def prototroph() -> cobra.Model:
    return small_member("proto", makes=(LYSINE, ARGININE), needs=())


async def store_three_members(client: Any, folder: Path) -> str:
    """The two auxotrophs and the prototroph imported as lysminus.draft, argminus.draft and
    proto.draft, and a glucose medium; returns the medium's id."""
    for model in (lysine_auxotroph(), arginine_auxotroph(), prototroph()):
        save_json_model(model, str(folder / f"{model.id}.json"))
    for name in ("lys_minus", "arg_minus", "proto"):
        await call(client, "import_model", {"file_path": f"{name}.json", "model_name": name.replace("_", "")})
    answer = await call(client, "build_media", {"compounds": [GLUCOSE], "custom_bounds": {GLUCOSE: [-UPTAKE, 1000.0]}})
    return str(answer["media_id"])


def alone_on_glucose(model: cobra.Model) -> float:
    """FBA growth by hand: glucose up to UPTAKE, nothing else taken up."""
    with model:
        for reaction in model.exchanges:
            reaction.lower_bound = -UPTAKE if reaction.id == f"EX_{GLUCOSE}_e0" else 0.0
        return float(model.slim_optimize(error_value=0.0))


def micom_direct(models: list[cobra.Model], abundances: list[float], folder: Path) -> micom.Community:
    """MICOM's own community of the same models, from files, on glucose: no gem-flux code."""
    files = []
    for model in models:
        save_json_model(model, str(folder / f"{model.id}.json"))
        files.append(str(folder / f"{model.id}.json"))
    taxonomy = pd.DataFrame({"id": [m.id for m in models], "file": files, "abundance": abundances})
    community = micom.Community(taxonomy, id="direct", solver="hybrid", progress=False)
    community.medium = {f"EX_{GLUCOSE}_m": UPTAKE}
    return community


def ours(models: list[cobra.Model], abundances: list[float]) -> tuple[Any, dict[str, str]]:
    members = [Member(m.id, a, to_json(m)) for m, a in zip(models, abundances, strict=True)]
    community, taxa = build_micom_community(members, "ours")
    applied, missing = put_community_on_medium(community, {GLUCOSE: (-UPTAKE, 1000.0), "cpd00009": (-10.0, 1000.0)})
    assert applied == [GLUCOSE] and missing == ["cpd00009"]  # no member exchanges phosphate
    return community, taxa


def test_two_auxotrophs_rescue_each_other_as_micom_says(tmp_path: Path) -> None:
    lys, arg = lysine_auxotroph(), arginine_auxotroph()
    assert alone_on_glucose(lys) == alone_on_glucose(arg) == 0.0  # neither grows alone
    abundances = [0.3, 0.7]
    community, taxa = ours([lys, arg], abundances)
    grown = cooperative_growth(community, taxa, 0.5)

    direct = micom_direct([lysine_auxotroph(), arginine_auxotroph()], abundances, tmp_path)
    solution = direct.cooperative_tradeoff(fraction=0.5, fluxes=True, pfba=True)
    assert grown.community_growth == pytest.approx(solution.growth_rate, abs=TOLERANCE)
    assert {m["member"]: m["growth_rate"] for m in grown.members} == pytest.approx(
        {t: solution.members.at[t, "growth_rate"] for t in ("lys_minus", "arg_minus")}, abs=TOLERANCE)
    assert all(m["growth_rate"] > 0.5 for m in grown.members)  # together both grow
    for row in grown.exchanges:  # every member exchange equals MICOM's flux
        flux = solution.fluxes.at[row["member"], f"EX_{row['compound_id']}_e0"]
        assert row["flux"] == pytest.approx(abs(flux), abs=TOLERANCE)
        assert row["direction"] == ("secretion" if flux > 0 else "uptake")

    # the cross-feeding: arginine from the lysine auxotroph to the arginine auxotroph and back
    pairs = {(c["compound_id"], c["from_member"], c["to_member"]) for c in grown.cross_feeding}
    assert pairs == {(ARGININE, "lys_minus", "arg_minus"), (LYSINE, "arg_minus", "lys_minus")}
    assert {c["name"] for c in grown.cross_feeding} == {"L-Arginine", "L-Lysine"}
    # ... equal to MICOM's own "provided" interactions on its own solution
    from micom.interaction import interactions
    from micom.workflows.results import GrowthResults

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = interactions(GrowthResults.from_solution(solution, direct), None, progress=False)
    provided = found[found["class"] == "provided"]
    assert {(r.metabolite.rsplit("_", 1)[0], r.focal, r.partner): r.flux for r in provided.itertuples()} == \
        pytest.approx({(c["compound_id"], c["from_member"], c["to_member"]): c["flux"] for c in grown.cross_feeding},
                      abs=TOLERANCE)

    # mass balance: the community's exchange with the medium = what members secrete - what they take up
    net: dict[str, float] = {}
    for row in grown.exchanges:
        net[row["compound_id"]] = net.get(row["compound_id"], 0.0) + \
            (row["weighted"] if row["direction"] == "secretion" else -row["weighted"])
    environment = {e["compound_id"]: e["flux"] for e in grown.environment}
    assert environment[GLUCOSE] < 0
    assert environment[GLUCOSE] == pytest.approx(solution.fluxes.at["medium", f"EX_{GLUCOSE}_m"], abs=TOLERANCE)
    for compound, flux in net.items():
        assert environment.get(compound, 0.0) == pytest.approx(flux, abs=1e-6), compound


def test_one_member_reproduces_its_fba_growth() -> None:
    model = prototroph()
    expected = alone_on_glucose(model)
    assert expected > 1.0
    community, taxa = ours([model], [1.0])
    grown = cooperative_growth(community, taxa, 1.0)
    assert grown.community_growth == pytest.approx(expected, abs=TOLERANCE)
    assert grown.members[0]["growth_rate"] == pytest.approx(expected, abs=TOLERANCE)
    assert grown.cross_feeding == []


def test_knockouts_and_minimal_medium_equal_micom(tmp_path: Path) -> None:
    models = [lysine_auxotroph(), arginine_auxotroph(), prototroph()]
    community, taxa = ours(models, [1.0, 1.0, 1.0])
    found = member_knockouts(community, taxa, None, 0.5)
    direct = micom_direct([lysine_auxotroph(), arginine_auxotroph(), prototroph()], [1.0, 1.0, 1.0], tmp_path)
    change = direct.knockout_taxa(fraction=0.5, method="change", progress=False)
    assert len(found.rows) == 6
    for row in found.rows:
        assert row["change"] == pytest.approx(change.at[row["removed"], row["member"]], abs=TOLERANCE), row
    without = {(r["removed"], r["member"]): r for r in found.rows}
    # without the lysine auxotroph, the prototroph feeds the arginine auxotroph its arginine
    assert without[("lys_minus", "arg_minus")]["growth_after"] > 0.1
    assert without[("lys_minus", "proto")]["change"] > -1e-6  # the prototroph needs nobody

    target = 1.0
    medium = minimal_community_medium(community, target, 0.1)
    reference = micom.media.minimal_medium(direct, target, min_growth=0.1)
    assert {c["compound_id"]: c["uptake"] for c in medium.compounds} == pytest.approx(
        {r.rsplit("_", 1)[0].removeprefix("EX_"): v for r, v in reference.items()}, abs=TOLERANCE)


def test_limiting_compounds_as_micom_grows_on_the_halved_medium(tmp_path: Path) -> None:
    """Glucose (the only carbon) and a little lysine limit the pair's growth; arginine, offered far
    beyond what it takes up, does not: MICOM's own cooperative tradeoff on the medium with each
    bound halved gives the growth reported for it."""
    medium = {GLUCOSE: (-UPTAKE, 1000.0), LYSINE: (-0.2, 1000.0), ARGININE: (-1000.0, 1000.0)}
    community, taxa = ours([lysine_auxotroph(), arginine_auxotroph()], [0.5, 0.5])
    put_community_on_medium(community, medium)
    found = limiting_compounds(community, 0.5)
    assert [(r["compound_id"], r["limiting"]) for r in found.rows] == \
        [(GLUCOSE, True), (LYSINE, True), (ARGININE, False)]
    assert found.solved == 2  # arginine's uptake is far below half its bound: not solved again
    assert found.rows[0]["growth_drop"] > found.rows[1]["growth_drop"] > 1e-3

    direct = micom_direct([lysine_auxotroph(), arginine_auxotroph()], [0.5, 0.5], tmp_path)
    whole = {f"EX_{c}_m": -lower for c, (lower, _) in medium.items()}
    direct.medium = whole
    base = direct.cooperative_tradeoff(fraction=0.5).growth_rate
    assert found.community_growth == pytest.approx(base, abs=TOLERANCE)
    assert cooperative_growth(community, taxa, 0.5).community_growth == pytest.approx(base, abs=TOLERANCE)
    for row in found.rows:
        direct.medium = {**whole, f"EX_{row['compound_id']}_m": whole[f"EX_{row['compound_id']}_m"] / 2}
        halved = direct.cooperative_tradeoff(fraction=0.5).growth_rate
        assert row["growth_halved"] == pytest.approx(halved, abs=TOLERANCE), row
        assert row["growth_drop"] == pytest.approx(base - halved, abs=TOLERANCE), row
        if row["limiting"]:
            assert halved < base - 1e-3, row
        else:
            assert halved == pytest.approx(base, abs=1e-6), row


def test_a_kept_community_answers_as_one_built_anew(tmp_path: Path) -> None:
    """A worker's next job on the same members borrows the community built before
    (modeling/community/reuse.py): with other abundances, another medium and after knockouts, its
    answers equal MICOM's own community built for them; what a job changed is undone after it, and
    a job that failed leaves nothing kept."""
    from gem_flux_mcp.modeling.community.reuse import community_of, forget

    forget()
    models = [lysine_auxotroph(), arginine_auxotroph(), prototroph()]

    def members(abundances: list[float]) -> list[Member]:
        return [Member(m.id, a, to_json(m)) for m, a in zip(models, abundances, strict=True)]

    glucose = {GLUCOSE: (-UPTAKE, 1000.0)}
    with community_of(members([1.0, 1.0, 1.0]), "first") as (community, taxa, reused):
        assert not reused
        built = {r.id: r.bounds for r in community.exchanges}  # MICOM's: every exchange open
        put_community_on_medium(community, glucose)
        member_knockouts(community, taxa, None, 0.5)
    for abundances in ([3.0, 7.0, 1.0], [1.0, 1.0, 1.0]):
        with community_of(members(abundances), "again") as (community, taxa, reused):
            assert reused
            put_community_on_medium(community, glucose)
            grown = cooperative_growth(community, taxa, 0.5)
        direct = micom_direct([lysine_auxotroph(), arginine_auxotroph(), prototroph()], abundances, tmp_path)
        solution = direct.cooperative_tradeoff(fraction=0.5, fluxes=True, pfba=True)
        assert grown.community_growth == pytest.approx(solution.growth_rate, abs=TOLERANCE)
        assert {m["member"]: m["growth_rate"] for m in grown.members} == pytest.approx(
            {t: solution.members.at[t, "growth_rate"] for t in taxa}, abs=TOLERANCE)
        for row in grown.exchanges:
            assert row["flux"] == pytest.approx(abs(solution.fluxes.at[row["member"], f"EX_{row['compound_id']}_e0"]),
                                                abs=TOLERANCE)

    # the medium of the last job is gone; offered only lysine and arginine, nobody has a carbon source
    with community_of(members([1.0, 1.0, 1.0]), "bare") as (community, taxa, reused):
        assert reused and {r.id: r.bounds for r in community.exchanges} == built
        put_community_on_medium(community, {LYSINE: (-5.0, 1000.0), ARGININE: (-5.0, 1000.0)})
        assert cooperative_growth(community, taxa, 0.5).community_growth == 0.0
        assert community.reactions.get_by_id(f"EX_{LYSINE}_m").lower_bound == -5.0
    with community_of(members([1.0, 1.0, 1.0]), "after") as (community, taxa, reused):
        assert reused and {r.id: r.bounds for r in community.exchanges} == built

    with pytest.raises(RuntimeError), community_of(members([1.0, 1.0, 1.0]), "failing") as (community, _, reused):
        assert reused
        raise RuntimeError("a job that fails")
    with community_of(members([1.0, 1.0, 1.0]), "fresh") as (_, _, reused):
        assert not reused  # built anew after the failure
    with community_of([Member(m.id, 1.0, to_json(m)) for m in models[:2]],
                      "pair") as (community, taxa, reused):
        assert not reused and sorted(taxa) == ["arg_minus", "lys_minus"]  # other members: built anew
    forget()


def test_member_checks_and_abundances() -> None:
    assert relative_abundances(None, 4) == [0.25] * 4
    assert relative_abundances([1, 3], 2) == [0.25, 0.75]
    for bad in ([0, 1], [-1, 2], [1], [float("nan"), 1], ["a", 1], [True, 1], "1,2"):
        with pytest.raises(ValidationError) as refused:
            relative_abundances(bad, 2)
        assert refused.value.code == "INVALID_ABUNDANCES", bad
    check_member("ok", lysine_auxotroph())
    with pytest.raises(ValidationError) as refused:
        check_member("textbook", textbook())  # BiGG ids: glc__D_e shares nothing with cpd00027_e0
    assert refused.value.code == "COMMUNITY_NAMESPACE_MISMATCH" and "EX_glc__D_e" in \
        refused.value.details["foreign_exchanges"]
    closed = lysine_auxotroph()
    closed.remove_reactions([r for r in closed.exchanges])
    with pytest.raises(ValidationError) as refused:
        check_member("closed", closed)
    assert refused.value.code == "COMMUNITY_NAMESPACE_MISMATCH" and refused.value.details["exchanges"] == 0


@pytest.mark.anyio
async def test_community_tools(server_env: dict[str, str], tmp_path: Path) -> None:
    for model in (lysine_auxotroph(), arginine_auxotroph(), prototroph(), textbook()):
        save_json_model(model, str(tmp_path / f"{model.id}.json"))
    async with in_process_client(server_env) as client:
        for name in ("lys_minus", "arg_minus", "proto", "e_coli_core"):
            await call(client, "import_model", {"file_path": f"{name}.json", "model_name": name.replace("_", "")})
        glucose = (await call(client, "build_media", {"compounds": [GLUCOSE],
                                                      "custom_bounds": {GLUCOSE: [-UPTAKE, 1000.0]}}))["media_id"]
        pair = ["lysminus.draft", "argminus.draft"]
        built = await call(client, "build_community", {"model_ids": pair, "abundances": [3, 7],
                                                       "community_name": "pair"})
        assert built["community_id"] == "pair"
        assert [(m["model_id"], m["abundance"]) for m in built["members"]] == [(pair[0], 0.3), (pair[1], 0.7)]

        answer = await call(client, "run_community", {"community_id": "pair", "media_id": glucose,
                                                      "output_path": "cross_feeding.tsv", "limiting_compounds": True})
        assert list(answer)[:4] == ["success", "community_id", "media_id", "summary"]
        direct = micom_direct([lysine_auxotroph(), arginine_auxotroph()], [0.3, 0.7], tmp_path)
        solution = direct.cooperative_tradeoff(fraction=0.5, fluxes=True, pfba=True)
        assert answer["summary"]["community_growth"] == pytest.approx(solution.growth_rate, abs=TOLERANCE)
        assert answer["summary"]["growing_members"] == 2 and answer["summary"]["cross_feedings"] == 2
        assert {m["member"]: m["growth_rate"] for m in answer["members"]} == pytest.approx(
            {pair[0]: solution.members.at["lys_minus", "growth_rate"],
             pair[1]: solution.members.at["arg_minus", "growth_rate"]}, abs=TOLERANCE)
        assert {(c["compound_id"], c["from_member"], c["to_member"]) for c in answer["cross_feeding"]} == \
            {(ARGININE, pair[0], pair[1]), (LYSINE, pair[1], pair[0])}
        with (tmp_path / "cross_feeding.tsv").open() as handle:
            assert len(list(csv.DictReader(handle, delimiter="\t"))) == 2
        assert answer["next_offset"] is None and answer["medium_missing"] == []
        limiting = answer["limiting_compounds"]  # glucose, the one carbon source: halved, growth halves
        assert (limiting["tested"], limiting["limiting"], limiting["solved"]) == (1, 1, 1)
        assert limiting["rows"][0]["compound_id"] == GLUCOSE and limiting["rows"][0]["limiting"]
        assert limiting["rows"][0]["growth_halved"] == pytest.approx(solution.growth_rate / 2, abs=TOLERANCE)

        knocked = await call(client, "community_knockouts", {"community_id": "pair", "media_id": glucose,
                                                             "members": [pair[0]]})
        assert [(r["removed"], r["member"]) for r in knocked["rows"]] == [(pair[0], pair[1])]
        assert knocked["rows"][0]["growth_after"] == pytest.approx(0.0, abs=1e-6)
        assert knocked["summary"]["dependencies"] == 1

        minimal = await call(client, "community_minimal_medium", {"community_id": "pair", "media_id": glucose,
                                                                   "target_growth_rate": 1.0,
                                                                   "min_member_growth": 0.1})
        reference = micom.media.minimal_medium(direct, 1.0, min_growth=0.1)
        assert {c["compound_id"]: c["uptake"] for c in minimal["compounds"]} == pytest.approx(
            {r.removeprefix("EX_").rsplit("_", 1)[0]: v for r, v in reference.items()}, abs=TOLERANCE)
        assert minimal["custom_bounds"] == {c["compound_id"]: [-c["uptake"], 1000.0] for c in minimal["compounds"]}
        await call(client, "community_minimal_medium", {"community_id": "pair", "media_id": glucose,
                                                        "target_growth_rate": 9.0}, error="COMMUNITY_INFEASIBLE")

        # bad input: a clear error each, nothing stored
        await call(client, "build_community", {"model_ids": ["nope.draft"], "community_name": "bad"},
                   error="MODEL_NOT_FOUND")
        await call(client, "build_community", {"model_ids": pair, "abundances": [1, -1], "community_name": "bad"},
                   error="INVALID_ABUNDANCES")
        await call(client, "build_community", {"model_ids": pair, "abundances": [1], "community_name": "bad"},
                   error="INVALID_ABUNDANCES")
        await call(client, "build_community", {"model_ids": [pair[0], pair[0]], "community_name": "bad"},
                   error="INVALID_COMMUNITY_MEMBERS")
        await call(client, "build_community", {"model_ids": [], "community_name": "bad"},
                   error="INVALID_COMMUNITY_MEMBERS")
        mixed = await call(client, "build_community", {"model_ids": [pair[0], "ecolicore.draft"],
                                                       "community_name": "bad"}, error="COMMUNITY_NAMESPACE_MISMATCH")
        assert mixed["details"]["model_id"] == "ecolicore.draft"
        await call(client, "build_community", {"model_ids": pair, "community_name": "pair"}, error="DUPLICATE_NAME")
        await call(client, "run_community", {"community_id": "bad", "media_id": glucose}, error="COMMUNITY_NOT_FOUND")
        phosphate = (await call(client, "build_media", {"compounds": ["cpd00009"]}))["media_id"]
        await call(client, "run_community", {"community_id": "pair", "media_id": phosphate},
                   error="MEDIA_INCOMPATIBLE")
        await call(client, "run_community", {"community_id": "pair", "media_id": glucose, "tradeoff": 0},
                   error="INVALID_TRADEOFF")
        await call(client, "community_knockouts", {"community_id": "pair", "media_id": glucose,
                                                   "members": ["proto.draft"]}, error="INVALID_COMMUNITY_MEMBERS")
        store = client.resources.store
        assert [c.community_id for c in store.db.list_communities("local")] == ["pair"]  # none of the refused
        recorded = store.list_community_results("local", "pair")
        assert [r.kind for r in recorded] == ["community_minimal_medium", "community_knockouts", "community_growth"]
        assert recorded[2].summary["member_growth"] == {m["member"]: m["growth_rate"] for m in answer["members"]}
        assert recorded[2].summary["limiting_compounds"] == [GLUCOSE]

        shown = await call(client, "get_community", {"community_id": "pair"})
        assert [(m["model_id"], m["state"]) for m in shown["members"]] == [(pair[0], "stored"), (pair[1], "stored")]
        assert [r["kind"] for r in shown["results"]] == [r.kind for r in recorded]

        # a member deleted, then replaced under the same id: refused, never silently used
        await call(client, "delete_model", {"model_id": pair[0]})
        await call(client, "run_community", {"community_id": "pair", "media_id": glucose}, error="MODEL_NOT_FOUND")
        shown = await call(client, "get_community", {"community_id": "pair"})
        assert [m["state"] for m in shown["members"]] == ["deleted", "stored"]
        save_json_model(prototroph(), str(tmp_path / "other.json"))
        await call(client, "import_model", {"file_path": "other.json", "model_name": "lysminus"})
        changed = await call(client, "run_community", {"community_id": "pair", "media_id": glucose},
                             error="COMMUNITY_MEMBER_CHANGED")
        assert changed["details"]["model_id"] == pair[0]
        shown = await call(client, "get_community", {"community_id": "pair"})
        assert [m["state"] for m in shown["members"]] == ["replaced", "stored"]


def test_community_command(server_env: dict[str, str], cli_in_process: CliRun, tmp_path: Path) -> None:
    for model in (lysine_auxotroph(), arginine_auxotroph()):
        save_json_model(model, str(tmp_path / f"{model.id}.json"))
    (tmp_path / "glucose.json").write_text(json.dumps({"compounds": {GLUCOSE: {"bounds": [-UPTAKE, 1000.0]}}}))
    proc = subprocess.run([GEM_FLUX, "community", str(tmp_path / "lys_minus.json"), str(tmp_path / "arg_minus.json"),
                           "--medium", str(tmp_path / "glucose.json"), "--abundances", "0.3,0.7", "--knockouts",
                           "--minimal-medium", "1", "--limiting",
                           "--out", str(tmp_path / "cf.tsv"), "--json"],
                          capture_output=True, text=True, timeout=300, env=server_env)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    solution = micom_direct([lysine_auxotroph(), arginine_auxotroph()], [0.3, 0.7], tmp_path).cooperative_tradeoff(
        fraction=0.5)
    assert result["community_growth"] == pytest.approx(solution.growth_rate, abs=TOLERANCE)
    assert {(c["compound_id"], c["from_member"]) for c in result["cross_feeding"]} == \
        {(ARGININE, "lys_minus"), (LYSINE, "arg_minus")}
    assert len(result["knockouts"]) == 2 and all(r["growth_after"] < 1e-6 for r in result["knockouts"])
    assert len((tmp_path / "cf.tsv").read_text().splitlines()) == 3
    assert [c["compound_id"] for c in result["minimal_medium"]] == [GLUCOSE]
    assert [(c["compound_id"], c["limiting"]) for c in result["limiting_compounds"]] == [(GLUCOSE, True)]
    code, out, said = cli_in_process("community", str(tmp_path / "lys_minus.json"), "--medium",
                                     str(tmp_path / "glucose.json"), "--tradeoff", "2")
    assert code != 0 and "INVALID_TRADEOFF" in out + said


@pytest.mark.anyio
async def test_list_and_delete_communities(server_env: dict[str, str], tmp_path: Path) -> None:
    async with in_process_client(server_env) as client:
        glucose = await store_three_members(client, tmp_path)
        empty = await call(client, "list_communities", {})
        assert empty["total_communities"] == 0 and empty["communities"] == [] and empty["next_offset"] is None
        pair = ["lysminus.draft", "argminus.draft"]
        for name, ids in (("pair", pair), ("trio", [*pair, "proto.draft"]), ("solo", ["proto.draft"])):
            await call(client, "build_community", {"model_ids": ids, "community_name": name})
        await call(client, "run_community", {"community_id": "pair", "media_id": glucose})

        first = await call(client, "list_communities", {"limit": 2})
        assert first["total_communities"] == 3 and first["next_offset"] == 2
        assert [(c["community_id"], c["num_members"], c["num_results"]) for c in first["communities"]] == \
            [("pair", 2, 1), ("trio", 3, 0)]
        assert first["communities"][1]["member_ids"] == [*pair, "proto.draft"]
        last = await call(client, "list_communities", {"offset": 2, "limit": 2})
        assert [c["community_id"] for c in last["communities"]] == ["solo"] and last["next_offset"] is None
        await call(client, "list_communities", {"offset": 3}, error="INVALID_OFFSET")
        await call(client, "list_communities", {"limit": 0}, error="INVALID_LIMIT")

        deleted = await call(client, "delete_community", {"community_id": "pair"})
        assert deleted["deleted_community_id"] == "pair" and deleted["deleted_results"] == 1
        gone = await call(client, "delete_community", {"community_id": "pair"}, error="COMMUNITY_NOT_FOUND")
        assert gone["details"]["available_communities"] == ["trio", "solo"]
        await call(client, "get_community", {"community_id": "pair"}, error="COMMUNITY_NOT_FOUND")
        await call(client, "run_community", {"community_id": "pair", "media_id": glucose},
                   error="COMMUNITY_NOT_FOUND")
        await call(client, "get_model", {"model_id": pair[0]})  # the members are kept
        # the results went with it: a new community under the same id starts with none
        await call(client, "build_community", {"model_ids": pair, "community_name": "pair"})
        assert (await call(client, "get_community", {"community_id": "pair"}))["results"] == []
        tools = {t.name: t for t in await client.list_tools()}
        assert tools["delete_community"].annotations.destructive_hint is True
        assert tools["list_communities"].annotations.read_only_hint is True

    # the same from the command line, on the same state folder
    listed = subprocess.run([GEM_FLUX, "community", "list", "--json", "--limit", "2"], capture_output=True,
                            text=True, timeout=120, env=server_env)
    assert listed.returncode == 0, listed.stderr
    page = json.loads(listed.stdout)
    assert page["total_communities"] == 3 and [c["community_id"] for c in page["communities"]] == ["trio", "solo"]
    removed = subprocess.run([GEM_FLUX, "community", "delete", "trio"], capture_output=True, text=True, timeout=120,
                             env=server_env)
    assert removed.returncode == 0 and "deleted trio" in removed.stdout, removed.stderr
    again = subprocess.run([GEM_FLUX, "community", "delete", "trio"], capture_output=True, text=True, timeout=120,
                           env=server_env)
    assert again.returncode == 1 and "COMMUNITY_NOT_FOUND" in again.stderr
    refused = subprocess.run([GEM_FLUX, "community", "list", "--limit", "0"], capture_output=True, text=True,
                             timeout=120, env=server_env)
    assert refused.returncode == 1 and "INVALID_LIMIT" in refused.stderr


@pytest.mark.slow  # starts a Dask LocalCluster
def test_many_samples_as_one_dask_batch(server_env: dict[str, str], tmp_path: Path) -> None:
    """Three samples of the same three members (one abundance line each) on 2 Dask workers: each
    sample's growth equals MICOM's own community of that sample's members; a rerun skips them, a
    sample whose abundances change is grown again."""
    for model in (lysine_auxotroph(), arginine_auxotroph(), prototroph()):
        save_json_model(model, str(tmp_path / f"{model.id}.json"))
    (tmp_path / "glucose.json").write_text(json.dumps({"compounds": {GLUCOSE: {"bounds": [-UPTAKE, 1000.0]}}}))
    table = tmp_path / "samples.tsv"
    table.write_text("sample\tlys_minus\targ_minus\tproto\npair\t3\t7\t0\nall three\t1\t1\t1\nalone\t1\t0\t0\n")
    command = [GEM_FLUX, "community", *(str(tmp_path / f"{m}.json") for m in ("lys_minus", "arg_minus", "proto")),
               "--medium", str(tmp_path / "glucose.json"), "--samples", str(table), "--out-dir", str(tmp_path / "out"),
               "--workers", "2", "--json"]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600, env=server_env)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["cluster"].startswith("LocalCluster of 2")
    rows = {r["sample"]: r for r in result["samples"]}
    assert [r["sample"] for r in result["samples"]] == ["pair", "all three", "alone"]
    assert all(r["status"] == "ok" and not r.get("skipped") for r in rows.values())

    pair = micom_direct([lysine_auxotroph(), arginine_auxotroph()], [0.3, 0.7], tmp_path).cooperative_tradeoff(
        fraction=0.5)
    assert rows["pair"]["community_growth"] == pytest.approx(pair.growth_rate, abs=TOLERANCE)
    assert rows["pair"]["member_growth"] == pytest.approx(
        {t: pair.members.at[t, "growth_rate"] for t in ("lys_minus", "arg_minus")}, abs=TOLERANCE)
    three = micom_direct([lysine_auxotroph(), arginine_auxotroph(), prototroph()], [1, 1, 1], tmp_path)
    solution = three.cooperative_tradeoff(fraction=0.5)
    assert rows["all three"]["member_growth"] == pytest.approx(
        {t: solution.members.at[t, "growth_rate"] for t in ("lys_minus", "arg_minus", "proto")}, abs=TOLERANCE)
    assert rows["alone"]["community_growth"] == 0.0 and rows["alone"]["growing_members"] == 0  # an auxotroph alone

    out = tmp_path / "out"
    with (out / "member_growth.tsv").open() as handle:
        growth = list(csv.DictReader(handle, delimiter="\t"))
    assert [(g["sample"], g["member"]) for g in growth] == [
        ("pair", "lys_minus"), ("pair", "arg_minus"), ("all three", "lys_minus"), ("all three", "arg_minus"),
        ("all three", "proto"), ("alone", "lys_minus")]
    with (out / "cross_feeding.tsv").open() as handle:
        feeding = list(csv.DictReader(handle, delimiter="\t"))
    assert {(f["compound_id"], f["from_member"], f["to_member"]) for f in feeding if f["sample"] == "pair"} == \
        {(ARGININE, "lys_minus", "arg_minus"), (LYSINE, "arg_minus", "lys_minus")}

    again = json.loads(subprocess.run(command, capture_output=True, text=True, timeout=600, env=server_env).stdout)
    assert again["cluster"].startswith("none") and all(r["skipped"] for r in again["samples"])
    assert [r["member_growth"] for r in again["samples"]] == [r["member_growth"] for r in result["samples"]]

    table.write_text("sample\tlys_minus\targ_minus\tproto\npair\t3\t7\t0\nall three\t1\t2\t1\nalone\t1\t0\t0\n")
    changed = json.loads(subprocess.run(command, capture_output=True, text=True, timeout=600, env=server_env).stdout)
    assert [bool(r.get("skipped")) for r in changed["samples"]] == [True, False, True]

    table.write_text("sample\tlys_minus\tnobody\npair\t3\t7\n")
    refused = subprocess.run(command, capture_output=True, text=True, timeout=120, env=server_env)
    assert refused.returncode == 1 and "INVALID_ABUNDANCES" in refused.stderr


@pytest.mark.slow  # starts a Dask LocalCluster
def test_samples_on_one_worker_share_a_community_and_a_failed_sample_exits_3(server_env: dict[str, str],
                                                                             tmp_path: Path) -> None:
    """On one worker, the second sample of the same members (run next, whatever the table's order)
    grows on the community built for the first, its abundances set anew, with MICOM's answer for
    its own abundances; a member that cannot meet its own demands fails its sample
    (COMMUNITY_INFEASIBLE) without stopping the others, and the command exits 3."""
    stuck = lysine_auxotroph()
    stuck.id = "stuck"
    stuck.reactions.get_by_id(f"transport_{LYSINE}_c0").lower_bound = 1.0  # must take up lysine; none is offered
    for model in (lysine_auxotroph(), arginine_auxotroph(), stuck):
        save_json_model(model, str(tmp_path / f"{model.id}.json"))
    (tmp_path / "glucose.json").write_text(json.dumps({"compounds": {GLUCOSE: {"bounds": [-UPTAKE, 1000.0]}}}))
    table = tmp_path / "samples.tsv"
    table.write_text("sample\tlys_minus\targ_minus\tstuck\nfirst\t3\t7\t0\nstuck\t0\t0\t1\nsecond\t7\t3\t0\n")
    proc = subprocess.run([GEM_FLUX, "community", *(str(tmp_path / f"{m}.json") for m in ("lys_minus", "arg_minus",
                                                                                          "stuck")),
                           "--medium", str(tmp_path / "glucose.json"), "--samples", str(table), "--out-dir",
                           str(tmp_path / "out"), "--workers", "1", "--json"],
                          capture_output=True, text=True, timeout=600, env=server_env)
    assert proc.returncode == 3, proc.stderr
    rows = {r["sample"]: r for r in json.loads(proc.stdout)["samples"]}
    assert rows["stuck"]["status"] == "failed" and rows["stuck"]["error_code"] == "COMMUNITY_INFEASIBLE"
    assert rows["first"]["status"] == rows["second"]["status"] == "ok"
    assert sorted([rows["first"]["community_reused"], rows["second"]["community_reused"]]) == [False, True]
    for sample, abundances in (("first", [0.3, 0.7]), ("second", [0.7, 0.3])):
        solution = micom_direct([lysine_auxotroph(), arginine_auxotroph()], abundances, tmp_path).cooperative_tradeoff(
            fraction=0.5)
        assert rows[sample]["community_growth"] == pytest.approx(solution.growth_rate, abs=TOLERANCE)
        assert rows[sample]["member_growth"] == pytest.approx(
            {t: solution.members.at[t, "growth_rate"] for t in ("lys_minus", "arg_minus")}, abs=TOLERANCE)


@pytest.mark.anyio
@pytest.mark.slow  # starts a Dask LocalCluster
async def test_run_community_samples_in_the_background(server_env: dict[str, str], tmp_path: Path) -> None:
    """run_community_samples on a stored community: a background batch of one Dask task per sample,
    followed with get_batch_status; each sample's growth is MICOM's on that sample's members; a
    rerun into the same folder skips every sample; bad samples are refused before anything runs."""
    async with in_process_client(server_env) as client:
        glucose = await store_three_members(client, tmp_path)
        lys, arg, proto = "lysminus.draft", "argminus.draft", "proto.draft"
        await call(client, "build_community", {"model_ids": [lys, arg, proto], "community_name": "trio"})
        request = {"community_id": "trio", "media_id": glucose, "out_dir": "samples_out", "workers": 2,
                   "samples": {"pair": {lys: 3, arg: 7}, "all three": {lys: 1, arg: 1, proto: 1}}}
        started = await call(client, "run_community_samples", request)
        assert started["num_samples"] == 2 and started["samples"] == ["pair", "all three"]
        status = await call(client, "get_batch_status", {"job_id": started["job_id"], "wait_seconds": 300})
        assert status["status"] == "finished" and status["genomes"] == [], status
        assert status["progress"]["ok"] == 2 and status["progress"]["failed"] == 0
        rows = {r["sample"]: r for r in status["samples"]}
        pair = micom_direct([lysine_auxotroph(), arginine_auxotroph()], [0.3, 0.7], tmp_path).cooperative_tradeoff(
            fraction=0.5)
        assert rows["pair"]["members"] == 2
        assert rows["pair"]["member_growth"] == pytest.approx(
            {lys: pair.members.at["lys_minus", "growth_rate"], arg: pair.members.at["arg_minus", "growth_rate"]},
            abs=TOLERANCE)
        assert rows["all three"]["members"] == 3 and rows["all three"]["growing_members"] == 3
        assert (tmp_path / "samples_out" / "samples.tsv").is_file() and "samples_tsv" in status["files"]
        recorded = await call(client, "get_community", {"community_id": "trio"})
        assert recorded["results"][0]["kind"] == "community_samples"
        assert recorded["results"][0]["summary"]["counts"] == {"ok": 2}

        again = await call(client, "run_community_samples", request)
        rerun = await call(client, "get_batch_status", {"job_id": again["job_id"], "wait_seconds": 120})
        assert rerun["status"] == "finished" and rerun["cluster"].startswith("none")
        assert all(r["skipped"] for r in rerun["samples"]) and rerun["progress"]["done_before"] == 2

        refused = await call(client, "run_community_samples", {**request, "samples": {"x": {"nobody.draft": 1}}},
                             error="INVALID_ABUNDANCES")
        assert refused["details"]["unknown"] == ["nobody.draft"]
        await call(client, "run_community_samples", {**request, "samples": {"x": {lys: 0}}},
                   error="INVALID_ABUNDANCES")
        await call(client, "run_community_samples", {**request, "community_id": "nope"}, error="COMMUNITY_NOT_FOUND")
        await call(client, "run_community_samples", {**request, "workers": 64}, error="INVALID_WORKERS")
