"""Energy-generating cycles (Fritzemeier et al. 2017): energy from nothing with every uptake closed,
and the loop that makes it (see the package docstring)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError

if TYPE_CHECKING:
    import cobra
from gem_flux_mcp.modeling.diagnose.records import CARRIERS, PRODUCIBLE, TEMP_PREFIX, EnergyCycle
from gem_flux_mcp.modeling.diagnose.structure import is_boundary


def energy_generating_cycles(model: cobra.Model, carriers: Iterable[str] = tuple(CARRIERS)) -> list[EnergyCycle]:
    """One answer per carrier whose metabolites are all in the model (see the module docstring)."""
    import cobra

    carriers = list(carriers)
    if unknown := [c for c in carriers if c not in CARRIERS]:
        raise ValidationError(ErrorCode.INVALID_ARGUMENTS, f"Unknown energy carrier(s): {', '.join(unknown)}.",
                              details={"unknown": unknown, "known": list(CARRIERS)})
    results = []
    with model:
        for reaction in model.reactions:
            lower, upper = min(reaction.lower_bound, 0.0), max(reaction.upper_bound, 0.0)
            if is_boundary(reaction):  # uptake is the direction that makes the metabolite
                lower, upper = (0.0, upper) if next(iter(reaction.metabolites.values())) < 0 else (lower, 0.0)
            if (lower, upper) != reaction.bounds:
                reaction.bounds = (lower, upper)
        tested = [c for c in carriers if all(m in model.metabolites for m in CARRIERS[c])]
        own = {c: _find_reaction(model, CARRIERS[c]) for c in tested}
        added = {c: cobra.Reaction(f"{TEMP_PREFIX}{c}", lower_bound=0.0, upper_bound=0.0) for c in tested if not own[c]}
        for carrier, reaction in added.items():
            reaction.add_metabolites({model.metabolites.get_by_id(m): v for m, v in CARRIERS[carrier].items()})
        model.add_reactions(list(added.values()))
        model.objective = {}  # restored on leaving `with`; each question sets coefficients on the solver
        for carrier in tested:
            mine = own[carrier]
            dissipation = mine or added[carrier]
            saved = dissipation.bounds
            dissipation.bounds = (0.0, 1000.0)
            cycle = EnergyCycle(carrier, mine.id if mine else None, maximum(model, dissipation))
            if cycle.found:
                dissipation.bounds = (min(cycle.max_flux, 1.0),) * 2
                cycle.members = _least_flux(model, skip=dissipation.id)
            dissipation.bounds = saved
            results.append(cycle)
    return results


def _find_reaction(model: cobra.Model, stoichiometry: Mapping[str, float]) -> cobra.Reaction | None:
    first = model.metabolites.get_by_id(next(iter(stoichiometry)))
    return next((r for r in first.reactions if {m.id: c for m, c in r.metabolites.items()} == stoichiometry), None)


def maximum(model: cobra.Model, reaction: cobra.Reaction) -> float:
    """The largest flux through `reaction` (0.0 when infeasible), the solver objective otherwise
    empty; changed on the solver directly: COBRApy's objective setter is slow after `_least_flux`."""
    objective = model.solver.objective
    terms = {reaction.forward_variable: 1.0, reaction.reverse_variable: -1.0}
    objective.set_linear_coefficients(terms)
    objective.direction = "max"
    value = model.slim_optimize(error_value=float("nan"))
    objective.set_linear_coefficients(dict.fromkeys(terms, 0.0))
    return 0.0 if math.isnan(value) else float(value)


def _least_flux(model: cobra.Model, skip: str) -> dict[str, float]:
    """The fluxes of the steady state with least total flux within the current bounds."""
    objective = model.solver.objective
    terms = dict.fromkeys((v for r in model.reactions for v in (r.forward_variable, r.reverse_variable)), 1.0)
    objective.set_linear_coefficients(terms)
    objective.direction = "min"
    model.slim_optimize()
    optimal = model.solver.status == "optimal"
    values = model.solver.primal_values if optimal else {}
    objective.set_linear_coefficients(dict.fromkeys(terms, 0.0))
    fluxes = {r.id: values[r.forward_variable.name] - values[r.reverse_variable.name]
              for r in model.reactions if optimal}
    return {rid: round(v, 9) for rid, v in fluxes.items() if abs(v) > PRODUCIBLE and rid != skip}
