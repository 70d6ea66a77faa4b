"""gapfill_model over MCP (stdio, real SDK client): the whole workflow build -> gapfill -> FBA on
the real E. coli proteome, paging of added reactions, a second gapfill of the same model, the
responsive server during the job, and every input error."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import cobra
import pytest
from cobra.io import save_json_model

from mcp_client import call, call_while_probing, in_process_client, stdio_client

pytestmark = pytest.mark.anyio


@pytest.mark.slow
async def test_build_gapfill_fba_over_mcp(server_env: dict[str, str], data_dir: Path, tmp_path: Path) -> None:
    progress: list[tuple[float, str]] = []
    env = {**server_env, "GEMFLUX_ALLOWED_ROOTS": f"{tmp_path}{os.pathsep}{data_dir}"}

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message or ""))

    async with stdio_client(env, "legacy") as client:
        fasta = str(data_dir / "genomes" / "ecoli_k12_mg1655.faa")
        draft = await call(client, "build_model", {"fasta_file_path": fasta, "model_name": "ecoli"})
        assert draft["model_id"] == "ecoli.draft"
        before = await call(client, "run_fba", {"model_id": "ecoli.draft", "media_id": "glucose_minimal_aerobic"})
        assert before["objective_value"] < 1e-6  # drafts do not grow

        result, lookups = await call_while_probing(
            client, "gapfill_model", {"model_id": "ecoli.draft", "media_id": "glucose_minimal_aerobic"}, on_progress)

        assert result["model_id"] == "ecoli.draft.gf" and result["original_model_id"] == "ecoli.draft"
        assert result["gapfilling_successful"] and result["growth_rate_after"] >= 0.01
        checks = result["quality_checks"]
        assert checks["all_passed"], checks
        assert checks["atp_with_all_uptakes_closed"]["value"] <= 1e-5
        assert checks["growth_without_carbon"]["value"] <= 1e-5
        assert result["atp_correction"]["performed"] and result["atp_correction"]["test_conditions"] > 1
        assert result["genomescale_gapfill"]["performed"]
        total = result["reactions_added_total"]
        assert total == result["num_reactions_added"] > 0
        assert len(result["reactions_added"]) == min(total, 50)
        assert len(json.dumps(result)) < 80_000  # ~20k tokens
        stages = [m.split(":")[0] for _, m in progress]
        assert {"atp_correction", "genomescale", "verify"} <= set(stages), stages
        # the draft's worker computed stage 1 while the build's answer travelled (gapfill_ahead.py)
        assert any(m.startswith("atp_correction: computed while the draft was read") for _, m in progress), progress
        values = [v for v, _ in progress]
        assert values == sorted(values) and values[-1] == 100
        assert len(lookups) >= 3 and max(lookups) < 2.0, lookups

        # every added reaction is in the new model; pages cover the whole list once
        seen = [e["id"] for e in result["reactions_added"]]
        offset = result["reactions_next_offset"]
        while offset is not None:
            more = await call(client, "get_model", {"model_id": "ecoli.draft.gf", "gapfill_reactions_offset": offset})
            seen += [e["id"] for e in more["gapfill_reactions"]["reactions_added"]]
            offset = more["gapfill_reactions"]["reactions_next_offset"]
        assert len(seen) == total == len(set(seen))

        # FBA on the stored model agrees with the gapfill's own figure; the draft is untouched
        after = await call(client, "run_fba", {"model_id": "ecoli.draft.gf", "media_id": "glucose_minimal_aerobic"})
        assert after["objective_value"] == pytest.approx(result["growth_rate_after"], rel=1e-4, abs=1e-6)
        original = await call(client, "get_model", {"model_id": "ecoli.draft", "include_predictions": True})
        assert original["num_reactions"] == draft["num_reactions"]
        assert any(p["kind"] == "gapfill" for p in original["predictions"])

        # a second gapfill of the same model (another medium) gets its own id and reuses stage 1
        again = await call(client, "gapfill_model", {"model_id": "ecoli.draft",
                                                     "media_id": "glucose_minimal_anaerobic"})
        assert again["model_id"] == "ecoli.draft.gf.v2"
        assert again["atp_correction"]["test_conditions_reused"]
        assert again["quality_checks"]["all_passed"], again["quality_checks"]
        assert again["growth_rate_after"] > 0  # E. coli ferments glucose

        # several media at once: one set of additions with which the model grows on each
        both = ["glucose_minimal_aerobic", "m9_succinate_aerobic"]
        joint = await call(client, "gapfill_model", {"model_id": "ecoli.draft", "media_ids": both})
        assert joint["model_id"] == "ecoli.draft.gf.v3" and joint["media_ids"] == both
        assert joint["quality_checks"]["all_passed"], joint["quality_checks"]
        assert set(joint["growth_by_medium"]) == set(both)
        assert joint["growth_rate_after"] == min(g["after"] for g in joint["growth_by_medium"].values())
        for medium, growth in joint["growth_by_medium"].items():
            assert growth["met_target"] and growth["before"] < 1e-6
            fba = await call(client, "run_fba", {"model_id": "ecoli.draft.gf.v3", "media_id": medium})
            assert fba["objective_value"] == pytest.approx(growth["after"], rel=1e-4, abs=1e-6)
        assert result["media_ids"] == ["glucose_minimal_aerobic"] and result["growth_by_medium"] is None


@pytest.mark.slow
async def test_two_gapfills_of_one_model_at_once_store_under_the_ids_they_were_given(
        server_env: dict[str, str]) -> None:
    """Both gapfills are prepared before either is stored: each is promised its own id (.gf,
    .gf.v2) and its model is stored under that id (issue 30: the id was once worked out twice)."""
    async with in_process_client(server_env) as client:
        seqs = {"p1": "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQ"}
        await call(client, "build_model", {"protein_sequences": seqs, "model_name": "pair"})
        answers: list[dict[str, Any]] = []

        async def gapfill(medium: str) -> None:
            answers.append(await call(client, "gapfill_model", {"model_id": "pair.draft", "media_id": medium}))

        async with anyio.create_task_group() as group:
            group.start_soon(gapfill, "glucose_minimal_aerobic")
            group.start_soon(gapfill, "lb_aerobic")
        assert sorted(a["model_id"] for a in answers) == ["pair.draft.gf", "pair.draft.gf.v2"]
        shown = [job.makes for job in client.resources.jobs.board.jobs("local") if job.kind == "gapfill"]
        assert sorted(shown) == ["pair.draft.gf", "pair.draft.gf.v2"]  # what each job said it makes
        for answer in answers:
            stored = await call(client, "get_model", {"model_id": answer["model_id"], "gapfill_reactions_offset": 0})
            assert stored["gapfill_reactions"]["media_id"] == answer["media_id"]
        listed = await call(client, "list_models", {})
        assert sorted(m["model_id"] for m in listed["models"]) == ["pair.draft", "pair.draft.gf", "pair.draft.gf.v2"]


@pytest.mark.slow
async def test_gapfill_input_errors(server_env: dict[str, str], data_dir: Path, tmp_path: Path) -> None:
    async with in_process_client(server_env) as client:
        seqs = {"p1": "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRVGDGTQDNLSGAEKAVQVKVKALPDAQ"}
        await call(client, "build_model", {"protein_sequences": seqs, "model_name": "tiny"})
        base = {"model_id": "tiny.draft", "media_id": "glucose_minimal_aerobic"}
        body = await call(client, "gapfill_model", {**base, "model_id": "nope.draft"}, error="MODEL_NOT_FOUND")
        assert "tiny.draft" in json.dumps(body["details"])
        await call(client, "gapfill_model", {**base, "media_id": "no_such_medium"}, error="MEDIA_NOT_FOUND")
        for bad in (0, -1, 11):
            body = await call(client, "gapfill_model", {**base, "target_growth_rate": bad},
                              error="INVALID_TARGET_GROWTH_RATE")
            assert body["details"]["valid_range"] == [0.0, 10.0] and body["details"]["minimum_exclusive"]
        body = await call(client, "gapfill_model", {**base, "gapfill_mode": "genome"}, error="INVALID_GAPFILL_MODE")
        assert body["details"]["allowed"] == ["full", "atp_only", "genomescale_only"]
        body = await call(client, "gapfill_model", {"model_id": "tiny.draft"}, error="INVALID_MEDIA")
        assert body["example_call"]["arguments"]["media_ids"]
        await call(client, "gapfill_model", {"model_id": "tiny.draft", "media_ids": []}, error="INVALID_MEDIA")
        await call(client, "gapfill_model", {**base, "media_ids": ["lb_aerobic", "no_such_medium"]},
                   error="MEDIA_NOT_FOUND")
        many = [f"m9_{c}_aerobic" for c in ("glucose", "succinate", "acetate", "citrate", "ethanol", "fructose",
                                            "fumarate", "galactose", "gluconate", "glycerol", "lactate")]
        body = await call(client, "gapfill_model", {"model_id": "tiny.draft", "media_ids": many},
                          error="INVALID_ARGUMENTS")
        assert body["details"]["errors"][0]["argument"] == "media_ids"
        body = await call(client, "gapfill_model", {**base, "media_ids": many[:10]}, error="INVALID_MEDIA")
        assert body["details"] == {"num_media": 11, "max_media": 10}
        await call(client, "get_model", {"model_id": "tiny.draft", "gapfill_reactions_offset": 0},
                   error="NOT_GAPFILLED")
        listed = await call(client, "list_models", {})
        assert [m["model_id"] for m in listed["models"]] == ["tiny.draft"]  # nothing stored by failures


async def test_cancelling_a_gapfill_stops_the_worker(ecoli: cobra.Model, server_env: dict[str, str],
                                                     tmp_path: Path) -> None:
    """The session's E. coli draft (the library's build; the test above builds over MCP) is imported
    and its gapfill cancelled."""
    from test_build_model_mcp import processes_with, wait_until_no_workers

    marker = f"GEMFLUX_TEST_MARKER={tmp_path.name}"
    env = {**server_env, "GEMFLUX_TEST_MARKER": tmp_path.name}
    save_json_model(ecoli, str(tmp_path / "ecoli.json"))
    async with stdio_client(env, "legacy") as client:
        await call(client, "import_model", {"file_path": str(tmp_path / "ecoli.json"), "model_name": "ecoli"})
        solving = anyio.Event()

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            if message and message.startswith("atp_correction"):
                solving.set()

        async with anyio.create_task_group() as group:
            async def gapfill() -> None:
                await client.call_tool("gapfill_model", {"model_id": "ecoli.draft",
                                                         "media_id": "glucose_minimal_aerobic"},
                                       progress_callback=on_progress)

            group.start_soon(gapfill)
            with anyio.fail_after(120):
                await solving.wait()
            workers = [cmd for _, cmd in processes_with(marker) if "gem-flux serve" not in cmd]
            assert workers, "the gapfill should run in a worker process"
            group.cancel_scope.cancel()

        workers = await wait_until_no_workers(marker)
        assert not workers, workers
        listed = await call(client, "list_models", {})
        assert [m["model_id"] for m in listed["models"]] == ["ecoli.draft"]  # nothing stored
        # the next gapfill starts a fresh worker and works
        done = await call(client, "gapfill_model", {"model_id": "ecoli.draft", "media_id": "glucose_minimal_aerobic",
                                                    "gapfill_mode": "genomescale_only"})
        assert done["model_id"] == "ecoli.draft.gf" and done["growth_rate_after"] >= 0.01
