"""Why a deletion does or does not stop growth on a medium (modeling/explain.py): the request
checked and turned into an ExplainJob, the answer named and summarised in a sentence, and
recorded with the model."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from gem_flux_mcp.config import Settings
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling import fba
from gem_flux_mcp.modeling.essentiality import Target, check_ids
from gem_flux_mcp.rules.catalog import DEFAULT_THRESHOLD, ESSENTIALITY_THRESHOLD
from gem_flux_mcp.services import results
from gem_flux_mcp.services.job_base import Progress, StoredModelOnMedium, worker_biochem
from gem_flux_mcp.services.workspace import Workspace, model_key

if TYPE_CHECKING:
    import cobra


@dataclass(frozen=True)
class ExplainOutcome:
    explanation: dict[str, Any]  # modeling.explain.Explanation as plain data
    seconds: float


@dataclass(frozen=True)
class ExplainJob(StoredModelOnMedium):
    kind: ClassVar[str] = "explain"
    objective: str
    target: str  # "genes" or "reactions"
    deleted: str
    threshold: float

    def run(self, settings: Settings, progress: Progress) -> ExplainOutcome:
        from gem_flux_mcp.modeling.explain import explain_deletion

        details = worker_biochem(settings).reaction_details
        found, seconds = self.analyse(settings, progress, self.objective, lambda model, _: explain_deletion(
            model, self.deleted, "genes" if self.target == "genes" else "reactions", self.threshold, details))
        return ExplainOutcome(dataclasses.asdict(found), seconds)


def prepare_explanation(ws: Workspace, model_id: object, media_id: object, gene: object = None,
                        reaction: object = None, objective: object = "bio1",
                        threshold: object = DEFAULT_THRESHOLD) -> ExplainJob:
    """Validate the request (one gene or one reaction of the model) before any work."""
    key = model_key(model_id)
    cutoff = ESSENTIALITY_THRESHOLD.check(threshold)
    given = {name: value for name, value in (("gene", gene), ("reaction", reaction)) if value is not None}
    if len(given) != 1 or not all(isinstance(v, str) and v.strip() for v in given.values()):
        raise ValidationError(
            ErrorCode.INVALID_ARGUMENTS, "Give one gene or one reaction to delete (not both).",
            details={"given": sorted(given)},
            example_call={"tool": "explain_essentiality", "arguments": {
                "model_id": key, "media_id": "glucose_minimal_aerobic", "gene": "b0185"}})
    (name, value), = given.items()
    target: Target = "genes" if name == "gene" else "reactions"
    medium_id, medium = ws.medium(media_id)
    with ws.store.checkout(ws.workspace_id, key) as model:
        return explanation_job(model, key, ws.store.model_data(ws.workspace_id, key).decode("utf-8"), medium_id,
                               medium, target, str(value), objective, cutoff)


def explanation_job(model: cobra.Model, model_id: str, model_json: str, media_id: str,
                    medium: Mapping[str, tuple[float, float]], target: Target, deleted: str, objective: object,
                    threshold: float) -> ExplainJob:
    """The job for a model at hand (the stored one, or a file's: `gem-flux explain`), its objective
    and the gene or reaction to delete checked on it."""
    goal = fba.check_objective(model, objective, model_id)
    (found,) = check_ids(model, target, [deleted.strip()])
    return ExplainJob(model_id=model_id, media_id=media_id, model_json=model_json, medium=dict(medium),
                      objective=goal, target=target, deleted=found, threshold=threshold)


def store_explanation(ws: Workspace, job: ExplainJob, outcome: ExplainOutcome) -> results.ExplainEssentialityResult:
    found = outcome.explanation
    missing = found["missing_precursors"]
    precursors = named_precursors(ws.biochem, found)
    summary = explanation_sentence(job.target, job.deleted, found, precursors)
    ws.store.add_result(ws.workspace_id, job.model_id, "explain_essentiality", job.media_id, {
        "deleted": job.deleted, "target": job.target, "growth": found["growth"], "growth_ratio": found["growth_ratio"],
        "essential": found["essential"], "route": [s["reaction_id"] for s in found["route"][:20]],
        "missing_precursors": missing[:20]})
    return results.ExplainEssentialityResult.model_validate({
        "success": True, "model_id": job.model_id, "media_id": job.media_id, "objective": job.objective,
        "target": job.target, "deleted": job.deleted, "reactions_closed": found["reactions_closed"],
        "wild_type_growth": round(found["wild_type_growth"], 6), "growth": round(found["growth"], 6),
        "growth_ratio": round(found["growth_ratio"], 6), "threshold": job.threshold, "essential": found["essential"],
        "used_in_wild_type": found["used_in_wild_type"],
        "explanation": summary, "route": found["route"], "route_total": found["route_total"],
        "missing_precursors": precursors, "made_only_with_cofactors": found["made_only_with_cofactors"],
        "next_steps": _next_steps(job, found), "seconds": round(outcome.seconds, 3),
    })


def named_precursors(biochem: Any, found: dict[str, Any]) -> list[dict[str, Any]]:
    """The missing biomass components of an explanation with their ModelSEED names."""
    missing, parts = found["missing_precursors"], found["missing_parts"]
    wanted = [*missing, *(i for m in missing for i in parts.get(m, []))]
    bases = {m: m.rsplit("_", 1)[0] for m in wanted}
    known = biochem.compound_names(set(bases.values()))
    names = {m: known[b][0] for m, b in bases.items() if b in known}
    return [{"id": m, "name": names.get(m, ""), "inputs_not_made": parts.get(m, []),
             "input_names": [names.get(i, "") for i in parts.get(m, [])]} for m in missing]


def explanation_sentence(target: str, deleted: str, found: dict[str, Any], precursors: list[dict[str, Any]]) -> str:
    """The answer in one or two sentences (the tool's `explanation`, the CLI's first line)."""
    what = f"Deleting {deleted}" + (f" (closes {', '.join(found['reactions_closed'][:5])})"
                                     if target == "genes" else "")
    ratio = found["growth_ratio"]
    if not found["reactions_closed"]:
        return f"{what} closes no reaction (its rule has another gene), so growth is the wild type's."
    if found["essential"]:
        made = ", ".join(p["name"] or p["id"] for p in precursors[:6])
        return (f"{what} stops growth ({ratio:.0%} of the wild type): "
                + (f"the model no longer makes {made}." if made else
                   "every biomass component is still made on its own, but not all of them together."))
    route = found["route"]
    if not found["used_in_wild_type"]:
        shown = ", ".join(f"{s['reaction_id']} ({s['direction']}, {s['origin']})" for s in route[:5])
        return (f"{what} changes nothing: the wild type does not use {', '.join(found['reactions_closed'][:5])}"
                + (f"; it makes what they make with {shown}." if shown else "."))
    new = [s for s in route if s["change"] in ("appears", "reverses")]
    shown = ", ".join(f"{s['reaction_id']} ({s['change']}, {s['origin']})" for s in (new or route)[:5])
    return (f"{what} leaves {ratio:.0%} of the wild type's growth: "
            + (f"the flux goes through {shown}." if shown else "the same reactions carry the flux."))


def _next_steps(job: ExplainJob, found: dict[str, Any]) -> list[str]:
    if found["essential"] or not found["route"]:
        return [f"All deletions at once: predict_gene_essentiality(model_id='{job.model_id}', "
                f"media_id='{job.media_id}')."]
    suspect = next((s for s in found["route"] if s["origin"] in ("gapfill", "template") or not s["genes"]), None)
    steps = [f"Compare with the screen: predict_gene_essentiality(model_id='{job.model_id}', "
             f"media_id='{job.media_id}', observed={{...}})."]
    if suspect is not None:
        steps.insert(0, f"If {suspect['reaction_id']} ({suspect['origin']}, no gene evidence) should not be there: "
                        f"revise_model(model_id='{job.model_id}', remove_reactions=['{suspect['reaction_id']}'], "
                        "reason=...), then ask again.")
    return steps
