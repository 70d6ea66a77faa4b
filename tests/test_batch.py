"""Batch reconstruction on a real Dask LocalCluster of worker processes: the two proteomes of the
data folder and a genome from pyrodigal's test data built, gapfilled and exported in one run;
growth checked with COBRApy on the written SBML; a rerun resumes; a killed worker's genome is
run once more; the MCP tools over a real HTTP server; the command line, on a cluster started apart
and when that cluster's scheduler is killed."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import cobra
import httpx
import pyrodigal
import pytest

from conftest import GEM_FLUX, free_port
from gem_flux_mcp.data.media_library import load_media_library
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.services.batch import BatchSpec, find_inputs, outputs, run_batch
from gem_flux_mcp.services.batch.runner import plan_tasks
from gem_flux_mcp.services.batch.storing import StoreTarget
from gem_flux_mcp.store.store import Store
from mcp_client import call, http_client

PYRODIGAL_DATA = Path(pyrodigal.__file__).parent / "tests" / "data"
SMALL_GENOME = PYRODIGAL_DATA / "KK037166.fna.gz"  # 19 genes: builds and gapfills in ~30 s
GENOME_100KB = PYRODIGAL_DATA / "GCF_001457455.1_NCTC11397_genomic_100kb.fna.gz"
MEDIUM = "glucose_minimal_aerobic"


def _medium(data_dir: Path) -> dict[str, tuple[float, float]]:
    return dict(load_media_library(data_dir)[MEDIUM].compounds)


def _spec(inputs: list[Path], out: Path, data_dir: Path, cache_dir: Path, **kwargs: Any) -> BatchSpec:
    return BatchSpec(tuple(find_inputs(inputs)), {MEDIUM: _medium(data_dir)}, out, data_dir, cache_dir, **kwargs)


def _broken(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "broken.faa"
    path.write_text(">p1\nACGTACGTACGTAAAA\n")  # a 16-bp "genome": no gene to call
    return path


def _cobra_growth(sbml: Path, medium: dict[str, tuple[float, float]]) -> float:
    """Growth of the written SBML on `medium`, with COBRApy alone: each exchange bounded by the
    medium's entry for its compound, closed for uptake when the medium lacks it."""
    model = cobra.io.read_sbml_model(str(sbml))
    for exchange in model.exchanges:
        compound = next(iter(exchange.metabolites)).id.rsplit("_", 1)[0]
        exchange.bounds = medium.get(compound, (0.0, 1000.0))
    model.objective = "bio1"
    return float(model.slim_optimize())


def test_inputs_are_named_after_their_files_and_clashes_refused(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "GCF_1.2_x_protein.faa.gz").write_bytes(b"")
    (tmp_path / "a" / "notes.txt").write_text("not a genome")
    (tmp_path / "b.gbk").write_text("")
    found = find_inputs([tmp_path / "a", tmp_path / "b.gbk", tmp_path / "a" / "GCF_1.2_x_protein.faa.gz"])
    assert [g.name for g in found] == ["GCF_1.2_x_protein", "b"]  # the file named twice is built once

    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "b.fna").write_text("")
    with pytest.raises(ValidationError) as clash:
        find_inputs([tmp_path / "b.gbk", tmp_path / "c"])
    assert clash.value.code == "BATCH_DUPLICATE_NAMES" and clash.value.details["clashes"]["b"]
    with pytest.raises(ValidationError) as missing:
        find_inputs([tmp_path / "nope.faa"])
    assert missing.value.code == "BATCH_INPUT_NOT_FOUND"
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValidationError) as empty:
        find_inputs([tmp_path / "empty"])
    assert empty.value.code == "BATCH_NO_INPUTS"


