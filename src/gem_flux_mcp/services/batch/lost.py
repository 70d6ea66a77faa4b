"""A batch whose Dask cluster goes away while it runs: the scheduler's connection is lost (Dask then
cancels every unfinished task), or the cluster had workers and has had none for a while. The
batch then stops with `ClusterLost`, after writing its summary: the genomes finished so far stay in
the output folder, and running the same batch again into that folder resumes it (runner.py).
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ServerError

NO_WORKERS_GRACE_S = 60.0  # a cluster that had workers and has had none this long is gone
WORKER_CHECK_S = 5.0  # how often a running batch asks the scheduler for its workers
MAX_LISTED_UNFINISHED = 50

Cause = Literal["scheduler_lost", "workers_gone"]


class ClusterLost(ServerError):
    """The batch stopped because its cluster went away; what finished, and where it is."""

    def __init__(self, cause: Cause, cluster: str, counts: dict[str, int], total: int, out_dir: Path,
                 files: dict[str, str], unfinished: list[str], noun: str = "genomes",
                 listing: str = "summary_tsv") -> None:
        self.cause, self.cluster, self.counts, self.out_dir, self.files = cause, cluster, counts, out_dir, files
        self.total = total
        self.finished = sum(counts.values())
        self.left = total - self.finished
        self.what = (f"the connection to the Dask scheduler was lost ({cluster})" if cause == "scheduler_lost" else
                     f"every Dask worker went away and none came back for {NO_WORKERS_GRACE_S:.0f} s ({cluster})")
        super().__init__(
            ErrorCode.BATCH_SCHEDULER_UNREACHABLE if cause == "scheduler_lost" else ErrorCode.WORKER_DIED,
            f"The batch stopped: {self.what}. {self.finished} of {total} {noun} had finished, {self.left} had "
            f"not. The finished ones are in {out_dir} ({files[listing]} lists them); the same batch "
            f"started again into the same folder resumes it: finished {noun} are skipped, the others run.",
            details={"cause": cause, "cluster": cluster, "total": total, "finished": self.finished,
                     "not_finished": self.left, "counts": counts, "out_dir": str(out_dir), "files": files,
                     "unfinished": unfinished[:MAX_LISTED_UNFINISHED], "resumable": True},
            suggestions=["Once the cluster runs again (or on local workers), start the same batch with the same "
                         "inputs, settings and output folder: it resumes where it stopped."])


class WorkerWatch:
    """Tells when a cluster that had workers has had none for `NO_WORKERS_GRACE_S` (Dask keeps a
    task waiting for a worker forever). A cluster that never had one is left waiting, as before."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.checked = float("-inf")  # the first call asks
        self.last_seen: float | None = None

    def gone(self) -> bool:
        now = time.monotonic()
        if now - self.checked < WORKER_CHECK_S:
            return False
        self.checked = now
        if self.client.nthreads():
            self.last_seen = now
        return self.last_seen is not None and now - self.last_seen >= NO_WORKERS_GRACE_S


def close_client(client: Any) -> None:
    """Close a Dask client; one that lost its scheduler quietly (it logs the reconnection it
    gives up with a traceback, which is no news once the batch reports the loss)."""
    if str(client.status) == "running":
        client.close()
        return
    with _disabled(logging.getLogger("distributed.client")):
        client.close()


@contextlib.contextmanager
def _disabled(logger: logging.Logger) -> Iterator[None]:
    before = logger.disabled
    logger.disabled = True
    try:
        yield
    finally:
        logger.disabled = before
