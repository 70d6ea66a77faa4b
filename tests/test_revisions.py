"""revise_model over a real MCP client, checked against COBRApy doing the same edit."""

from __future__ import annotations

from pathlib import Path

import pytest
from cobra.io import save_json_model

from mcp_client import call, in_process_client, stdio_client
from models import TEXTBOOK_MEDIUM, apply_medium_directly, modelseed_core_model, predefined_medium, textbook

AEROBIC = "glucose_minimal_aerobic"


@pytest.mark.anyio
async def test_revisions_add_remove_bounds_and_history(server_env: dict[str, str], data_dir: Path,
                                                       tmp_path: Path) -> None:
    path = tmp_path / "ms.json"
    save_json_model(modelseed_core_model(data_dir), str(path))
    # the independent reference: the same model, medium and removal done with COBRApy directly
    reference = modelseed_core_model(data_dir)
    exchange_to_cpd = {r.id: r.id[3:11] for r in reference.exchanges}
    apply_medium_directly(reference, predefined_medium(data_dir, AEROBIC), exchange_to_cpd)
    full = reference.slim_optimize()
    victim = max((r for r in reference.reactions if not r.id.startswith(("EX_", "ATPM"))),
                 key=lambda r: abs(reference.optimize().fluxes[r.id]))
    with reference:
        victim.remove_from_model()
        without = reference.slim_optimize(error_value=0.0)
    assert without < full - 1e-6, "the test needs a removal that changes the optimum"

    async with in_process_client(server_env) as client:
        source = await call(client, "import_model", {"file_path": str(path), "model_name": "ms"})
        await call(client, "run_fba", {"model_id": "ms.draft", "media_id": AEROBIC, "objective": "ATPM_c0"})
        first = await call(client, "revise_model", {
            "model_id": "ms.draft", "reason": "drop the busiest reaction", "remove_reactions": [victim.id]})
        assert first["model_id"] == "ms.draft.rev" and first["derived_from"] == "ms.draft"
        assert first["media_id"] == AEROBIC
        assert first["growth_before"] == pytest.approx(full, abs=1e-6)
        assert first["growth_after"] == pytest.approx(without, abs=1e-6)
        assert first["num_reactions"] == source["num_reactions"] - 1
        assert first["changes"]["removed_reactions"][0]["id"] == victim.id

        second = await call(client, "revise_model", {
            "model_id": first["model_id"], "reason": "cap maintenance and add ATP hydrolysis",
            "reaction_bounds": {"ATPM_c0": [0, 5]}, "add_reactions": ["rxn00062_c0"]})
        # ATPM is the objective: capped at 5, its optimum is min(5, what the model could do before)
        assert second["growth_before"] == pytest.approx(without, abs=1e-6)
        assert second["growth_after"] == pytest.approx(min(5.0, without), abs=1e-6)
        added = second["changes"]["added_reactions"][0]
        assert added["id"] == "rxn00062_c0" and "ATP" in added["equation"]
        assert second["changes"]["bounds_changed"] == [{"id": "ATPM_c0", "before": [0, 1000], "after": [0, 5]}]

        history = await call(client, "get_model", {"model_id": second["model_id"], "include_revisions": True})
        assert [h["reason"] for h in history["revisions"]] == [
            "cap maintenance and add ATP hydrolysis", "drop the busiest reaction"]
        assert history["revisions"][1]["growth_before"] == first["growth_before"]
        assert [m for m, _ in history["lineage"]] == [second["model_id"], first["model_id"], "ms.draft"]
        # the source is untouched
        original = await call(client, "get_model", {"model_id": "ms.draft", "include_revisions": True})
        assert original["num_reactions"] == source["num_reactions"] and original["revisions"] == []


@pytest.mark.slow
@pytest.mark.anyio
async def test_knockouts_match_cobrapy(server_env: dict[str, str], tmp_path: Path) -> None:
    path = tmp_path / "textbook.json"
    save_json_model(textbook(), str(path))
    reference = textbook()
    gene = "b1136"  # isocitrate dehydrogenase
    with reference:
        reference.genes.get_by_id(gene).knock_out()
        expected = reference.slim_optimize(error_value=0.0)
    cpds = list(TEXTBOOK_MEDIUM.values())
    async with stdio_client(server_env, "2026-07-28") as client:
        await call(client, "import_model", {"file_path": str(path), "model_name": "tb"})
        medium = await call(client, "build_media", {"compounds": cpds, "custom_bounds": {
            c: ([-10, 1000] if c == "cpd00027" else [-1000, 1000]) for c in cpds}})
        revised = await call(client, "revise_model", {
            "model_id": "tb.draft", "reason": "icd knockout", "knockout_genes": [gene],
            "media_id": medium["media_id"], "revision_name": "tb_icd"})
        assert revised["model_id"] == "tb_icd.draft"
        assert revised["growth_after"] == pytest.approx(expected, abs=1e-6)
        assert revised["growth_before"] == pytest.approx(textbook().slim_optimize(), abs=1e-6)
        assert revised["changes"]["knocked_out_genes"][0]["reactions_disabled"] == ["ICDHyr"]


@pytest.mark.anyio
async def test_revision_errors_change_nothing(server_env: dict[str, str], data_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "ms.json"
    model = modelseed_core_model(data_dir)
    save_json_model(model, str(path))
    async with in_process_client(server_env) as client:
        await call(client, "import_model", {"file_path": str(path), "model_name": "ms"})
        bad = await call(client, "revise_model", {
            "model_id": "ms.draft", "reason": "x",
            "add_reactions": ["rxn99999_c0", "glucose", "rxn00062_c0"],
            "remove_reactions": ["rxn_not_here"]}, error="INVALID_REACTION")
        assert set(bad["details"]["invalid_reactions"]) == {"rxn99999_c0", "glucose", "rxn_not_here"}
        await call(client, "revise_model", {"model_id": "ms.draft", "reason": "x",
                                             "reaction_bounds": {"ATPM_c0": [5, 1]}}, error="INVALID_REACTION")
        await call(client, "revise_model", {"model_id": "ms.draft", "reason": "x",
                                             "knockout_genes": ["b0001"]}, error="INVALID_GENE")
        await call(client, "revise_model", {"model_id": "ms.draft", "reason": "x",
                                             "remove_reactions": [r.id for r in model.reactions]}, error="WOULD_EMPTY")
        await call(client, "revise_model", {"model_id": "ms.draft", "reason": "  ",
                                             "add_reactions": ["rxn00062_c0"]}, error="MISSING_REASON")
        await call(client, "revise_model", {"model_id": "ms.draft", "reason": "nothing"}, error="EMPTY_REVISION")
        await call(client, "revise_model", {"model_id": "nope.draft", "reason": "x",
                                             "add_reactions": ["rxn00062_c0"]}, error="MODEL_NOT_FOUND")
        await call(client, "revise_model", {"model_id": "ms.draft", "reason": "x", "add_reactions": ["rxn00062_c0"],
                                             "revision_name": "ms"}, error="DUPLICATE_NAME")
        listed = await call(client, "list_models", {})
        assert [m["model_id"] for m in listed["models"]] == ["ms.draft"], "failed revisions store nothing"