@pytest.mark.slow
def test_batch_on_a_local_cluster_builds_checks_and_resumes(data_dir: Path, cache_dir: Path, biochem: Any,
                                                            tmp_path: Path) -> None:
    out = tmp_path / "out"
    inputs = [data_dir / "genomes", GENOME_100KB, _broken(tmp_path / "in")]
    spec = _spec(inputs, out, data_dir, cache_dir, phenotype_panels=("carbon",))
    first = run_batch(spec, workers=2)

    rows = {row["genome"]: row for row in first.rows}
    assert list(rows) == ["bsubtilis_168", "ecoli_k12_mg1655", "GCF_001457455.1_NCTC11397_genomic_100kb", "broken"]
    assert first.counts == {"ok": 3, "failed": 1}
    assert first.cluster == "LocalCluster of 2 worker process(es)"
    assert len({row["worker"] for row in first.rows}) == 2  # two worker processes shared the genomes
    assert rows["ecoli_k12_mg1655"]["template"] == "GramNegative"
    assert rows["bsubtilis_168"]["template"] == "GramPositive"
    assert rows["GCF_001457455.1_NCTC11397_genomic_100kb"]["genes_called"] == 103
    # genetic code: chosen for the genome (table 11, single mode); none for proteomes
    assert rows["GCF_001457455.1_NCTC11397_genomic_100kb"]["translation_table"] == 11
    assert rows["ecoli_k12_mg1655"]["translation_table"] is None
    # how complete each genome looks: the two whole proteomes near complete, the 100 kb fragment not
    for name in ("bsubtilis_168", "ecoli_k12_mg1655"):
        assert rows[name]["completeness"] >= 95 and rows[name]["contamination"] <= 5, rows[name]
    assert rows["GCF_001457455.1_NCTC11397_genomic_100kb"]["completeness"] < 50
    broken = rows["broken"]
    assert broken["error_code"] == "GENOME_NO_GENES"
    report = outputs.read_report(out, "broken")
    assert report is not None and report["error"]["error_code"] == "GENOME_NO_GENES"
    assert not outputs.model_path(out, "broken").exists()

    medium = _medium(data_dir)
    for name in ("bsubtilis_168", "ecoli_k12_mg1655", "GCF_001457455.1_NCTC11397_genomic_100kb"):
        row = rows[name]
        assert row["status"] == "ok" and row["quality_checks_passed"] and row["attempts"] == 1
        assert row["num_reactions"] > row["draft_reactions"] > 0 and row["gapfill_added"] > 0
        assert 0 <= row["phenotypes"]["carbon"] <= 190
        growth = _cobra_growth(outputs.model_path(out, name), medium)
        assert growth == pytest.approx(row["growth"][MEDIUM], abs=1e-5), name
        assert growth > 0.01

    # a real proteome's model grows on many Biolog carbon sources; the 103-gene fragment's (glucose
    # only, all of it gapfilled) on none of the panel's
    assert rows["ecoli_k12_mg1655"]["phenotypes"]["carbon"] > 20 and rows["bsubtilis_168"]["phenotypes"]["carbon"] > 20
    lines = (out / "summary.tsv").read_text().splitlines()
    header = lines[0].split("\t")
    assert [line.split("\t")[0] for line in lines[1:]] == list(rows)
    assert {line.split("\t")[header.index("status")] for line in lines[1:]} == {"ok", "failed"}
    assert [line.split("\t")[header.index("translation_table")] for line in lines[1:]] == ["", "", "11", ""]
    assert [line.split("\t")[header.index("completeness")] for line in lines[1:]] == [
        *(outputs.tsv_value(rows[name]["completeness"]) for name in list(rows)[:3]), ""]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"] == {"ok": 3, "failed": 1} and summary["media"] == [MEDIUM]

    # a rerun skips the finished genomes and retries the failure
    before = {name: outputs.model_path(out, name).stat().st_mtime_ns for name in list(rows)[:3]}
    second = run_batch(spec, workers=2)
    again = {row["genome"]: row for row in second.rows}
    assert [name for name, row in again.items() if row.get("skipped")] == list(rows)[:3]
    assert again["broken"]["status"] == "failed" and again["broken"]["attempts"] == 1
    assert {name: outputs.model_path(out, name).stat().st_mtime_ns for name in before} == before
    assert not list(out.rglob("*.tmp"))

    # a model file that no longer matches its report, a changed input or other settings: built again
    tampered = outputs.model_path(out, "GCF_001457455.1_NCTC11397_genomic_100kb")
    tampered.write_bytes(tampered.read_bytes() + b"\n")
    todo, done = plan_tasks(spec)
    assert [task.name for task in todo] == ["GCF_001457455.1_NCTC11397_genomic_100kb", "broken"]
    assert [row["genome"] for row in done] == ["bsubtilis_168", "ecoli_k12_mg1655"]
    other_medium = replace(spec, media={"pyruvate_minimal_aerobic": load_media_library(data_dir)[
        "pyruvate_minimal_aerobic"].compounds})
    assert len(plan_tasks(other_medium)[0]) == 4


