"""Reconciling a model with a lab's phenotype plate (reconcile_phenotypes, modeling/reconcile):
the plate file read (calls, numbers with a threshold, unmapped rows, unknown layouts), the fit on
a small hand-made organism whose every change is checked with COBRApy directly (growth on each
reconciled growth well, none on the blocked ones, the shared route kept, gene-backed reactions
listed as conflicts and left alone, the source model unchanged), the holdout split, and the tool
over the in-process MCP client with the one error envelope for bad input. Essentiality the same
way: gene tables read and mapped, on the organism with genes a non-essential gene's lethal
deletion rescued by a template enzyme, an essential gene's gene-less bypass removed, a
gene-backed bypass listed as a conflict, a viable non-essential deletion protected; the tool and
the command line with gene lists and tables."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import cobra
import pytest
from cobra.io import save_json_model

from gem_flux_mcp.cli.main import main
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling.reconcile import (
    Gene,
    ReconcileOptions,
    Well,
    read_gene_table,
    read_plate,
    reconcile,
    split_wells,
)
from mcp_client import call, in_process_client
from models import toy_template

GLUCOSE, ACETATE, SUCCINATE, GLYCEROL, FRUCTOSE, G3P = (
    "cpd00027", "cpd00029", "cpd00036", "cpd00100", "cpd00082", "cpd00080")
X, Y, W = "cpd11416", "cpd00020", "cpd00010"  # the biomass precursor, an intermediate, a cofactor
FORMULAS = {c: "C3H6O3" for c in (GLUCOSE, ACETATE, SUCCINATE, GLYCEROL, FRUCTOSE, G3P, X, Y, W)}
BASE = {GLUCOSE: (-10.0, 1000.0)}
ARRAY: dict[str, tuple[float, float]] = {}  # the base medium without glucose, the carbon panel's reference


def organism() -> cobra.Model:
    """Glucose, succinate, glycerol and fructose each make X (biomass, bio1) through their own
    transporter and enzyme; succinate and glycerol share the last step Y -> X (no gene).
    Succinate's transporter has no gene and its enzyme only weak homology; glycerol's and
    fructose's steps are gene-backed. No acetate or G3P route."""
    model = cobra.Model("toy")
    mets: dict[str, cobra.Metabolite] = {}

    def met(cpd: str, where: str) -> cobra.Metabolite:
        key = f"{cpd}_{where}0"
        if key not in mets:
            mets[key] = cobra.Metabolite(key, name=cpd, formula=FORMULAS[cpd], compartment=f"{where}0")
        return mets[key]

    def reaction(rid: str, stoichiometry: dict[cobra.Metabolite, float], genes: str = "") -> cobra.Reaction:
        made = cobra.Reaction(rid, name=rid, lower_bound=0.0, upper_bound=1000.0)
        made.add_metabolites(stoichiometry)
        made.gene_reaction_rule = genes
        return made

    reactions = [
        reaction("rxn90001_c0", {met(GLUCOSE, "e"): -1, met(GLUCOSE, "c"): 1}, "g1"),
        reaction("rxn90002_c0", {met(GLUCOSE, "c"): -1, met(X, "c"): 1}, "g2"),
        reaction("rxn90020_c0", {met(SUCCINATE, "e"): -1, met(SUCCINATE, "c"): 1}),
        reaction("rxn90021_c0", {met(SUCCINATE, "c"): -1, met(Y, "c"): 1}, "g3"),
        reaction("rxn90030_c0", {met(Y, "c"): -1, met(X, "c"): 1}),
        reaction("rxn90040_c0", {met(GLYCEROL, "e"): -1, met(GLYCEROL, "c"): 1}, "g4"),
        reaction("rxn90041_c0", {met(GLYCEROL, "c"): -1, met(Y, "c"): 1}, "g5"),
        reaction("rxn90050_c0", {met(FRUCTOSE, "e"): -1, met(FRUCTOSE, "c"): 1}, "g6"),
        reaction("rxn90051_c0", {met(FRUCTOSE, "c"): -1, met(X, "c"): 1}, "g7"),
        reaction("bio1", {met(X, "c"): -1}),
    ]
    reactions[3].notes["gemflux_evidence"] = json.dumps({"weak_homology": {"gene": "g3", "identity": 30}})
    model.add_reactions(reactions)
    for cpd in (GLUCOSE, SUCCINATE, GLYCEROL, FRUCTOSE, G3P):
        model.add_boundary(met(cpd, "e"), type="exchange", reaction_id=f"EX_{cpd}_e0", lb=-1000.0, ub=1000.0)
    model.objective = "bio1"
    return model


def template() -> Any:
    """What gapfilling may add: an acetate transporter and the step acetate -> X; the cofactor
    step X -> W of the gene-rich organism (rxn90060, its own reaction, which a rescue may not take
    again without its gene) and an alternative enzyme for it (rxn90061)."""
    return toy_template({"rxn90010": ({f"{ACETATE}_e": -1, f"{ACETATE}_c": 1}, 1.0, ">"),
                         "rxn90011": ({f"{ACETATE}_c": -1, f"{X}_c": 1}, 1.0, ">"),
                         "rxn90060": ({f"{X}_c": -1, f"{W}_c": 1}, 0.5, ">"),
                         "rxn90061": ({f"{X}_c": -1, f"{W}_c": 1}, 1.0, ">")},
                        (GLUCOSE, ACETATE, SUCCINATE, GLYCEROL, FRUCTOSE, G3P, X, Y, W), formula="C3H6O3")


