"""Flux variability: the smallest and largest net flux of each reaction while the objective stays
near its optimum.

The same answer as `cobra.flux_analysis.flux_variability_analysis(model, reactions,
fraction_of_optimum=...)`: the objective's optimum first, then the objective held at least at
fraction x optimum (at most, for a minimised objective) by one extra constraint, then each
reaction's net flux (forward minus reverse variable) minimised and maximised. Computed with less work:
- a reaction with both bounds equal has that flux as minimum and maximum: no solve;
- every solution met on the way (the optimum included) is a feasible point of the same problem,
  so a reaction whose net flux in any of them already sits at its upper bound has that bound as
  maximum (the same for the minimum at its lower bound): no solve;
- the rest are solved one after another on the same solver problem: only the objective
  coefficients of one reaction's two variables and the direction change between solves, so the
  previous basis stays feasible and each simplex starts from it. With GLPK `glp_simplex` is
  called on the problem directly (optlang re-scales the whole problem before every solve), and
  coefficients and direction are put back after each solve. Anything but an optimum from that
  call is solved again through optlang; with another solver every solve goes through optlang.

`loopless=True` delegates to `cobra.flux_analysis.flux_variability_analysis(..., loopless=True,
processes=1)` (CycleFreeFlux): COBRApy's answer and method, not a fast one (it removes loops
from each solution with one more problem), with its caveat that the bounds of loop-carrying
reactions may not be the tightest.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np
import numpy.typing as npt

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import InfeasibilityError, LibraryError
from gem_flux_mcp.modeling.essentiality import check_ids
from gem_flux_mcp.rules.catalog import DEFAULT_FRACTION, FRACTION_OF_OPTIMUM

if TYPE_CHECKING:
    import cobra

Sense = Literal["min", "max"]
Progress = Callable[[str, float, str], None]
AT_BOUND = 1e-9  # a net flux this close to a bound counts as reaching it
PROGRESS_EVERY_S = 1.0
CONSTRAINT_NAME = "flux_variability_objective_bound"


@dataclass
class Variability:
    optimum: float  # the objective's optimum before the variability problems
    minimum: dict[str, float]  # reaction id -> smallest net flux
    maximum: dict[str, float]  # reaction id -> largest net flux
    fraction_of_optimum: float
    loopless: bool = False
    solves: int = 0  # problems solved, the optimum included (loopless: COBRApy's 1 + 2 per reaction)
    resolved: int = 0  # of those, solved again through optlang after a direct GLPK call gave no optimum

    def span(self, reaction_id: str) -> float:
        return self.maximum[reaction_id] - self.minimum[reaction_id]


def flux_variability(model: cobra.Model, reactions: Iterable[str] | None = None,
                     fraction_of_optimum: float = DEFAULT_FRACTION,
                     loopless: bool = False, progress: Progress | None = None) -> Variability:
    """Minimum and maximum net flux of each reaction of `reactions` (default: all) in `model` as
    it is (medium and objective already applied), the objective at least `fraction_of_optimum`
    of its optimum. The model is left unchanged."""
    fraction = FRACTION_OF_OPTIMUM.check(fraction_of_optimum)
    wanted = check_ids(model, "reactions", reactions)
    try:
        if loopless:
            return _loopless(model, wanted, fraction)
        with model:
            return _variability(model, wanted, fraction, progress)
    finally:
        model.slim_optimize()  # leave the solver holding the model's own optimum, not the last problem's


def _optimum(model: cobra.Model) -> float:
    value = model.slim_optimize(error_value=float("nan"))
    if math.isnan(value) or model.solver.status != "optimal":
        raise InfeasibilityError(
            ErrorCode.MODEL_INFEASIBLE, "The model has no optimum on this medium, so no flux range can be computed.",
            details={"status": model.solver.status},
        )
    return float(value)


def _loopless(model: cobra.Model, wanted: list[str], fraction: float) -> Variability:
    """COBRApy's loopless variability (`loopless=True`, i.e. CycleFreeFlux), in this process."""
    from cobra.flux_analysis import flux_variability_analysis

    optimum = _optimum(model)
    frame = flux_variability_analysis(model, wanted, loopless="cycleFreeFlux", fraction_of_optimum=fraction,
                                      processes=1)
    return Variability(optimum, {r: float(frame.at[r, "minimum"]) for r in wanted},
                       {r: float(frame.at[r, "maximum"]) for r in wanted}, fraction, loopless=True,
                       solves=1 + 2 * len(wanted))


