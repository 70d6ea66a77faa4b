"""The server's runtime: what is loaded once at start-up (settings, biochemistry index, media
library, store, activity recorder, job runner). `create_app` hands it to its app as the lifespan
context, and tools are given what they need from it by dependency injection
(`server/dependencies.py`); nothing here is a module global, so one process can serve several
apps (the tests do)."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.data.media_library import PredefinedMedium, load_media_library
from gem_flux_mcp.data.templates import BUILD_TEMPLATES, template_path
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DataError
from gem_flux_mcp.server.file_area import FileArea, file_area
from gem_flux_mcp.server.worker import JobRunner
from gem_flux_mcp.services.batch.background import BatchJobs
from gem_flux_mcp.services.workspace import Workspace
from gem_flux_mcp.store.activity import (
    DEFAULT_MAX_ARGUMENT_CHARS,
    DEFAULT_MAX_CALLS_PER_SESSION,
    DEFAULT_MAX_RESPONSE_CHARS,
    ActivityRecorder,
)
from gem_flux_mcp.store.store import Store

log = logging.getLogger(__name__)

ENV_CLEANUP_INTERVAL = "GEMFLUX_CLEANUP_INTERVAL_S"
ENV_MODEL_IDLE = "GEMFLUX_MODEL_IDLE_S"
ENV_SESSION_IDLE = "GEMFLUX_SESSION_IDLE_S"
ENV_SESSION_CLEANUP = "GEMFLUX_SESSION_CLEANUP_S"
ENV_MAX_SESSIONS = "GEMFLUX_MAX_SESSIONS"
ENV_RECORD_CHARS = "GEMFLUX_RECORD_RESPONSE_CHARS"
ENV_RECORD_ARGUMENT_CHARS = "GEMFLUX_RECORD_ARGUMENT_CHARS"
ENV_MAX_CALLS_PER_SESSION = "GEMFLUX_MAX_CALLS_PER_SESSION"
ENV_WORKER_IDLE = "GEMFLUX_WORKER_IDLE_S"
ENV_WORKER_AT_START = "GEMFLUX_WORKER_AT_START"  # "0": no worker until the first job asks for one
WORKER_AT_START_DELAY_S = 4.0  # after start-up's own work (the handshake, the imports warmed 3 s in)
ENV_DASK_SCHEDULER = "GEMFLUX_DASK_SCHEDULER"  # batches run on this Dask cluster instead of local workers


def _env_number(name: str, default: float) -> float:
    raw = os.environ.get(name)
    try:
        return float(raw) if raw else default
    except ValueError:
        log.warning("ignoring %s=%r: not a number", name, raw)
        return default


@dataclass(frozen=True)
class Resources:
    settings: Settings
    biochem: BiochemIndex
    media_library: dict[str, PredefinedMedium]
    store: Store
    recorder: ActivityRecorder | None
    jobs: JobRunner
    templates: tuple[str, ...]  # build templates present in the data folder (parsed by the worker)
    batches: BatchJobs  # batch reconstructions running in the background (Dask)
    stopping: threading.Event = field(default_factory=threading.Event)

    def workspace(self, workspace_id: str) -> Workspace:
        return Workspace(self.store, workspace_id, self.biochem, self.media_library)

    def file_area(self, workspace_id: str | None) -> FileArea:
        """A workspace's own folder under tokens (`workspace_id`), the allowed roots otherwise (None)."""
        return file_area(self.settings, workspace_id)

    def start_cleanup_timers(self) -> None:
        """Automatic clean-up on timers: idle models leave the in-memory cache (stored models are
        never touched), MCP sessions idle past the timeout are closed, idle workers stop."""

        def every(interval: float, name: str, job: Callable[[], object]) -> None:
            def loop() -> None:
                while not self.stopping.wait(interval):
                    try:
                        job()
                    except Exception:  # the timer must outlive any single failure
                        log.exception("%s failed", name)

            threading.Thread(target=loop, name=name, daemon=True).start()

        every(_env_number(ENV_CLEANUP_INTERVAL, 300), "gemflux-model-cleanup", self.store.evict_idle)
        if self.recorder is not None:
            every(_env_number(ENV_SESSION_CLEANUP, 300), "gemflux-session-cleanup", self.recorder.close_idle)
        every(_env_number(ENV_CLEANUP_INTERVAL, 300), "gemflux-worker-cleanup", self.jobs.stop_idle)

    def start_worker_later(self, delay_s: float = WORKER_AT_START_DELAY_S) -> bool:
        """A few seconds after start-up, a worker that warms up for the first build or gapfill
        (`JobRunner.start_spare`), when the data folder has build templates and
        GEMFLUX_WORKER_AT_START is not "0"; True if one is scheduled."""
        if os.environ.get(ENV_WORKER_AT_START, "1").strip() == "0" or not self.templates:
            return False

        def start() -> None:
            if not self.stopping.is_set():
                self.jobs.start_spare()

        timer = threading.Timer(delay_s, start)
        timer.daemon = True
        timer.name = "gemflux-worker-at-start"
        timer.start()
        return True

    def shutdown(self) -> None:
        """Close this process's MCP sessions (their transports are gone), stop the timers and the
        workers, and close the store."""
        self.stopping.set()
        self.batches.shutdown()
        self.jobs.shutdown()
        if self.recorder is not None:
            self.recorder.stop()
        self.store.close()


def load_resources(settings: Settings, *, record_activity: bool = True) -> Resources:
    """Load everything the tools need; raises DataError with a clear message when data is
    missing or corrupt (the caller turns that into one log line and exit code 1)."""
    if not settings.data_dir.is_dir():
        raise DataError(
            ErrorCode.DATA_DIR_NOT_FOUND,
            f"reference data folder not found: {settings.data_dir} "
            "(run `gem-flux data fetch` or set GEMFLUX_DATA_DIR)",
        )
    started = time.perf_counter()
    biochem = BiochemIndex.open(settings.data_dir, settings.cache_dir)
    library = load_media_library(settings.data_dir)
    store = Store(settings.state_dir, database_url=settings.database_url,
                  idle_seconds=_env_number(ENV_MODEL_IDLE, 900))
    recorder = None
    if record_activity:
        recorder = ActivityRecorder(
            store.db,
            idle_timeout_s=_env_number(ENV_SESSION_IDLE, 1800),
            max_sessions=int(_env_number(ENV_MAX_SESSIONS, 100)),
            max_response_chars=int(_env_number(ENV_RECORD_CHARS, DEFAULT_MAX_RESPONSE_CHARS)),
            max_argument_chars=int(_env_number(ENV_RECORD_ARGUMENT_CHARS, DEFAULT_MAX_ARGUMENT_CHARS)),
            max_calls_per_session=int(_env_number(ENV_MAX_CALLS_PER_SESSION, DEFAULT_MAX_CALLS_PER_SESSION)),
        )
        recorder.recover()
    templates = tuple(name for name in BUILD_TEMPLATES if template_path(settings.data_dir, name).is_file())
    jobs = JobRunner(settings, idle_timeout_s=_env_number(ENV_WORKER_IDLE, 600))
    batches = BatchJobs(store, scheduler=os.environ.get(ENV_DASK_SCHEDULER) or None)
    resources = Resources(settings=settings, biochem=biochem, media_library=library, store=store,
                          recorder=recorder, jobs=jobs, templates=templates, batches=batches)
    log.info(
        "loaded %d compounds, %d reactions, %d predefined media from %s; state in %s (%.2f s)",
        biochem.compound_count, biochem.reaction_count, len(library), settings.data_dir, store.location,
        time.perf_counter() - started,
    )
    return resources
