"""compare_models and run_fva over the in-process MCP client, checked against COBRApy: the two
models compared directly in the test, growth by FBA by hand, FVA by
cobra.flux_analysis.flux_variability_analysis."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import anyio
import pytest
from cobra.io import save_json_model

from mcp_client import call, in_process_client, stdio_client
from models import TEXTBOOK_MEDIUM, textbook


@pytest.mark.anyio
async def test_compare_a_model_with_its_revision(server_env: dict[str, str], tmp_path: Path) -> None:
    save_json_model(textbook(), str(tmp_path / "textbook.json"))
    reference = textbook()
    medium = {cpd: (-dict(reference.medium)[ex], 1000.0) for ex, cpd in TEXTBOOK_MEDIUM.items()}
    async with in_process_client(server_env) as client:
        await call(client, "import_model", {"file_path": "textbook.json", "model_name": "tb"})
        built = await call(client, "build_media", {"compounds": list(medium),
                                                   "custom_bounds": {c: list(b) for c, b in medium.items()}})
        aerobic = built["media_id"]
        anaerobic = (await call(client, "build_media", {
            "compounds": [c for c in medium if c != "cpd00007"],
            "custom_bounds": {c: list(b) for c, b in medium.items() if c != "cpd00007"}}))["media_id"]
        await call(client, "run_fba", {"model_id": "tb.draft", "media_id": aerobic,
                                       "objective": "Biomass_Ecoli_core"})
        revised = await call(client, "revise_model", {
            "model_id": "tb.draft", "reason": "no PFL, no pgi gene", "remove_reactions": ["PFL"],
            "knockout_genes": ["b4025"]})  # pgi: PGI
        answer = await call(client, "compare_models", {"model_a": "tb.draft", "model_b": revised["model_id"],
                                                        "media_ids": [aerobic, anaerobic]})
        b = textbook()
        b.remove_reactions(["PFL"])
        b.reactions.PGI.bounds = (0.0, 0.0)
        a = textbook()
        assert answer["reactions_only_a"] == ["PFL"] and answer["reactions_only_b"] == []
        assert answer["reactions_changed"] == ["PGI"]
        assert answer["summary"]["reactions"] == {"only_a": 1, "only_b": 0, "shared": len(a.reactions) - 1,
                                                  "changed": 1}
        only_genes = sorted(g.id for g in a.reactions.PFL.genes if len(g.reactions) == 1)  # used nowhere else
        assert answer["genes_only_a"] == only_genes and answer["summary"]["genes"]["only_a"] == len(only_genes)
        for entry, oxygen in zip(answer["growth"], (True, False), strict=True):
            for label, model in (("a", a), ("b", b)):
                with model:
                    if not oxygen:
                        model.reactions.EX_o2_e.lower_bound = 0.0
                    value = model.slim_optimize(error_value=math.nan)
                expected = None if math.isnan(value) else value
                assert entry[f"growth_{label}"] == pytest.approx(expected, abs=1e-6), (entry, label)
        # without O2, PFL or PGI the core model cannot meet its ATP maintenance: infeasible is null
        assert answer["growth"][1]["growth_a"] > 0.1 and answer["growth"][1]["growth_b"] is None
        # default media: the ones the models were last run on; a model against itself
        same = await call(client, "compare_models", {"model_a": "tb.draft", "model_b": "tb.draft"})
        assert same["summary"]["reactions"] == {"only_a": 0, "only_b": 0, "shared": len(a.reactions), "changed": 0}
        assert [g["media_id"] for g in same["growth"]] == [aerobic]
        body = await call(client, "compare_models", {"model_a": "tb.draft", "model_b": "nope.draft"},
                          error="MODEL_NOT_FOUND")
        assert "nope.draft" in body["message"]
        await call(client, "compare_models", {"model_a": "tb.draft", "model_b": "tb.draft",
                                              "media_ids": ["no_such_medium"]}, error="MEDIA_NOT_FOUND")


@pytest.mark.anyio
async def test_run_fva_equals_cobrapy(server_env: dict[str, str], tmp_path: Path) -> None:
    from cobra.flux_analysis import flux_variability_analysis

    save_json_model(textbook(), str(tmp_path / "textbook.json"))
    reference = textbook()
    medium = {cpd: (-dict(reference.medium)[ex], 1000.0) for ex, cpd in TEXTBOOK_MEDIUM.items()}
    expected = flux_variability_analysis(reference, fraction_of_optimum=0.9)
    async with in_process_client(server_env) as client:
        await call(client, "import_model", {"file_path": "textbook.json", "model_name": "tb"})
        built = await call(client, "build_media", {"compounds": list(medium),
                                                   "custom_bounds": {c: list(b) for c, b in medium.items()}})
        base = {"model_id": "tb.draft", "media_id": built["media_id"], "objective": "Biomass_Ecoli_core"}
        answer = await call(client, "run_fva", {**base, "output_path": "fva.tsv"})
        rows = list(answer["rows"])
        while answer["next_offset"] is not None:
            answer = await call(client, "run_fva", {**base, "offset": answer["next_offset"]})
            rows += answer["rows"]
        assert [r["reaction_id"] for r in rows] == [r.id for r in reference.reactions]
        for row in rows:
            assert row["minimum"] == pytest.approx(expected.loc[row["reaction_id"], "minimum"], abs=1e-6)
            assert row["maximum"] == pytest.approx(expected.loc[row["reaction_id"], "maximum"], abs=1e-6)
        summary = answer["summary"]
        assert summary["optimum"] == pytest.approx(reference.slim_optimize(), abs=1e-6)
        blocked = {r for r in expected.index if abs(expected.loc[r, "minimum"]) < 1e-9
                   and abs(expected.loc[r, "maximum"]) < 1e-9}
        assert set(answer["blocked"]) == blocked and summary["blocked"] == len(blocked) > 0
        forced = {r for r in expected.index if expected.loc[r, "minimum"] > 1e-9 or expected.loc[r, "maximum"] < -1e-9}
        assert summary["forward_only_forced"] + summary["reverse_only_forced"] == len(forced)
        assert {r["reaction_id"] for r in answer["forced"]} <= forced and "ATPM" in forced
        assert len((tmp_path / "fva.tsv").read_text().splitlines()) == len(rows) + 1
        subset = await call(client, "run_fva", {**base, "reactions": ["PGI", "PFK"], "fraction_of_optimum": 1.0})
        exact = flux_variability_analysis(reference, ["PGI", "PFK"], fraction_of_optimum=1.0)
        assert [r["reaction_id"] for r in subset["rows"]] == ["PGI", "PFK"]
        assert [v for r in subset["rows"] for v in (r["minimum"], r["maximum"])] == pytest.approx(
            [exact.loc[r, k] for r in ("PGI", "PFK") for k in ("minimum", "maximum")], abs=1e-6)
        body = await call(client, "run_fva", {**base, "reactions": ["PGI", "NOPE", "NOPE2"]}, error="INVALID_REACTION")
        assert body["details"]["invalid_reactions"] == ["NOPE", "NOPE2"]
        await call(client, "run_fva", {**base, "fraction_of_optimum": 1.5}, error="INVALID_THRESHOLD")
        recorded = await call(client, "get_model", {"model_id": "tb.draft", "include_predictions": True})
        assert any(p["kind"] == "fva" for p in recorded["predictions"])


@pytest.mark.anyio
async def test_cancelling_an_analysis_stops_its_worker(ecoli_run: Any, server_env: dict[str, str],
                                                       tmp_path: Path) -> None:
    """Loopless FVA of the gapfilled E. coli model takes minutes: cancelled by the client, its
    worker process is gone within seconds, nothing is recorded, and the next analysis works."""
    from test_build_model_mcp import processes_with, wait_until_no_workers

    save_json_model(ecoli_run[0].model, str(tmp_path / "ecoli_gf.json"))
    marker = f"GEMFLUX_TEST_MARKER={tmp_path.name}"
    env = {**server_env, "GEMFLUX_TEST_MARKER": tmp_path.name}
    async with stdio_client(env, "legacy") as client:
        await call(client, "import_model", {"file_path": str(tmp_path / "ecoli_gf.json"), "model_name": "ecoli"})
        started = anyio.Event()

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            if message and "reading the model" in message:
                started.set()

        async with anyio.create_task_group() as group:
            async def fva() -> None:
                await client.call_tool("run_fva", {"model_id": "ecoli.draft", "media_id": "glucose_minimal_aerobic",
                                                   "loopless": True}, progress_callback=on_progress)

            group.start_soon(fva)
            with anyio.fail_after(120):
                await started.wait()
            await anyio.sleep(2.0)  # well inside the loopless problems
            assert [cmd for _, cmd in processes_with(marker) if "gem-flux serve" not in cmd]
            group.cancel_scope.cancel()
        workers = await wait_until_no_workers(marker)
        assert not workers, workers
        recorded = await call(client, "get_model", {"model_id": "ecoli.draft", "include_predictions": True})
        assert not [p for p in recorded["predictions"] if p["kind"] == "fva"]
        done = await call(client, "run_fva", {"model_id": "ecoli.draft", "media_id": "glucose_minimal_aerobic",
                                              "reactions": ["bio1"]})
        assert done["rows"][0]["maximum"] > 0.1


@pytest.mark.anyio
async def test_diagnose_model_explains_why_a_draft_does_not_grow(ecoli: Any, ecoli_run: Any,
                                                                  server_env: dict[str, str], tmp_path: Path) -> None:
    """The E. coli draft on glucose: it does not grow (COBRApy agrees), the answer names biomass
    components it cannot make, and its fix is the gapfill the library computes on the same
    medium (the session's gapfilled model); the gapfilled model grows and needs no fix."""
    from models import apply_exchange_medium, medium_of

    medium = medium_of(Path(server_env["GEMFLUX_DATA_DIR"]), "glucose_minimal_aerobic")
    with ecoli:
        apply_exchange_medium(ecoli, medium)
        ecoli.objective = "bio1"
        assert ecoli.slim_optimize(error_value=0.0) < 1e-6
    save_json_model(ecoli, str(tmp_path / "draft.json"))
    save_json_model(ecoli_run[0].model, str(tmp_path / "gf.json"))
    async with in_process_client(server_env) as client:
        await call(client, "import_model", {"file_path": "draft.json", "model_name": "draft"})
        await call(client, "import_model", {"file_path": "gf.json", "model_name": "gf"})
        answer = await call(client, "diagnose_model", {"model_id": "draft.draft", "media_id": "glucose_minimal_aerobic",
                                                       "output_path": "diag.tsv"})
        assert answer["summary"]["grows"] is False and answer["missing_biomass_precursors"]
        assert "does not grow on glucose_minimal_aerobic" in answer["explanation"][0]
        expected = {e["id"] for e in ecoli_run[1]["reactions_added"]}
        fix = answer["fix"]
        assert fix["reactions_total"] == len(expected) and {r["id"] for r in fix["reactions_added"]} <= expected
        assert fix["growth_after"] == pytest.approx(ecoli_run[1]["growth_rate_after"], rel=1e-6)
        assert answer["summary"]["blocked_reactions"] > 0 and len(answer["blocked_reactions"]) <= 50
        assert all(i in answer["names"] for i in answer["blocked_reactions"][:5] if i.startswith("rxn"))
        lines = (tmp_path / "diag.tsv").read_text().splitlines()
        assert len(lines) - 1 == sum(answer["summary"][k] for k in (
            "mass_imbalanced", "charge_imbalanced", "blocked_reactions", "dead_end_metabolites",
            "reactions_without_genes"))
        healthy = await call(client, "diagnose_model", {"model_id": "gf.draft", "media_id": "glucose_minimal_aerobic"})
        assert healthy["summary"]["grows"] is True and healthy["fix"] is None
        assert healthy["missing_biomass_precursors"] == [] and healthy["summary"]["growth"] == pytest.approx(
            ecoli_run[0].growth_after, rel=1e-6)
        recorded = await call(client, "get_model", {"model_id": "gf.draft", "include_predictions": True})
        assert any(p["kind"] == "diagnosis" for p in recorded["predictions"])
        await call(client, "diagnose_model", {"model_id": "gf.draft", "biomass": "nope"}, error="INVALID_OBJECTIVE")
        await call(client, "diagnose_model", {"model_id": "gf.draft", "media_id": "nope"}, error="MEDIA_NOT_FOUND")


@pytest.mark.anyio
async def test_predict_fermentation_products_equals_cobrapy_pfba(server_env: dict[str, str], tmp_path: Path) -> None:
    from cobra.flux_analysis import pfba

    save_json_model(textbook(), str(tmp_path / "textbook.json"))
    reference = textbook()
    reference.reactions.EX_o2_e.lower_bound = 0.0
    medium = {cpd: (-dict(textbook().medium)[ex], 1000.0) for ex, cpd in TEXTBOOK_MEDIUM.items() if cpd != "cpd00007"}
    solution = pfba(reference)
    growth = solution.fluxes["Biomass_Ecoli_core"]
    async with in_process_client(server_env) as client:
        await call(client, "import_model", {"file_path": "textbook.json", "model_name": "tb"})
        built = await call(client, "build_media", {"compounds": list(medium),
                                                   "custom_bounds": {c: list(b) for c, b in medium.items()}})
        answer = await call(client, "predict_fermentation_products", {
            "model_id": "tb.draft", "media_id": built["media_id"], "objective": "Biomass_Ecoli_core",
            "observed": ["acetic acid", "formate", "ethanol", "succinate"]})
        assert answer["summary"]["growth"] == pytest.approx(growth, rel=1e-6)
        assert answer["summary"]["scored_products_made"] == ["acetate", "ethanol", "formate"]
        products = {p["compound_id"]: p for p in answer["products"]}
        for rid, cpd in (("EX_ac_e", "cpd00029"), ("EX_for_e", "cpd00047"), ("EX_etoh_e", "cpd00363")):
            assert products[cpd]["flux"] == pytest.approx(solution.fluxes[rid], rel=1e-4)
            assert products[cpd]["per_growth"] >= 0.25 and products[cpd]["pathway"]
        assert products["cpd00029"]["name"] == "Acetate"  # the database's name, not the model's
        assert answer["comparison"]["metrics"]["tp"] == 3 and answer["comparison"]["metrics"]["fn"] == 1
        await call(client, "predict_fermentation_products", {"model_id": "tb.draft", "media_id": built["media_id"],
                                                             "min_ratio": 0}, error="INVALID_THRESHOLD")
        await call(client, "predict_fermentation_products", {"model_id": "tb.draft", "media_id": built["media_id"],
                                                             "observed": ["vinegar"]}, error="INVALID_ARGUMENTS")
        record = await call(client, "get_model", {"model_id": "tb.draft", "include_predictions": True})
        assert "fermentation_products" in json.dumps(record)