def spec_key(spec: BatchSpec, index: int) -> str:
    from gem_flux_mcp.services.batch.task import settings_key

    media = {name: dict(medium) for name, medium in spec.media.items()}
    return settings_key(spec.inputs[index].path, media, spec.template, spec.gene_calling, spec.phenotype_panels)


@pytest.mark.slow
def test_a_killed_worker_is_replaced_and_its_genome_run_again(data_dir: Path, cache_dir: Path, biochem: Any,
                                                              tmp_path: Path) -> None:
    out = tmp_path / "out"
    # the workers also keep what they build in a store of their own (no caller stores anything here)
    spec = _spec([SMALL_GENOME], out, data_dir, cache_dir,
                 store_to=StoreTarget(str(tmp_path / "state"), None, "lab"))
    done: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: done.update(outcome=run_batch(spec, workers=2)))
    thread.start()
    deadline = time.monotonic() + 120
    while not outputs.attempt_pids(out, "KK037166") and time.monotonic() < deadline:
        time.sleep(0.2)
    pids = outputs.attempt_pids(out, "KK037166")
    assert pids, "the genome never started"
    time.sleep(2.0)  # well into the build
    os.kill(pids[0], signal.SIGKILL)
    thread.join(300)
    assert not thread.is_alive()

    outcome = done["outcome"]
    [row] = outcome.rows
    assert row["status"] == "ok" and row["attempts"] == 2, row
    assert outputs.attempt_pids(out, "KK037166")[0] == pids[0] and len(outputs.attempt_pids(out, "KK037166")) == 2
    assert outputs.completed_row(out, "KK037166", spec_key(spec, 0)) is not None  # file and report agree
    with Store(tmp_path / "state") as store:
        [stored] = store.list_models("lab")  # stored once, by the worker that finished it
        assert stored.model_id == row["stored_model_id"] == "KK037166.gf"
        assert stored.extra["batch_model_sha256"] == outputs.read_report(out, "KK037166")["model_sha256"]
        assert stored.num_reactions == row["num_reactions"]
    assert _cobra_growth(outputs.model_path(out, "KK037166"), _medium(data_dir)) == pytest.approx(
        row["growth"][MEDIUM], abs=1e-5)
    assert not list(out.rglob("*.tmp"))


