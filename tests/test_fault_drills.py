"""Fault drills (issue 33): a real `gem-flux serve --transport http` and real MCP clients while
PostgreSQL crashes and comes back, a job runs out of its memory limit, and the state folder's disk
fills up. In each, every call gets a clear answer, nothing acknowledged is lost, and the store is
readable and complete afterwards."""

from __future__ import annotations

import errno
import json
import os
import signal
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cobra.io import save_json_model

from conftest import start_http_server, stop_server
from gem_flux_mcp.server import job_memory
from mcp_client import call, http_client, structured
from models import textbook
from postgres import PostgresCluster, find_bin_dir
from test_build_model_mcp import processes_with

pytestmark = pytest.mark.anyio

COMPOUNDS = ["cpd00027", "cpd00007", "cpd00009", "cpd00013"]
PROMPT_S = 10.0  # an answer during an outage comes within this


@pytest.fixture()
def http(server_env: dict[str, str], tmp_path: Path) -> Iterator[Any]:
    """Start servers with extra environment (`http(**env)` -> base URL); all stopped afterwards."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(**extra: str) -> str:
        proc, url = start_http_server({**server_env, **extra}, tmp_path / f"server{len(procs)}.log")
        procs.append(proc)
        return url

    yield start
    for proc in procs:
        stop_server(proc)


async def timed(client: Any, tool: str, args: dict[str, Any]) -> tuple[dict[str, Any], bool, float]:
    """(answer or envelope, is_error, seconds)."""
    started = time.perf_counter()
    result = await client.call_tool(tool, args)
    return structured(result), bool(result.is_error), time.perf_counter() - started


async def all_readable(client: Any, media_ids: list[str]) -> None:
    for media_id in media_ids:
        body = await call(client, "get_media", {"media_id": media_id})
        assert sorted(c["id"] for c in body["compounds"]) == sorted(COMPOUNDS)


# ---- 1. PostgreSQL crashes under a live server and comes back


@pytest.mark.slow  # real server processes (and a PostgreSQL cluster, a tmpfs)
async def test_postgresql_crash_and_restart_under_a_live_server(http: Any) -> None:
    bin_dir = find_bin_dir()
    if bin_dir is None:
        pytest.skip("PostgreSQL server binaries not found (apt-get install postgresql)")
    # its own cluster (crashed here, so not the session's), committing as a production server does
    cluster = PostgresCluster(bin_dir, synchronous_commit=True).start()
    try:
        url = http(GEMFLUX_DATABASE_URL=cluster.new_database("drill"))
        async with http_client(url, "legacy") as client:
            acknowledged = [(await call(client, "build_media", {"compounds": COMPOUNDS, "media_name": f"before_{i}"}))
                            ["media_id"] for i in range(5)]
            cluster.crash()
            for tool, args in (("build_media", {"compounds": COMPOUNDS, "media_name": "during"}),
                               ("get_media", {"media_id": acknowledged[0]}),
                               ("list_media", {"name": "before"}),
                               ("list_models", {})):
                body, is_error, seconds = await timed(client, tool, args)
                assert is_error and body["error_code"] == "DATABASE_ERROR", (tool, body)
                assert seconds < PROMPT_S, (tool, seconds)
                assert "s3cret" not in json.dumps(body)  # the URL's password is never shown
            # what needs no database still answers
            body, is_error, seconds = await timed(client, "get_compound_name", {"compound_id": "cpd00027"})
            assert not is_error and seconds < PROMPT_S
            cluster.restart()
            # the same server, the same session: serving again
            after = (await call(client, "build_media", {"compounds": COMPOUNDS, "media_name": "after"}))["media_id"]
            await all_readable(client, [*acknowledged, after])
            listed = await call(client, "list_media", {"name": "before", "limit": 100})
            assert sorted(m["media_id"] for m in listed["media"] if m["media_id"].startswith("before")) == \
                sorted(acknowledged)
            await call(client, "get_media", {"media_id": "during"}, error="MEDIA_NOT_FOUND")
    finally:
        cluster.stop()


# ---- 2. a job over its memory limit


def kill_the_worker(marker: str) -> None:
    """SIGKILL the server's worker process, as the kernel's out-of-memory killer would."""
    workers = [pid for pid, command in processes_with(marker) if "spawn_main" in command]
    assert len(workers) == 1, workers
    os.kill(workers[0], signal.SIGKILL)


@pytest.mark.slow  # real server processes (and a PostgreSQL cluster, a tmpfs)
async def test_a_gapfill_over_its_memory_limit_ends_job_out_of_memory(http: Any, tmp_path: Path) -> None:
    save_json_model(textbook(), str(tmp_path / "textbook.json"))
    marker = f"GEMFLUX_TEST_MARKER={tmp_path.name}"
    url = http(GEMFLUX_JOB_MEMORY_MB="48", GEMFLUX_WORKERS="1", GEMFLUX_TEST_MARKER=tmp_path.name)
    gapfill = {"model_id": "tiny.draft", "media_id": "glucose_minimal_aerobic"}
    async with http_client(url, "legacy") as client:
        # a one-protein draft (its job fits in the limit)
        await call(client, "build_model", {"protein_sequences": {"p1": "MKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQAPILSRV"},
                                           "model_name": "tiny", "use_homology": False})
        # its worker killed by a signal under the limit, once the gapfill reports progress
        killed: list[bool] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            if not killed:
                killed.append(True)
                kill_the_worker(marker)

        result = await client.call_tool("gapfill_model", gapfill, progress_callback=on_progress)
        body = structured(result)
        assert killed and result.is_error and body["error_code"] == "JOB_OUT_OF_MEMORY", body
        assert body["details"] == {"job": "gapfill", "memory_limit_mb": 48, "ended_by": "SIGKILL"}
        # gapfilled from nearly nothing, it needs ~115 MB more: a MemoryError
        body, is_error, _ = await timed(client, "gapfill_model", gapfill)
        assert is_error and body["error_code"] == "JOB_OUT_OF_MEMORY", body
        assert body["details"]["memory_limit_mb"] == 48 and body["details"]["job"] == "gapfill"
        assert body["details"]["ended_by"] in {"MemoryError", "SIGABRT", "SIGSEGV", "SIGBUS"}
        assert "GEMFLUX_JOB_MEMORY_MB" in body["message"]
        # the server goes on, and so do jobs that fit: FVA of the core model in a fresh worker
        await call(client, "get_compound_name", {"compound_id": "cpd00027"})
        await call(client, "import_model", {"file_path": "textbook.json", "model_name": "tb"})
        medium = {"cpd00027": [-10, 1000], "cpd00007": [-1000, 1000], "cpd00009": [-1000, 1000],
                  "cpd00013": [-1000, 1000], "cpd00001": [-1000, 1000], "cpd00067": [-1000, 1000],
                  "cpd00011": [-1000, 1000]}
        media_id = (await call(client, "build_media", {"compounds": list(medium), "custom_bounds": medium}))["media_id"]
        fva = await call(client, "run_fva", {"model_id": "tb.draft", "media_id": media_id,
                                             "objective": "Biomass_Ecoli_core", "reactions": ["PGI", "PFK"]})
        assert fva["success"]
        # nothing half-stored: the draft is there, no gapfilled model
        models = (await call(client, "list_models", {}))["models"]
        assert sorted(m["model_id"] for m in models) == ["tb.draft", "tiny.draft"]


def test_how_a_dead_worker_is_told_apart() -> None:
    """MemoryError (also wrapped by a library) vs a worker killed by a signal, with and without a limit."""
    try:
        try:
            raise MemoryError
        except MemoryError as inner:
            raise RuntimeError("solver failed") from inner
    except RuntimeError as wrapped:
        assert job_memory.ran_out_of_memory(wrapped)
    assert not job_memory.ran_out_of_memory(RuntimeError("solver failed"))
    assert job_memory.died_of_memory(-9, 512) and job_memory.died_of_memory(-6, 512)
    assert not job_memory.died_of_memory(-9, None)  # no limit: WORKER_DIED, as before
    assert not job_memory.died_of_memory(1, 512) and not job_memory.died_of_memory(-15, 512)
    assert job_memory.signal_name(-9) == "SIGKILL"


# ---- 3. the state folder's disk fills up


@pytest.fixture()
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 16 MB tmpfs: a folder whose disk really fills up (needs root; skipped otherwise: a
    file-size limit, RLIMIT_FSIZE, the one way without root, fails writes past the limit with
    EFBIG, which SQLite reports as a disk I/O error rather than a full disk when a write starts past
    the limit: it would drill something else)."""
    folder = tmp_path / "small"
    folder.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root")
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(folder)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path) -> Path:
    """Write a ballast file until the disk is full."""
    ballast = folder / "ballast"
    chunk = b"\0" * 65536
    with ballast.open("wb") as out:
        try:
            while True:
                out.write(chunk)
                out.flush()
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    return ballast


