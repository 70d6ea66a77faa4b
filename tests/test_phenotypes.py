"""Growth phenotype arrays (predict_growth_phenotypes): each call checked against an FBA with the
same bounds set by hand in COBRApy, and the E. coli carbon/nitrogen/phosphorus/sulfur panels
against the CarveMe benchmark protocol (benchmarks/phenotypes/score.py) on the same model."""

from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path
from typing import Any

import cobra
import pytest
from cobra.io import save_json_model

from conftest import REPO
from gem_flux_mcp.data.panels import PANEL_NAMES, load_panels
from mcp_client import call, in_process_client
from models import TEXTBOOK_MEDIUM, textbook


def test_panels_are_modelseed_ids_with_provenance(biochem: Any, cache_dir: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    provenance, panels = load_panels()
    assert set(panels) == set(PANEL_NAMES) and "carveme" in provenance and "Biolog" in provenance
    assert len(panels["carbon"].compounds) > 100 and len(panels["nitrogen"].compounds) > 50
    every = [c for p in panels.values() for c in p.compounds]
    assert biochem.existing_compound_ids(every) == set(every)  # every id is a real ModelSEED compound
    assert "cpd00224" in panels["carbon"].compounds  # L-arabinose by its canonical id
    assert panels["carbon"].reference_sources[0] == "cpd00027"
    assert all(r not in p.compounds for p in panels.values() for r in p.reference_sources)
    monkeypatch.setenv("GEMFLUX_CACHE_DIR", str(cache_dir))
    import make_panels  # (scripts/ is on the path) the shipped file is what it writes from the carveme tables

    assert json.loads(make_panels.OUT.read_text()) == make_panels.build()


@pytest.mark.anyio
async def test_phenotype_array_equals_cobrapy_by_hand(server_env: dict[str, str], tmp_path: Path) -> None:
    save_json_model(textbook(), str(tmp_path / "textbook.json"))
    reference = textbook()
    medium = {cpd: (-dict(reference.medium)[ex], 1000.0) for ex, cpd in TEXTBOOK_MEDIUM.items()}
    by_cpd = {cpd: ex for ex, cpd in TEXTBOOK_MEDIUM.items()}
    # a few textbook exchanges that are not in the medium, by ModelSEED id
    extra = {"cpd00029": "EX_ac_e", "cpd00020": "EX_pyr_e", "cpd00036": "EX_succ_e", "cpd00082": "EX_fru_e",
             "cpd00363": "EX_etoh_e", "cpd00053": "EX_gln__L_e"}
    async with in_process_client(server_env) as client:
        await call(client, "import_model", {"file_path": "textbook.json", "model_name": "tb"})
        built = await call(client, "build_media", {"compounds": list(medium),
                                                   "custom_bounds": {c: list(b) for c, b in medium.items()}})
        base = {"model_id": "tb.draft", "base_media_id": built["media_id"], "objective": "Biomass_Ecoli_core"}
        answer = await call(client, "predict_growth_phenotypes", {
            **base, "panel": "carbon", "compounds": [*extra, "cpd00080"], "output_path": "out/carbon.tsv"})
        summary, first = answer["summary"], answer
        assert summary["reference_removed"] == ["cpd00027"] and summary["uptake_rate"] == 10.0
        assert summary["base_growth"] == pytest.approx(0.0, abs=1e-9)  # no carbon: no growth
        rows = list(answer["rows"])
        while answer["next_offset"] is not None:
            answer = await call(client, "predict_growth_phenotypes", {
                **base, "panel": "carbon", "compounds": [*extra, "cpd00080"], "offset": answer["next_offset"]})
            rows += answer["rows"]
        by_id = {r["compound_id"]: r for r in rows}
        everything = set(load_panels()[1]["carbon"].compounds) | set(extra) | {"cpd00080"}
        assert len(rows) == summary["tested"] == len(everything)
        # each call by hand in COBRApy: glucose closed, the compound opened at 10
        for cpd, exchange in extra.items():
            with reference:
                reference.reactions.get_by_id(by_cpd["cpd00027"]).lower_bound = 0.0
                reference.reactions.get_by_id(exchange).lower_bound = -10.0
                expected = max(reference.slim_optimize(error_value=0.0), 0.0)
            assert by_id[cpd]["growth"] == pytest.approx(expected, abs=1e-6), cpd
            assert by_id[cpd]["exchanges"] == [exchange]
        assert by_id["cpd00029"]["status"] == "growth" and by_id["cpd00363"]["status"] == "growth"
        # glycerol-3-phosphate has no exchange in the core model: reported, not "no growth"
        assert by_id["cpd00080"]["status"] == "no_uptake" and by_id["cpd00080"]["growth"] is None
        assert summary["no_uptake"] == sum(r["status"] == "no_uptake" for r in rows) > 50
        assert set(answer["growth_on"]) == {r["compound_id"] for r in rows if r["status"] == "growth"}
        with (tmp_path / "out" / "carbon.tsv").open(newline="") as handle:
            table = list(csv.DictReader(handle, delimiter="\t"))
        assert [t["compound_id"] for t in table] == [r["compound_id"] for r in rows]
        assert first["output_file"] == {"path": str(tmp_path / "out" / "carbon.tsv"), "rows": len(rows),
                                        "columns": list(table[0])}
        # answered in the server process on the stored model's loaded copy, which is left as it was
        with client.resources.store.checkout("local", "tb.draft") as loaded:
            assert {r.id: r.bounds for r in loaded.reactions} == {r.id: r.bounds for r in textbook().reactions}
            assert str(loaded.objective.expression) == str(textbook().objective.expression)
            assert loaded.slim_optimize() == pytest.approx(textbook().slim_optimize(), rel=1e-9)

        # observed calls give the confusion numbers; observed-only compounds are tested too.
        # Glycerol-3-phosphate cannot be taken up: predicted no growth (as CarveMe counts it)
        observed = {"cpd00029": True, "cpd00363": False, "cpd00080": True, "cpd00020": True}
        compared = await call(client, "predict_growth_phenotypes", {**base, "observed": observed})
        assert compared["summary"]["tested"] == 4 and compared["summary"]["reference_removed"] == []
        assert compared["warnings"]  # nothing taken out of the medium: glucose is still there
        metrics = compared["comparison"]["metrics"]
        assert (metrics["tp"], metrics["fp"], metrics["tn"], metrics["fn"]) == (2, 1, 0, 1)
        assert metrics["mcc"] == pytest.approx(-1 / 3, abs=1e-4) and metrics["accuracy"] == 0.5
        assert {m["id"] for m in compared["comparison"]["mismatches"]} == {"cpd00363", "cpd00080"}

        # recorded with the model
        recorded = await call(client, "get_model", {"model_id": "tb.draft", "include_predictions": True})
        assert any(p["kind"] == "growth_phenotypes" for p in recorded["predictions"])
        # validation: every bad id at once, before any work
        body = await call(client, "predict_growth_phenotypes", {**base, "compounds": ["cpd99999", "glucose",
                                                                                     "cpd00029"]},
                          error="INVALID_COMPOUND_IDS")
        assert body["details"]["malformed_ids"] == ["glucose"]
        body = await call(client, "predict_growth_phenotypes", {**base, "compounds": ["cpd99999", "cpd99998"]},
                          error="INVALID_COMPOUND_IDS")
        assert body["details"]["invalid_ids"] == ["cpd99999", "cpd99998"]
        await call(client, "predict_growth_phenotypes", base, error="NO_INPUT_PROVIDED")
        await call(client, "predict_growth_phenotypes", {**base, "panel": "iron"}, error="INVALID_ARGUMENTS")
        await call(client, "predict_growth_phenotypes", {**base, "panel": "carbon", "growth_threshold": 0},
                   error="INVALID_THRESHOLD")
        await call(client, "predict_growth_phenotypes", {**base, "panel": "carbon", "output_path": "/etc/x.tsv"},
                   error="PATH_NOT_ALLOWED")


def test_ecoli_panels_equal_the_carveme_benchmark_protocol(ecoli_run: Any, cache_dir: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The library path the tool's worker runs, against benchmarks/phenotypes/score.py on the
    gapfilled E. coli model with the benchmark's M9 (every compound at 10): the same call for every
    Biolog row, so the same confusion numbers per plate."""
    from gem_flux_mcp.modeling import media
    from gem_flux_mcp.modeling.phenotypes import growth_phenotypes

    monkeypatch.setenv("GEMFLUX_CACHE_DIR", str(cache_dir))  # score.py opens the index from the environment
    spec = importlib.util.spec_from_file_location("score", REPO / "benchmarks" / "phenotypes" / "score.py")
    assert spec is not None and spec.loader is not None
    score = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(score)

    model: cobra.Model = ecoli_run[0].model
    expected = score.score_biolog(model.copy(), "modelseed")
    m9 = {cpd: (lb, 1000.0) for cpd, lb in score.load_m9("modelseed").items()}
    exchanges = media.resolve_exchanges(model)
    _, panels = load_panels()
    for plate in PANEL_NAMES:
        calls = [c for c in expected["calls"] if c["plate"] == plate]
        shipped = panels[plate].compounds
        assert sum(c["compound"] in shipped for c in calls) >= 0.9 * len(calls), plate
        tested = list(dict.fromkeys([*shipped, *(c["compound"] for c in calls if c["compound"])]))
        with model:
            media.apply_medium(model, {c: b for c, b in m9.items() if c not in panels[plate].reference_sources},
                               exchanges)
            model.objective = "bio1"
            array = growth_phenotypes(model, tested, exchanges, 10.0)
        pairs = [(c["observed"], (array.growth.get(c["compound"]) or 0.0) > 0.1) for c in calls]
        ours, theirs = score.confusion(pairs), expected["plates"][plate]
        assert ours == theirs, plate
        assert [p for _, p in pairs] == [c["predicted"] for c in calls], plate
    assert expected["plates"]["all"]["TP"] > 10  # the model grows on real substrates
