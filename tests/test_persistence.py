"""State survives restarts and kill -9, and many concurrent clients lose nothing."""

from __future__ import annotations

import os
import random
import signal
from pathlib import Path
from typing import Any

import anyio
import pytest
from cobra.io import save_json_model

from conftest import start_http_server, stop_server
from mcp_client import http_client, stdio_client, structured
from models import TEXTBOOK_MEDIUM, textbook


async def _ok(client: Any, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    body = structured(result)
    assert not result.is_error, body
    return body


def _textbook_file(folder: Path) -> Path:
    path = folder / "textbook.json"
    save_json_model(textbook(), str(path))
    return path


def _glucose_medium() -> dict[str, Any]:
    cpds = list(TEXTBOOK_MEDIUM.values())
    return {"compounds": cpds, "default_uptake": 1000,
            "custom_bounds": {c: ([-10, 1000] if c == "cpd00027" else [-1000, 1000]) for c in cpds}}


@pytest.mark.slow
@pytest.mark.anyio
async def test_models_media_and_results_survive_a_restart(server_env: dict[str, str], tmp_path: Path) -> None:
    path = _textbook_file(tmp_path)
    async with stdio_client(server_env, "legacy") as client:
        model = await _ok(client, "import_model", {"file_path": str(path), "model_name": "kept"})
        media = await _ok(client, "build_media", {**_glucose_medium(), "media_name": "kept_medium"})
        first = await _ok(client, "run_fba", {"model_id": model["model_id"], "media_id": "kept_medium",
                                              "objective": "Biomass_Ecoli_core"})
    async with stdio_client(server_env, "2026-07-28") as client:
        listed = await _ok(client, "list_models", {})
        assert [m["model_id"] for m in listed["models"]] == ["kept.draft"]
        assert listed["models"][0]["created_at"] == model["created_at"]
        media_ids = {m["media_id"] for m in (await _ok(client, "list_media", {}))["media"]}
        assert media["media_id"] in media_ids
        detail = await _ok(client, "get_model", {"model_id": "kept.draft", "include_predictions": True})
        assert len(detail["predictions"]) == 1 and detail["last_media_id"] == "kept_medium"
        again = await _ok(client, "run_fba", {"model_id": "kept.draft", "media_id": "kept_medium",
                                              "objective": "Biomass_Ecoli_core"})
        assert again["objective_value"] == first["objective_value"]


@pytest.mark.slow
@pytest.mark.anyio
async def test_kill_9_during_writes_never_lists_anything_half_written(server_env: dict[str, str],
                                                                      tmp_path: Path) -> None:
    path = _textbook_file(tmp_path)
    log = tmp_path / "server.log"
    rng = random.Random(7)
    listed_before = 0
    for round_number in range(3):
        proc, url = start_http_server(server_env, log)

        first_write = anyio.Event()

        async def writer(worker: int, client_url: str = url, round_no: int = round_number,
                         stored: anyio.Event = first_write) -> None:
            try:
                async with http_client(client_url, "legacy") as client:
                    for i in range(100):
                        result = await client.call_tool("import_model", {"file_path": str(path)})
                        if not result.is_error:
                            stored.set()
                        await client.call_tool("build_media", {"compounds": ["cpd00027", "cpd00007"],
                                                               "media_name": f"r{round_no}_w{worker}_{i}"})
            except BaseException:  # the server is killed under us: expected
                return

        async with anyio.create_task_group() as group:
            for worker in range(3):
                group.start_soon(writer, worker)
            # kill at a random moment once writes are flowing (the first call also loads COBRApy)
            with anyio.fail_after(120):
                await first_write.wait()
            await anyio.sleep(rng.uniform(0.1, 1.0))
            os.kill(proc.pid, signal.SIGKILL)  # while the writers are mid-call
            group.cancel_scope.cancel()
        proc.wait()

        proc, url = start_http_server(server_env, log)
        try:
            async with http_client(url, "legacy") as client:
                models = (await _ok(client, "list_models", {}))["models"]
                assert len(models) >= listed_before, "a committed model disappeared"
                listed_before = len(models)
                for info in models:  # every listed model loads (the store checks its sha256)
                    detail = await _ok(client, "get_model", {"model_id": info["model_id"]})
                    assert detail["num_reactions"] == info["num_reactions"] > 0
                await _ok(client, "list_media", {})
        finally:
            stop_server(proc)
        # model files live in the database, written with their rows: no files, so no leftovers
        assert sorted(p.name for p in Path(server_env["GEMFLUX_STATE_DIR"]).iterdir()
                      if not p.name.startswith("gemflux.sqlite")) == []
    assert listed_before > 0, "the writers never got a model stored: the test did not exercise anything"


@pytest.mark.slow
@pytest.mark.anyio
async def test_ten_concurrent_clients_fifty_calls_each(server_env: dict[str, str], tmp_path: Path) -> None:
    path = _textbook_file(tmp_path)
    proc, url = start_http_server(server_env, tmp_path / "server.log")
    failures: list[str] = []
    built: list[str] = []
    try:
        async with http_client(url, "legacy") as setup:
            model_id = (await _ok(setup, "import_model", {"file_path": str(path), "model_name": "shared"}))["model_id"]
            await _ok(setup, "build_media", {**_glucose_medium(), "media_name": "shared_medium"})

        async def client_run(n: int) -> None:
            mode = "legacy" if n % 2 == 0 else "2026-07-28"
            async with http_client(url, mode, name=f"client-{n}") as client:
                for i in range(50):
                    step = i % 5
                    if step == 0:
                        tool, args = "build_media", {"compounds": ["cpd00027", "cpd00009"], "media_name": f"c{n}_{i}"}
                    elif step == 1:
                        tool, args = "run_fba", {"model_id": model_id, "media_id": "shared_medium",
                                                 "objective": "Biomass_Ecoli_core"}
                    elif step == 2:
                        tool, args = "list_models", {}
                    elif step == 3:
                        tool, args = "list_media", {}
                    else:
                        tool, args = "search_compounds", {"query": "glucose", "limit": 3}
                    result = await client.call_tool(tool, args)
                    if result.is_error:
                        failures.append(f"{tool}: {structured(result)}")
                    elif tool == "build_media":
                        built.append(structured(result)["media_id"])

        async with anyio.create_task_group() as group:
            for n in range(10):
                group.start_soon(client_run, n)
        assert failures == []
        async with http_client(url, "legacy") as check:
            media = await _ok(check, "list_media", {"limit": 500})
            mine = {m["media_id"] for m in media["media"] if not m["is_predefined"]}
            assert mine == {*built, "shared_medium"} and len(built) == 100
            detail = await _ok(check, "get_model", {"model_id": model_id, "include_predictions": True,
                                                    "limit": 100})
            assert len(detail["predictions"]) == 100  # every run_fba was recorded
    finally:
        stop_server(proc)
    assert "database is locked" not in (tmp_path / "server.log").read_text()
