"""The objective's optimum with a few reaction bounds changed, many times over on one model.

Deletions and phenotype arrays ask the same question hundreds of times: "the optimum if these
reactions had those bounds?". Each answer changes a handful of bounds on the same problem, so
it is re-solved from the previous basis and the bounds restored afterwards. With GLPK the
re-solve calls `glp_simplex` on the problem directly: optlang re-scales the whole problem before
every solve, which is half the time when only column bounds change (benchmarks/analysis.py
measures it against COBRApy). Anything but an optimum or a proven infeasibility is solved again
through COBRApy. An infeasible problem gives 0; optima below 0 are reported as 0 (growth).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import cobra

Bounds = Mapping[str, tuple[float, float]]  # reaction id -> (lower, upper)
Resolver = Callable[[Bounds], float]


def optimum_resolver(model: cobra.Model) -> Resolver:
    """A function giving the optimum of `model` (as it is) with some reactions' bounds replaced.
    The model must not be changed otherwise while the function is in use."""
    return _glpk_resolver(model) or (lambda bounds: optimum_with(model, bounds))


def optimum_with(model: cobra.Model, bounds: Bounds) -> float:
    """The same answer through COBRApy (any solver)."""
    with model:
        for reaction_id, pair in bounds.items():
            model.reactions.get_by_id(reaction_id).bounds = pair
        value = model.slim_optimize(error_value=float("nan"))
    return 0.0 if math.isnan(value) else max(float(value), 0.0)


def column_bounds(lower: float, upper: float) -> tuple[tuple[float, float], tuple[float, float]]:
    """Bounds of a reaction's forward and reverse variables (COBRApy's split of net flux)."""
    return (max(lower, 0.0), max(upper, 0.0)), (max(-upper, 0.0), max(-lower, 0.0))


def _glpk_resolver(model: cobra.Model) -> Resolver | None:
    if not model.solver.interface.__name__.endswith("glpk_interface"):
        return None
    import swiglpk as glp

    problem = model.solver.problem
    parameters = model.solver.configuration._smcp
    cache: dict[str, tuple[int, int]] = {}

    def columns(reaction_id: str) -> tuple[int, int]:
        if reaction_id not in cache:
            reaction = model.reactions.get_by_id(reaction_id)
            cache[reaction_id] = (glp.glp_find_col(problem, reaction.forward_variable.name),
                                  glp.glp_find_col(problem, reaction.reverse_variable.name))
        return cache[reaction_id]

    def set_column(column: int, lower: float, upper: float) -> None:
        kind = glp.GLP_FX if lower == upper else glp.GLP_LO if math.isinf(upper) else glp.GLP_DB
        glp.glp_set_col_bnds(problem, column, kind, lower, 0.0 if math.isinf(upper) else upper)

    def resolve(bounds: Bounds) -> float:
        saved = [(c, glp.glp_get_col_type(problem, c), glp.glp_get_col_lb(problem, c), glp.glp_get_col_ub(problem, c))
                 for rid in bounds for c in columns(rid)]
        for rid, (lower, upper) in bounds.items():
            for column, pair in zip(columns(rid), column_bounds(lower, upper), strict=True):
                set_column(column, *pair)
        try:
            code = glp.glp_simplex(problem, parameters)
            status = glp.glp_get_status(problem)
            value = glp.glp_get_obj_val(problem) if code == 0 and status == glp.GLP_OPT else None
            infeasible = code == 0 and status == glp.GLP_NOFEAS
        finally:
            for column, kind, lower, upper in saved:
                glp.glp_set_col_bnds(problem, column, kind, lower, upper)
        if value is not None:
            return max(float(value), 0.0)
        return 0.0 if infeasible else optimum_with(model, bounds)

    return resolve
