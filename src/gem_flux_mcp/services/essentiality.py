"""Gene (or reaction) essentiality of a stored model on a medium: the request checked and turned
into an EssentialityJob for a worker, the answer summarised, paged and compared with observations."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from gem_flux_mcp.config import Settings
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling import fba
from gem_flux_mcp.modeling.essentiality import check_ids, deletion_rows
from gem_flux_mcp.rules.catalog import DEFAULT_THRESHOLD, DELETION_TARGET, ESSENTIALITY_THRESHOLD
from gem_flux_mcp.services import results
from gem_flux_mcp.services.confusion import compare
from gem_flux_mcp.services.job_base import Progress, StoredModelOnMedium
from gem_flux_mcp.services.tables import write_tsv
from gem_flux_mcp.services.workspace import Workspace, model_key

if TYPE_CHECKING:
    import cobra


@dataclass(frozen=True)
class DeletionOutcome:
    wild_type_growth: float
    growth: dict[str, float]
    closes: dict[str, list[str]]
    solves: int
    seconds: float


@dataclass(frozen=True)
class EssentialityJob(StoredModelOnMedium):
    kind: ClassVar[str] = "essentiality"
    objective: str
    target: str  # "genes" or "reactions"
    threshold: float  # growth ratio below which a deletion is lethal (used when the answer is shaped)
    ids: tuple[str, ...] | None = None  # None: all

    def run(self, settings: Settings, progress: Progress) -> DeletionOutcome:
        from gem_flux_mcp.modeling.essentiality import single_deletions

        result, seconds = self.analyse(settings, progress, self.objective, lambda model, _: single_deletions(
            model, "genes" if self.target == "genes" else "reactions", self.ids, progress=progress))
        return DeletionOutcome(result.wild_type_growth, result.growth, result.closes, result.solves, seconds)


PAGE = 50
COLUMNS = ("id", "growth", "growth_ratio", "status", "reactions_closed")


def prepare_essentiality(ws: Workspace, model_id: object, media_id: object, target: object = "genes",
                         ids: object = None, objective: object = "bio1",
                         threshold: object = DEFAULT_THRESHOLD) -> EssentialityJob:
    """Validate the request (model, medium, objective, threshold, every unknown id at once) before
    any work; no state changes."""
    key = model_key(model_id)
    cutoff = ESSENTIALITY_THRESHOLD.check(threshold)
    DELETION_TARGET.check(target)
    if ids is not None and (not isinstance(ids, list) or not all(isinstance(i, str) for i in ids)):
        raise ValidationError(ErrorCode.INVALID_ARGUMENTS, f"the {target} to test must be a list of ids.",
                              details={"provided": repr(ids)[:80]})
    medium_id, medium = ws.medium(media_id)
    with ws.store.checkout(ws.workspace_id, key) as model:
        return essentiality_job(model, key, ws.store.model_data(ws.workspace_id, key).decode("utf-8"), medium_id,
                                medium, str(target), ids, objective, cutoff)


def essentiality_job(model: cobra.Model, model_id: str, model_json: str, media_id: str,
                     medium: Mapping[str, tuple[float, float]], target: str, ids: list[str] | None,
                     objective: object, threshold: float) -> EssentialityJob:
    """The job for a model at hand (the stored one, or a file's: `gem-flux essentiality`), its
    objective and every id to delete checked on it."""
    goal = fba.check_objective(model, objective, model_id)
    if ids:
        check_ids(model, "genes" if target == "genes" else "reactions", ids)
    return EssentialityJob(model_id=model_id, media_id=media_id, model_json=model_json, medium=dict(medium),
                           objective=goal, target=target, threshold=threshold,
                           ids=tuple(dict.fromkeys(ids)) if ids else None)


def store_essentiality(ws: Workspace, job: EssentialityJob, outcome: DeletionOutcome,
                       observed: dict[str, bool] | None = None, offset: int = 0, limit: int = PAGE,
                       output_path: Path | None = None) -> results.EssentialityResult:
    """Record the result with the model and shape the answer: the summary (counts, the essential
    ones first), a page of every row, the comparison with `observed` ({id: essential in vivo})."""
    threshold = job.threshold
    wild = outcome.wild_type_growth
    rows = deletion_rows(wild, outcome.growth, outcome.closes, threshold)
    essential = [r["id"] for r in rows if r["status"] == "essential"]
    slowed = [r["id"] for r in rows if r["status"] == "slowed"]
    summary = {"target": job.target, "tested": len(rows), "essential": len(essential), "slowed": len(slowed),
               "no_effect": len(rows) - len(essential) - len(slowed), "wild_type_growth": round(wild, 6),
               "threshold": threshold}
    comparison = compare(essential, [r["id"] for r in rows], observed, "essential") if observed else None
    ws.store.add_result(ws.workspace_id, job.model_id, f"{job.target[:-1]}_essentiality", job.media_id, {
        **summary, "essential_ids": essential[:500],
        **({"comparison": comparison["metrics"], "mismatches": comparison["mismatches"]} if comparison else {})})
    written = write_tsv(output_path, COLUMNS, rows) if output_path is not None else None
    page = rows[offset:offset + limit]
    return results.EssentialityResult.model_validate({
        "success": True, "model_id": job.model_id, "media_id": job.media_id, "objective": job.objective,
        "summary": summary, "essential": essential[:PAGE], "essential_truncated": len(essential) > PAGE,
        "rows": page, "offset": offset, "next_offset": offset + limit if offset + limit < len(rows) else None,
        **({"comparison": comparison} if comparison else {}), **({"output_file": written} if written else {}),
        "solves": outcome.solves, "seconds": round(outcome.seconds, 3),
    })
