"""Loaded COBRApy models, kept between calls: bounded by count and by estimated memory (least
recently used first out), idle ones dropped on a timer; thread-safe. A model in use is never
evicted; a thread holds a model's lock for as long as it uses it."""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.modeling.solver_memory import release_model

if TYPE_CHECKING:
    import cobra

log = logging.getLogger(__name__)

Key = tuple[str, str]  # (workspace, model id)


@dataclass
class _Entry:
    key: Key
    file_name: str
    estimated_bytes: int
    # Reentrant so a thread that already holds a model may check it out again without deadlock.
    lock: threading.RLock = field(default_factory=threading.RLock)
    model: cobra.Model | None = None
    in_use: int = 0  # threads inside checkout (holding or waiting): never evicted while > 0
    last_used: float = field(default_factory=time.monotonic)


class ModelCache:
    def __init__(self, max_models: int, max_bytes: int, idle_seconds: float) -> None:
        self.max_models = max_models
        self.max_bytes = max_bytes
        self.idle_seconds = idle_seconds
        self._entries: OrderedDict[Key, _Entry] = OrderedDict()  # least recently used first
        self._lock = threading.Lock()
        self._hits = self._misses = self._evictions = 0

    @contextmanager
    def checkout(self, key: Key, file_name: str, estimated_bytes: int,
                 load: Callable[[], cobra.Model]) -> Iterator[cobra.Model]:
        """The cached model of `key` (stored as `file_name`), loaded with `load` when missing."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None or entry.file_name != file_name:  # new, or deleted and re-added
                entry = _Entry(key, file_name, estimated_bytes)
                self._entries[key] = entry
            self._entries.move_to_end(key)
            entry.in_use += 1
        try:
            with entry.lock:
                if entry.model is None:
                    entry.model = load()
                    with self._lock:
                        self._misses += 1
                else:
                    with self._lock:
                        self._hits += 1
                yield entry.model
        finally:
            with self._lock:
                entry.in_use -= 1
                entry.last_used = time.monotonic()
                if entry.model is None and entry.in_use == 0 and self._entries.get(key) is entry:
                    del self._entries[key]  # load failed: do not keep an empty slot
                self._enforce_bounds_locked()

    def drop(self, key: Key) -> None:
        """Forget `key` (a thread inside checkout keeps its object)."""
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def _enforce_bounds_locked(self) -> None:
        """Evict least-recently-used idle entries until both bounds hold (in-use ones are skipped)."""
        while len(self._entries) > self.max_models or self._bytes_locked() > self.max_bytes:
            victim = next((k for k, e in self._entries.items() if e.in_use == 0), None)
            if victim is None:
                return
            _release(self._entries.pop(victim))
            self._evictions += 1

    def _bytes_locked(self) -> int:
        return sum(e.estimated_bytes for e in self._entries.values())

    def evict_idle(self, now: float | None = None) -> int:
        """Drop entries unused for more than `idle_seconds`; returns how many.

        `now` is on the `time.monotonic()` clock (default: the current value). Call it from a timer;
        stored models are never affected, they are reloaded on the next checkout.
        """
        now = time.monotonic() if now is None else now
        with self._lock:
            idle = [k for k, e in self._entries.items() if e.in_use == 0 and now - e.last_used > self.idle_seconds]
            for key in idle:
                _release(self._entries.pop(key))
            self._evictions += len(idle)
        if idle:
            log.debug("evicted %d idle model(s) from the cache", len(idle))
        return len(idle)

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {
                "entries": len(self._entries),
                "loaded": sum(1 for e in self._entries.values() if e.model is not None),
                "in_use": sum(1 for e in self._entries.values() if e.in_use > 0),
                "estimated_bytes": self._bytes_locked(),
                "hits": self._hits,
                "misses": self._misses,
                "evictions": self._evictions,
                "max_models": self.max_models,
                "max_bytes": self.max_bytes,
                "idle_seconds": self.idle_seconds,
            }

    def model_ids(self, workspace: str) -> list[str]:
        """Ids of the workspace's cached models, least recently used first."""
        with self._lock:
            return [mid for (ws, mid) in self._entries if ws == workspace]


def _release(entry: _Entry) -> None:
    """An evicted model is never used again (idle entries are not checked out): free its solver
    problem and sympy's caches, which otherwise keep it in memory (benchmarks/store_fba.py)."""
    if entry.model is not None:
        release_model(entry.model)
        entry.model = None
        from sympy.core.cache import clear_cache

        clear_cache()