@pytest.mark.slow
@pytest.mark.anyio
async def test_batch_tools_over_mcp(http_server: str, tmp_path: Path, data_dir: Path) -> None:
    genomes = tmp_path / "genomes"
    genomes.mkdir()
    shutil.copy(SMALL_GENOME, genomes / SMALL_GENOME.name)
    progress: list[tuple[float, float | None]] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total))

    async with http_client(http_server, "legacy") as client:
        started = await call(client, "build_models_batch", {"inputs": ["genomes"], "out_dir": "batch1", "workers": 1})
        assert started["status"] == "running" and started["genomes"] == ["KK037166"] and started["workers"] == 1
        job_id = started["job_id"]
        busy = await call(client, "build_models_batch", {"inputs": ["genomes"], "out_dir": "batch2"},
                          error="BATCH_ALREADY_RUNNING")
        assert busy["details"]["running_job_id"] == job_id
        await call(client, "build_models_batch", {"inputs": ["/etc"], "out_dir": "b"}, error="PATH_NOT_ALLOWED")
        await call(client, "get_batch_status", {"job_id": "batch_nope"}, error="BATCH_JOB_NOT_FOUND")

        result = await client.call_tool("get_batch_status", {"job_id": job_id, "wait_seconds": 300},
                                        progress_callback=on_progress)
        status = result.structured_content
        assert status is not None and status["status"] == "finished", status
        assert status["progress"]["ok"] == 1 and status["progress"]["failed"] == 0
        assert progress and progress[0][1] == 1  # notifications: "x of 1 genomes finished"
        [row] = status["genomes"]
        assert row["stored_model_id"] == "KK037166.gf" and row["model_file"] == "models/KK037166.xml"
        assert status["files"]["summary_tsv"].endswith("batch1/summary.tsv")
        assert (tmp_path / "batch1" / "models" / "KK037166.xml").is_file()

        listed = await call(client, "list_models", {})
        assert "KK037166.gf" in [m["model_id"] for m in listed["models"]]
        fba = await call(client, "run_fba", {"model_id": "KK037166.gf", "media_id": MEDIUM})
        assert fba["objective_value"] == pytest.approx(row["growth"][MEDIUM], abs=1e-5)

        # the same batch again: resumed (nothing built), and the stored model is not stored twice
        again = await call(client, "build_models_batch", {"inputs": ["genomes"], "out_dir": "batch1"})
        done = await call(client, "get_batch_status", {"job_id": again["job_id"], "wait_seconds": 60})
        assert done["status"] == "finished" and done["genomes"][0]["skipped"]
        assert done["genomes"][0]["stored_model_id"] == "KK037166.gf"
        assert done["cluster"].startswith("none")

    # the dashboard's Jobs page lists both runs of the batch
    page = httpx.get(f"{http_server}/jobs", timeout=10).text
    assert job_id in page and again["job_id"] in page and "1 done, 0 failed of 1" in page


@contextlib.contextmanager
def _dask_cluster(env: dict[str, str], log: Path) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    """A Dask cluster started apart, as a lab runs one (`dask scheduler` and one `dask worker` of
    one process and one thread, in a process group of its own): its address and the two
    processes; both stopped after."""
    dask = str(Path(sys.executable).parent / "dask")
    port = free_port()
    with log.open("wb") as logs:
        cluster = [subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", str(port),
                                     "--dashboard-address", ":0"], env=env, stdout=logs, stderr=subprocess.STDOUT)]
        try:
            cluster.append(subprocess.Popen([dask, "worker", f"tcp://127.0.0.1:{port}", "--nworkers", "1",
                                             "--nthreads", "1", "--no-dashboard"], env=env, stdout=logs,
                                            stderr=subprocess.STDOUT, start_new_session=True))
            yield f"tcp://127.0.0.1:{port}", cluster
        finally:
            for proc in reversed(cluster):
                proc.terminate()
                proc.wait(timeout=30)


def _cli_env(data_dir: Path, cache_dir: Path) -> dict[str, str]:
    return {**os.environ, "GEMFLUX_DATA_DIR": str(data_dir), "GEMFLUX_CACHE_DIR": str(cache_dir)}


