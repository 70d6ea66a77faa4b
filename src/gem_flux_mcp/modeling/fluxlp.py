"""A flux network as one sparse linear program, solved with HiGHS (highspy) directly.

Gapfilling asks hundreds of small questions of a network of 10,000+ fluxes (the draft plus every
template reaction it might gain): "most ATP on this medium?", "cheapest set of reactions that
gives growth?". Building that network as a COBRApy model costs seconds per thousand reactions;
as a matrix it is built in milliseconds and each question is a bound or cost change on one warm
HiGHS instance (benchmarks/gapfill.py compares with ModelSEEDpy). Results are checked with
COBRApy on the final model (modeling/gapfill.py).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import highspy
import numpy as np
import scipy.sparse as sp

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import LibraryError, TimeoutError_

INF = highspy.kHighsInf
BIG_M = 100.0  # flux cap for switched columns in the integer pass (targets are ~0.01-1 /h)
# HiGHS instances kept per LP, one per objective recently asked: a question asked again with a
# few bounds changed (a ban loop alternates "most ATP?" and "cheapest way to it?") starts from
# that objective's own last basis instead of one optimal for another objective
WARM_INSTANCES = 4
# HiGHS lets go of the interpreter lock while it solves: independent questions (the same
# maximum under several bounds) are shared with one more thread, with HiGHS instances of its own.
# GEMFLUX_LP_THREADS=1 keeps every solve on the caller's thread.
ENV_LP_THREADS = "GEMFLUX_LP_THREADS"
_side_pool: dict[int, ThreadPoolExecutor] = {}  # per process id: a forked child starts its own
_side_guard = threading.Lock()


def _side_thread() -> ThreadPoolExecutor | None:
    """The process's second solving thread, or None where there is one core (or it is turned off)."""
    wanted = os.environ.get(ENV_LP_THREADS, "").strip()
    if (wanted or str(min(2, os.cpu_count() or 1))) == "1":
        return None
    with _side_guard:
        pid = os.getpid()
        if pid not in _side_pool:
            _side_pool.clear()
            _side_pool[pid] = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gemflux-lp")
        return _side_pool[pid]


@dataclass
class Column:
    """One flux. A reaction used only forward, only backward, or both ways is one column; a
    reaction that may be added in both directions at different costs is two columns."""

    id: str
    stoichiometry: Mapping[str, float]  # metabolite id -> coefficient
    lower: float
    upper: float


@dataclass
class _Instance:
    """A HiGHS instance and the bounds, costs and sense it last solved with."""

    highs: Any
    lower: np.ndarray
    upper: np.ndarray
    costs: np.ndarray
    maximize: bool


class Cancelled(Exception):
    """Work done ahead of a request (services/gapfill_ahead.py) was called off."""


class SolverDeadline:
    """A wall-clock budget shared by all solves of one job; past it, GAPFILL_TIMEOUT. With
    `cancelled`, setting that event stops the work at its next solve (`Cancelled`)."""

    def __init__(self, seconds: float, cancelled: threading.Event | None = None) -> None:
        self.seconds = seconds
        self.started = time.monotonic()
        self.cancelled = cancelled

    def remaining(self) -> float:
        if self.cancelled is not None and self.cancelled.is_set():
            raise Cancelled("called off")
        left = self.seconds - (time.monotonic() - self.started)
        if left <= 0:
            raise TimeoutError_(
                ErrorCode.GAPFILL_TIMEOUT,
                f"Gapfilling did not finish within its {self.seconds:.0f} s solver time limit.",
                details={"time_limit_s": self.seconds},
                suggestions=["Retry with a lower target growth rate or a richer medium.",
                             "Skip the ATP correction stage (mode 'genomescale_only')."],
            )
        return left


