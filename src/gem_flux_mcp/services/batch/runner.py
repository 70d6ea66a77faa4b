"""A batch on Dask distributed: a LocalCluster of worker processes by default, or the scheduler
of an existing cluster. Each genome is one task (task.py); finished genomes are skipped on a rerun
(outputs.py); a genome whose worker dies is run once more on another worker (the scheduler's
`allowed-failures`), and a second death fails that genome only. A batch whose cluster goes away
(its scheduler, or every worker) stops with `ClusterLost` (lost.py), its summary written.

On an existing cluster every worker must see the same paths as this process: the inputs, the
output folder, the reference data and the cache (a shared file system), as with any Dask job
that reads files.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import CancelledError
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import gem_flux_mcp.services.batch.outputs as outputs
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import GemFluxError, ServerError
from gem_flux_mcp.rules.catalog import GeneCalling, TranslationTable

from .inputs import GenomeInput
from .lost import Cause, ClusterLost, WorkerWatch, close_client
from .storing import StoreTarget
from .task import GenomeTask, reconstruct_genome, settings_key

log = logging.getLogger(__name__)

ALLOWED_WORKER_DEATHS = 1  # a genome is retried once when its worker dies, then reported failed
CONNECT_TIMEOUT_S = 10
POLL_S = 1.0  # how often a running batch looks at its cancel flag
MAX_LISTED_RUNNING = 10  # unfinished genomes named in the progress
T = TypeVar("T")


@dataclass(frozen=True)
class BatchSpec:
    inputs: tuple[GenomeInput, ...]
    media: Mapping[str, Mapping[str, tuple[float, float]]]  # gapfilled on in this order; growth checked on each
    out_dir: Path
    data_dir: Path
    cache_dir: Path
    template: str = "auto"
    gene_calling: GeneCalling = "auto"
    phenotype_panels: tuple[str, ...] = ()
    store_to: StoreTarget | None = None  # workers also keep each model they build in this store
    translation_table: TranslationTable = "auto"


@dataclass
class BatchProgress:
    total: int
    skipped: int = 0
    done: int = 0
    failed: int = 0
    running: list[str] = field(default_factory=list)
    last: str = ""

    @property
    def finished(self) -> int:
        return self.skipped + self.done + self.failed


@dataclass
class BatchOutcome:
    rows: list[dict[str, Any]]
    files: dict[str, str]
    seconds: float
    cluster: str
    cancelled: bool = False

    @property
    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for row in self.rows:
            counts[row["status"]] = counts.get(row["status"], 0) + 1
        return counts


OnGenome = Callable[[dict[str, Any]], None]
OnProgress = Callable[[BatchProgress], None]


def plan_tasks(spec: BatchSpec, align_threads: int | None = None) -> tuple[list[GenomeTask], list[dict[str, Any]]]:
    """(the genomes to build, the rows of those finished before with the same input and settings)."""
    media = {name: dict(medium) for name, medium in spec.media.items()}
    todo: list[GenomeTask] = []
    done: list[dict[str, Any]] = []
    for genome in spec.inputs:
        key = settings_key(genome.path, media, spec.template, spec.gene_calling, spec.phenotype_panels,
                           spec.translation_table)
        row = outputs.completed_row(spec.out_dir, genome.name, key)
        if row is not None:
            done.append({**row, "status": "ok", "skipped": True})
            continue
        outputs.attempts_path(spec.out_dir, genome.name).unlink(missing_ok=True)
        todo.append(GenomeTask(genome.name, str(genome.path), str(spec.out_dir), str(spec.data_dir),
                               str(spec.cache_dir), media, spec.template, spec.gene_calling, spec.phenotype_panels,
                               key, align_threads, spec.store_to, spec.translation_table))
    return todo, done


def _stdout_to_stderr_plugin() -> Any:
    """A worker plugin: a worker's stdout goes to stderr (stdout is the MCP protocol's under stdio,
    and worker processes inherit it)."""
    from distributed.diagnostics.plugin import WorkerPlugin

    class StdoutToStderr(WorkerPlugin):
        name = "gem-flux-stdout-to-stderr"

        def setup(self, worker: Any) -> None:
            os.dup2(2, 1)

    return StdoutToStderr()


def _distributed() -> Any:
    """dask.distributed, whose Client, LocalCluster and as_completed carry no type hints."""
    return importlib.import_module("distributed")


@contextlib.contextmanager
def dask_client(workers: int, scheduler: str | None) -> Iterator[tuple[Any, str]]:
    """(a Dask client, a description of its cluster): a LocalCluster of `workers` processes with
    one thread each, closed afterwards; or a connection to `scheduler`."""
    import dask

    dist = _distributed()
    with dask.config.set({"distributed.scheduler.allowed-failures": ALLOWED_WORKER_DEATHS,
                          "distributed.worker.daemon": False,  # a worker starts the aligner as a child process
                          "distributed.admin.tick.limit": "60s"}):  # a long GLPK solve holds the GIL
        if scheduler:
            try:
                client = dist.Client(scheduler, timeout=CONNECT_TIMEOUT_S)
            except OSError as exc:
                raise ServerError(ErrorCode.BATCH_SCHEDULER_UNREACHABLE,
                                  f"Cannot reach the Dask scheduler at {scheduler}: {exc}",
                                  details={"scheduler": scheduler},
                                  suggestions=["Check the address (tcp://HOST:8786) and that the scheduler runs; "
                                               "or leave it out to run on local worker processes."]) from exc
            try:
                yield client, f"scheduler {scheduler}"
            finally:
                close_client(client)
            return
        cluster = dist.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                               silence_logs=logging.WARNING)
        try:
            with dist.Client(cluster) as client:
                client.register_plugin(_stdout_to_stderr_plugin())
                yield client, f"LocalCluster of {workers} worker process(es)"
        finally:
            cluster.close()


def failed_task_error(exc: BaseException) -> tuple[ErrorCode, str]:
    """Why a task did not return: its workers died (or the batch was cut)."""
    from distributed import KilledWorker

    if isinstance(exc, KilledWorker):
        return ErrorCode.WORKER_DIED, (f"the worker running it died {ALLOWED_WORKER_DEATHS + 1} times "
                                       "(out of memory, or killed)")
    return ErrorCode.BATCH_TASK_FAILED, f"{type(exc).__name__}: {exc}"


def failed_row(task: GenomeTask, exc: BaseException) -> dict[str, Any]:
    """The row of a genome whose task did not return: its workers died (or the batch was cut)."""
    code, message = failed_task_error(exc)
    envelope = GemFluxError(code, message).envelope()
    outputs.write_report(Path(task.out_dir), task.name, {"settings_key": task.settings_key, "row": {
        "genome": task.name, "status": "failed"}, "error": envelope})
    return {"genome": task.name, "input": task.path, "status": "failed", "error_code": str(code),
            "error_message": message, "attempts": len(outputs.attempt_pids(Path(task.out_dir), task.name))}


def run_batch(spec: BatchSpec, *, workers: int = 2, scheduler: str | None = None,
              on_progress: OnProgress | None = None, on_genome: OnGenome | None = None,
              cancel: threading.Event | None = None) -> BatchOutcome:
    """Every genome of `spec` reconstructed on Dask, then the summary table written. `on_genome`
    sees each finished row (in the order they finish; a row it changes is kept changed),
    `on_progress` the running counts; setting `cancel` stops the batch (finished genomes stay).
    ClusterLost when the cluster goes away before the end (the summary is written first)."""
    started = time.perf_counter()
    spec.out_dir.mkdir(parents=True, exist_ok=True)
    # each worker's homology search gets its share of the cores, so N workers never run N aligners
    # with one thread per core each; on a cluster a worker thread is one core, as Dask sizes them
    todo, skipped = plan_tasks(spec, 1 if scheduler else max(1, (os.cpu_count() or 1) // workers))
    progress = BatchProgress(total=len(spec.inputs), skipped=len(skipped))
    rows: dict[str, dict[str, Any]] = {}
    for row in skipped:
        if on_genome is not None:
            on_genome(row)
        rows[row["genome"]] = row
    if on_progress is not None:
        on_progress(progress)
    cluster = "none: every genome was finished before"
    cancelled = False
    lost: Cause | None = None
    if todo:
        with dask_client(workers, scheduler) as (client, cluster):
            futures = {client.submit(reconstruct_genome, task, key=f"genome-{task.name}-{task.settings_key[:12]}",
                                     pure=False): task for task in todo}

            def running(remaining: set[Any]) -> None:
                progress.running = [t.name for f, t in futures.items() if f in remaining][:MAX_LISTED_RUNNING]

            def finished(task: GenomeTask, result: dict[str, Any] | Exception) -> None:
                row = result if isinstance(result, dict) else failed_row(task, result)
                if on_genome is not None:
                    on_genome(row)
                rows[row["genome"]] = row
                progress.done += row["status"] == "ok"
                progress.failed += row["status"] != "ok"
                progress.last = row["genome"]
                if on_progress is not None:
                    on_progress(progress)

            cancelled, lost = await_tasks(client, futures, finished, cancel, running)
    ordered = [rows[g.name] for g in spec.inputs if g.name in rows]
    not_run = [g.name for g in spec.inputs if g.name not in rows]
    seconds = round(time.perf_counter() - started, 2)
    about = {"template": spec.template, "media": list(spec.media), "phenotype_panels": list(spec.phenotype_panels),
             "cluster": cluster, "seconds": seconds, "cancelled": cancelled, "cluster_lost": lost,
             "not_run": not_run}
    files = outputs.write_summary(spec.out_dir, ordered, about)
    outcome = BatchOutcome(ordered, files, seconds, cluster, cancelled)
    if lost is not None:
        raise ClusterLost(lost, cluster, outcome.counts, len(spec.inputs), spec.out_dir, files, not_run)
    return outcome


def await_tasks(client: Any, futures: Mapping[Any, T], on_result: Callable[[T, dict[str, Any] | Exception], None],
                cancel: threading.Event | None = None, before_wait: Callable[[set[Any]], None] | None = None
                ) -> tuple[bool, Cause | None]:
    """Wait for every task of a batch (`futures`: {Dask future: its task}); `on_result` sees each
    task with its row, or with why it did not return (its workers died), as they finish. Returns
    (cancelled, why the cluster was lost or None): setting `cancel` cancels the tasks left; the
    scheduler's connection lost, or a cluster without workers for a while, stops the wait."""
    dist = _distributed()
    remaining = set(futures)
    watch = WorkerWatch(client)
    while remaining:
        if before_wait is not None:
            before_wait(remaining)
        if cancel is not None and cancel.is_set():
            client.cancel(list(remaining))
            return True, None
        try:
            finished = _wait_any(dist, remaining)
            if not finished and watch.gone():
                return False, "workers_gone"
            results = {future: _result(future) for future in finished}
        except (CancelledError, OSError):  # Dask cancels every future when the scheduler is lost
            return False, "scheduler_lost"
        for future, result in results.items():
            remaining.discard(future)
            on_result(futures[future], result)
    return False, None


def _result(future: Any) -> dict[str, Any] | Exception:
    """A finished task's row, or why it did not return (its workers died); a lost connection to
    the scheduler is raised."""
    try:
        row: dict[str, Any] = future.result()
    except (CancelledError, OSError):
        raise
    except Exception as exc:
        return exc
    return row


def _wait_any(dist: Any, futures: set[Any]) -> set[Any]:
    """The futures finished within POLL_S (at least one, or none when none has)."""
    try:
        finished, _ = dist.wait(list(futures), timeout=POLL_S, return_when="FIRST_COMPLETED")
    except TimeoutError:
        return set()
    return set(finished)