def organism_with_genes() -> cobra.Model:
    """The organism with essentiality to fit on glucose (the base medium): a second glucose -> X
    enzyme with no gene (rxn90003, a gapfilled bypass of g2), a second glucose transporter with a
    gene (rxn90004, g8: a gene-backed bypass of g1), and a cofactor W the biomass needs, made from X
    by g9's enzyme only (rxn90060): g9's deletion is lethal, the template offers rxn90061 instead."""
    model = organism()
    glucose_e, glucose_c, x = (model.metabolites.get_by_id(f"{GLUCOSE}_e0"),
                               model.metabolites.get_by_id(f"{GLUCOSE}_c0"), model.metabolites.get_by_id(f"{X}_c0"))
    w = cobra.Metabolite(f"{W}_c0", name=W, formula=FORMULAS[W], compartment="c0")
    added = []
    for rid, stoichiometry, genes in (("rxn90003_c0", {glucose_c: -1, x: 1}, ""),
                                      ("rxn90004_c0", {glucose_e: -1, glucose_c: 1}, "g8"),
                                      ("rxn90060_c0", {x: -1, w: 1}, "g9")):
        reaction = cobra.Reaction(rid, name=rid, lower_bound=0.0, upper_bound=1000.0)
        reaction.add_metabolites(stoichiometry)
        reaction.gene_reaction_rule = genes
        added.append(reaction)
    model.add_reactions(added)
    model.reactions.get_by_id("bio1").add_metabolites({w: -0.01})
    return model


def deletion_growth(model: cobra.Model, gene: str | None) -> float:
    """COBRApy directly: growth on glucose (the base medium) with `gene` knocked out."""
    with model:
        if gene is not None:
            model.genes.get_by_id(gene).knock_out()
        return growth_with(model, GLUCOSE)


OBSERVED = [Well(ACETATE, True), Well(SUCCINATE, False), Well(GLYCEROL, True), Well(FRUCTOSE, False),
            Well(G3P, True)]


def growth_with(model: cobra.Model, compound: str | None) -> float:
    """COBRApy directly: every exchange closed for uptake except `compound` at 10."""
    with model:
        for exchange in model.exchanges:
            cpd = next(iter(exchange.metabolites)).id.split("_")[0]
            exchange.lower_bound = -10.0 if cpd == compound else 0.0
        return float(model.slim_optimize(error_value=0.0))


def test_fit_checked_with_cobrapy() -> None:
    source = organism()
    reactions_before = {r.id: r.bounds for r in source.reactions}
    fit = reconcile(source, BASE, ARRAY, OBSERVED, template(), objective="bio1", formulas=FORMULAS)
    revised = fit.model
    # observed growth, not predicted: acetate gets its two reactions from the joint gapfill
    assert growth_with(source, ACETATE) == 0.0 and growth_with(revised, ACETATE) > 0.1
    added = {c.reaction: c for c in fit.changes if c.action == "added"}
    assert set(added) == {"rxn90010_c0", "rxn90011_c0"}
    assert all(c.wells == [ACETATE] and c.evidence == "none" for c in added.values())
    # predicted, not observed: succinate stops, by the transporter without genes (removed: its only
    # direction blocked), and the step Y -> X that glycerol needs stays
    assert growth_with(source, SUCCINATE) > 0.1 and growth_with(revised, SUCCINATE) <= 0.1
    taken = [c for c in fit.changes if c.action in ("blocked", "removed")]
    assert [(c.reaction, c.action, c.wells) for c in taken] == [("rxn90020_c0", "removed", [SUCCINATE])]
    assert "rxn90020_c0" not in revised.reactions and "rxn90030_c0" in revised.reactions
    assert growth_with(revised, GLYCEROL) > 0.1 and growth_with(revised, GLUCOSE) > 0.1
    # fructose runs on gene-backed reactions only: conflicts, not changes; the model still grows on it
    assert {c.reaction for c in fit.conflicts} == {"rxn90050_c0", "rxn90051_c0"}
    assert growth_with(revised, FRUCTOSE) > 0.1
    unreconciled = {u.compound: u.reason for u in fit.unreconciled}
    assert set(unreconciled) == {FRUCTOSE, G3P}
    assert "gene-backed" in unreconciled[FRUCTOSE] and "no set of template reactions" in unreconciled[G3P]
    assert fit.before[SUCCINATE] == pytest.approx(10.0) and fit.after[SUCCINATE] == pytest.approx(0.0)
    assert fit.after[ACETATE] == pytest.approx(10.0) and fit.base_growth == (pytest.approx(10.0), pytest.approx(10.0))
    assert fit.quality["growth_without_carbon"]["passed"] and fit.quality["growth_on_medium"]["passed"]
    # the source model is unchanged
    assert {r.id: r.bounds for r in source.reactions} == reactions_before


