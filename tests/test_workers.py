"""Worker processes: several jobs at once, fair across workspaces, nothing left behind after a
cancel or a crash (kill -9 of the server during an alignment)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import pytest

from conftest import GEM_FLUX
from gem_flux_mcp.config import Settings
from gem_flux_mcp.gc_policy import MODELING_THRESHOLD
from gem_flux_mcp.server.worker import JobRunner
from mcp_client import call, stdio_client
from test_build_model_mcp import processes_with, write_subset
from worker_jobs import ReportWorkerState

pytestmark = pytest.mark.anyio


async def test_waiting_jobs_are_served_round_robin_across_workspaces(tmp_path: Path) -> None:
    """The scheduler alone (no job is sent to a worker): lab A queues three jobs, then lab B one;
    with one worker busy, B's job is the second to start, not the fourth."""
    runner = JobRunner(Settings.resolve(tmp_path, tmp_path / "state", tmp_path / "cache"), max_workers=1)
    runner._running = 1  # a job of lab A holds the only worker
    started: list[str] = []
    positions: dict[str, list[str]] = {}

    async def wait(name: str, workspace: str) -> None:
        async def progress(stage: str, fraction: float, message: str) -> None:
            positions.setdefault(name, []).append(message)

        await runner._wait_for_turn(workspace, progress)
        started.append(name)

    async with anyio.create_task_group() as group:
        for name, workspace in (("a1", "lab_a"), ("a2", "lab_a"), ("a3", "lab_a"), ("b1", "lab_b")):
            group.start_soon(wait, name, workspace)
            await anyio.sleep(0.01)
        await anyio.sleep(0.05)
        assert runner.waiting == 4 and started == []
        assert positions["b1"][0].startswith("position 2,")
        for _ in range(4):  # each finished job frees the worker for the next
            runner._running -= 1
            runner._grant()
            await anyio.sleep(0.05)
    assert started == ["a1", "b1", "a2", "a3"]
    assert [m.split(",")[0] for m in positions["a3"]] == ["position 3", "position 2", "position 1"]


async def test_a_cancelled_waiting_job_leaves_the_queue(tmp_path: Path) -> None:
    runner = JobRunner(Settings.resolve(tmp_path, tmp_path / "state", tmp_path / "cache"), max_workers=1)
    runner._running = 1

    async def progress(stage: str, fraction: float, message: str) -> None:
        pass

    task = asyncio.ensure_future(runner._wait_for_turn("lab_a", progress))
    await anyio.sleep(0.05)
    assert runner.waiting == 1
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert runner.waiting == 0 and runner._running == 1


@pytest.mark.slow
async def test_a_worker_warms_up_and_leaves_what_it_loaded_out_of_the_gc(data_dir: Path, cache_dir: Path,
                                                                          tmp_path: Path) -> None:
    """Under a job memory limit a worker always warms up before its first job (a spare does too):
    the default and ATP-test templates, the homology reference's rules and the directions a
    gapfill may offer each template reaction are loaded, then frozen out of the cyclic GC's
    collections, which also come less often than Python's default."""
    settings = dataclasses.replace(Settings.resolve(data_dir, tmp_path / "state", cache_dir), job_memory_mb=8000)
    runner = JobRunner(settings, max_workers=1)

    async def progress(stage: str, fraction: float, message: str) -> None:
        pass

    try:
        state = await runner.run(ReportWorkerState(), progress)
    finally:
        runner.shutdown()
    assert state["gc_threshold"] == MODELING_THRESHOLD
    assert state["templates_loaded"] == 2 and state["reference_rules_loaded"] == 1
    assert state["directions_known"] > 5000
    assert state["frozen_objects"] > 300_000  # the containers the GC tracks: ~540k after the warm-up


async def test_a_worker_started_before_any_job_runs_the_first_one(tmp_path: Path) -> None:
    """`start_spare` (what a server does a few seconds after it starts) starts one worker, and
    only when none runs; the first job then runs in that process instead of waiting for a new one."""
    runner = JobRunner(Settings.resolve(tmp_path, tmp_path / "state", tmp_path / "cache"), max_workers=1)

    async def progress(stage: str, fraction: float, message: str) -> None:
        pass

    try:
        assert runner.start_spare() is True
        assert runner.start_spare() is False  # one is running already
        (spare,) = runner._idle
        state = await runner.run(ReportWorkerState(), progress)
        assert state["pid"] == spare.process.pid
        assert runner._idle == [spare] and runner.start_spare() is False  # it stays for the next job
        # below the server's CPU priority: niceness 10 and Linux's SCHED_IDLE (worker.lower_cpu_priority)
        assert os.getpriority(os.PRIO_PROCESS, spare.process.pid) >= os.getpriority(os.PRIO_PROCESS, 0) + 10
        assert os.sched_getscheduler(spare.process.pid) == os.SCHED_IDLE
    finally:
        runner.shutdown()
    assert not spare.process.is_alive()


