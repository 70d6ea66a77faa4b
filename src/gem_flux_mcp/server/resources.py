"""Resources loaded once at start-up and reached by tools through getters (seed 001).

Read-only reference data (biochemistry index, media library) and the persistent store.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from dataclasses import dataclass

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.data.media_library import PredefinedMedium, load_media_library
from gem_flux_mcp.errors import DataError, ServerError
from gem_flux_mcp.store.store import Store
from gem_flux_mcp.store.workspace_ops import Workspace

log = logging.getLogger(__name__)

# Under stdio one local workspace; HTTP tokens will map to their own workspaces.
LOCAL_WORKSPACE = "local"
ENV_CLEANUP_INTERVAL = "GEMFLUX_CLEANUP_INTERVAL_S"
ENV_MODEL_IDLE = "GEMFLUX_MODEL_IDLE_S"


@dataclass(frozen=True)
class Resources:
    settings: Settings
    biochem: BiochemIndex
    media_library: dict[str, PredefinedMedium]
    store: Store


_resources: Resources | None = None
_cleanup_stop = threading.Event()


def load_resources(settings: Settings) -> Resources:
    """Load everything the tools need; raises DataError with a clear message when data is
    missing or corrupt (the caller turns that into one log line and exit code 1)."""
    global _resources
    if not settings.data_dir.is_dir():
        raise DataError(
            "DATA_DIR_NOT_FOUND",
            f"reference data folder not found: {settings.data_dir} "
            "(run `gem-flux data fetch` or set GEMFLUX_DATA_DIR)",
        )
    started = time.perf_counter()
    biochem = BiochemIndex.open(settings.data_dir, settings.cache_dir)
    library = load_media_library(settings.data_dir)
    store = Store(settings.state_dir, idle_seconds=float(os.environ.get(ENV_MODEL_IDLE, "900")))
    _resources = Resources(settings=settings, biochem=biochem, media_library=library, store=store)
    log.info(
        "loaded %d compounds, %d reactions, %d predefined media from %s; state in %s (%.2f s)",
        biochem.compound_count, biochem.reaction_count, len(library), settings.data_dir, settings.state_dir,
        time.perf_counter() - started,
    )
    return _resources


def install(resources: Resources) -> None:
    """Use already loaded resources (tests, embedding in another process)."""
    global _resources
    _resources = resources


def start_cleanup_timer() -> threading.Thread:
    """Drop idle models from the in-memory cache on a timer (seed 002's automatic cleanup);
    stored models are never touched."""
    interval = float(os.environ.get(ENV_CLEANUP_INTERVAL, "300"))

    def loop() -> None:
        while not _cleanup_stop.wait(interval):
            try:
                dropped = _get().store.evict_idle()
                if dropped:
                    log.info("cleanup: dropped %d idle model(s) from memory", dropped)
            except Exception:  # the timer must outlive any single failure
                log.exception("cleanup failed")

    thread = threading.Thread(target=loop, name="gemflux-cleanup", daemon=True)
    thread.start()
    return thread


def _get() -> Resources:
    if _resources is None:
        raise ServerError("SERVER_NOT_INITIALIZED", "Server resources are not loaded; this is a start-up bug.")
    return _resources


def get_biochem() -> BiochemIndex:
    return _get().biochem


def get_settings() -> Settings:
    return _get().settings


def get_store() -> Store:
    return _get().store


def get_workspace(workspace_id: str = LOCAL_WORKSPACE) -> Workspace:
    res = _get()
    return Workspace(res.store, workspace_id, res.biochem, res.media_library)
