"""Where things live: data, state and cache folders and the state database, from options,
environment or defaults."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from platformdirs import user_cache_dir, user_data_dir, user_state_dir

APP_NAME = "gem-flux"

ENV_DATA_DIR = "GEMFLUX_DATA_DIR"
ENV_STATE_DIR = "GEMFLUX_STATE_DIR"
ENV_CACHE_DIR = "GEMFLUX_CACHE_DIR"
ENV_DATABASE_URL = "GEMFLUX_DATABASE_URL"
ENV_JOB_MEMORY_MB = "GEMFLUX_JOB_MEMORY_MB"

log = logging.getLogger(__name__)


def default_data_dir() -> Path:
    """Where `gem-flux data fetch` puts the reference data when no folder is named."""
    return Path(user_data_dir(APP_NAME, appauthor=False)) / "data"


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    state_dir: Path
    cache_dir: Path
    # The shared state database (postgresql://...); None: a SQLite file in the state folder.
    # It may hold a password: show `store.engine.resolve_target(url).display` instead.
    database_url: str | None = field(default=None, repr=False)
    # Memory one job may take in its worker process beyond what the worker holds when the job
    # starts (server/job_memory.py); None: no limit.
    job_memory_mb: int | None = None

    @classmethod
    def resolve(
        cls,
        data_dir: str | os.PathLike[str] | None = None,
        state_dir: str | os.PathLike[str] | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        database_url: str | None = None,
    ) -> Settings:
        """Explicit argument, else environment variable, else the user's platform folder (for the
        database URL: else None, the SQLite file in the state folder)."""

        def pick(explicit: str | os.PathLike[str] | None, env: str, default: Path) -> Path:
            value = explicit if explicit is not None else os.environ.get(env) or None
            return Path(value).expanduser().resolve() if value is not None else default

        return cls(
            data_dir=pick(data_dir, ENV_DATA_DIR, default_data_dir()),
            state_dir=pick(state_dir, ENV_STATE_DIR, Path(user_state_dir(APP_NAME, appauthor=False))),
            cache_dir=pick(cache_dir, ENV_CACHE_DIR, Path(user_cache_dir(APP_NAME, appauthor=False))),
            database_url=database_url or os.environ.get(ENV_DATABASE_URL) or None,
            job_memory_mb=_megabytes(ENV_JOB_MEMORY_MB),
        )


def _megabytes(name: str) -> int | None:
    """A whole number of MB > 0 from the environment variable `name`, else None (unset, or
    not such a number: then with a warning)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value <= 0:
        log.warning("ignoring %s=%r: not a whole number of MB above 0", name, raw)
        return None
    return value
