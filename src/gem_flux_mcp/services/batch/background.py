"""Batches run in the background of a server: `build_models_batch` (genomes) and
`run_community_samples` (samples of a community, `start_items`) start one and answer at once
with its job id; `get_batch_status` reads its progress and rows, waiting for it if asked.
A job belongs to the workspace that started it; other workspaces cannot see it.

One batch runs at a time per server (a batch already uses every worker it is given); the job
list lives in the server process: after a restart, the output folder (summary and reports) is
what remains, and a rerun of the same batch resumes it.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import GemFluxError, NotFoundError, ValidationError
from gem_flux_mcp.store.rows import utc_now
from gem_flux_mcp.store.store import Store

from .lost import ClusterLost
from .runner import BatchProgress, BatchSpec, run_batch
from .storing import store_genome

log = logging.getLogger(__name__)

Status = Literal["running", "finished", "failed", "cancelled"]
MAX_KEPT_JOBS = 100  # finished jobs remembered per server (the oldest are forgotten)

OnRow = Callable[[dict[str, Any]], None]
# a batch of other items than genomes: run(on_row, cancel) -> (files, cluster, cancelled); on_row
# sees each finished row (`status` "ok" or "failed", `skipped` when done before)
RunItems = Callable[[OnRow, threading.Event], tuple[dict[str, str], str, bool]]


@dataclass
class BatchJob:
    job_id: str
    workspace: str
    spec: BatchSpec | None  # None: a batch of other items (`run_items`)
    workers: int
    save_to_store: bool
    started_at: str = field(default_factory=utc_now)
    updated_at: str = field(default_factory=utc_now)
    status: Status = "running"
    progress: BatchProgress = field(default_factory=lambda: BatchProgress(total=0))
    rows: list[dict[str, Any]] = field(default_factory=list)  # in the order the genomes finished
    files: dict[str, str] = field(default_factory=dict)
    cluster: str = ""
    error: dict[str, Any] | None = None
    seconds: float = 0.0
    cancel: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    what: str = "genomes"  # the items, as a person names them
    folder: Path | None = None  # the output folder of a batch of other items
    run_items: RunItems | None = None
    _started: float = field(default_factory=time.perf_counter)

    @property
    def out_dir(self) -> Path:
        if self.spec is not None:
            return self.spec.out_dir
        assert self.folder is not None
        return self.folder

    def elapsed(self) -> float:
        return self.seconds if self.status != "running" else round(time.perf_counter() - self._started, 2)


class BatchJobs:
    """The batches of one server: started in a thread each, at most one running at a time."""

    def __init__(self, store: Store, scheduler: str | None = None) -> None:
        self.store = store
        self.scheduler = scheduler  # the operator's Dask cluster (GEMFLUX_DASK_SCHEDULER), if any
        self._jobs: dict[str, BatchJob] = {}
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    def start(self, workspace: str, spec: BatchSpec, workers: int, save_to_store: bool) -> BatchJob:
        return self._start(BatchJob(f"batch_{secrets.token_hex(6)}", workspace, spec, workers, save_to_store,
                                    progress=BatchProgress(total=len(spec.inputs))))

    def start_items(self, workspace: str, what: str, names: list[str], folder: Path, workers: int,
                    run: RunItems) -> BatchJob:
        """A batch of other items than genomes (e.g. a community's samples): `run` does the work
        in the batch's thread; the same one-at-a-time rule, progress and status as genomes."""
        return self._start(BatchJob(f"batch_{secrets.token_hex(6)}", workspace, None, workers, False,
                                    progress=BatchProgress(total=len(names)), what=what, folder=folder,
                                    run_items=run))

    def _start(self, job: BatchJob) -> BatchJob:
        with self._lock:
            running = [j for j in self._jobs.values() if j.status == "running"]
            if running:
                raise ValidationError(
                    ErrorCode.BATCH_ALREADY_RUNNING,
                    "A batch is already running on this server; one runs at a time.",
                    details={"running_job_id": running[0].job_id if running[0].workspace == job.workspace else None},
                    suggestions=["Wait for it with get_batch_status(job_id, wait_seconds=…), then start this one."])
            self._jobs[job.job_id] = job
            self._forget_old_locked()
            thread = threading.Thread(target=self._run, args=(job,), name=f"gemflux-{job.job_id}")
            self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()
        return job

    def get(self, workspace: str, job_id: str) -> BatchJob:
        with self._lock:
            job = self._jobs.get(job_id)
            if job is None or job.workspace != workspace:
                known = [j.job_id for j in self._jobs.values() if j.workspace == workspace]
                raise NotFoundError(
                    ErrorCode.BATCH_JOB_NOT_FOUND, f"No batch job '{job_id}' on this server.",
                    details={"job_id": job_id, "your_job_ids": known[-10:]},
                    suggestions=["Job ids are kept while the server runs; after a restart, read the batch's "
                                 "summary.tsv in its output folder, or start the same batch again to resume it."])
            return job

    def listed(self, workspace: str) -> list[BatchJob]:
        """The workspace's batches, newest first."""
        with self._lock:
            return [j for j in reversed(self._jobs.values()) if j.workspace == workspace]

    def _run(self, job: BatchJob) -> None:
        if job.run_items is not None:
            self._run_items(job, job.run_items)
            return

        def on_genome(row: dict[str, Any]) -> None:
            if job.save_to_store:
                store_genome(self.store, job.workspace, job.out_dir, row)
            with job.lock:
                job.rows.append(row)

        def on_progress(progress: BatchProgress) -> None:
            with job.lock:
                job.progress = progress
                job.updated_at = utc_now()

        assert job.spec is not None
        status: Status = "finished"
        try:
            outcome = run_batch(job.spec, workers=job.workers, scheduler=self.scheduler, on_progress=on_progress,
                                on_genome=on_genome, cancel=job.cancel)
            job.files, job.cluster = outcome.files, outcome.cluster
            status = "cancelled" if outcome.cancelled else "finished"
        except GemFluxError as exc:  # ClusterLost too: the genomes finished so far are in job.rows
            status = self._failed(job, exc)
        except Exception as exc:  # the thread must record why, whatever happens
            log.exception("batch %s failed", job.job_id)
            job.error, status = GemFluxError(ErrorCode.BATCH_TASK_FAILED, f"{type(exc).__name__}: {exc}").envelope(), \
                "failed"
        self._end(job, status)

    def _run_items(self, job: BatchJob, run: RunItems) -> None:
        def on_row(row: dict[str, Any]) -> None:
            with job.lock:
                job.rows.append(row)
                progress = job.progress
                if row.get("skipped"):
                    progress.skipped += 1
                elif row.get("status") == "ok":
                    progress.done += 1
                else:
                    progress.failed += 1
                progress.last = str(row.get("sample") or row.get("name") or "")
                job.updated_at = utc_now()

        status: Status = "finished"
        try:
            job.files, job.cluster, cancelled = run(on_row, job.cancel)
            status = "cancelled" if cancelled else "finished"
        except GemFluxError as exc:  # ClusterLost too: the rows finished so far are in job.rows
            status = self._failed(job, exc)
        except Exception as exc:  # the thread must record why, whatever happens
            log.exception("batch %s failed", job.job_id)
            job.error, status = GemFluxError(ErrorCode.BATCH_TASK_FAILED, f"{type(exc).__name__}: {exc}").envelope(), \
                "failed"
        self._end(job, status)

    @staticmethod
    def _failed(job: BatchJob, exc: GemFluxError) -> Status:
        """A batch that stopped on an error; one whose cluster went away keeps its files' paths."""
        if isinstance(exc, ClusterLost):
            job.files, job.cluster = exc.files, exc.cluster
        job.error = exc.envelope()
        return "failed"

    @staticmethod
    def _end(job: BatchJob, status: Status) -> None:
        with job.lock:
            job.seconds = round(time.perf_counter() - job._started, 2)
            job.status = status
            job.updated_at = utc_now()

    def _forget_old_locked(self) -> None:
        finished = [j for j in self._jobs.values() if j.status != "running"]
        for job in finished[: max(0, len(self._jobs) - MAX_KEPT_JOBS)]:
            del self._jobs[job.job_id]

    def shutdown(self, timeout_s: float = 30.0) -> None:
        """Stop running batches (finished genomes stay on disk) and wait for their threads."""
        with self._lock:
            for job in self._jobs.values():
                job.cancel.set()
            threads = list(self._threads)
        for thread in threads:
            thread.join(timeout_s)
