"""Gapfilling: the request checked and turned into a GapfillJob (with any ATP correction known
for the model), the gapfilled model stored under a new id with its report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from gem_flux_mcp.config import Settings
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import NotFoundError, ValidationError
from gem_flux_mcp.rules.catalog import GAPFILL_MODE, TARGET_GROWTH_RATE
from gem_flux_mcp.services import gapfill_ahead, results
from gem_flux_mcp.services.job_base import Progress, StoredModelOnMedium, worker_biochem
from gem_flux_mcp.services.workspace import Workspace, model_key
from gem_flux_mcp.store.rows import ModelRow
from gem_flux_mcp.store.serialization import SerializedModel


@dataclass(frozen=True)
class GapfillOutcome:
    data: bytes  # COBRApy JSON of the gapfilled model
    stats: dict[str, Any]
    report: dict[str, Any]
    atp_correction: dict[str, Any] | None


@dataclass(frozen=True)
class GapfillJob(StoredModelOnMedium):
    kind: ClassVar[str] = "gapfill"
    takes_work_ahead: ClassVar[bool] = True  # the worker leaves gapfill_ahead's work to `run`
    target_growth: float
    mode: str
    template: str
    new_model_id: str
    atp_correction: dict[str, Any] | None = None  # known from an earlier gapfill of the same model
    template_note: str | None = None
    # more media to reach the target on, at once with `medium` (one cheapest set of additions)
    other_media: tuple[tuple[str, dict[str, tuple[float, float]]], ...] = ()

    def run(self, settings: Settings, progress: Progress) -> GapfillOutcome:
        from gem_flux_mcp.modeling import gapfill
        from gem_flux_mcp.modeling.gapfill import report as gapfill_report
        from gem_flux_mcp.modeling.json_model import model_from_json
        from gem_flux_mcp.modeling.solver_memory import release_model
        from gem_flux_mcp.store.serialization import serialize_model

        progress("load", 0.01, "reading the model")
        options = gapfill.GapfillOptions(target_growth=self.target_growth, mode=self.mode)
        previous = gapfill.AtpCorrection.from_json(self.atp_correction) if self.atp_correction else None
        ahead = None
        if previous is None and self.mode in gapfill.ATP_CORRECTION_MODES:
            # computed while the worker waited after building this draft (gapfill_ahead.py)
            ahead = gapfill_ahead.take(self.model_json, self.template)
        else:
            gapfill_ahead.cancel()  # a stage 1 known already, or none to run: nothing ahead is used
        model = ahead.draft if ahead is not None and ahead.draft is not None else model_from_json(self.model_json)
        biochem = worker_biochem(settings)
        media = {self.media_id: dict(self.medium), **dict(self.other_media)}
        run = gapfill.gapfill_from_data(model, media if self.other_media else dict(self.medium), options,
                                        template_name=self.template, data_dir=settings.data_dir, biochem=biochem,
                                        previous_atp=previous, progress=progress, inplace=True,
                                        atp_ahead=ahead.atp if ahead is not None else None)
        report = gapfill_report.describe(run, biochem.reaction_details, options.target_growth)
        progress("store", 0.95, "serializing the gapfilled model")
        serialized = serialize_model(run.model, self.new_model_id)
        release_model(run.model)
        return GapfillOutcome(serialized.data, serialized.stats, report,
                              run.atp.to_json() if run.atp is not None else None)


MAX_GAPFILL_MEDIA = 10
PAGE_SIZE = 50  # added reactions per answer (get_model pages the rest)


def requested_media(media_id: object, media_ids: object, model_id: str = "E_coli.draft") -> list[object]:
    """The media a gapfill is asked for: `media_id`, then `media_ids` (repeats dropped), at least
    one and at most MAX_GAPFILL_MEDIA."""
    if media_ids is not None and not isinstance(media_ids, list | tuple):
        raise ValidationError(ErrorCode.INVALID_MEDIA, "media_ids must be a list of media ids.",
                              details={"provided": repr(media_ids)[:60]})
    wanted = ([] if media_id is None else [media_id]) + list(media_ids or [])
    unique = list(dict.fromkeys(m.strip() if isinstance(m, str) else m for m in wanted))
    if not unique or len(unique) > MAX_GAPFILL_MEDIA:
        raise ValidationError(
            ErrorCode.INVALID_MEDIA,
            "Give the medium to gapfill on as media_id, or several as media_ids (one cheapest set of reactions "
            f"for all of them; at most {MAX_GAPFILL_MEDIA})." if not unique else
            f"At most {MAX_GAPFILL_MEDIA} media in one gapfill; got {len(unique)}.",
            details={"num_media": len(unique), "max_media": MAX_GAPFILL_MEDIA},
            suggestions=["list_media shows the media available."],
            example_call={"tool": "gapfill_model", "arguments": {
                "model_id": model_id, "media_ids": ["glucose_minimal_aerobic", "lb_aerobic"]}},
        )
    return unique


def prepare_gapfill(ws: Workspace, model_id: object, media_id: object, target_growth_rate: object,
                    gapfill_mode: object, media_ids: object = None) -> GapfillJob:
    """Validate a gapfill request and gather what the worker needs. Nothing is stored; the new
    model's id is reserved for the job (`store_gapfill` stores under it, `abandon_gapfill` frees
    it), so the id the job is shown with is the id its model gets."""
    key = model_key(model_id)
    target = TARGET_GROWTH_RATE.check(target_growth_rate, model_id=key)
    mode = GAPFILL_MODE.check(gapfill_mode)
    media = dict(ws.medium(m) for m in requested_media(media_id, media_ids, key))
    row = ws.store.get_model_row(ws.workspace_id, key)
    (medium_id, medium), *others = media.items()
    template = gapfill_ahead.gapfill_template(row.template)
    model_json = ws.store.model_data(ws.workspace_id, key).decode("utf-8")
    atp = known_atp_correction(ws, row)
    return GapfillJob(
        model_id=key, media_id=medium_id, model_json=model_json,
        medium=dict(medium), target_growth=target, mode=mode, template=template,
        other_media=tuple((name, dict(bounds)) for name, bounds in others),
        new_model_id=ws.store.reserve_derived_model_id(ws.workspace_id, key, suffix="gf"),  # last: nothing fails after
        atp_correction=atp,
        template_note=None if template == row.template else
        f"Model template is {row.template or 'unknown'}; gapfilled with the {template} template.",
    )


def known_atp_correction(ws: Workspace, row: ModelRow) -> dict[str, Any] | None:
    """ATP correction already computed for this model: by the gapfill that made it, or by an
    earlier gapfill of it (recorded as a result). Either way valid for this model's reactions."""
    if isinstance(row.extra.get("atp_correction"), dict):
        return dict(row.extra["atp_correction"])
    for result in ws.store.list_results(ws.workspace_id, row.model_id, 100):
        if result.kind == "atp_correction":
            return dict(result.summary)
    return None


