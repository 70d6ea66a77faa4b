"""Blocked reactions: dead ends pruned, then FASTCC's LP on one warm HiGHS problem (see the package
docstring)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import highspy
import numpy as np
import scipy.sparse as sp

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import InfeasibilityError, LibraryError

if TYPE_CHECKING:
    import cobra
from gem_flux_mcp.modeling.diagnose.structure import dead_end_kind, incidence, makers_users


def blocked_reactions(model: cobra.Model, open_exchanges: bool = True) -> list[str]:
    """Reactions with |v| < model.tolerance in every steady state; exchanges first opened both
    ways if `open_exchanges` (as COBRApy does; sinks and demands untouched). In model order."""
    from cobra.flux_analysis import find_blocked_reactions
    from cobra.util.array import create_stoichiometric_matrix

    if len(model.constraints) != len(model.metabolites) or len(model.variables) != 2 * len(model.reactions):
        found = set(find_blocked_reactions(model, open_exchanges=open_exchanges))
        return [r.id for r in model.reactions if r.id in found]
    ids = [r.id for r in model.reactions]
    lower = np.array([r.lower_bound for r in model.reactions], dtype=float)
    upper = np.array([r.upper_bound for r in model.reactions], dtype=float)
    if open_exchanges:
        index = {rid: i for i, rid in enumerate(ids)}
        for reaction in model.exchanges:
            i = index[reaction.id]
            lower[i], upper[i] = min(lower[i], -1000.0), max(upper[i], 1000.0)
    fwd, bwd = _prune(model, upper > 0, lower < 0)
    if ((lower > 0) & ~fwd).any() or ((upper < 0) & ~bwd).any():
        raise InfeasibilityError(ErrorCode.MODEL_INFEASIBLE, "The model has no steady state within its bounds: "
                                 "a reaction forced to carry flux leads to a dead end.")
    lower, upper = np.where(bwd, lower, np.maximum(lower, 0.0)), np.where(fwd, upper, np.minimum(upper, 0.0))
    sign = np.where(fwd, 1.0, -1.0)  # the direction of a one-way reaction
    search = _CappedFluxes(create_stoichiometric_matrix(model, array_type="lil").tocsc(), lower, upper, sign)
    cutoff = model.tolerance
    carries = np.zeros(len(ids), dtype=bool)
    while (candidates := (fwd ^ bwd) & ~carries).any():
        optimum, fluxes = search.capped(candidates)
        found = (np.abs(fluxes) > cutoff) & ~carries
        carries |= found
        if optimum <= cutoff:
            break  # none of the one-way reactions left can carry flux
        if not found.any():  # numerically stuck: settle the rest one by one
            for j in np.flatnonzero(candidates & ~carries):
                carries |= np.abs(search.single(int(j), sign[j])) > cutoff
            break
    for j in np.flatnonzero(fwd & bwd & ~carries):
        for way in (1.0, -1.0):
            if not carries[j]:
                carries |= np.abs(search.single(int(j), way)) > cutoff
    return [rid for rid, moves in zip(ids, carries, strict=True) if not moves]


def _prune(model: cobra.Model, fwd: np.ndarray, bwd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The directions left once every way of making or using a dead-end metabolite is closed,
    until none is left. They bound the same steady states as the model's own bounds."""
    fwd, bwd = fwd.copy(), bwd.copy()
    uses, touches = incidence(model)
    queue, queued = list(uses), set(uses)
    while queue:
        met = queue.pop()
        queued.discard(met)
        makers, users = makers_users(uses[met], fwd, bwd)
        for j, way in makers + users if dead_end_kind(makers, users) else []:
            (fwd if way == 1 else bwd)[j] = False
            fresh = [m for m in touches[j] if m not in queued]
            queue += fresh
            queued.update(fresh)
    return fwd, bwd


class _CappedFluxes:
    """Columns v (fluxes) and z (capped copies); rows S·v = 0 and z_j - sign_j·v_j ≤ 0, the latter
    switched on (upper bound 0 instead of +inf) only for the candidates of a question."""

    def __init__(self, s: sp.csc_matrix, lower: np.ndarray, upper: np.ndarray, sign: np.ndarray) -> None:
        m, n = s.shape
        matrix = sp.bmat([[s, None], [sp.diags(-sign), sp.identity(n)]], format="csc")
        self.m, self.n, self.z = m, n, np.arange(n, 2 * n, dtype=np.int32)
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = 2 * n, m + n
        lp.col_cost_ = np.concatenate([np.zeros(n), np.ones(n)])
        lp.col_lower_, lp.col_upper_ = np.concatenate([lower, np.zeros(n)]), np.concatenate([upper, np.zeros(n)])
        lp.row_lower_ = np.concatenate([np.zeros(m), np.full(n, -highspy.kHighsInf)])
        lp.row_upper_ = np.concatenate([np.zeros(m), np.full(n, highspy.kHighsInf)])
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = matrix.indptr, matrix.indices, matrix.data
        lp.sense_ = highspy.ObjSense.kMaximize
        self.highs: Any = highspy.Highs()  # type: ignore[no-untyped-call]
        self.highs.setOptionValue("output_flag", False)
        self.highs.setOptionValue("threads", 1)
        self.highs.passModel(lp)

    def capped(self, candidates: np.ndarray) -> tuple[float, np.ndarray]:
        """(max Σ z_j over the candidates, the fluxes there)."""
        self._switch(np.where(candidates, 1.0, 0.0), np.where(candidates, 0.0, highspy.kHighsInf))
        fluxes = self._run()
        return float(self.highs.getInfo().objective_function_value), fluxes

    def single(self, j: int, direction: float) -> np.ndarray:
        """The fluxes at the largest direction·v_j."""
        self._switch(np.zeros(self.n), np.full(self.n, highspy.kHighsInf))
        self.highs.changeColCost(j, direction)
        try:
            return self._run()
        finally:
            self.highs.changeColCost(j, 0.0)

    def _switch(self, z_upper: np.ndarray, row_upper: np.ndarray) -> None:
        n = self.n
        self.highs.changeColsBounds(n, self.z, np.zeros(n), z_upper)
        self.highs.changeRowsBounds(n, np.arange(self.m, self.m + n, dtype=np.int32),
                                    np.full(n, -highspy.kHighsInf), row_upper)

    def _run(self) -> np.ndarray:
        self.highs.run()
        status = self.highs.getModelStatus()
        if status == highspy.HighsModelStatus.kInfeasible:
            raise InfeasibilityError(ErrorCode.MODEL_INFEASIBLE, "The model has no steady state within its bounds.")
        if status != highspy.HighsModelStatus.kOptimal:
            raise LibraryError(ErrorCode.SOLVER_ERROR,
                               f"HiGHS ended with status {self.highs.modelStatusToString(status)}.")
        return np.array(self.highs.getSolution().col_value[: self.n])