@pytest.mark.parametrize("setting", ["1", "0"])
def test_a_server_starts_a_worker_unless_told_not_to(data_dir: Path, cache_dir: Path, tmp_path: Path,
                                                     biochem: object, monkeypatch: pytest.MonkeyPatch,
                                                     setting: str) -> None:
    """The runtime schedules the worker at start (GEMFLUX_WORKER_AT_START, default on); "0" leaves
    the first job to start its own, as a server without build templates does."""
    from gem_flux_mcp.server import runtime

    monkeypatch.setenv("GEMFLUX_WORKER_AT_START", setting)
    resources = runtime.load_resources(Settings.resolve(data_dir, tmp_path / "state", cache_dir),
                                       record_activity=False)
    try:
        assert resources.start_worker_later(delay_s=0.0) is (setting == "1")
        deadline = time.monotonic() + 10
        while setting == "1" and not resources.jobs._idle and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.2)
        started = list(resources.jobs._idle)
        assert len(started) == (1 if setting == "1" else 0)
    finally:
        resources.shutdown()
    assert all(not w.process.is_alive() for w in started)  # shutdown stops it with the rest


async def test_two_builds_run_in_parallel_with_two_workers(server_env: dict[str, str], data_dir: Path,
                                                           tmp_path: Path) -> None:
    fasta = write_subset(data_dir, tmp_path / "ecoli200.faa", 200)
    messages: dict[str, list[str]] = {"one": [], "two": []}

    async def build(client: Any, name: str) -> None:
        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            messages[name].append(message or "")

        result = await client.call_tool("build_model", {"fasta_file_path": str(fasta), "model_name": name},
                                        progress_callback=on_progress)
        assert not result.is_error, result.content

    for workers, expect_queue in (("2", False), ("1", True)):
        env = {**server_env, "GEMFLUX_WORKERS": workers,
               "GEMFLUX_STATE_DIR": str(tmp_path / f"state{workers}")}
        for key in messages:
            messages[key].clear()
        async with stdio_client(env, "legacy") as client:
            async with anyio.create_task_group() as group:
                group.start_soon(build, client, "one")
                await anyio.sleep(0.3)
                group.start_soon(build, client, "two")
            listed = await call(client, "list_models", {})
            assert sorted(m["model_id"] for m in listed["models"]) == ["one.draft", "two.draft"]
        # which build reaches the runner first is the server's scheduling (0.3 s apart; on a busy
        # machine "two" may overtake "one"): with one worker exactly one of them waits, first in line
        queued = {name: [m for m in found if m.startswith("queued")] for name, found in messages.items()}
        if expect_queue:
            waited = [name for name, found in queued.items() if found]
            assert len(waited) == 1, messages
            assert queued[waited[0]][0].startswith("queued: position 1,"), messages
        else:
            assert queued == {"one": [], "two": []}, messages


@pytest.mark.slow
def test_kill_9_during_an_alignment_leaves_no_process_and_no_files(server_env: dict[str, str], data_dir: Path,
                                                                  tmp_path: Path) -> None:
    marker = f"GEMFLUX_TEST_MARKER={tmp_path.name}"
    env = {**server_env, "GEMFLUX_TEST_MARKER": tmp_path.name, "GEMFLUX_ALIGNER": "mmseqs",
           "GEMFLUX_ALLOWED_ROOTS": f"{tmp_path}{os.pathsep}{data_dir}",
           "GEMFLUX_KEEP_HITS": "0"}  # the aligner must run: hits kept by an earlier build would skip it
    jobs_dir = Path(server_env["GEMFLUX_CACHE_DIR"]) / "jobs"
    fasta = data_dir / "genomes" / "ecoli_k12_mg1655.faa"
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "build_model", "arguments": {"fasta_file_path": str(fasta), "model_name": "killed"}}},
    ]
    server = subprocess.Popen([GEM_FLUX, "serve"], env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    assert server.stdin is not None
    try:
        server.stdin.write("".join(json.dumps(r) + "\n" for r in requests).encode())
        server.stdin.flush()
        deadline = time.monotonic() + 180
        aligner: list[tuple[int, str]] = []
        while time.monotonic() < deadline and not aligner:
            aligner = [(pid, cmd) for pid, cmd in processes_with(marker) if "mmseqs" in cmd]
            time.sleep(0.2)
        assert aligner, "the aligner never started"
        job_folders = sorted(jobs_dir.glob(f"{server.pid}-*"))
        assert job_folders and any(job_folders[0].iterdir()), "the aligner's files belong in the job's folder"
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        deadline = time.monotonic() + 3
        left = processes_with(marker)
        while left and time.monotonic() < deadline:
            time.sleep(0.1)
            left = processes_with(marker)
        assert left == [], left  # worker and aligner (with all its sub-processes) are gone within 3 s
    finally:
        if server.poll() is None:
            server.kill()
    assert job_folders[0].exists()  # a crash cannot clean up; the next start does
    subprocess.run([GEM_FLUX, "serve"], env=env, input=b"", capture_output=True, timeout=120, check=True)
    assert not job_folders[0].exists()
