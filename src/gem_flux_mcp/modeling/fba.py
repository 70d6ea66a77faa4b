"""Flux balance analysis on a COBRApy model, summarised for people and LLM clients.

The caller applies the medium (inside `with model:`) and passes name resolvers, so this module
stays free of storage and MCP concerns.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import InfeasibilityError, LibraryError, ValidationError
from gem_flux_mcp.modeling.media import ExchangeInfo

if TYPE_CHECKING:  # COBRApy takes ~2 s to import; modules import it where first used
    import cobra

MAX_FLUX_ENTRIES = 1000  # keeps a genome-scale answer well under LLM client limits
TOP_FLUXES = 10
O2 = "cpd00007"
_CARBON = re.compile(r"C(?![a-z])")
_INF_BOUND = 1000.0
SOLVER_ZERO = 1e-9  # |flux| at or below this is the solver's zero


@dataclass(frozen=True)
class NameLookup:
    """Names for reactions and compounds, from the database where ids are ModelSEED ids."""

    reaction_names: Callable[[Iterable[str]], dict[str, str]]
    compound_info: Callable[[Iterable[str]], dict[str, tuple[str, str]]]  # id -> (name, formula)


def objective_candidates(model: cobra.Model) -> list[str]:
    ids = [r.id for r in model.reactions]
    biomass = [i for i in ids if i.lower().startswith("bio") or "biomass" in i.lower()]
    atpm = [i for i in ids if i.upper().startswith("ATPM")]
    return (biomass + atpm)[:10]


def check_objective(model: cobra.Model, objective: object, model_id: str) -> str:
    if not isinstance(objective, str) or objective.strip() not in model.reactions:
        suggested = objective_candidates(model)
        raise ValidationError(
            ErrorCode.INVALID_OBJECTIVE,
            f"Objective '{objective}' is not a reaction of model {model_id}.",
            details={"requested_objective": objective, "model_id": model_id,
                     "suggested_objectives": suggested, "total_reactions": len(model.reactions)},
            suggestions=[f"Use one of {', '.join(suggested)}." if suggested
                         else "Pass the id of a reaction in the model."],
        )
    return objective.strip()


def run_fba(
    model: cobra.Model,
    *,
    model_id: str,
    media_id: str,
    objective: str,
    maximize: bool,
    flux_threshold: float,
    pfba: bool,
    exchanges: list[ExchangeInfo],
    names: NameLookup,
    is_draft: bool,
) -> dict[str, Any]:
    """Optimise and summarise. Raises InfeasibilityError for infeasible/unbounded problems."""
    model.objective = objective
    model.objective_direction = "max" if maximize else "min"
    started = time.perf_counter()
    # slim_optimize never raises (COBRApy's optimize() raises on 'unbounded'); read the status
    model.slim_optimize(error_value=float("nan"))
    status = model.solver.status
    fluxes: dict[str, float] | None = None
    if status == "optimal":
        if pfba:
            # pFBA keeps the optimum and minimises total flux: a unique, parsimonious flux map.
            from cobra.flux_analysis import pfba as cobra_pfba

            solution = cobra_pfba(model, fraction_of_optimum=1.0)
            status = solution.status
            fluxes = {str(k): float(v) for k, v in solution.fluxes.items()}
        else:
            # Net fluxes straight from the solver: COBRApy's Solution would also compute reduced
            # costs and shadow prices, half of a warm FBA's time (benchmarks/store_fba.py).
            primal = model.solver.primal_values
            fluxes = {r.id: primal[r.id] - primal[r.reverse_id] for r in model.reactions}
    elapsed_ms = (time.perf_counter() - started) * 1000
    solver = model.solver.interface.__name__.split(".")[-1].replace("_interface", "")
    if status == "infeasible":
        raise InfeasibilityError(
            ErrorCode.MODEL_INFEASIBLE,
            f"Model {model_id} has no feasible flux distribution on medium {media_id}.",
            details={"model_id": model_id, "media_id": media_id, "objective": objective,
                     "num_constraints": len(model.metabolites), "num_variables": len(model.reactions)},
            suggestions=(["Draft models usually cannot grow yet: gapfill it on this medium first."] if is_draft else [])
            + ["Check that the medium provides carbon, nitrogen, phosphate and sulfur sources.",
               "Fixed lower bounds above zero (e.g. maintenance) can make the model infeasible."],
        )
    if status == "unbounded":
        open_ex = [e.reaction_id for e in exchanges
                   if math.isinf(model.reactions.get_by_id(e.reaction_id).lower_bound)
                   or math.isinf(model.reactions.get_by_id(e.reaction_id).upper_bound)]
        raise InfeasibilityError(
            ErrorCode.MODEL_UNBOUNDED,
            f"The objective of model {model_id} is unbounded on medium {media_id}.",
            details={"model_id": model_id, "media_id": media_id, "objective": objective,
                     "unbounded_exchanges": open_ex[:10], "unbounded_count": len(open_ex)},
            suggestions=["Give every uptake a finite bound in the medium.",
                         "Check for reactions with infinite bounds around the objective."],
        )
    if status != "optimal" or fluxes is None:
        raise LibraryError(
            ErrorCode.SOLVER_ERROR,
            f"The solver ({solver}) ended with status '{status}' for model {model_id}.",
            details={"model_id": model_id, "media_id": media_id, "solver_status": status, "solver": solver},
            suggestions=["Retry; if it persists, export the model and inspect it with COBRApy."],
        )
    return _summarise(model, fluxes, status, model_id=model_id, media_id=media_id, objective=objective,
                      flux_threshold=flux_threshold, exchanges=exchanges, names=names, solver=solver,
                      pfba=pfba, elapsed_ms=elapsed_ms, is_draft=is_draft)


def _summarise(model: cobra.Model, fluxes: dict[str, float], solver_status: str, *, model_id: str, media_id: str,
               objective: str,
               flux_threshold: float, exchanges: list[ExchangeInfo], names: NameLookup, solver: str,
               pfba: bool, elapsed_ms: float, is_draft: bool) -> dict[str, Any]:
    # the objective reaction's own flux: for pFBA the solver's objective is the total flux
    objective_value = fluxes[objective]
    kept = {rid: float(v) for rid, v in fluxes.items() if abs(v) > flux_threshold}
    # The biology (carbon sources, aerobic or not) is read from every nonzero exchange flux;
    # flux_threshold only trims what is listed.
    nonzero = {rid: float(fluxes[rid]) for rid in (e.reaction_id for e in exchanges)
               if rid in fluxes and abs(fluxes[rid]) > SOLVER_ZERO}
    exchange_by_reaction = {e.reaction_id: e for e in exchanges}
    compound_info = names.compound_info(
        [cpd for cpd in (exchange_by_reaction[rid].compound_id for rid in nonzero) if cpd])
    all_uptake: list[dict[str, Any]] = []
    all_secretion: list[dict[str, Any]] = []
    for rid, value in nonzero.items():
        info = exchange_by_reaction[rid]
        net = value if info.sign < 0 else -value  # >0 secretion, <0 uptake in the usual orientation
        metabolite = model.metabolites.get_by_id(info.metabolite_id)
        cpd = info.compound_id or info.metabolite_id
        name, formula = compound_info.get(cpd, (metabolite.name or cpd, metabolite.formula or ""))
        entry = {"compound_id": cpd, "compound_name": name, "formula": formula,
                 "flux": round(net, 6), "reaction_id": rid}
        (all_uptake if net < 0 else all_secretion).append(entry)
    all_uptake.sort(key=lambda e: e["flux"])
    all_secretion.sort(key=lambda e: -e["flux"])
    uptake = [e for e in all_uptake if e["reaction_id"] in kept]
    secretion = [e for e in all_secretion if e["reaction_id"] in kept]
    top_ids = sorted(kept, key=lambda r: -abs(kept[r]))
    db_names = names.reaction_names(_base_reaction_id(r) for r in top_ids[:TOP_FLUXES])
    top = []
    for rid in top_ids[:TOP_FLUXES]:
        reaction = model.reactions.get_by_id(rid)
        top.append({"reaction_id": rid, "reaction_name": reaction.name or db_names.get(_base_reaction_id(rid), ""),
                    "flux": round(kept[rid], 6), "direction": "forward" if kept[rid] > 0 else "reverse"})
    ordered = dict(sorted(kept.items(), key=lambda item: -abs(item[1]))[:MAX_FLUX_ENTRIES])
    carbon_sources = [e["compound_name"] for e in all_uptake if e["formula"] and _CARBON.search(e["formula"])]
    aerobic = any(e["compound_id"] == O2 for e in all_uptake)
    internal = len(kept) - len(uptake) - len(secretion)
    growth = objective_value
    return {
        "success": True,
        "model_id": model_id,
        "media_id": media_id,
        "objective_reaction": objective,
        "objective_direction": model.objective_direction,
        "objective_value": round(objective_value, 6),
        "status": "optimal",
        "solver_status": solver_status,
        "solver": solver,
        "method": "pfba" if pfba else "fba",
        "solve_time_ms": round(elapsed_ms, 2),
        "active_reactions": len(kept),
        "total_reactions": len(model.reactions),
        "total_flux": round(sum(abs(v) for v in kept.values()), 6),
        "fluxes": {rid: round(v, 6) for rid, v in ordered.items()},
        "fluxes_truncated": len(kept) > MAX_FLUX_ENTRIES,
        "uptake_fluxes": uptake,
        "secretion_fluxes": secretion,
        "summary": {"uptake_reactions": len(uptake), "secretion_reactions": len(secretion),
                    "internal_reactions": internal},
        "top_fluxes": top,
        "interpretation": {
            "growth_rate_per_hour": round(growth, 3),
            "metabolism_type": "Aerobic respiration" if aerobic else "Anaerobic/fermentation",
            "carbon_sources": carbon_sources,
            "growth_assessment": _assess(growth),
            "model_status": "draft" if is_draft else "gapfilled or curated",
        },
    }


def _base_reaction_id(reaction_id: str) -> str:
    return re.sub(r"_[a-z]\d*$", "", reaction_id)


def _assess(growth: float) -> str:
    if growth > 0.5:
        return "Fast growth"
    if growth > 0.1:
        return "Moderate growth"
    if growth > 0.01:
        return "Slow growth"
    return "No or very slow growth"