def test_gene_backed_blocks_only_when_allowed() -> None:
    """block_gene_backed: fructose, which runs on gene-backed reactions only, stops by blocking one
    of them (a change with evidence 'genes', not a conflict); succinate still stops by the
    transporter without genes (directions without evidence are tried first); every observed grower
    and the base medium keep growing. Checked with COBRApy directly."""
    source = organism()
    fit = reconcile(source, BASE, ARRAY, OBSERVED, template(), objective="bio1", formulas=FORMULAS,
                    options=ReconcileOptions(block_gene_backed=True))
    revised = fit.model
    taken = {c.reaction: c for c in fit.changes if c.action in ("blocked", "removed")}
    assert set(taken) == {"rxn90020_c0", "rxn90050_c0"}
    assert (taken["rxn90020_c0"].evidence, taken["rxn90020_c0"].wells) == ("none", [SUCCINATE])
    assert (taken["rxn90050_c0"].evidence, taken["rxn90050_c0"].genes, taken["rxn90050_c0"].wells) == (
        "genes", "g6", [FRUCTOSE])
    assert not fit.conflicts and FRUCTOSE not in {u.compound for u in fit.unreconciled}
    assert growth_with(source, FRUCTOSE) > 0.1 and growth_with(revised, FRUCTOSE) == 0.0
    assert growth_with(revised, SUCCINATE) == 0.0
    assert min(growth_with(revised, c) for c in (ACETATE, GLYCEROL, GLUCOSE)) > 0.1
    assert fit.quality["growth_on_medium"]["passed"] and fit.quality["growth_without_carbon"]["passed"]


def test_max_changes_limits_the_fit() -> None:
    fit = reconcile(organism(), BASE, ARRAY, OBSERVED, template(), objective="bio1", formulas=FORMULAS,
                    options=ReconcileOptions(max_changes=1))
    # acetate needs two additions: more than allowed, so none is made; the one change goes to succinate
    assert [(c.reaction, c.action) for c in fit.changes] == [("rxn90020_c0", "removed")]
    reasons = {u.compound: u.reason for u in fit.unreconciled}
    assert "more than max_changes" in reasons[ACETATE]
    # glycerol and succinate both observed not to grow: one removal (the shared step without genes)
    # answers both wells
    fit = reconcile(organism(), BASE, ARRAY, [Well(GLYCEROL, False), Well(SUCCINATE, False)], template(),
                    objective="bio1", formulas=FORMULAS, options=ReconcileOptions(max_changes=1))
    assert [(c.reaction, c.action, c.wells) for c in fit.changes] == [
        ("rxn90030_c0", "removed", [GLYCEROL, SUCCINATE])]
    assert growth_with(fit.model, GLYCEROL) == growth_with(fit.model, SUCCINATE) == 0.0


