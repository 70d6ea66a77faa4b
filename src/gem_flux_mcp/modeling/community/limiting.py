"""Which medium compounds limit a community's growth: each compound the medium offers, its uptake
bound halved, and the community growth that is left.

"Limiting" is a finite difference, not a dual value. The cooperative tradeoff holds community
growth at exactly `tradeoff` x the community's maximal growth (MICOM fixes its community
objective's lower bound there, and its quadratic step presses growth down onto that bound), so
the question is how the maximal growth, a linear program, answers a smaller uptake bound. Its
shadow prices or reduced costs would answer for an infinitesimal change only, and a genome-scale
optimum is degenerate: the solver returns one of many valid dual solutions, and a reduced cost of
0 does not mean a compound cannot limit (nor is the quadratic and pFBA step at the tradeoff's end
about growth at all). Halving the bound and solving again is what a bench experiment does, means
the same on every solver, and its answer is exact. A compound the optimum takes up at most half
its bound of cannot limit by this test (that optimum stays feasible), so only the others are
solved again: on a minimal medium a handful of linear programs.

`growth_halved` is the community growth at the tradeoff with that bound halved (the same
tradeoff x the new maximum), the growth `cooperative_tradeoff` gives on the halved medium."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import InfeasibilityError
from gem_flux_mcp.modeling.community.members import compound_of, json_safe, names_of

if TYPE_CHECKING:
    import micom

LIMITS = 1e-6  # relative fall in growth above which a compound limits it


@dataclass(frozen=True)
class LimitingCompounds:
    community_growth: float  # 1/h at the tradeoff, the medium as given
    rows: list[dict[str, Any]]  # compound_id, name, uptake_bound, uptake, growth_halved, growth_drop, relative_drop,
    # limiting; largest drop first
    solved: int  # linear programs solved again (the rest cannot limit, see the module's docstring)
    tradeoff: float
    seconds: float


def limiting_compounds(community: micom.Community, tradeoff: float = 0.5) -> LimitingCompounds:
    """For every compound the medium offers (an exchange with the environment whose lower bound is
    below 0): the community growth at `tradeoff` with that uptake bound halved, and the fall from
    the growth with the whole medium. COMMUNITY_INFEASIBLE when the community cannot grow."""
    started = time.perf_counter()
    tolerance = float(community.solver.configuration.tolerances.feasibility)
    names = names_of(community)
    offered = [r for r in community.exchanges if r.lower_bound < 0]
    rows: list[dict[str, Any]] = []
    solved = 0
    with community:
        community.objective = community.scale * community.variables.community_objective
        best = _maximal_growth(community)
        if best <= tolerance:
            raise InfeasibilityError(ErrorCode.COMMUNITY_INFEASIBLE,
                                     "The community cannot grow on this medium, so no compound limits its growth.",
                                     details={"tradeoff": tradeoff})
        uptakes = {r.id: max(-float(r.flux), 0.0) for r in offered}  # at the maximal growth just solved
        for reaction in offered:
            bound = -float(reaction.lower_bound)
            halved = best
            if uptakes[reaction.id] > bound / 2 + tolerance:  # else this optimum stays feasible
                with community:
                    reaction.lower_bound = -bound / 2
                    halved = max(_maximal_growth(community), 0.0)
                solved += 1
            compound = compound_of(next(iter(reaction.metabolites)).id)
            drop = max(best - halved, 0.0) * tradeoff
            relative = drop / (best * tradeoff)
            rows.append({"compound_id": compound, "name": names.get(compound, compound),
                         "uptake_bound": json_safe(bound), "uptake": json_safe(uptakes[reaction.id]),
                         "growth_halved": json_safe(halved * tradeoff), "growth_drop": json_safe(drop),
                         "relative_drop": json_safe(relative), "limiting": relative > LIMITS})
    rows.sort(key=lambda r: (-r["growth_drop"], r["compound_id"]))
    return LimitingCompounds(json_safe(best * tradeoff), rows, solved, tradeoff, time.perf_counter() - started)


def _maximal_growth(community: micom.Community) -> float:
    """The community's maximal growth (its objective, scaled as MICOM scales it); 0 when the
    problem has no optimum (a halved bound can leave nothing feasible)."""
    value = float(community.slim_optimize(error_value=float("nan")))
    return value / float(community.scale) if math.isfinite(value) else 0.0
