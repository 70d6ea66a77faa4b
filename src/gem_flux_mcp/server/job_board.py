"""What the server's worker jobs are doing, for the dashboard: each build, gapfill or analysis job
from the moment it queues until it ends, with its last progress report, and the last few that
ended. In memory only, per server process (a `gem-flux dashboard` started apart from the server
has no jobs to show); bounded, and read by the dashboard one workspace at a time.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import deque
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

RUNNING_STATES = ("queued", "running")
KEEP_FINISHED = 50  # jobs that ended, kept for the dashboard (all workspaces together)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True)
class JobView:
    """One job as the dashboard shows it (a snapshot: the board replaces it on every change)."""

    id: int
    workspace: str
    kind: str  # build, gapfill, essentiality, phenotypes, variability, diagnose
    model_id: str | None  # the model the job reads (a build: the draft it makes)
    makes: str | None  # the model it stores, when it makes one (gapfill: '<id>.gf')
    state: str  # queued | running | done | failed | cancelled
    stage: str
    fraction: float  # 0-1
    message: str
    started_at: str
    updated_at: str
    finished_at: str | None = None
    seconds: float = 0.0
    error_code: str | None = None

    @property
    def running(self) -> bool:
        return self.state in RUNNING_STATES


class JobBoard:
    """Thread-safe: the event loop updates it, the dashboard reads it from request handlers."""

    def __init__(self, keep_finished: int = KEEP_FINISHED) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._live: dict[int, JobView] = {}
        self._started: dict[int, float] = {}
        self._finished: deque[JobView] = deque(maxlen=keep_finished)

    def add(self, workspace: str, job: Any) -> int:
        """A job that waits for a worker; returns its id on the board."""
        now = _now()
        makes = getattr(job, "new_model_id", None)
        view = JobView(id=next(self._ids), workspace=workspace, kind=str(getattr(job, "kind", "job")),
                       model_id=getattr(job, "model_id", None), makes=makes if isinstance(makes, str) else None,
                       state="queued", stage="queued", fraction=0.0, message="waiting for a worker",
                       started_at=now, updated_at=now)
        with self._lock:
            self._live[view.id] = view
            self._started[view.id] = time.monotonic()
        return view.id

    def progress(self, job_id: int, stage: str, fraction: float, message: str) -> None:
        with self._lock:
            view = self._live.get(job_id)
            if view is not None:
                state = "queued" if stage == "queued" else "running"
                self._live[job_id] = replace(view, state=state, stage=stage, message=message,
                                             fraction=max(0.0, min(1.0, float(fraction))), updated_at=_now(),
                                             seconds=round(time.monotonic() - self._started[job_id], 1))

    def finish(self, job_id: int, state: str, error_code: str | None = None) -> None:
        with self._lock:
            view = self._live.pop(job_id, None)
            started = self._started.pop(job_id, time.monotonic())
            if view is not None:
                now = _now()
                self._finished.append(replace(
                    view, state=state, updated_at=now, finished_at=now, error_code=error_code,
                    fraction=1.0 if state == "done" else view.fraction,
                    seconds=round(time.monotonic() - started, 1)))

    def jobs(self, workspace: str) -> list[JobView]:
        """The workspace's jobs: running and queued first (oldest first), then those that ended
        (newest first)."""
        with self._lock:
            live = [v for v in self._live.values() if v.workspace == workspace]
            ended = [v for v in reversed(self._finished) if v.workspace == workspace]
        return sorted(live, key=lambda v: v.id) + ended

    def running(self, workspace: str) -> list[JobView]:
        return [v for v in self.jobs(workspace) if v.running]