def abandon_gapfill(ws: Workspace, job: GapfillJob) -> None:
    """Free the id reserved for a gapfill that will store nothing (failed, cancelled, timed out)."""
    ws.store.release_model_id(ws.workspace_id, job.new_model_id)


def store_gapfill(ws: Workspace, job: GapfillJob, outcome: GapfillOutcome) -> results.GapfillModelResult:
    """Store the gapfilled model under a fresh id, record the result, shape the answer."""
    key = job.model_id
    media_ids = [job.media_id, *(name for name, _ in job.other_media)]
    report = dict(outcome.report)
    entries = report.pop("reactions_added")
    parent = ws.store.get_model_row(ws.workspace_id, key)
    atp = outcome.atp_correction
    new_id = job.new_model_id  # reserved by prepare_gapfill: a second gapfill of the same model got .v2
    try:
        row = ws.store.add_model(
        ws.workspace_id, new_id, SerializedModel(outcome.data, outcome.stats),
            model_name=None, source="gapfilled", template=job.template, derived_from=key,
            extra={"gapfill": {"media_id": job.media_id, **({"media_ids": media_ids} if len(media_ids) > 1 else {}),
                               "target_growth_rate": job.target_growth,
                               "mode": job.mode, "reactions_added": entries,
                               "quality_checks": report["quality_checks"]},
                   **({"atp_correction": atp} if atp else {})},
        )
    finally:
        abandon_gapfill(ws, job)
    ws.store.set_last_media(ws.workspace_id, new_id, job.media_id)
    summary = {"gapfilled_model_id": new_id, "original_model_id": key, "mode": job.mode,
               "target_growth_rate": job.target_growth,
               "growth_rate_before": report["growth_rate_before"],
               "growth_rate_after": report["growth_rate_after"],
               "num_reactions_added": len(entries), "quality_checks_passed": report["quality_checks"]["all_passed"],
               **({"media_ids": media_ids, "growth_by_medium": report["growth_by_medium"]}
                  if len(media_ids) > 1 else {})}
    ws.store.add_result(ws.workspace_id, new_id, "gapfill", job.media_id, summary)
    ws.store.add_result(ws.workspace_id, key, "gapfill", job.media_id, summary)
    if atp and job.atp_correction is None and not parent.extra.get("atp_correction"):
        ws.store.add_result(ws.workspace_id, key, "atp_correction", None, atp)
    more = reactions_page(entries, 0)
    genome = _genome_note(genome_completeness(ws, parent), report.get("additions_by_context"))
    if genome:
        report["interpretation"] = {**report["interpretation"], "genome": genome}
    return results.GapfillModelResult.model_validate({
        "success": True, "model_id": new_id, "original_model_id": key, "media_id": job.media_id,
        "media_ids": media_ids,
        "target_growth_rate": job.target_growth, "gapfill_mode": job.mode, "template_used": job.template,
        **{k: v for k, v in report.items() if k not in ("timings_s",)},
        **more,
        "model_properties": {"num_reactions": row.num_reactions, "num_metabolites": row.num_metabolites,
                             "num_genes": row.num_genes, "is_draft": False,
                             "requires_further_gapfilling": not report["gapfilling_successful"]},
        "timings_s": report["timings_s"],
        "next_steps": [
            f"Run FBA: run_fba(model_id='{new_id}', media_id='{job.media_id}').",
            *([f"More added reactions: get_model(model_id='{new_id}', "
               f"gapfill_reactions_offset={more['reactions_next_offset']})."]
              if more["reactions_next_offset"] is not None else []),
            *([job.template_note] if job.template_note else []),
        ],
    })


