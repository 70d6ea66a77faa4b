"""Growth phenotype arrays of a stored model: the request checked and turned into a PhenotypeJob
(base medium minus the panel's reference sources; the compounds to test), the answer summarised,
paged, compared with observations and recorded with the model."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.panels import PANEL_NAMES, Panel, load_panels
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling import fba, media
from gem_flux_mcp.modeling.media import check_compound_ids
from gem_flux_mcp.modeling.phenotypes import growth_phenotypes, phenotype_rows, plan_array
from gem_flux_mcp.rules.catalog import DEFAULT_GROWTH_THRESHOLD, GROWTH_THRESHOLD, PANEL, UPTAKE_RATE
from gem_flux_mcp.services import results
from gem_flux_mcp.services.confusion import compare
from gem_flux_mcp.services.job_base import Progress, StoredModelOnMedium
from gem_flux_mcp.services.tables import write_tsv
from gem_flux_mcp.services.workspace import Workspace, model_key

if TYPE_CHECKING:
    import cobra


@dataclass(frozen=True)
class PhenotypeOutcome:
    base_growth: float
    growth: dict[str, float | None]  # None: the model has no exchange for the compound
    exchanges: dict[str, list[str]]
    seconds: float


@dataclass(frozen=True)
class PhenotypeJob(StoredModelOnMedium):
    """`medium` is the base medium with the panel's reference sources already taken out."""

    kind: ClassVar[str] = "phenotypes"
    objective: str
    compounds: tuple[str, ...]
    uptake: float
    panel: str | None = None
    reference_removed: tuple[str, ...] = ()

    def run(self, settings: Settings, progress: Progress) -> PhenotypeOutcome:
        from gem_flux_mcp.modeling.phenotypes import growth_phenotypes

        result, seconds = self.analyse(settings, progress, self.objective, lambda model, exchanges: growth_phenotypes(
            model, self.compounds, exchanges, self.uptake, progress=progress))
        return PhenotypeOutcome(result.base_growth, result.growth, result.exchanges, seconds)


PAGE = 50
# A panel of at most this many compounds is answered in the server process, on the model the store
# already holds loaded: a Biolog plate takes ~1.3 s of warm re-solves on E. coli, and sending the
# model to a worker process (its JSON through a pipe, parsed again) would add ~0.6 s to it.
IN_PROCESS_MAX_COMPOUNDS = 400
COLUMNS = ("compound_id", "name", "status", "growth", "exchanges")
ARRAY_COLUMNS = ("compound_id", "name", "growth", "status", "observed")  # the array recorded with the result


def run_here(ws: Workspace, job: PhenotypeJob) -> PhenotypeOutcome | None:
    """The job run in this process on the stored model's loaded copy (its changes undone after),
    when it is small enough (IN_PROCESS_MAX_COMPOUNDS); None: send it to a worker."""
    if len(job.compounds) > IN_PROCESS_MAX_COMPOUNDS:
        return None
    started = time.perf_counter()
    with ws.store.checkout(ws.workspace_id, job.model_id) as model, model:
        exchanges, _ = media.put_on_medium(model, job.medium, ws.biochem)
        model.objective = job.objective
        result = growth_phenotypes(model, job.compounds, exchanges, job.uptake)
    return PhenotypeOutcome(result.base_growth, result.growth, result.exchanges, time.perf_counter() - started)


def prepare_phenotypes(ws: Workspace, model_id: object, base_media_id: object, panel: object = None,
                       compounds: object = None, observed: object = None, objective: object = "bio1",
                       uptake_rate: object = None) -> PhenotypeJob:
    """Validate the request before any work (every bad compound id at once)."""
    key = model_key(model_id)
    PANEL.check(panel)
    observed_ids = list(observed) if isinstance(observed, dict) else []
    extra = _id_list(compounds, "compounds") + _id_list(observed_ids, "observed")
    if panel is None and not extra:
        raise ValidationError(ErrorCode.NO_INPUT_PROVIDED, "Give a panel, compounds to test, or both.",
                              details={"panels": list(PANEL_NAMES)})
    tested = check_compound_ids(extra, ws.biochem.existing_compound_ids, allow_duplicates=True) if extra else []
    chosen = load_panels()[1][str(panel)] if panel is not None else None
    medium_id, medium = ws.medium(base_media_id)
    rate = UPTAKE_RATE.check(uptake_rate)
    with ws.store.checkout(ws.workspace_id, key) as model:
        return phenotype_job(model, key, ws.store.model_data(ws.workspace_id, key).decode("utf-8"), medium_id,
                             medium, chosen, tested, rate, objective)


