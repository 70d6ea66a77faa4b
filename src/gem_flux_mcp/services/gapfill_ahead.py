"""A worker's idle time after a build, spent on the gapfill that usually follows it.

A draft's ATP correction (gapfilling's first stage: ~4 s of an E. coli gapfill's ~8) depends on
the draft alone, not on the medium. Right after a build job, its worker computes it in a
background thread, while the answer travels and the assistant reads it; a gapfill job of that
very draft (the same JSON, the same template) then replays it instead of computing it, and its
model and answer are the same (tests/test_gapfill_ahead.py). The thread then reads the draft once
more, untouched, for that job (~0.6 s it need not spend). Any other job the worker is sent
first calls it off: the thread stops at its next LP solve (or once that second reading is done)
and is waited for, so no job shares the interpreter with it. Off under a job memory limit (the
limit counts one job's memory) and with GEMFLUX_GAPFILL_AHEAD=0.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gem_flux_mcp.config import Settings
from gem_flux_mcp.rules.catalog import GAPFILL_TEMPLATE
from gem_flux_mcp.services.job_base import worker_biochem

if TYPE_CHECKING:
    import cobra

    from gem_flux_mcp.modeling.gapfill import AtpCorrection

log = logging.getLogger(__name__)

ENV_GAPFILL_AHEAD = "GEMFLUX_GAPFILL_AHEAD"


@dataclass
class _Ahead:
    key: tuple[str, str]  # (sha256 of the draft's COBRApy JSON, template)
    cancelled: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None
    result: AtpCorrection | None = None
    draft: cobra.Model | None = None  # the draft read again, untouched, for the gapfill job


@dataclass(frozen=True)
class WorkAhead:
    atp: AtpCorrection  # the draft's ATP correction
    draft: cobra.Model | None  # the draft as `model_from_json` reads it (None: not read yet)


_guard = threading.Lock()
_current: list[_Ahead] = []  # at most one: the last build's


def gapfill_template(model_template: str | None) -> str:
    """The template a model is gapfilled with: its own where gapfilling has it, else GramNegative."""
    return model_template if model_template is not None and model_template in GAPFILL_TEMPLATE.values \
        else "GramNegative"


def _key(model_json: str | bytes, template: str) -> tuple[str, str]:
    data = model_json.encode("utf-8") if isinstance(model_json, str) else model_json
    return hashlib.sha256(data).hexdigest(), template


def start(model_json: bytes, model_template: str | None, settings: Settings,
          built: cobra.Model | None = None) -> bool:
    """Begin the ATP correction of the draft `model_json` (as it is stored), built with
    `model_template`, in the background; True if begun. Whatever was under way is called off first.
    `built`, the COBRApy model `model_json` was written from, saves reading it back: the work takes
    it over (and releases it; also when it does not begin). The JSON round trip is exact, so the
    correction is the same (tests/test_gapfill_ahead.py)."""
    from gem_flux_mcp.modeling.solver_memory import release_model

    cancel()
    if settings.job_memory_mb or os.environ.get(ENV_GAPFILL_AHEAD, "1").strip() == "0":
        if built is not None:
            release_model(built)
        return False
    template = gapfill_template(model_template)
    ahead = _Ahead(_key(model_json, template))

    def work() -> None:
        from gem_flux_mcp.modeling.fluxlp import Cancelled, SolverDeadline
        from gem_flux_mcp.modeling.gapfill import GapfillOptions, correct_atp_ahead
        from gem_flux_mcp.modeling.json_model import model_from_json

        model = built
        try:
            if model is None:
                model = model_from_json(model_json)
            ahead.result = correct_atp_ahead(model, template_name=template, data_dir=settings.data_dir,
                                             biochem=worker_biochem(settings),
                                             deadline=SolverDeadline(GapfillOptions().time_limit_s,
                                                                     ahead.cancelled))  # a gapfill's budget
        except Cancelled:
            pass
        except Exception:  # the gapfill computes it itself, and reports what fails there
            log.warning("ATP correction ahead of a gapfill failed", exc_info=True)
        finally:
            if model is not None:
                release_model(model)
        if ahead.result is not None and not ahead.cancelled.is_set():
            ahead.draft = model_from_json(model_json)

    ahead.thread = threading.Thread(target=work, name="gemflux-gapfill-ahead", daemon=True)
    with _guard:
        _current.append(ahead)
    ahead.thread.start()
    return True


def take(model_json: str, template: str) -> WorkAhead | None:
    """The work done ahead for exactly this draft and template (waiting for it to finish), else
    None; either way nothing is left under way."""
    with _guard:
        ahead = _current.pop() if _current else None
    if ahead is None:
        return None
    if ahead.key != _key(model_json, template):
        _stop(ahead)
        return None
    assert ahead.thread is not None
    ahead.thread.join()
    return WorkAhead(ahead.result, ahead.draft) if ahead.result is not None else None


def cancel() -> None:
    """Call off what is under way and wait until it has stopped (at its next LP solve)."""
    with _guard:
        ahead = _current.pop() if _current else None
    if ahead is not None:
        _stop(ahead)


def _stop(ahead: _Ahead) -> None:
    ahead.cancelled.set()
    if ahead.thread is not None:
        ahead.thread.join()
    if ahead.draft is not None:
        from gem_flux_mcp.modeling.solver_memory import release_model

        release_model(ahead.draft)