def test_growth_wells_gapfilled_in_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Joint gapfills over batches of wells (here both wells in one, with its two network
    copies): acetate and G3P each get their own transporter and step, each change names its
    well, and both grow after (COBRApy)."""
    from gem_flux_mcp.modeling.reconcile import fit as fit_module

    monkeypatch.setattr(fit_module, "JOINT_WELLS", 2)
    routes = toy_template({"rxn90010": ({f"{ACETATE}_e": -1, f"{ACETATE}_c": 1}, 1.0, ">"),
                           "rxn90011": ({f"{ACETATE}_c": -1, f"{X}_c": 1}, 1.0, ">"),
                           "rxn90012": ({f"{G3P}_e": -1, f"{G3P}_c": 1}, 1.0, ">"),
                           "rxn90013": ({f"{G3P}_c": -1, f"{X}_c": 1}, 1.0, ">")},
                          (GLUCOSE, ACETATE, SUCCINATE, GLYCEROL, FRUCTOSE, G3P, X, Y, W), formula="C3H6O3")
    source = organism()
    fit = reconcile(source, BASE, ARRAY, [Well(ACETATE, True), Well(G3P, True)], routes, objective="bio1",
                    formulas=FORMULAS)
    added = {c.reaction: c.wells for c in fit.changes if c.action == "added"}
    assert added == {"rxn90010_c0": [ACETATE], "rxn90011_c0": [ACETATE], "rxn90012_c0": [G3P],
                     "rxn90013_c0": [G3P]}
    assert not fit.unreconciled
    assert min(growth_with(fit.model, c) for c in (ACETATE, G3P)) > 0.1
    assert growth_with(source, ACETATE) == growth_with(source, G3P) == 0.0  # the source is unchanged


def test_out_of_time_is_reported_not_raised() -> None:
    """A fit whose time runs out answers: the wells it could not try are reported as such, and
    the source model comes back unchanged as the revision."""
    fit = reconcile(organism(), BASE, ARRAY, OBSERVED, template(), objective="bio1", formulas=FORMULAS,
                    options=ReconcileOptions(time_limit_s=1e-9))
    reasons = {u.compound: u.reason for u in fit.unreconciled}
    assert "ran out" in reasons[ACETATE] and "time limit ran out" in reasons[SUCCINATE]
    assert fit.changes == [] and fit.after[SUCCINATE] == fit.before[SUCCINATE]


def test_held_out_wells_are_predicted_but_not_fitted() -> None:
    fitted, held = split_wells(OBSERVED, 0.4, seed=7)
    assert len(held) == 2 and len(fitted) == 3 and {*fitted, *held} == set(OBSERVED)
    assert split_wells(OBSERVED, 0.4, seed=7) == (fitted, held)  # the same seed, the same split
    fit = reconcile(organism(), BASE, ARRAY, [Well(ACETATE, True)], template(), objective="bio1",
                    formulas=FORMULAS, also_predict=[SUCCINATE])
    assert set(fit.after) == {ACETATE, SUCCINATE}
    assert fit.after[SUCCINATE] == pytest.approx(10.0)  # held out: predicted, not changed


def lookup(values: list[str]) -> dict[str, str]:
    names = {"succinate": SUCCINATE, "d-glucose": GLUCOSE}
    return {v: names.get(v.lower(), v) for v in values if v.lower() in names or v.startswith("cpd")}


def test_plate_files() -> None:
    text = "Well\tCompound\tGrowth\nPM1-A5\tsuccinate\t+\nPM1-C9\tD-Glucose\tyes\nPM1-A6\tmystery\t-\n" \
           "PM1-A7\tcpd00029\tmaybe\n"
    reading = read_plate(text, threshold=None, lookup=lookup)
    assert {c: o.grows for c, o in reading.observations.items()} == {SUCCINATE: True, GLUCOSE: True}
    assert reading.observations[SUCCINATE].labels == ("PM1-A5",)
    assert sorted((u["value"], u["reason"][:10]) for u in reading.unmapped) == [
        ("maybe", "not a grow"), ("mystery", "not a know")]
    # numbers need a threshold; a well without a layout is reported
    numbers = "plate,well,OD\nPM1,A5,0.9\nPM1,B3,0.05\n"
    reading = read_plate(numbers, threshold=None, lookup=lookup)
    assert reading.observations == {} and {u["reason"] for u in reading.unmapped} == {
        "a numeric value needs a threshold"}
    reading = read_plate(numbers, threshold=0.2, lookup=lookup, wells={"PM1-A5": SUCCINATE})
    assert reading.observations[SUCCINATE].grows is True and reading.observations[SUCCINATE].labels == ("PM1-A5",)
    assert "no plate layout" in reading.unmapped[0]["reason"] and reading.unmapped[0]["value"] == "PM1-B3"
    # one compound called twice: the same call merges, different calls are reported and left out
    twice = "compound,growth\ncpd00036,1\nsuccinate,0\ncpd00027,1\nd-glucose,1\n"
    reading = read_plate(twice, threshold=None, lookup=lookup)
    assert set(reading.observations) == {GLUCOSE} and reading.observations[GLUCOSE].labels == ("cpd00027",
                                                                                               "d-glucose")
    assert reading.unmapped == [{"row": "", "value": SUCCINATE, "reason": "rows with different calls for this "
                                                                          "compound"}]
    with pytest.raises(ValidationError) as unknown:
        read_plate("strain,date\nK12,today\n", threshold=None, lookup=lookup)
    assert unknown.value.code == "UNKNOWN_PLATE_LAYOUT"
    assert "growth" in unknown.value.details["expected_columns"]["observation"]
    assert "compound" in unknown.value.details["expected_columns"]["compound (or well)"]


@pytest.mark.anyio
async def test_reconcile_tool(server_env: dict[str, str], tmp_path: Path) -> None:
    save_json_model(organism(), str(tmp_path / "toy.json"))
    (tmp_path / "plate.tsv").write_text("compound\tgrowth\ncpd00036\t-\nglycerol\t+\ncpd99999\t+\n")
    async with in_process_client(server_env) as client:
        await call(client, "import_model", {"file_path": "toy.json", "model_name": "toy"})
        medium = await call(client, "build_media", {"compounds": [GLUCOSE], "custom_bounds": {GLUCOSE: [-10, 1000]}})
        base = {"model_id": "toy.draft", "base_media_id": medium["media_id"]}
        answer = await call(client, "reconcile_phenotypes", {**base, "observed_file_path": "plate.tsv"})
        summary = answer["summary"]
        assert answer["model_id"] == summary["new_model_id"] != "toy.draft" and summary["panel"] == "carbon"
        assert summary["wells_observed"] == 2 and summary["unmapped_rows"] == 1
        assert answer["unmapped_rows"][0]["value"] == "cpd99999"
        assert answer["agreement"]["fitted"]["before"]["fp"] == 1 and answer["agreement"]["fitted"]["after"]["fp"] == 0
        assert answer["agreement"]["fitted"]["after"]["mcc"] == 1.0 and answer["agreement"]["held_out"] is None
        assert answer["quality_checks"]["growth_on_medium"]["value"] == pytest.approx(10.0)
        change, = answer["changes"]
        assert change["reaction_id"] == "rxn90020_c0" and change["wells"][0]["compound_id"] == SUCCINATE
        # the revision, exported and checked with COBRApy; the source is unchanged
        await call(client, "export_model", {"model_id": answer["model_id"], "file_path": "rev.json",
                                            "format": "json"})
        await call(client, "export_model", {"model_id": "toy.draft", "file_path": "src.json", "format": "json"})
        revised, source = (cobra.io.load_json_model(str(tmp_path / f)) for f in ("rev.json", "src.json"))
        assert growth_with(revised, SUCCINATE) <= 0.1 < growth_with(revised, GLYCEROL)
        assert growth_with(source, SUCCINATE) > 0.1 and "rxn90020_c0" in source.reactions
        history = await call(client, "get_model", {"model_id": answer["model_id"], "include_revisions": True})
        assert SUCCINATE in json.dumps(history["revisions"])
        # inline content, a holdout; bad input gives the one envelope
        held = await call(client, "reconcile_phenotypes", {
            **base, "observed_content": "compound,growth\ncpd00036,0\ncpd00100,1\ncpd00082,1\n",
            "holdout_fraction": 0.34, "seed": 1})
        assert held["summary"]["wells_held_out"] == 1 and held["agreement"]["held_out"] is not None
        # fructose runs on gene-backed reactions only: a conflict, unless the call allows blocking them
        fructose = {**base, "observed": {FRUCTOSE: False, GLYCEROL: True}}
        listed = await call(client, "reconcile_phenotypes", fructose)
        assert listed["changes"] == [] and listed["summary"]["conflicts"] == 2
        assert listed["summary"]["gene_backed_blocks"] == 0
        blocked = await call(client, "reconcile_phenotypes", {**fructose, "block_gene_backed": True})
        assert [(c["reaction_id"], c["evidence"], c["genes"]) for c in blocked["changes"]] == [
            ("rxn90050_c0", "genes", "g6")]
        assert blocked["summary"]["gene_backed_blocks"] == 1 and blocked["agreement"]["fitted"]["after"]["mcc"] == 1.0
        await the_dashboard_draws_the_fits(client.resources.store, answer, held)
        await call(client, "reconcile_phenotypes", {**base, "observed_content": "strain,date\nK12,today\n"},
                   error="UNKNOWN_PLATE_LAYOUT")
        await call(client, "reconcile_phenotypes", {**base, "observed": {SUCCINATE: False}, "holdout_fraction": 1.5},
                   error="INVALID_HOLDOUT_FRACTION")
        await call(client, "reconcile_phenotypes", {**base, "observed": {"no such thing": True}},
                   error="NO_OBSERVATIONS")
        await call(client, "reconcile_phenotypes", {**base}, error="NO_OBSERVATIONS")


async def the_dashboard_draws_the_fits(store: Any, fitted: dict[str, Any], held: dict[str, Any]) -> None:
    """The result page of each fit draws its plate: every observed well with its call after the
    fit, its call before (the strip) and, for the second fit, the held-out well outlined; the
    tables list the wells whose call changed and the held-out ones, as the answers say."""
    from test_dashboard_community import dashboard_client

    async with dashboard_client(store, "local") as http:
        pages = {}
        for answer in (fitted, held):
            found = next(r for r in store.list_results("local", answer["model_id"])
                         if r.kind == "reconcile_phenotypes" and r.summary["new_model_id"] == answer["model_id"])
            response = await http.get(f"/models/{answer['model_id']}/results/{found.id}")
            assert response.status_code == 200
            pages[answer["model_id"]] = response.text
    page = pages[fitted["model_id"]]
    plate = ET.fromstring(re.search(r"<svg id='reconcile-plate'.*?</svg>", page, re.S).group(0))  # type: ignore[union-attr]
    wells = {g.get("data-compound"): g for g in plate.iter("{http://www.w3.org/2000/svg}g")
             if g.get("class") == "well"}
    assert set(wells) == {SUCCINATE, GLYCEROL}
    assert (wells[SUCCINATE].get("data-before"), wells[SUCCINATE].get("data-status")) == ("growth", "no_growth")
    assert wells[SUCCINATE].get("data-observed") == "0" and wells[SUCCINATE].get("data-mismatch") == "0"
    assert (wells[GLYCEROL].get("data-before"), wells[GLYCEROL].get("data-status")) == ("growth", "growth")
    assert all(w.get("data-held-out") == "0" for w in wells.values())
    changed = re.search(r"<table id=changed-wells>(.*?)</table>", page, re.S)
    assert changed and SUCCINATE in changed.group(1) and GLYCEROL not in changed.group(1)
    before, after = (fitted["agreement"]["fitted"][when]["mcc"] for when in ("before", "after"))
    assert f"<b>{before:.4g}</b><span>MCC fitted, before" in page
    assert f"<b>{after:.4g}</b><span>MCC fitted, after" in page

    page = pages[held["model_id"]]
    outlined = re.findall(r"data-compound='(cpd\d+)'[^>]*data-held-out='1'", page)
    assert outlined == held["held_out"] and len(outlined) == 1
    listed = re.search(r"<table id=held-out-wells>(.*?)</table>", page, re.S)
    assert listed and outlined[0] in listed.group(1) and "stroke-dasharray" in page


def test_command_line(data_dir: Path, cache_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    save_json_model(organism(), str(tmp_path / "toy.json"))
    (tmp_path / "base.json").write_text(json.dumps({"compounds": {GLUCOSE: {"bounds": [-10, 1000]}}}))
    (tmp_path / "plate.csv").write_text("compound,growth\ncpd00036,no\ncpd00100,yes\n")
    argv = ["reconcile", str(tmp_path / "toy.json"), "--medium", str(tmp_path / "base.json"), "--plate",
            str(tmp_path / "plate.csv"), "--out", str(tmp_path / "revised.json"), "--json", "--quiet",
            "--data-dir", str(data_dir), "--cache-dir", str(cache_dir)]
    assert main(argv) == 0
    answer = json.loads(capsys.readouterr().out)
    assert [c["reaction_id"] for c in answer["changes"]] == ["rxn90020_c0"]
    assert answer["agreement"]["fitted"]["after"]["mcc"] == 1.0
    revised = cobra.io.load_json_model(str(tmp_path / "revised.json"))
    assert growth_with(revised, SUCCINATE) <= 0.1 < growth_with(revised, GLYCEROL)
    # fructose runs on gene-backed reactions only: a conflict by default, blocked when allowed
    (tmp_path / "plate2.csv").write_text("compound,growth\ncpd00082,no\ncpd00100,yes\n")
    plate2 = [*argv[:5], str(tmp_path / "plate2.csv"), *argv[6:]]
    assert main(plate2) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["changes"] == [] and answer["summary"]["conflicts"] == 2
    assert main([*plate2, "--block-gene-backed"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert [(c["reaction_id"], c["evidence"]) for c in answer["changes"]] == [("rxn90050_c0", "genes")]
    assert answer["summary"]["gene_backed_blocks"] == 1 and answer["summary"]["conflicts"] == 0
    revised = cobra.io.load_json_model(str(tmp_path / "revised.json"))
    assert growth_with(revised, FRUCTOSE) == 0.0 < growth_with(revised, GLYCEROL)
    (tmp_path / "odd.csv").write_text("strain,date\nK12,today\n")
    assert main([*argv[:5], str(tmp_path / "odd.csv"), *argv[6:]]) == 1
    assert "UNKNOWN_PLATE_LAYOUT" in capsys.readouterr().err


def test_essentiality_fit_checked_with_cobrapy() -> None:
    source = organism_with_genes()
    reactions_before = {r.id: r.bounds for r in source.reactions}
    wild_type = deletion_growth(source, None)
    assert deletion_growth(source, "g9") == 0.0 and deletion_growth(source, "g2") > 0.1 * wild_type
    genes = [Gene("g9", False), Gene("g2", True), Gene("g1", True), Gene("g7", False)]
    fit = reconcile(source, BASE, ARRAY, [Well(ACETATE, True)], template(), objective="bio1", formulas=FORMULAS,
                    genes=genes)
    revised = fit.model
    # observed non-essential, predicted lethal: the template's other enzyme, never rxn90060 again without g9
    rescued = [(c.reaction, c.action, c.wells, c.deletions) for c in fit.changes if c.deletions == ["g9"]]
    assert rescued == [("rxn90061_c0", "added", [], ["g9"])]
    assert deletion_growth(revised, "g9") > 0.1 * wild_type
    # observed essential, bypass without genes: removed; the base medium still grows through g2
    blocked = [(c.reaction, c.action, c.deletions) for c in fit.changes if c.action in ("blocked", "removed")]
    assert blocked == [("rxn90003_c0", "removed", ["g2"])]
    assert deletion_growth(revised, "g2") <= 0.1 * wild_type and deletion_growth(revised, None) > 0.1 * wild_type
    # observed essential, gene-backed bypass (g8's transporter): a conflict, left alone
    assert [(c.reaction, c.deletions) for c in fit.conflicts] == [("rxn90004_c0", ["g1"])]
    assert "rxn90004_c0" in revised.reactions and deletion_growth(revised, "g1") > 0.1 * wild_type
    assert [(u.gene, u.observed_essential) for u in fit.unreconciled_genes] == [("g1", True)]
    assert "gene-backed" in fit.unreconciled_genes[0].reason
    # the wells are fitted alongside; predictions before and after; the source model is unchanged
    assert growth_with(revised, ACETATE) > 0.1
    assert fit.essential("before", 0.1) == {"g9"} and fit.essential("after", 0.1) == {"g2"}
    assert {r.id: r.bounds for r in source.reactions} == reactions_before and "rxn90061_c0" not in source.reactions
    assert fit.quality["growth_without_carbon"]["passed"]



def test_bypass_blocks_keep_non_essential_deletions_growing() -> None:
    # g2's enzyme needs g10 too: g10's deletion, observed non-essential, grows only through the
    # bypass rxn90003 that g2's observation would remove, so the block is refused and said why
    source = organism_with_genes()
    source.reactions.get_by_id("rxn90002_c0").gene_reaction_rule = "g2 and g10"
    fit = reconcile(source, BASE, ARRAY, [], template(), objective="bio1", formulas=FORMULAS,
                    genes=[Gene("g2", True), Gene("g10", False)])
    assert fit.changes == [] and "rxn90003_c0" in fit.model.reactions
    wild_type = deletion_growth(fit.model, None)
    assert deletion_growth(fit.model, "g10") > 0.1 * wild_type and deletion_growth(fit.model, "g2") > 0.1 * wild_type
    assert [(u.gene, u.observed_essential) for u in fit.unreconciled_genes] == [("g2", True)]
    assert "non-essential gene's deletion" in fit.unreconciled_genes[0].reason
    # an isozyme in the rule: the deletion closes nothing, so no block can help; said at once
    source = organism_with_genes()
    source.reactions.get_by_id("rxn90002_c0").gene_reaction_rule = "g2 or g11"
    fit = reconcile(source, BASE, ARRAY, [], template(), objective="bio1", formulas=FORMULAS, genes=[Gene("g2", True)])
    assert fit.changes == [] and [u.gene for u in fit.unreconciled_genes] == ["g2"]
    assert "gene rule change" in fit.unreconciled_genes[0].reason
    # with max_changes spent on the wells, a gene is left with the reason
    fit = reconcile(organism_with_genes(), BASE, ARRAY, [Well(ACETATE, True)], template(), objective="bio1",
                    formulas=FORMULAS, genes=[Gene("g9", False)], options=ReconcileOptions(max_changes=2))
    assert {c.reaction for c in fit.changes} == {"rxn90010_c0", "rxn90011_c0"}
    assert [(u.gene, u.reason) for u in fit.unreconciled_genes] == [("g9", "max_changes reached")]
    # the time limit spent: the rescue and the block are reported, not tried; the answer still comes
    fit = reconcile(organism_with_genes(), BASE, ARRAY, [], template(), objective="bio1", formulas=FORMULAS,
                    genes=[Gene("g9", False), Gene("g2", True)], options=ReconcileOptions(time_limit_s=1e-9))
    assert [(u.gene, u.reason[:21]) for u in fit.unreconciled_genes] == [("g9", "the fit's time limit "),
                                                                         ("g2", "the fit's time limit ")]
    assert fit.changes == [] and fit.essential("after", 0.1) == {"g9"}


def test_gene_tables() -> None:
    genes = ["b0001", "b0002", "G3", "PA_0004.2", "x1", "X1"]
    text = ("locus_tag\tessential\nb0001\tyes\nB0002\tnon-essential\ng3\t1\npa_0004\tE\nx1\t0\nnope\tyes\n"
            "b0001\tessential\nb0002\tmaybe\n")
    reading = read_gene_table(text, fitness_threshold=None, model_genes=genes)
    assert {g: c.essential for g, c in reading.calls.items()} == {"b0001": True, "b0002": False, "G3": True,
                                                                   "PA_0004.2": True, "x1": False}
    assert reading.calls["b0001"].labels == ("b0001",) and reading.calls["PA_0004.2"].labels == ("pa_0004",)
    assert sorted((u["value"], u["reason"][:12]) for u in reading.unmapped) == [
        ("maybe", "not an essen"), ("nope", "not a gene o")]
    # fitness values: below the threshold is essential; no threshold, each row reported; mixed calls left out
    fitness = "gene,fitness\nb0001,-3.2\nb0002,0.1\nx1,-3\nx1,0.5\n"
    reading = read_gene_table(fitness, fitness_threshold=-2, model_genes=genes)
    assert {g: c.essential for g, c in reading.calls.items()} == {"b0001": True, "b0002": False}
    assert reading.unmapped == [{"row": "", "value": "x1", "reason": "rows with different calls for this gene"}]
    reading = read_gene_table(fitness, fitness_threshold=None, model_genes=genes)
    assert reading.calls == {} and {u["reason"] for u in reading.unmapped} == {"a fitness value needs "
                                                                              "fitness_threshold"}
    # ambiguous by case: reported; an unknown layout names the columns expected
    reading = read_gene_table("gene,essential\nX1,yes\nx1 ,yes\n", fitness_threshold=None, model_genes=["x1", "X1"])
    assert set(reading.calls) == {"X1", "x1"}
    reading = read_gene_table("gene,essential\nx1.3,yes\n", fitness_threshold=None, model_genes=["x1", "X1"])
    assert reading.calls == {} and "several model genes" in reading.unmapped[0]["reason"]
    with pytest.raises(ValidationError) as unknown:
        read_gene_table("gene,date\nb0001,today\n", fitness_threshold=None, model_genes=genes)
    assert unknown.value.code == "UNKNOWN_GENE_TABLE_LAYOUT"
    assert "essential" in unknown.value.details["expected_columns"]["essential call"]
    assert "fitness" in unknown.value.details["expected_columns"]["fitness (with fitness_threshold)"]


@pytest.mark.anyio
async def test_reconcile_tool_with_genes(server_env: dict[str, str], tmp_path: Path) -> None:
    save_json_model(organism_with_genes(), str(tmp_path / "genes.json"))
    (tmp_path / "screen.tsv").write_text("locus_tag\tfitness\ng9\t0.1\nG2\t-4\ng7.1\t-0.2\nnope\t-5\n")
    async with in_process_client(server_env) as client:
        await call(client, "import_model", {"file_path": "genes.json", "model_name": "genes"})
        medium = await call(client, "build_media", {"compounds": [GLUCOSE], "custom_bounds": {GLUCOSE: [-10, 1000]}})
        base = {"model_id": "genes.draft", "base_media_id": medium["media_id"]}
        # genes only (no plate), as lists
        answer = await call(client, "reconcile_phenotypes", {**base, "essential_genes": ["g2", "g1"],
                                                             "nonessential_genes": ["g9", "g7"]})
        summary, essentiality = answer["summary"], answer["agreement"]["essentiality"]
        assert summary["wells_observed"] == 0 and summary["genes_observed"] == summary["genes_fitted"] == 4
        assert essentiality["fitted"]["before"] | {"mcc": 0} == {
            "tp": 0, "fp": 1, "tn": 1, "fn": 2, "compared": 4, "accuracy": 0.25, "mcc": 0}
        assert (essentiality["fitted"]["after"]["tp"], essentiality["fitted"]["after"]["fn"]) == (1, 1)
        assert essentiality["fitted"]["after"]["fp"] == 1 and essentiality["held_out"] is None
        # the server's GramNegative template has no other way to W: g9 stays lethal, and says why
        assert [(c["reaction_id"], c["action"], c["observed_genes"]) for c in answer["changes"]] == [
            ("rxn90003_c0", "removed", ["g2"])]
        assert [(c["reaction_id"], c["observed_genes"]) for c in answer["conflicts"]] == [("rxn90004_c0", ["g1"])]
        unreconciled = {u["gene_id"]: u for u in answer["unreconciled_genes"]}
        assert set(unreconciled) == {"g9", "g1"} and unreconciled["g1"]["observed_essential"] is True
        assert "no set of template reactions" in unreconciled["g9"]["reason"]
        assert "gene-backed" in unreconciled["g1"]["reason"]
        # the revision checked with COBRApy; the source unchanged; the reasons name the genes
        await call(client, "export_model", {"model_id": answer["model_id"], "file_path": "rev.json",
                                            "format": "json"})
        revised = cobra.io.load_json_model(str(tmp_path / "rev.json"))
        wild_type = deletion_growth(revised, None)
        assert wild_type > 0.1 and deletion_growth(revised, "g2") <= 0.1 * wild_type
        assert deletion_growth(revised, "g1") > 0.1 * wild_type
        history = await call(client, "get_model", {"model_id": answer["model_id"], "include_revisions": True})
        assert "removed for genes g2" in json.dumps(history["revisions"])
        from test_dashboard_community import dashboard_client

        store = client.resources.store
        found = next(r for r in store.list_results("local", answer["model_id"]) if r.kind == "reconcile_phenotypes")
        async with dashboard_client(store, "local") as http:  # no wells observed: no plate, and it says so
            page = (await http.get(f"/models/{answer['model_id']}/results/{found.id}")).text
        assert "id=no-plate" in page and "essentiality only" in page and "reconcile-plate" not in page
        # a fitness table with a plate; ids mapped by case and without a version suffix; a gene holdout
        table = await call(client, "reconcile_phenotypes", {
            **base, "observed": {SUCCINATE: False}, "genes_file_path": "screen.tsv", "fitness_threshold": -1})
        assert table["summary"]["genes_observed"] == 3 and table["summary"]["unmapped_gene_rows"] == 1
        assert table["unmapped_gene_rows"][0]["value"] == "nope"
        assert {(c["reaction_id"], c["action"]) for c in table["changes"]} == {("rxn90020_c0", "removed"),
                                                                               ("rxn90003_c0", "removed")}
        assert (table["agreement"]["fitted"]["before"]["fp"], table["agreement"]["fitted"]["after"]["tn"]) == (1, 1)
        held = await call(client, "reconcile_phenotypes", {
            **base, "genes_content": "gene,essential\ng9,no\ng2,yes\ng7,no\n", "holdout_fraction": 0.34, "seed": 3})
        assert held["summary"]["genes_held_out"] == 1 and len(held["held_out_genes"]) == 1
        assert held["agreement"]["essentiality"]["held_out"]["after"]["compared"] == 1
        # bad input: the one envelope
        await call(client, "reconcile_phenotypes", {**base, "genes_content": "gene,date\ng1,today\n"},
                   error="UNKNOWN_GENE_TABLE_LAYOUT")
        await call(client, "reconcile_phenotypes", {**base, "essential_genes": ["g1"], "genes_content": "x"},
                   error="BOTH_INPUTS_PROVIDED")
        await call(client, "reconcile_phenotypes", {**base, "essential_genes": []}, error="INVALID_ARGUMENTS")
        await call(client, "reconcile_phenotypes", {**base, "essential_genes": ["nope"]}, error="NO_OBSERVATIONS")


def test_command_line_with_genes(data_dir: Path, cache_dir: Path, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    save_json_model(organism_with_genes(), str(tmp_path / "genes.json"))
    (tmp_path / "base.json").write_text(json.dumps({"compounds": {GLUCOSE: {"bounds": [-10, 1000]}}}))
    (tmp_path / "screen.csv").write_text("gene,fitness\ng9,0.2\ng2,-3\n")
    argv = ["reconcile", str(tmp_path / "genes.json"), "--medium", str(tmp_path / "base.json"), "--genes",
            str(tmp_path / "screen.csv"), "--fitness-threshold", "-1", "--out", str(tmp_path / "revised.json"),
            "--json", "--quiet", "--data-dir", str(data_dir), "--cache-dir", str(cache_dir)]
    assert main(argv) == 0
    answer = json.loads(capsys.readouterr().out)
    assert [c["reaction_id"] for c in answer["changes"]] == ["rxn90003_c0"]
    fitted = answer["agreement"]["essentiality"]["fitted"]
    assert (fitted["before"]["tp"], fitted["after"]["tp"], fitted["after"]["fp"]) == (0, 1, 1)  # g9: no template way
    revised = cobra.io.load_json_model(str(tmp_path / "revised.json"))
    wild_type = deletion_growth(revised, None)
    assert wild_type > 0.1 and deletion_growth(revised, "g2") <= 0.1 * wild_type
    assert main([*argv[:6], "--fitness-threshold", "1e9", *argv[8:]]) == 1
    assert "INVALID_THRESHOLD" in capsys.readouterr().err