def phenotype_job(model: cobra.Model, model_id: str, model_json: str, media_id: str,
                  medium: Mapping[str, tuple[float, float]], panel: Panel | None, tested: list[str],
                  uptake_rate: float | None, objective: object) -> PhenotypeJob:
    """The job for a model at hand (the stored one, or a file's: `gem-flux phenotypes`): the array
    planned on the base medium (the panel's reference sources taken out), the objective checked."""
    plan = plan_array(panel, tested, dict(medium), uptake_rate)
    return PhenotypeJob(model_id=model_id, media_id=media_id, model_json=model_json, medium=plan.medium,
                        objective=fba.check_objective(model, objective, model_id), compounds=plan.compounds,
                        uptake=plan.uptake, panel=panel.name if panel else None, reference_removed=plan.removed)


def store_phenotypes(ws: Workspace, job: PhenotypeJob, outcome: PhenotypeOutcome,
                     observed: dict[str, bool] | None = None, threshold: float = DEFAULT_GROWTH_THRESHOLD,
                     offset: int = 0, output_path: Path | None = None) -> results.PhenotypeResult:
    """Record the array with the model and shape the answer: summary, a page of rows in panel
    order, the comparison with `observed` ({compound: grows in vivo}), the full table as TSV."""
    names = {c: n for c, (n, _) in ws.biochem.compound_names(job.compounds).items()}
    threshold = GROWTH_THRESHOLD.check(threshold)
    rows = phenotype_rows(job.compounds, outcome.growth, outcome.exchanges, threshold, names)
    grows = [r["compound_id"] for r in rows if r["status"] == "growth"]
    no_uptake = [r["compound_id"] for r in rows if r["status"] == "no_uptake"]
    base = round(outcome.base_growth, 6)
    summary = {"tested": len(rows), "growth": len(grows), "no_growth": len(rows) - len(grows) - len(no_uptake),
               "no_uptake": len(no_uptake), "base_growth": base, "growth_threshold": threshold,
               "panel": job.panel, "reference_removed": list(job.reference_removed), "uptake_rate": job.uptake}
    warnings = [f"The base medium without the tested compounds already gives growth {base} /h (above the "
                f"threshold): every compound will look like a growth substrate."] if base > threshold else []
    comparison = None
    if observed:
        comparison = compare(grows, job.compounds, {k.strip().lower(): v for k, v in observed.items()}, "growth")
        comparison.pop("not_in_model")  # observed compounds are always tested
    ws.store.add_result(ws.workspace_id, job.model_id, "growth_phenotypes", job.media_id, {
        **summary, "growing_on": grows[:500], **({"comparison": comparison["metrics"]} if comparison else {}),
        "array": recorded_array(rows, observed)})
    written = write_tsv(output_path, COLUMNS, rows) if output_path is not None else None
    return results.PhenotypeResult.model_validate({
        "success": True, "model_id": job.model_id, "base_media_id": job.media_id, "objective": job.objective,
        "summary": summary, "growth_on": grows[:PAGE * 4], "no_uptake": no_uptake[:PAGE * 4],
        "rows": rows[offset:offset + PAGE], "offset": offset,
        "next_offset": offset + PAGE if offset + PAGE < len(rows) else None,
        **({"comparison": comparison} if comparison else {}), **({"output_file": written} if written else {}),
        "warnings": warnings, "provenance": load_panels()[0] if job.panel else None,
        "seconds": round(outcome.seconds, 3),
    })


def recorded_array(rows: list[dict[str, Any]], observed: dict[str, bool] | None) -> dict[str, Any]:
    """The whole array as recorded with the result, for the dashboard's plate picture (left out of
    get_model's answer: services/models.py, RECORDED_TABLES): one row per tested compound, with the
    observed call when one was given (null otherwise)."""
    calls = {k.strip().lower(): bool(v) for k, v in (observed or {}).items()}
    return {"columns": list(ARRAY_COLUMNS),
            "rows": [[r["compound_id"], r["name"], r["growth"], r["status"], calls.get(r["compound_id"].lower())]
                     for r in rows]}


def _id_list(value: object, name: str) -> list[object]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValidationError(ErrorCode.INVALID_ARGUMENTS, f"{name} must be a list of ModelSEED compound ids.",
                              details={"provided": repr(value)[:80]})
    return value
