"""Where the dashboard reads from, and the look-ups every page shares (with the viewer's
workspace applied: another workspace's session, model or result is indistinguishable from a
missing one)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from starlette.requests import Request

from gem_flux_mcp.errors import GemFluxError
from gem_flux_mcp.store.activity import ActivityRecorder
from gem_flux_mcp.store.rows import ModelRow, ResultRow, SessionRow
from gem_flux_mcp.store.store import Store

if TYPE_CHECKING:
    from gem_flux_mcp.data.biochem import BiochemIndex
    from gem_flux_mcp.server.dashboard.batches import BatchSource
    from gem_flux_mcp.server.job_board import JobBoard

MAX_PAGE = 500
RESULTS_SHOWN = 200  # recorded results listed on a model page (newest first)
FACTS_CACHED = 8  # models whose derived facts are kept (stored models never change)


@dataclass
class DashboardSource:
    """The store, the recorder (flushed before reads when it runs in this process), the tool list,
    the workspace the viewer may see; the biochemistry index (names, pathways, BiGG aliases for the
    flux map; None when the reference data is not at hand), the server's job board (None in a
    dashboard process apart from the server) and the batch runs (None until a batch system
    provides them)."""

    store: Store
    recorder: Callable[[], ActivityRecorder | None]
    tools: Callable[[], Awaitable[list[dict[str, Any]]]]
    workspace: Callable[[Request], str]
    biochem: BiochemIndex | None = None
    jobs: JobBoard | None = None
    batches: BatchSource | None = None
    _cache: OrderedDict[tuple[str, ...], Any] = field(default_factory=OrderedDict, repr=False)
    _cache_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def sync(self) -> None:
        recorder = self.recorder()
        if recorder is not None:
            recorder.flush()

    def cached(self, key: tuple[str, ...], make: Callable[[], Any]) -> Any:
        """`make()` once per key (keys name a stored model by its checksum, so entries never go
        stale); the least recently used entries are dropped beyond FACTS_CACHED per kind."""
        with self._cache_lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        value = make()
        with self._cache_lock:
            self._cache[key] = value
            same_kind = [k for k in self._cache if k[0] == key[0]]
            for old in same_kind[:-FACTS_CACHED]:
                del self._cache[old]
        return value


def int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    try:
        value = int(request.query_params.get(name, default))
    except ValueError:
        value = default
    return max(low, min(high, value))


def visible_session(source: DashboardSource, request: Request) -> SessionRow | None:
    row = source.store.db.get_session(str(request.path_params["session_id"]))
    if row is None or row.workspace != source.workspace(request):
        return None
    return row


def visible_model(source: DashboardSource, request: Request, model_id: str) -> ModelRow | None:
    try:
        return source.store.get_model_row(source.workspace(request), model_id)
    except GemFluxError:  # not found (or not an id at all)
        return None


def model_results(source: DashboardSource, row: ModelRow, limit: int = RESULTS_SHOWN) -> list[ResultRow]:
    return source.store.list_results(row.workspace, row.model_id, limit)


def visible_result(source: DashboardSource, row: ModelRow, result_id: str) -> ResultRow | None:
    if not result_id.isdigit():
        return None
    wanted = int(result_id)
    return next((r for r in source.store.list_results(row.workspace, row.model_id, 1000) if r.id == wanted), None)