@pytest.mark.slow
def test_batch_command_on_an_existing_dask_cluster(data_dir: Path, cache_dir: Path, biochem: Any,
                                                   tmp_path: Path) -> None:
    """`gem-flux batch --scheduler` sends the genomes to a cluster started apart, as a lab runs
    one (`dask scheduler` and `dask worker`); a failed genome gives exit code 3."""
    env = _cli_env(data_dir, cache_dir)
    with _dask_cluster(env, tmp_path / "cluster.log") as (address, _):
        broken = _broken(tmp_path / "in")
        done = subprocess.run([GEM_FLUX, "batch", str(broken), "--out", str(tmp_path / "out"), "--scheduler",
                               address, "--json", "--quiet"], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 3, done.stderr
    answer = json.loads(done.stdout)
    assert answer["cluster"] == f"scheduler {address}"
    assert answer["counts"] == {"failed": 1} and answer["failed"][0]["error_code"] == "GENOME_NO_GENES"
    assert (tmp_path / "out" / "summary.tsv").read_text().splitlines()[1].startswith("broken\tfailed")
    bad = subprocess.run([GEM_FLUX, "batch", str(tmp_path / "none"), "--out", str(tmp_path / "o2")], env=env,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 1 and "BATCH_INPUT_NOT_FOUND" in bad.stderr


@pytest.mark.slow
def test_batch_command_whose_scheduler_goes_away_says_what_finished_and_resumes(
        data_dir: Path, cache_dir: Path, biochem: Any, tmp_path: Path) -> None:
    """The scheduler killed while the batch runs: exit code 3 and our own message (what finished,
    where it is, how to resume), no Dask traceback; the same command again, on local workers,
    skips the finished genome and builds the other."""
    env = _cli_env(data_dir, cache_dir)
    first, second = tmp_path / "in" / SMALL_GENOME.name, tmp_path / "in" / "second.fna.gz"
    first.parent.mkdir()
    shutil.copy(SMALL_GENOME, first)
    shutil.copy(SMALL_GENOME, second)
    out = tmp_path / "out"
    command = [GEM_FLUX, "batch", str(first), str(second), "--out", str(out)]
    with _dask_cluster(env, tmp_path / "cluster.log") as (address, (scheduler, worker)):
        batch = subprocess.Popen([*command, "--scheduler", address], env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        lines: list[str] = []

        def read_stderr() -> None:
            assert batch.stderr is not None
            for line in batch.stderr:
                lines.append(line)

        reader = threading.Thread(target=read_stderr)
        reader.start()
        deadline = time.monotonic() + 120
        # one genome counted as finished (progress "1/2"), the other started on the one worker (in
        # either order)
        while not (any("batch: 1/2 genomes" in line for line in lines)
                   and all(outputs.attempt_pids(out, name) for name in ("KK037166", "second"))):
            assert time.monotonic() < deadline and batch.poll() is None, "".join(lines)
            time.sleep(0.2)
        time.sleep(1.0)
        scheduler.kill()
        os.killpg(worker.pid, signal.SIGKILL)  # and its worker, before it finishes the other genome
        batch.wait(timeout=60)
        reader.join(10)
    assert batch.stdout is not None
    stdout = batch.stdout.read()
    stderr = "".join(lines)
    assert batch.returncode == 3, stderr
    assert "gem-flux batch: stopped: the connection to the Dask scheduler was lost" in stderr
    assert "1 of 2 genomes finished (1 ok); 1 left." in stderr
    assert f"Results so far: {out} (summary: {out / 'summary.tsv'})." in stderr
    assert "Run the same command again to resume" in stderr
    assert "Traceback" not in stderr and "distributed" not in stderr and "Cancelled" not in stderr, stderr
    assert stdout == ""
    summary = json.loads((out / "summary.json").read_text())
    [finished] = [row["genome"] for row in summary["genomes"]]
    [unfinished] = summary["not_run"]
    assert summary["counts"] == {"ok": 1} and {finished, unfinished} == {"KK037166", "second"}
    assert summary["cluster_lost"] == "scheduler_lost"

    again = subprocess.run([*command, "--workers", "1", "--json", "--quiet"], env=env, capture_output=True,
                           text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    rows = {row["genome"]: row for row in json.loads(again.stdout)["genomes"]}
    assert rows[finished]["skipped"] and rows[finished]["status"] == "ok"
    assert rows[unfinished]["status"] == "ok" and not rows[unfinished].get("skipped")