def _variability(model: cobra.Model, wanted: list[str], fraction: float, progress: Progress | None) -> Variability:
    """Inside `with model:` (the constraint and the cleared objective are undone on leaving)."""
    from optlang.symbolics import Zero

    solver = _Glpk(model) if model.solver.interface.__name__ == "optlang.glpk_interface" else _Optlang(model)
    optimum = _optimum(model)
    reactions = [model.reactions.get_by_id(rid) for rid in wanted]
    lower = np.array([r.lower_bound for r in reactions], dtype=float)
    upper = np.array([r.upper_bound for r in reactions], dtype=float)
    forward = np.array([solver.position[r.forward_variable.name] for r in reactions], dtype=np.intp)
    reverse = np.array([solver.position[r.reverse_variable.name] for r in reactions], dtype=np.intp)
    minimum, maximum = lower.copy(), upper.copy()  # final where a bound is reached (or lower == upper)
    pending = {"max": lower != upper, "min": lower != upper}

    def settle() -> None:  # the bounds the current solution reaches: no flux goes past its bound
        values = solver.primals()
        net = values[forward] - values[reverse]
        pending["max"] &= net < upper - AT_BOUND
        pending["min"] &= net > lower + AT_BOUND

    objective = model.solver.objective
    bound = fraction * optimum
    maximised = objective.direction == "max"
    if (optimum >= bound) if maximised else (optimum <= bound):
        settle()  # the optimum is then a feasible point of every problem below
    model.add_cons_vars([model.problem.Constraint(objective.expression, lb=bound if maximised else None,
                                                  ub=None if maximised else bound, name=CONSTRAINT_NAME)])
    model.objective = model.problem.Objective(Zero, direction="max")
    solves, total = 1, int(pending["max"].sum() + pending["min"].sum())
    last_report = time.monotonic()
    order: list[tuple[Sense, npt.NDArray[np.float64]]] = [("max", maximum), ("min", minimum)]
    for sense, found in order:  # all maxima, then all minima: measured faster than pairs in turn
        for index in np.flatnonzero(pending[sense]):
            if not pending[sense][index]:
                continue  # settled by a solution since
            found[index] = solver.solve(reactions[index], sense)
            pending[sense][index] = False
            solves += 1
            settle()
            if progress is not None and time.monotonic() - last_report >= PROGRESS_EVERY_S:
                last_report = time.monotonic()
                done = total - int(pending["max"].sum() + pending["min"].sum())
                progress("variability", done / total, f"{done} of {total} minima and maxima")
    return Variability(optimum, dict(zip(wanted, minimum.tolist(), strict=True)),
                       dict(zip(wanted, maximum.tolist(), strict=True)), fraction, solves=solves,
                       resolved=solver.resolved)


class _Optlang:
    """Solves through optlang (any solver)."""

    def __init__(self, model: cobra.Model) -> None:
        self.model = model
        self.position = {name: i for i, name in enumerate(model.solver.variables.keys())}  # in primals()
        self.resolved = 0  # solves redone here after a direct call gave no optimum

    def primals(self) -> npt.NDArray[np.float64]:
        """Every variable's value in the current solution."""
        return np.fromiter(self.model.solver.primal_values.values(), dtype=float, count=len(self.position))

    def solve(self, reaction: cobra.Reaction, sense: Sense) -> float:
        """Optimum of one reaction's net flux; the (cleared) objective is put back afterwards."""
        objective = self.model.solver.objective
        objective.set_linear_coefficients({reaction.forward_variable: 1.0, reaction.reverse_variable: -1.0})
        objective.direction = sense
        try:
            self.model.slim_optimize()
            status = self.model.solver.status
            if status == "optimal":
                return float(objective.value)
            if status == "unbounded":
                return math.inf if sense == "max" else -math.inf
        finally:
            objective.set_linear_coefficients({reaction.forward_variable: 0.0, reaction.reverse_variable: 0.0})
            objective.direction = "max"
        details = {"reaction": reaction.id, "direction": sense, "status": status}
        if status == "infeasible":  # e.g. a negative optimum, or a minimised objective, with fraction < 1
            raise InfeasibilityError(ErrorCode.MODEL_INFEASIBLE, "No flux satisfies the model with the objective "
                                     "held at that fraction of its optimum.", details=details)
        raise LibraryError(ErrorCode.SOLVER_ERROR, f"The solver ended with status {status!r} on the {sense}imum "
                           f"of {reaction.id}'s flux.", details=details)


class _Glpk(_Optlang):
    """`glp_simplex` on the problem directly; optlang when that gives anything but an optimum."""

    def __init__(self, model: cobra.Model) -> None:
        super().__init__(model)
        import swiglpk

        self.glp, self.problem = swiglpk, model.solver.problem
        self.parameters = model.solver.configuration._smcp
        self.position = {name: swiglpk.glp_find_col(self.problem, name) - 1 for name in self.position}

    def primals(self) -> npt.NDArray[np.float64]:
        return np.fromiter(self.glp.get_col_primals(self.problem), dtype=float, count=len(self.position))

    def solve(self, reaction: cobra.Reaction, sense: Sense) -> float:
        glp, problem = self.glp, self.problem
        forward = self.position[reaction.forward_variable.name] + 1
        reverse = self.position[reaction.reverse_variable.name] + 1
        saved = (glp.glp_get_obj_dir(problem), glp.glp_get_obj_coef(problem, forward),
                 glp.glp_get_obj_coef(problem, reverse))
        glp.glp_set_obj_coef(problem, forward, 1.0)
        glp.glp_set_obj_coef(problem, reverse, -1.0)
        glp.glp_set_obj_dir(problem, glp.GLP_MAX if sense == "max" else glp.GLP_MIN)
        try:
            code = glp.glp_simplex(problem, self.parameters)
            optimal = code == 0 and glp.glp_get_status(problem) == glp.GLP_OPT
            value = float(glp.glp_get_obj_val(problem)) if optimal else None
        finally:
            glp.glp_set_obj_dir(problem, saved[0])
            glp.glp_set_obj_coef(problem, forward, saved[1])
            glp.glp_set_obj_coef(problem, reverse, saved[2])
        if value is not None:
            return value
        self.resolved += 1
        return super().solve(reaction, sense)
