"""Read-only resources, loaded once at start-up and reached by tools through getters (seed 001)."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.errors import DataError, ServerError

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Resources:
    settings: Settings
    biochem: BiochemIndex


_resources: Resources | None = None


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
    _resources = Resources(settings=settings, biochem=biochem)
    log.info(
        "loaded %d compounds and %d reactions from %s in %.2f s",
        biochem.compound_count, biochem.reaction_count, settings.data_dir,
        time.perf_counter() - started,
    )
    return _resources


def install(resources: Resources) -> None:
    """Use already loaded resources (tests, embedding in another process)."""
    global _resources
    _resources = resources


def _get() -> Resources:
    if _resources is None:
        raise ServerError(
            "SERVER_NOT_INITIALIZED",
            "Server resources are not loaded; this is a start-up bug.",
        )
    return _resources


def get_biochem() -> BiochemIndex:
    return _get().biochem


def get_settings() -> Settings:
    return _get().settings
