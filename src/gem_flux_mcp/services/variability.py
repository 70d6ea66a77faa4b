"""Flux variability of a stored model on a medium: the request checked and turned into a
VariabilityJob, the answer summarised (blocked reactions, reactions forced in one direction),
paged, written as TSV when asked, and recorded with the model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from gem_flux_mcp.config import Settings
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling import fba
from gem_flux_mcp.modeling.essentiality import check_ids
from gem_flux_mcp.rules.catalog import DEFAULT_FRACTION, FRACTION_OF_OPTIMUM
from gem_flux_mcp.services import results
from gem_flux_mcp.services.job_base import Progress, StoredModelOnMedium
from gem_flux_mcp.services.tables import write_tsv
from gem_flux_mcp.services.workspace import Workspace, model_key

if TYPE_CHECKING:
    import cobra


@dataclass(frozen=True)
class VariabilityOutcome:
    optimum: float
    minimum: dict[str, float]
    maximum: dict[str, float]
    solves: int
    seconds: float


@dataclass(frozen=True)
class VariabilityJob(StoredModelOnMedium):
    kind: ClassVar[str] = "variability"
    objective: str
    fraction_of_optimum: float
    loopless: bool
    reactions: tuple[str, ...] | None = None  # None: all

    def run(self, settings: Settings, progress: Progress) -> VariabilityOutcome:
        from gem_flux_mcp.modeling.variability import flux_variability

        result, seconds = self.analyse(settings, progress, self.objective, lambda model, _: flux_variability(
            model, self.reactions, self.fraction_of_optimum, self.loopless, progress=progress))
        return VariabilityOutcome(result.optimum, result.minimum, result.maximum, result.solves, seconds)


ZERO = 1e-9  # |flux| below this counts as none
PAGE = 100
TOP = 20
COLUMNS = ("reaction_id", "minimum", "maximum", "status")
STATUSES = ("blocked", "forward_only_forced", "reverse_only_forced", "variable")


def prepare_variability(ws: Workspace, model_id: object, media_id: object, reactions: object = None,
                        fraction_of_optimum: object = DEFAULT_FRACTION, loopless: bool = False,
                        objective: object = "bio1") -> VariabilityJob:
    """Validate the request (every unknown reaction at once) before any work."""
    key = model_key(model_id)
    fraction = FRACTION_OF_OPTIMUM.check(fraction_of_optimum)
    if reactions is not None and (not isinstance(reactions, list) or not all(isinstance(r, str) for r in reactions)):
        raise ValidationError(ErrorCode.INVALID_ARGUMENTS, "reactions must be a list of reaction ids.",
                              details={"provided": repr(reactions)[:80]})
    medium_id, medium = ws.medium(media_id)
    with ws.store.checkout(ws.workspace_id, key) as model:
        return variability_job(model, key, ws.store.model_data(ws.workspace_id, key).decode("utf-8"), medium_id,
                               medium, reactions, fraction, bool(loopless), objective)


def variability_job(model: cobra.Model, model_id: str, model_json: str, media_id: str,
                    medium: Mapping[str, tuple[float, float]], reactions: list[str] | None, fraction: float,
                    loopless: bool, objective: object) -> VariabilityJob:
    """The job for a model at hand (the stored one, or a file's: `gem-flux fva`), its objective and
    every reaction asked for checked on it."""
    goal = fba.check_objective(model, objective, model_id)
    if reactions:
        check_ids(model, "reactions", reactions)
    return VariabilityJob(model_id=model_id, media_id=media_id, model_json=model_json, medium=dict(medium),
                          objective=goal, fraction_of_optimum=fraction, loopless=loopless,
                          reactions=tuple(dict.fromkeys(reactions)) if reactions else None)


def status_of(low: float, high: float) -> str:
    if abs(low) <= ZERO and abs(high) <= ZERO:
        return "blocked"
    if low > ZERO:
        return "forward_only_forced"
    if high < -ZERO:
        return "reverse_only_forced"
    return "variable"


def variability_rows(minimum: dict[str, float], maximum: dict[str, float]) -> list[dict[str, Any]]:
    """One row per reaction (in the given order): minimum, maximum and status."""
    return [{"reaction_id": r, "minimum": round(low, 9), "maximum": round(maximum[r], 9),
             "status": status_of(low, maximum[r])} for r, low in minimum.items()]


def store_variability(ws: Workspace, job: VariabilityJob, outcome: VariabilityOutcome, offset: int = 0,
                      output_path: Path | None = None) -> results.VariabilityResult:
    rows = variability_rows(outcome.minimum, outcome.maximum)
    counts = {s: sum(r["status"] == s for r in rows) for s in STATUSES}
    forced = sorted((r for r in rows if r["status"].endswith("_forced")),
                    key=lambda r: -min(abs(r["minimum"]), abs(r["maximum"])))
    blocked = [r["reaction_id"] for r in rows if r["status"] == "blocked"]
    summary = {"tested": len(rows), **counts, "optimum": round(outcome.optimum, 9),
               "fraction_of_optimum": job.fraction_of_optimum, "loopless": job.loopless}
    ws.store.add_result(ws.workspace_id, job.model_id, "fva", job.media_id,
                        {**summary, "forced": [r["reaction_id"] for r in forced[:100]]})
    written = write_tsv(output_path, COLUMNS, rows) if output_path is not None else None
    return results.VariabilityResult.model_validate({
        "success": True, "model_id": job.model_id, "media_id": job.media_id, "objective": job.objective,
        "summary": summary, "forced": forced[:TOP], "blocked": blocked[:PAGE], "blocked_truncated": len(blocked) > PAGE,
        "rows": rows[offset:offset + PAGE], "offset": offset,
        "next_offset": offset + PAGE if offset + PAGE < len(rows) else None,
        **({"output_file": written} if written else {}), "solves": outcome.solves, "seconds": round(outcome.seconds, 3),
    })