class FluxLP:
    """S·v = 0 with column bounds; objectives are set per question."""

    def __init__(self, columns: Sequence[Column], deadline: SolverDeadline) -> None:
        self.ids = [c.id for c in columns]
        self.index = {cid: i for i, cid in enumerate(self.ids)}
        if len(self.index) != len(self.ids):
            raise LibraryError(ErrorCode.DUPLICATE_COLUMN, "Two fluxes in the gapfilling network have the same id.")
        rows: dict[str, int] = {}
        indices: list[int] = []
        values: list[float] = []
        starts = [0]
        for column in columns:
            for met, coefficient in column.stoichiometry.items():
                indices.append(rows.setdefault(met, len(rows)))
                values.append(float(coefficient))
            starts.append(len(indices))
        self.metabolites = list(rows)
        matrix = sp.csc_matrix((np.array(values), np.array(indices, dtype=np.int32), np.array(starts)),
                               shape=(len(rows), len(columns)))
        self._setup(matrix, np.array([c.lower for c in columns], dtype=float),
                    np.array([c.upper for c in columns], dtype=float), deadline)

    @classmethod
    def from_matrix(cls, ids: Sequence[str], matrix: sp.spmatrix, lower: np.ndarray, upper: np.ndarray,
                    deadline: SolverDeadline) -> FluxLP:
        """An LP given as its matrix (rows = 0) and column bounds, e.g. several networks stacked."""
        lp = cls.__new__(cls)
        lp.ids = list(ids)
        lp.index = {cid: i for i, cid in enumerate(lp.ids)}
        lp.metabolites = [f"row{i}" for i in range(matrix.shape[0])]
        lp._setup(sp.csc_matrix(matrix), np.asarray(lower, dtype=float), np.asarray(upper, dtype=float), deadline)
        return lp

    def _setup(self, matrix: sp.csc_matrix, lower: np.ndarray, upper: np.ndarray, deadline: SolverDeadline) -> None:
        self.matrix = matrix
        self.lower, self.upper = lower, upper
        self.deadline = deadline
        self._instances: OrderedDict[tuple[bool, int], _Instance] = OrderedDict()
        self._side_instances: OrderedDict[tuple[bool, int], _Instance] = OrderedDict()  # the side thread's
        self._count_guard = threading.Lock()
        self.solves = 0

    def _instance(self, costs: np.ndarray, maximize: bool, side: bool = False) -> _Instance:
        """The HiGHS instance whose last solve had this objective (or a new one, or the least
        recently used), of the caller's thread or (`side`) of the side thread. Only the warm
        start depends on the choice: each instance remembers what it was last given, and solve()
        sends it whatever differs."""
        instances = self._side_instances if side else self._instances
        key = (maximize, hash(costs.tobytes()))
        instance = instances.pop(key, None)
        if instance is None:
            if len(instances) < WARM_INSTANCES:
                instance = _Instance(self._new_highs(self.matrix, self.lower, self.upper), self.lower.copy(),
                                     self.upper.copy(), np.zeros(len(self.ids)), False)
            else:
                instance = instances.popitem(last=False)[1]
        instances[key] = instance
        return instance

    @staticmethod
    def _new_highs(matrix: sp.csc_matrix, lower: np.ndarray, upper: np.ndarray,
                   integrality: np.ndarray | None = None) -> Any:
        lp = highspy.HighsLp()
        lp.num_col_, lp.num_row_ = matrix.shape[1], matrix.shape[0]
        lp.col_cost_ = np.zeros(matrix.shape[1])
        lp.col_lower_, lp.col_upper_ = lower, upper
        lp.row_lower_ = lp.row_upper_ = np.zeros(matrix.shape[0])
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = matrix.indptr
        lp.a_matrix_.index_ = matrix.indices
        lp.a_matrix_.value_ = matrix.data
        if integrality is not None:
            lp.integrality_ = [highspy.HighsVarType.kInteger if flag else highspy.HighsVarType.kContinuous
                               for flag in integrality]
        highs: Any = highspy.Highs()  # type: ignore[no-untyped-call]
        highs.setOptionValue("output_flag", False)
        highs.setOptionValue("threads", 1)
        highs.passModel(lp)
        return highs

    # -- questions ----------------------------------------------------------------------------------

    def solve(self, costs: np.ndarray, lower: np.ndarray, upper: np.ndarray,
              maximize: bool = False) -> np.ndarray | None:
        """Column values at the optimum, or None when infeasible."""
        solution = self._solve(costs, lower, upper, maximize)
        return None if solution is None else np.array(solution.col_value)

    def _solve(self, costs: np.ndarray, lower: np.ndarray, upper: np.ndarray, maximize: bool,
               side: bool = False) -> Any:
        """HiGHS's solution (values and duals) at the optimum, or None when infeasible."""
        instance = self._instance(costs, maximize, side)
        highs = instance.highs
        changed = np.flatnonzero((lower != instance.lower) | (upper != instance.upper)).astype(np.int32)
        if len(changed):
            highs.changeColsBounds(len(changed), changed, lower[changed], upper[changed])
            instance.lower, instance.upper = lower.copy(), upper.copy()
        changed = np.flatnonzero(costs != instance.costs).astype(np.int32)
        if len(changed):
            highs.changeColsCost(len(changed), changed, costs[changed])
            instance.costs = costs.copy()
        if maximize != instance.maximize:
            highs.changeObjectiveSense(highspy.ObjSense.kMaximize if maximize else highspy.ObjSense.kMinimize)
            instance.maximize = maximize
        return self._run(highs)

    def _run(self, highs: Any) -> Any:
        highs.setOptionValue("time_limit", self.deadline.remaining())
        highs.run()
        with self._count_guard:
            self.solves += 1
        status = highs.getModelStatus()
        if status == highspy.HighsModelStatus.kOptimal:
            return highs.getSolution()
        if status in (highspy.HighsModelStatus.kInfeasible, highspy.HighsModelStatus.kUnboundedOrInfeasible):
            return None
        if status == highspy.HighsModelStatus.kTimeLimit:
            self.deadline.remaining()  # raises GAPFILL_TIMEOUT
            return None
        if status == highspy.HighsModelStatus.kUnbounded:
            raise LibraryError(ErrorCode.GAPFILL_UNBOUNDED,
                               "A gapfilling problem was unbounded: a flux has no finite bound.")
        _raise_if_out_of_memory(status)
        # a numerical failure on a warm start: retry once from scratch before giving up
        highs.clearSolver()
        highs.run()
        if highs.getModelStatus() == highspy.HighsModelStatus.kOptimal:
            return highs.getSolution()
        _raise_if_out_of_memory(highs.getModelStatus())
        raise LibraryError(ErrorCode.SOLVER_ERROR, f"HiGHS ended with status {highs.modelStatusToString(status)}.")

    def maximize_with_bound_prices(self, column: int, lower: np.ndarray,
                                   upper: np.ndarray) -> tuple[float, np.ndarray | None]:
        """Largest flux through one column, and for every column how much that maximum can grow
        per unit its upper bound is raised (a supergradient: the maximum is a concave function of
        the bounds, so raising bound j by d_j raises it by at most sum(price_j * d_j)). None when
        infeasible."""
        return self._maximum(self._unit_costs(column), column, lower, upper, prices=True)

    def maximize(self, column: int, lower: np.ndarray, upper: np.ndarray) -> float:
        """Largest flux through one column (0.0 if the bounds are infeasible)."""
        return self._maximum(self._unit_costs(column), column, lower, upper, prices=False)[0]

    def maximize_many(self, column: int, bounds: Sequence[tuple[np.ndarray, np.ndarray]]) -> list[float]:
        """`maximize` under each of several (lower, upper) bounds: every second one on the side
        thread where there is one. The answers do not depend on which thread solved what."""
        return [value for value, _ in self._maximize_many(column, bounds, prices=False)]

    def maximize_many_with_bound_prices(self, column: int, bounds: Sequence[tuple[np.ndarray, np.ndarray]]
                                        ) -> list[tuple[float, np.ndarray | None]]:
        """`maximize_with_bound_prices` under each of several bounds, shared as `maximize_many`."""
        return self._maximize_many(column, bounds, prices=True)

    def _maximum(self, costs: np.ndarray, column: int, lower: np.ndarray, upper: np.ndarray, prices: bool,
                 side: bool = False) -> tuple[float, np.ndarray | None]:
        """(largest flux through `column`, bound prices if asked) for the unit `costs` of that
        column; (0.0, None) when infeasible."""
        solution = self._solve(costs, lower, upper, maximize=True, side=side)
        if solution is None:
            return 0.0, None
        return float(solution.col_value[column]), (np.maximum(np.array(solution.col_dual), 0.0) if prices
                                                    else None)

    def _maximize_many(self, column: int, bounds: Sequence[tuple[np.ndarray, np.ndarray]],
                       prices: bool) -> list[tuple[float, np.ndarray | None]]:
        costs = self._unit_costs(column)
        pool = _side_thread() if len(bounds) > 1 else None
        if pool is None:
            return [self._maximum(costs, column, lower, upper, prices) for lower, upper in bounds]
        aside: Future[list[tuple[float, np.ndarray | None]]] = pool.submit(
            lambda: [self._maximum(costs, column, lower, upper, prices, side=True) for lower, upper in bounds[1::2]])
        try:
            mine = [self._maximum(costs, column, lower, upper, prices) for lower, upper in bounds[0::2]]
        finally:
            theirs = aside.result()  # waited for even when a solve here failed: nothing runs on unattended
        answers: list[tuple[float, np.ndarray | None]] = [(0.0, None)] * len(bounds)
        answers[0::2], answers[1::2] = mine, theirs
        return answers

    def _unit_costs(self, column: int) -> np.ndarray:
        costs = np.zeros(len(self.ids))
        costs[column] = 1.0
        return costs

    def cheapest_subset(self, candidates: Sequence[int], costs: Mapping[int, float], lower: np.ndarray,
                        upper: np.ndarray, time_limit_s: float) -> list[int] | None:
        """Integer pass: the cheapest subset of `candidates` (columns allowed to carry flux; every
        other column with cost must stay at zero, as the caller's bounds say) that keeps the
        bounds feasible. Uses an on/off binary per candidate. None when HiGHS finds no better
        proven answer in the time limit (the caller keeps its LP answer)."""
        candidate_set = list(candidates)
        n, k = len(self.ids), len(candidate_set)
        switches = sp.lil_matrix((k, n + k))
        # v_j - ub_j * y_j <= 0 and v_j - lb_j * y_j >= 0 (a column of either sign)
        for row, col in enumerate(candidate_set):
            switches[row, col] = 1.0
        # a small "big M" and a tight integrality tolerance: otherwise y = 1e-6 passes as 0 and
        # still lets 1e-3 flux through at no cost
        big_upper = np.array([min(max(upper[c], 0.0), BIG_M) for c in candidate_set])
        big_lower = np.array([max(min(lower[c], 0.0), -BIG_M) for c in candidate_set])
        stoich = sp.hstack([self.matrix, sp.csc_matrix((self.matrix.shape[0], k))])
        upper_rows = sp.hstack([sp.csc_matrix(switches[:, :n]), sp.diags(-big_upper)])
        lower_rows = sp.hstack([sp.csc_matrix(switches[:, :n]), sp.diags(-big_lower)])
        full = sp.vstack([stoich, upper_rows, lower_rows]).tocsc()
        col_lower = np.concatenate([lower, np.zeros(k)])
        col_upper = np.concatenate([upper, np.ones(k)])
        integrality = np.concatenate([np.zeros(n, dtype=bool), np.ones(k, dtype=bool)])
        highs = self._new_highs(full, col_lower, col_upper, integrality)
        m = self.matrix.shape[0]
        highs.changeRowsBounds(k, np.arange(m, m + k, dtype=np.int32), np.full(k, -INF), np.zeros(k))
        highs.changeRowsBounds(k, np.arange(m + k, m + 2 * k, dtype=np.int32), np.zeros(k), np.full(k, INF))
        highs.changeColsCost(k, np.arange(n, n + k, dtype=np.int32), np.array([costs[c] for c in candidate_set]))
        highs.setOptionValue("time_limit", min(time_limit_s, self.deadline.remaining()))
        highs.setOptionValue("mip_rel_gap", 1e-6)
        highs.setOptionValue("mip_feasibility_tolerance", 1e-9)
        highs.run()
        self.solves += 1
        status = highs.getModelStatus()
        if status != highspy.HighsModelStatus.kOptimal:
            return None
        values = np.array(highs.getSolution().col_value)
        return [c for j, c in enumerate(candidate_set) if values[n + j] > 0.5]


def _raise_if_out_of_memory(status: Any) -> None:
    """HiGHS catches a failed allocation inside a solve and ends with status kMemoryLimit: that is
    a MemoryError like any other (under a job's memory limit, JOB_OUT_OF_MEMORY: server/job_memory.py),
    not a solver failure."""
    if status == highspy.HighsModelStatus.kMemoryLimit:
        raise MemoryError("HiGHS could not allocate the memory a solve needs")
