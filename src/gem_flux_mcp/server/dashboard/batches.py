"""Batch runs on the Jobs page: the server hands the dashboard a `BatchSource`
(DashboardSource.batches; `JobsAsBatchSource` over the server's `build_models_batch` jobs), and
the page lists what it returns for the viewer's workspace. A dashboard without one (the
standalone `gem-flux dashboard`) says there is none."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from gem_flux_mcp.server.dashboard.html import e, progress_bar, table, when
from gem_flux_mcp.services.batch.background import BatchJobs


@dataclass(frozen=True)
class BatchView:
    """One batch run as the Jobs page shows it."""

    id: str
    name: str
    state: str  # e.g. queued | running | done | failed | cancelled
    done: int  # genomes (or items) finished
    failed: int
    total: int
    started_at: str
    updated_at: str

    @property
    def running(self) -> bool:
        return self.state in ("queued", "running")


class BatchSource(Protocol):
    def batches(self, workspace: str) -> list[BatchView]: ...


@dataclass(frozen=True)
class JobsAsBatchSource:
    """The server's batch jobs (services/batch/background.py) as the dashboard shows them."""

    jobs: BatchJobs

    def batches(self, workspace: str) -> list[BatchView]:
        views = []
        for job in self.jobs.listed(workspace):
            progress = job.progress
            views.append(BatchView(
                id=job.job_id, name=f"{progress.total} {job.what} → {job.out_dir.name}/", state=job.status,
                done=progress.done + progress.skipped, failed=progress.failed, total=progress.total,
                started_at=job.started_at, updated_at=job.updated_at))
        return views


def batch_section(batches: BatchSource | None, workspace: str) -> tuple[str, bool]:
    """The Jobs page's batch section, and whether a batch is running (the page then refreshes)."""
    head = "<h2 id=batches>Batch runs</h2>"
    if batches is None:
        return head + "<p class=muted>No batch system is connected to this server.</p>", False
    views = batches.batches(workspace)
    rows = [(e(b.id), e(b.name), e(b.state), progress_bar((b.done + b.failed) / b.total if b.total else 0.0),
             f"{b.done} done, {b.failed} failed of {b.total}", when(b.started_at), when(b.updated_at)) for b in views]
    return head + table(("Batch", "Name", "State", "Progress", "Items", "Started", "Updated"), rows, "batch-runs",
                        "No batch runs."), any(b.running for b in views)
