"""Flux balance analysis of a stored model on a medium, recorded with the model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from weakref import WeakKeyDictionary

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling import fba, media, whatif
from gem_flux_mcp.rules.catalog import FLUX_THRESHOLD
from gem_flux_mcp.services import results
from gem_flux_mcp.services.workspace import Workspace, model_key

# Exchange -> ModelSEED compound resolution per loaded model object (cached models never change
# their reactions: edits make new models), so repeated FBA skips ~10 ms of work.
_EXCHANGES: WeakKeyDictionary[Any, list[media.ExchangeInfo]] = WeakKeyDictionary()


def run_fba(ws: Workspace, model_id: object, media_id: object, objective: object = "bio1", maximize: bool = True,
            flux_threshold: object = 1e-6, pfba: bool = False, knockout_genes: object = None,
            knockout_reactions: object = None, reaction_bounds: object = None) -> results.FbaResult:
    """FBA (or pFBA) on a medium; knockouts and bounds, when given, hold for this call only
    (applied after the medium, reverted afterwards: the stored model never changes)."""
    key = model_key(model_id)
    threshold = FLUX_THRESHOLD.check(flux_threshold)
    row = ws.store.get_model_row(ws.workspace_id, key)
    medium_id, medium = ws.medium(media_id)
    names = fba.NameLookup(ws.biochem.reaction_names, ws.biochem.compound_names)
    is_draft = row.state == "draft" and row.source == "built"
    with ws.store.checkout(ws.workspace_id, key) as model, model:
        exchanges = _EXCHANGES.get(model)
        if exchanges is None:
            exchanges = _EXCHANGES[model] = ws.exchanges(model)
        result = fba_on_model(model, key, medium_id, medium, exchanges, names, objective, bool(maximize), threshold,
                              bool(pfba), knockout_genes, knockout_reactions, reaction_bounds, is_draft)
    goal, applied = result["objective_reaction"], result.get("what_if")
    result["next_steps"] = _next_steps(result["objective_value"], is_draft, key)
    ws.store.set_last_media(ws.workspace_id, key, medium_id)
    ws.store.add_result(ws.workspace_id, key, "fba", medium_id, {
        "objective": goal, "objective_value": result["objective_value"], "method": result["method"],
        "maximize": bool(maximize), "status": result["status"], "solver": result["solver"],
        "uptake": {e["compound_id"]: e["flux"] for e in result["uptake_fluxes"][:20]},
        # the fluxes as answered (largest first, at most 1000): drawn by the dashboard's flux map,
        # left out of get_model's answer (services/models.py, RECORDED_TABLES)
        "fluxes": result["fluxes"], "fluxes_truncated": result["fluxes_truncated"],
        **({"what_if": {k: applied[k] for k in ("knocked_out_genes", "knocked_out_reactions", "bounds_changed")}}
           if applied is not None else {}),
    })
    return results.FbaResult.model_validate(result)


def medium_applied(model: Any, medium: Mapping[str, tuple[float, float]],
                   exchanges: list[media.ExchangeInfo], media_id: str, model_id: str) -> media.MediumReport:
    """Apply `medium` to the model's exchanges (the caller undoes it, `with model:`); refused with
    MEDIA_INCOMPATIBLE when none of its compounds has an exchange. Every FBA and every analysis
    command on a file checks the medium here."""
    report = media.apply_medium(model, medium, exchanges)
    if not report.applied:
        raise ValidationError(
            ErrorCode.MEDIA_INCOMPATIBLE,
            f"None of the {len(medium)} compounds of medium {media_id} has an exchange reaction "
            f"in model {model_id}.",
            details={"model_id": model_id, "media_id": media_id, "media_compounds": list(medium)[:50],
                     "model_exchanges": [e.reaction_id for e in exchanges][:50]},
            suggestions=["Use a medium made of compounds the model can exchange (see get_model).",
                         "Models outside the ModelSEED namespace are matched through BiGG ids."],
        )
    return report


def fba_on_model(model: Any, model_id: str, media_id: str, medium: Mapping[str, tuple[float, float]],
                 exchanges: list[media.ExchangeInfo], names: fba.NameLookup, objective: object = "bio1",
                 maximize: bool = True, flux_threshold: float = 1e-6, pfba: bool = False,
                 knockout_genes: object = None, knockout_reactions: object = None, reaction_bounds: object = None,
                 is_draft: bool = False) -> dict[str, Any]:
    """FBA (or pFBA) of a model at hand (the stored one, or a file's: `gem-flux fba`) on a medium,
    knockouts and bounds applied after it; the caller undoes the changes (`with model:`). The
    objective, the what-if changes and the medium are checked on the model first."""
    goal = fba.check_objective(model, objective, model_id)
    changes = whatif.validate_what_if(model, knockout_genes, knockout_reactions, reaction_bounds)
    report = medium_applied(model, medium, exchanges, media_id, model_id)
    applied = whatif.apply_what_if(model, changes) if not changes.is_empty() else None
    result = fba.run_fba(model, model_id=model_id, media_id=media_id, objective=goal, maximize=maximize,
                         flux_threshold=flux_threshold, pfba=pfba, exchanges=exchanges, names=names,
                         is_draft=is_draft)
    result["media_compounds_without_exchange"] = report.missing
    if applied is not None:
        result["what_if"] = applied
    return result


def _next_steps(growth: float, is_draft: bool, model_id: str) -> list[str]:
    if growth <= 1e-9:
        return (["Gapfill the model on this medium (gapfill_model), then run FBA again."] if is_draft else []) \
            + ["Check the medium with get_media; the model may need a nutrient it lacks."]
    return ["Compare media by running run_fba with other media_id values.",
            "Use pfba=true for a parsimonious flux distribution; knockout_genes asks what if.",
            f"See recorded results with get_model(model_id='{model_id}', include_predictions=true)."]