@pytest.mark.slow  # real server processes (and a PostgreSQL cluster, a tmpfs)
async def test_writes_when_the_state_disk_is_full(http: Any, small_disk: Path, tmp_path: Path) -> None:
    save_json_model(textbook(), str(tmp_path / "textbook.json"))
    state = small_disk / "state"
    url = http(GEMFLUX_STATE_DIR=str(state))
    async with http_client(url, "legacy") as client:
        acknowledged = [(await call(client, "build_media", {"compounds": COMPOUNDS, "media_name": f"before_{i}"}))
                        ["media_id"] for i in range(3)]
        ballast = fill(small_disk)
        refused: list[str] = []
        for i in range(40):  # the write-ahead log may have room for a few: write until refused
            name = f"full_{i}"
            body, is_error, seconds = await timed(client, "build_media", {"compounds": COMPOUNDS, "media_name": name})
            assert seconds < PROMPT_S
            if not is_error:
                acknowledged.append(body["media_id"])
                continue
            assert body["error_code"] == "STORAGE_FULL", body
            assert "rolled back" in body["message"] and body["suggestions"]
            refused.append(name)
            if len(refused) >= 3:
                break
        assert refused, "no write was refused on a full disk"
        # a model (a larger write): refused the same way, unless the log still had room for it
        body, is_error, _ = await timed(client, "import_model", {"file_path": "textbook.json", "model_name": "tb"})
        assert not is_error or body["error_code"] == "STORAGE_FULL", body
        models = [] if is_error else ["tb.draft"]
        # reads still work on a full disk
        await all_readable(client, acknowledged)
        await call(client, "get_compound_name", {"compound_id": "cpd00027"})
        ballast.unlink()
        # room again: the same server writes again
        acknowledged.append((await call(client, "build_media", {"compounds": COMPOUNDS, "media_name": "after"}))
                            ["media_id"])
        models.append((await call(client, "import_model", {"file_path": "textbook.json", "model_name": "again"}))
                      ["model_id"])
        await all_readable(client, acknowledged)
        listed = (await call(client, "list_models", {}))["models"]
        assert sorted(m["model_id"] for m in listed) == sorted(models)
        for model_id in models:  # its file is whole (checked against its sha256 when read)
            assert (await call(client, "get_model", {"model_id": model_id}))["num_reactions"] == 95
        for name in refused:  # nothing half-written
            await call(client, "get_media", {"media_id": name}, error="MEDIA_NOT_FOUND")
    # the file is sound and holds what was acknowledged, nothing refused (read beside the live server: WAL)
    with sqlite3.connect(state / "gemflux.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        stored = {row[0] for row in db.execute("SELECT media_id FROM media")}
    assert set(acknowledged) <= stored and not stored & set(refused)


@pytest.mark.parametrize(("raw", "expected"), [("512", 512), (" 64 ", 64), ("", None), ("0", None), ("-5", None),
                                               ("1.5", None), ("lots", None)])
def test_the_job_memory_setting(raw: str, expected: int | None, monkeypatch: pytest.MonkeyPatch,
                                tmp_path: Path) -> None:
    from gem_flux_mcp.config import ENV_JOB_MEMORY_MB, Settings

    monkeypatch.setenv(ENV_JOB_MEMORY_MB, raw)
    assert Settings.resolve(tmp_path, tmp_path, tmp_path).job_memory_mb == expected