def genome_completeness(ws: Workspace, row: ModelRow) -> dict[str, Any] | None:
    """The marker-gene estimate of the genome a model was built from (its own or an ancestor's)."""
    seen: set[str] = set()
    current: ModelRow | None = row
    while current is not None and current.model_id not in seen:
        seen.add(current.model_id)
        found = current.extra.get("genome_completeness")
        if isinstance(found, dict):
            return found
        if not current.derived_from:
            break
        try:
            current = ws.store.get_model_row(ws.workspace_id, current.derived_from)
        except NotFoundError:  # the ancestor was deleted
            break
    return None


def _genome_note(genome: dict[str, Any] | None, contexts: dict[str, Any] | None) -> str:
    """What the additions without genes may mean for this genome."""
    if not genome or not contexts:
        return ""
    gaps = contexts.get("gap_in_covered_pathway", 0)
    text = (f"The genome looks {genome['completeness']:.0f} % complete ({genome['markers_found']} of "
            f"{genome['markers']} single-copy markers). Of the {contexts.get('without_evidence', 0)} additions "
            f"without genes, {gaps} fill one missing step between steps the genome has and "
            f"{contexts.get('stretch_without_genes', 0)} sit in stretches without genes")
    if genome["completeness"] < 90.0:
        return (text + f": with about {100 - genome['completeness']:.0f} % of the genes missing, many of the "
                "single missing steps are likely genes the assembly lost, not gaps of the organism.")
    return text + ": the genome looks complete, so these are gaps of the annotation or of the organism."


def reactions_page(entries: list[dict[str, Any]], offset: int, size: int = PAGE_SIZE) -> dict[str, Any]:
    """One page of a gapfill's added reactions, as gapfill_model and get_model answer it."""
    chunk = entries[offset:offset + size]
    following = offset + len(chunk)
    return {"reactions_added": chunk, "reactions_added_total": len(entries), "reactions_offset": offset,
            "reactions_next_offset": following if following < len(entries) else None}
