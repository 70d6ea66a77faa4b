"""What every job a worker process runs shares. A job is a typed, picklable object a service
prepares in the server (`services/<use case>.py` holds its job beside it), `server/worker.py`
sends through a pipe to a worker process and calls `run` on, and the same service stores the
outcome of. Models travel as COBRApy JSON, never re-parsed by the server. Here: the protocol,
the worker's own biochemistry index, the base of jobs on a stored model and a medium, and the
warm-up a worker does when it starts."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.biochem import BiochemIndex

Progress = Callable[[str, float, str], None]
T = TypeVar("T")


class Job(Protocol):
    kind: ClassVar[str]  # names the job in progress, errors ("<KIND>_TIMEOUT") and logs

    def run(self, settings: Settings, progress: Progress) -> Any: ...


@functools.cache
def worker_biochem(settings: Settings) -> BiochemIndex:
    """The worker's own biochemistry index, opened once per worker process."""
    return BiochemIndex.open(settings.data_dir, settings.cache_dir)


@dataclass(frozen=True)
class StoredModelOnMedium:
    """What every job on a stored model needs: its id and COBRApy JSON, and the medium."""

    model_id: str
    media_id: str
    model_json: str
    medium: dict[str, tuple[float, float]]

    def load_on_medium(self, settings: Settings, objective: str | None = None) -> tuple[Any, list[Any]]:
        """(the COBRApy model with the medium applied and `objective` set, its exchanges). The
        caller releases the model (`solver_memory.release_model`)."""
        from gem_flux_mcp.modeling import media
        from gem_flux_mcp.modeling.json_model import model_from_json

        model = model_from_json(self.model_json)
        exchanges, _ = media.put_on_medium(model, self.medium, worker_biochem(settings))
        if objective is not None:
            model.objective = objective
        return model, exchanges

    def analyse(self, settings: Settings, progress: Progress, objective: str,
                analysis: Callable[[Any, list[Any]], T]) -> tuple[T, float]:
        """`analysis(model, exchanges)` on the model loaded on the medium; (its result, seconds)."""
        from gem_flux_mcp.modeling.solver_memory import release_model

        started = time.perf_counter()
        progress("load", 0.02, "reading the model")
        model, exchanges = self.load_on_medium(settings, objective)
        try:
            return analysis(model, exchanges), time.perf_counter() - started
        finally:
            release_model(model)


def warm_up(settings: Settings) -> None:
    """What jobs need, loaded when a worker starts: ModelSEEDpy, the biochemistry index, and for
    the default template what a build and a gapfill read and compute first (the homology
    reference's rules, the ATP-test template, reaction facts and directions)."""
    from gem_flux_mcp.data.templates import BUILD_TEMPLATES, template_path
    from gem_flux_mcp.modeling import build, gapfill

    biochem = worker_biochem(settings)
    default = BUILD_TEMPLATES[0]
    if template_path(settings.data_dir, default).is_file():
        build.load_shared_inputs(settings.data_dir, settings.cache_dir, default, biochem)
        gapfill.load_shared_inputs(settings.data_dir, biochem, default)
