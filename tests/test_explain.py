"""explain_essentiality: the route a survived deletion takes instead, and what a lethal one stops
making, checked against COBRApy's pFBA and demand reactions called directly."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from cobra.flux_analysis import moma, pfba, single_gene_deletion
from cobra.io import save_json_model

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.modeling.explain import FLUX_TOLERANCE, ROUTE_MIN_FLUX, explain_deletion
from mcp_client import call, in_process_client
from models import TEXTBOOK_MEDIUM, apply_exchange_medium, medium_of, textbook

ACCA = "NP_414727.1"  # accA (b0185), acetyl-CoA carboxyltransferase subunit alpha, as the proteome names it


def test_a_survived_deletion_names_the_route_cobrapy_finds() -> None:
    model = textbook()
    before = {r.id: r.bounds for r in model.reactions}
    found = explain_deletion(model, "PGI", "reactions")
    assert {r.id: r.bounds for r in model.reactions} == before  # the model is left as it was
    # COBRApy: the wild type's pFBA solution, and the deletion's linear-MOMA solution closest to it
    # with growth held at the deletion's optimum
    reference = textbook()
    wild_solution = pfba(reference, fraction_of_optimum=1.0)
    wild = {str(k): float(v) for k, v in wild_solution.fluxes.items()}
    with reference:
        reference.reactions.PGI.bounds = (0.0, 0.0)
        growth = reference.slim_optimize()
        reference.reactions.Biomass_Ecoli_core.lower_bound = growth * (1 - 1e-6)
        deleted = {str(k): float(v) for k, v in moma(reference, solution=wild_solution, linear=True).fluxes.items()}
    assert found.growth == pytest.approx(growth, rel=1e-6) and not found.essential and found.used_in_wild_type
    assert found.wild_type_growth == pytest.approx(textbook().slim_optimize(), rel=1e-6)
    appears = {r for r, v in deleted.items() if abs(v) >= ROUTE_MIN_FLUX and abs(wild[r]) <= FLUX_TOLERANCE}
    reverses = {r for r, v in deleted.items() if abs(v) >= ROUTE_MIN_FLUX and abs(wild[r]) > FLUX_TOLERANCE
                and v * wild[r] < 0}
    assert appears | reverses  # the case: pgi's loss is routed through new reactions
    assert {s.reaction_id for s in found.route if s.change == "appears"} == appears
    assert {s.reaction_id for s in found.route if s.change == "reverses"} == reverses
    for step in found.route:
        assert step.flux_deleted == pytest.approx(deleted[step.reaction_id], abs=1e-5)
        assert step.direction == ("forward" if deleted[step.reaction_id] > 0 else "reverse")
    transhydrogenase = next(s for s in found.route if s.reaction_id == "NADTRHD")
    assert transhydrogenase.change == "appears" and transhydrogenase.genes == ["b1602", "b1603", "b3962"]


def test_a_lethal_deletion_names_what_is_no_longer_made() -> None:
    found = explain_deletion(textbook(), "ENO", "reactions")
    assert found.essential and found.growth == 0.0 and found.route == []
    assert "pep_c" in found.missing_precursors
    for met_id in found.missing_precursors:  # COBRApy: a demand for it runs without the deletion, not with it
        reference = textbook()
        demand = reference.add_boundary(reference.metabolites.get_by_id(met_id), type="demand")
        reference.objective = demand
        made = reference.slim_optimize(error_value=0.0)
        reference.reactions.ENO.bounds = (0.0, 0.0)
        after = reference.slim_optimize(error_value=0.0)
        assert made > 1e-6 and (after <= 1e-6 or met_id in found.made_only_with_cofactors), met_id
    gene = explain_deletion(textbook(), "b1779", "genes")  # gapA: its rule has no other gene
    assert gene.reactions_closed == ["GAPD"] and gene.essential


def test_a_gene_with_an_isozyme_closes_nothing() -> None:
    found = explain_deletion(textbook(), "b1854", "genes")  # pykA: pykF also catalyses PYK
    assert found.reactions_closed == [] and found.growth_ratio == pytest.approx(1.0) and found.route == []


def test_the_explain_command(server_env: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str],
                             monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from gem_flux_mcp.cli.main import main

    model = textbook()
    save_json_model(model, str(tmp_path / "textbook.json"))
    medium = {cpd: {"bounds": [-dict(model.medium)[ex], 1000.0]} for ex, cpd in TEXTBOOK_MEDIUM.items()}
    (tmp_path / "medium.json").write_text(json.dumps({"compounds": medium}))
    for name in ("GEMFLUX_DATA_DIR", "GEMFLUX_CACHE_DIR"):
        monkeypatch.setenv(name, server_env[name])
    common = [str(tmp_path / "textbook.json"), "--medium", str(tmp_path / "medium.json"),
              "--objective", "Biomass_Ecoli_core"]
    assert main(["explain", *common, "--gene", "b4025"]) == 0
    said = capsys.readouterr().out
    assert "Deleting b4025 (closes PGI) leaves 99% of the wild type's growth" in said and "NADTRHD" in said
    assert main(["explain", *common, "--reaction", "ENO", "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["essential"] and "pep_c" in {p["id"] for p in answer["missing_precursors"]}


@pytest.mark.anyio
async def test_explain_essentiality_over_mcp(server_env: dict[str, str], tmp_path: Path) -> None:
    model = textbook()
    save_json_model(model, str(tmp_path / "textbook.json"))
    medium = {cpd: [-dict(model.medium)[ex], 1000.0] for ex, cpd in TEXTBOOK_MEDIUM.items()}
    async with in_process_client(server_env) as client:
        await call(client, "import_model", {"file_path": "textbook.json", "model_name": "tb"})
        built = await call(client, "build_media", {"compounds": list(medium), "custom_bounds": medium})
        base = {"model_id": "tb.draft", "media_id": built["media_id"], "objective": "Biomass_Ecoli_core"}
        survived: dict[str, Any] = await call(client, "explain_essentiality", {**base, "gene": "b4025"})
        assert survived["reactions_closed"] == ["PGI"] and not survived["essential"]
        assert survived["route"][0]["reaction_id"] == "NADTRHD" and survived["route"][0]["origin"] == "unrecorded"
        assert "NADTRHD" in survived["explanation"] and survived["route_total"] == len(survived["route"])
        lethal = await call(client, "explain_essentiality", {**base, "reaction": "ENO"})
        assert lethal["essential"] and "pep_c" in {p["id"] for p in lethal["missing_precursors"]}
        assert "stops growth" in lethal["explanation"] and not math.isnan(lethal["wild_type_growth"])
        await call(client, "explain_essentiality", {**base, "gene": "b4025", "reaction": "PGI"},
                   error="INVALID_ARGUMENTS")
        await call(client, "explain_essentiality", base, error="INVALID_ARGUMENTS")
        await call(client, "explain_essentiality", {**base, "gene": "b9999"}, error="INVALID_GENE")
        await call(client, "explain_essentiality", {**base, "gene": "b4025", "threshold": 1.5},
                   error="INVALID_THRESHOLD")
        stored = await call(client, "get_model", {"model_id": "tb.draft", "include_predictions": True})
        assert [p["summary"]["deleted"] for p in stored["predictions"] if p["kind"] == "explain_essentiality"] \
            == ["ENO", "b4025"]


FATTY_ACID_SYNTHESIS = {"accA": ACCA, "accB": "NP_417721.1", "accC": "NP_417722.1", "accD": "NP_416819.1",
                        "fabD": "NP_415610.1", "fabI": "NP_415804.1"}


def test_acetyl_coa_carboxylase_fabd_and_fabi_are_essential_on_glucose(ecoli_run: Any, data_dir: Path) -> None:
    """With decarboxylations one way (modeling/decarboxylation.py), malonyl-ACP comes only from
    acetyl-CoA carboxylase and malonyl-CoA:ACP transacylase, as in the cell; with acyl-CoA
    dehydrogenases oxidising only (modeling/acyl_coa_dehydrogenases.py), fatty acids come from
    fatty-acid synthesis, not from beta-oxidation run backwards, so its enoyl-ACP reductase (fabI)
    is needed: COBRApy's own single-gene deletions find all six essential (in vivo they are)."""
    model = ecoli_run[0].model
    with model:
        apply_exchange_medium(model, medium_of(data_dir, "glucose_minimal_aerobic"))
        model.objective = "bio1"
        wild_type = model.slim_optimize()
        deletions = single_gene_deletion(model, gene_list=sorted(FATTY_ACID_SYNTHESIS.values()), processes=1)
    growth = {next(iter(ids)): g for ids, g in zip(deletions["ids"], deletions["growth"], strict=True)}
    assert wild_type > 0.1
    assert {name: round(float(growth[gene]), 6) for name, gene in FATTY_ACID_SYNTHESIS.items()} == dict.fromkeys(
        FATTY_ACID_SYNTHESIS, 0.0)
    decarboxylase = model.reactions.get_by_id("rxn08861_c0")  # malonyl-ACP -> acetyl-ACP + CO2
    assert decarboxylase.lower_bound == 0.0 and "decarboxylation" in decarboxylase.notes["gemflux_direction"]
    fade = model.reactions.get_by_id("rxn02679_c0")  # FAD + octanoyl-CoA <=> FADH2 + (2E)-octenoyl-CoA
    assert fade.bounds == (0.0, 1000.0) and "acyl-CoA dehydrogenase" in fade.notes["gemflux_direction"]


def test_a_planted_reversed_carboxylation_is_named_as_the_bypass(ecoli_run: Any, data_dir: Path,
                                                                 biochem: BiochemIndex) -> None:
    """acetyl-CoA carboxylase (accA) is essential in E. coli on glucose; a malonyl-ACP
    decarboxylase opened backwards (acetyl-ACP + CO2 -> malonyl-ACP, a carboxylation without ATP)
    bypasses it, and the explanation names that reaction, run in reverse."""
    model = ecoli_run[0].model
    planted = "rxn08861_c0"
    with model:
        apply_exchange_medium(model, medium_of(data_dir, "glucose_minimal_aerobic"))
        model.objective = "bio1"
        if planted not in model.reactions:
            pytest.skip("the gapfilled E. coli model has no malonyl-ACP decarboxylase to reverse")
        model.reactions.get_by_id(planted).bounds = (-1000.0, 1000.0)
        found = explain_deletion(model, ACCA, "genes", details=biochem.reaction_details)
    assert not found.essential, found.growth_ratio
    step = next(s for s in found.route if s.reaction_id == planted)
    assert step.direction == "reverse" and step.change in ("appears", "reverses", "replaces")
    assert found.route[0].reaction_id == planted  # the largest flux of the answer
