"""A quality report on a metabolic model, each check a plain function on a COBRApy model.

- Balance: `Reaction.check_mass_balance` on every reaction but boundary and biomass-like ones
  (id `bio…`, > 20 metabolites, or making biomass `cpd11416`); a metabolite without formula makes
  its reactions "unknown", not imbalanced.
- Dead ends: metabolites nothing can consume (only produced) or produce (only consumed), with
  directions from the bounds, boundary reactions included; "isolated": no reaction, or one
  reversible reaction only (which then cannot carry flux).
- Blocked reactions: COBRApy's `find_blocked_reactions` set with far fewer solves. (1) Every
  direction that makes or uses a dead-end metabolite is closed, repeatedly (S·v = 0 forces it to 0).
  (2) FASTCC's LP (Vlassis et al. 2014) on one warm HiGHS problem: max Σ z_j, 0 ≤ z_j ≤ 1,
  z_j ≤ v_j over one-way reactions not yet seen carrying flux; each flux of the answer is not
  blocked, and an optimum of 0 proves all the rest blocked at once; the same backwards. (3) Each
  two-way reaction left on its own. Models with constraints beyond S·v = 0 go to COBRApy.
- Energy-generating cycles (Fritzemeier et al. 2017): uptakes closed (boundary reactions only
  secrete, forced fluxes relaxed to 0), the largest flux through a dissipation reaction (ATP, GTP,
  NADH, NADPH); above 1e-6 energy comes from nothing, and the cycle reported is the least total
  flux that dissipates 1 unit (pFBA): the loop, not the rest of a flux distribution.
- Missing biomass precursors: on the medium as applied, a temporary demand for each substrate of
  the biomass reaction, maximised in turn on one solver problem (warm starts). One not made is
  tried again with the biomass reaction's own products supplied (apo-ACP, peptidoglycan n-1): made
  then, it is "recycled", not missing. A missing one made by a single reaction (protein from
  aminoacyl-tRNAs) has that reaction's inputs tested too, with what it gives back supplied (the
  tRNAs); an input made only by loading such a carrier (the aminoacyl-tRNA) is followed to what is
  loaded, so the answer names the amino acid.
Every function leaves the model as it found it (changes are made inside `with model:`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import highspy
import numpy as np
import scipy.sparse as sp

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import InfeasibilityError, LibraryError, ValidationError
from gem_flux_mcp.modeling.energy import atp_making_directions_open

if TYPE_CHECKING:
    import cobra

BIOMASS_COMPOUND = "cpd11416"
LUMPED_SIZE = 20  # more metabolites than this: a lumped (biomass-like) reaction
PRODUCIBLE = 1e-6  # a demand or dissipation flux above this counts
TEMP_PREFIX = "diagnose_tmp_"
# biomass products not supplied when testing recycled precursors: energy by-products and biomass
NOT_RETURNED = {"cpd00001", "cpd00008", "cpd00009", "cpd00012", "cpd00018", "cpd00067", BIOMASS_COMPOUND}
# dissipation reactions (Fritzemeier et al. 2017, Table 1) in the ModelSEED namespace
CARRIERS: dict[str, dict[str, float]] = {
    "ATP": {"cpd00002_c0": -1, "cpd00001_c0": -1, "cpd00008_c0": 1, "cpd00009_c0": 1, "cpd00067_c0": 1},
    "GTP": {"cpd00038_c0": -1, "cpd00001_c0": -1, "cpd00031_c0": 1, "cpd00009_c0": 1, "cpd00067_c0": 1},
    "NADH": {"cpd00004_c0": -1, "cpd00003_c0": 1, "cpd00067_c0": 1},
    "NADPH": {"cpd00005_c0": -1, "cpd00006_c0": 1, "cpd00067_c0": 1},
}
Ways = list[tuple[int, int]]  # (reaction index, 1 forward or -1 backward)
Flags = Sequence[bool] | np.ndarray


@dataclass
class Balance:
    checked: int  # reactions whose balance could be computed
    imbalanced: dict[str, dict[str, float]]  # reaction -> {element or "charge": products - substrates}
    unknown: list[str]  # reactions with a metabolite without formula

    @property
    def mass_imbalanced(self) -> list[str]:
        return [r for r, d in self.imbalanced.items() if any(k != "charge" for k in d)]

    @property
    def charge_imbalanced(self) -> list[str]:
        return [r for r, d in self.imbalanced.items() if "charge" in d]


@dataclass
class DeadEnds:
    only_produced: list[str]
    only_consumed: list[str]
    isolated: list[str]

    @property
    def all(self) -> list[str]:
        return sorted({*self.only_produced, *self.only_consumed, *self.isolated})


@dataclass
class EnergyCycle:
    carrier: str  # a key of CARRIERS
    reaction: str | None  # the model's own dissipation reaction; None: a temporary one was used
    max_flux: float
    members: dict[str, float] = field(default_factory=dict)  # reaction -> flux while dissipating 1 unit

    @property
    def found(self) -> bool:
        return self.max_flux > PRODUCIBLE


@dataclass
class Precursors:
    biomass: str
    tested: list[str]
    missing: list[str]
    recycled: list[str] = field(default_factory=list)
    missing_parts: dict[str, list[str]] = field(default_factory=dict)  # missing -> inputs not made
    solves: int = 0


@dataclass
class Diagnosis:
    growth: float  # biomass optimum on the medium as applied (0.0 when infeasible)
    balance: Balance
    dead_ends: DeadEnds
    blocked: list[str]
    energy_cycles: list[EnergyCycle]
    without_genes: list[str]
    precursors: Precursors
    reactions: int
    metabolites: int
    timings: dict[str, float] = field(default_factory=dict)  # part -> seconds
    # ABC transporters and P-type ATPases whose bounds let them run backwards and make ATP (energy.py)
    atp_transport_backwards: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {
            "reactions": self.reactions, "metabolites": self.metabolites,
            "mass_imbalanced": len(self.balance.mass_imbalanced),
            "charge_imbalanced": len(self.balance.charge_imbalanced), "balance_unknown": len(self.balance.unknown),
            "dead_end_metabolites": len(self.dead_ends.only_produced) + len(self.dead_ends.only_consumed),
            "isolated_metabolites": len(self.dead_ends.isolated), "blocked_reactions": len(self.blocked),
            "energy_generating_cycles": sum(c.found for c in self.energy_cycles),
            "reactions_without_genes": len(self.without_genes),
            "missing_biomass_precursors": len(self.precursors.missing),
            "atp_driven_transport_backwards": len(self.atp_transport_backwards),
        }


# -- structure ------------------------------------------------------------------------------------------

def is_boundary(reaction: cobra.Reaction) -> bool:
    return bool(reaction.boundary) or reaction.id.startswith(("EX_", "DM_", "SK_"))


def is_biomass_like(reaction: cobra.Reaction) -> bool:
    return (reaction.id.lower().startswith("bio") or len(reaction.metabolites) > LUMPED_SIZE
            or any(m.id.split("_")[0] == BIOMASS_COMPOUND for m in reaction.metabolites))


def _internal(model: cobra.Model) -> list[cobra.Reaction]:
    return [r for r in model.reactions if not is_boundary(r) and not is_biomass_like(r)]


def imbalanced_reactions(model: cobra.Model) -> Balance:
    imbalanced: dict[str, dict[str, float]] = {}
    unknown: list[str] = []
    for reaction in _internal(model):
        if any(not m.formula or m.elements is None for m in reaction.metabolites):
            unknown.append(reaction.id)
        elif difference := reaction.check_mass_balance():
            imbalanced[reaction.id] = {k: float(v) for k, v in difference.items()}
    return Balance(len(_internal(model)) - len(unknown), imbalanced, unknown)


def reactions_without_genes(model: cobra.Model) -> list[str]:
    return [r.id for r in _internal(model) if not r.gene_reaction_rule.strip()]


def dead_end_metabolites(model: cobra.Model) -> DeadEnds:
    uses, _ = _incidence(model)
    fwd = [r.upper_bound > 0 for r in model.reactions]
    bwd = [r.lower_bound < 0 for r in model.reactions]
    result = DeadEnds([], [], [])
    for met_id, entries in uses.items():
        if kind := _dead_end_kind(*_makers_users(entries, fwd, bwd)):
            getattr(result, kind).append(met_id)
    return result


def _incidence(model: cobra.Model) -> tuple[dict[str, list[tuple[int, float]]], list[list[str]]]:
    """Per metabolite its (reaction index, coefficient) pairs; per reaction its metabolites."""
    index = {r.id: j for j, r in enumerate(model.reactions)}
    uses = {m.id: [(index[r.id], float(r.metabolites[m])) for r in m.reactions] for m in model.metabolites}
    return uses, [[m.id for m in r.metabolites] for r in model.reactions]


def _makers_users(entries: Iterable[tuple[int, float]], fwd: Flags, bwd: Flags) -> tuple[Ways, Ways]:
    makers: Ways = []
    users: Ways = []
    for j, coefficient in entries:
        if fwd[j]:
            (makers if coefficient > 0 else users).append((j, 1))
        if bwd[j]:
            (users if coefficient > 0 else makers).append((j, -1))
    return makers, users


def _dead_end_kind(makers: Ways, users: Ways) -> str | None:
    if not users:
        return "only_produced" if makers else "isolated"
    if not makers:
        return "only_consumed"
    return "isolated" if len({j for j, _ in makers + users}) == 1 else None


# -- blocked reactions ----------------------------------------------------------------------------------

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
    uses, touches = _incidence(model)
    queue, queued = list(uses), set(uses)
    while queue:
        met = queue.pop()
        queued.discard(met)
        makers, users = _makers_users(uses[met], fwd, bwd)
        for j, way in makers + users if _dead_end_kind(makers, users) else []:
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


# -- questions solved on the model ----------------------------------------------------------------------

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
            cycle = EnergyCycle(carrier, mine.id if mine else None, _maximum(model, dissipation))
            if cycle.found:
                dissipation.bounds = (min(cycle.max_flux, 1.0),) * 2
                cycle.members = _least_flux(model, skip=dissipation.id)
            dissipation.bounds = saved
            results.append(cycle)
    return results


def _find_reaction(model: cobra.Model, stoichiometry: Mapping[str, float]) -> cobra.Reaction | None:
    first = model.metabolites.get_by_id(next(iter(stoichiometry)))
    return next((r for r in first.reactions if {m.id: c for m, c in r.metabolites.items()} == stoichiometry), None)


def _maximum(model: cobra.Model, reaction: cobra.Reaction) -> float:
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


def missing_biomass_precursors(model: cobra.Model, biomass: str = "bio1", expand: bool = True) -> Precursors:
    """Substrates of `biomass` the model cannot make on its current medium (see the module docstring)."""
    import cobra

    reaction = _biomass(model, biomass)
    substrates = sorted(m.id for m, c in reaction.metabolites.items() if c < 0)
    returned = sorted(m.id for m, c in reaction.metabolites.items() if c > 0 and m.id.split("_")[0] not in NOT_RETURNED)
    result = Precursors(biomass, substrates, [])
    with model:
        temporary: dict[str, cobra.Reaction] = {}

        def add(kind: str, met_ids: Sequence[str], coefficient: float) -> list[cobra.Reaction]:
            names = [f"{TEMP_PREFIX}{kind}_{m}" for m in met_ids]
            fresh = [(n, m) for n, m in zip(names, met_ids, strict=True) if n not in temporary]
            for name, met_id in fresh:
                temporary[name] = cobra.Reaction(name, lower_bound=0.0, upper_bound=0.0)
                temporary[name].add_metabolites({model.metabolites.get_by_id(met_id): coefficient})
            model.add_reactions([temporary[n] for n, _ in fresh])
            return [temporary[n] for n in names]

        model.objective = {}  # restored on leaving `with`; each question sets coefficients on the solver

        def makeable(met_ids: Sequence[str]) -> dict[str, bool]:
            answers = {}
            for met_id, demand in zip(met_ids, add("DM", met_ids, -1.0), strict=True):
                demand.upper_bound = 1000.0
                answers[met_id] = _maximum(model, demand) > PRODUCIBLE
                demand.upper_bound = 0.0
                result.solves += 1
            return answers

        unmade = [m for m, ok in makeable(substrates).items() if not ok]
        sources = add("SRC", returned, 1.0) if unmade else []
        for source in sources:
            source.upper_bound = 1000.0
        result.recycled = [m for m, ok in makeable(unmade if sources else []).items() if ok]
        for source in sources:
            source.upper_bound = 0.0
        result.missing = [m for m in unmade if m not in result.recycled]

        def only_maker(met_id: str, user: str = biomass) -> tuple[cobra.Reaction, int] | None:
            """The one reaction (and its direction) that can make the metabolite for `user`, if it is
            one (`user` itself run backwards does not count)."""
            met = model.metabolites.get_by_id(met_id)
            makers = [r for r in met.reactions if r.id not in temporary and r.id not in (biomass, user)
                      and not is_boundary(r)
                      and (r.upper_bound > 0 if r.metabolites[met] > 0 else r.lower_bound < 0)]
            return (makers[0], 1 if makers[0].metabolites[met] > 0 else -1) if len(makers) == 1 else None

        def inputs_not_made(maker: cobra.Reaction, sign: int, made: str, supplied: frozenset[str],
                            path: frozenset[str] = frozenset()) -> list[str]:
            """Inputs of `maker` not made, with what it gives back supplied (the tRNAs of protein
            synthesis). An input not made that only the loading of such a carrier makes (an
            aminoacyl-tRNA) is followed to what is loaded (the amino acid)."""
            given_back = frozenset(m.id for m, c in maker.metabolites.items()
                                   if c * sign > 0 and m.id != made and m.id.split("_")[0] not in NOT_RETURNED)
            opened = [s for s in add("SRC", sorted(given_back), 1.0) if s.upper_bound == 0.0]
            for source in opened:
                source.upper_bound = 1000.0
            carriers = supplied | given_back
            parts: list[str] = []
            inputs = sorted(m.id for m, c in maker.metabolites.items() if c * sign < 0)
            for met_id in (m for m, ok in makeable(inputs).items() if not ok):
                loading = only_maker(met_id, maker.id)
                if loading is not None and loading[0].id not in path and any(
                        m.id in carriers for m, c in loading[0].metabolites.items() if c * loading[1] < 0):
                    parts.extend(inputs_not_made(loading[0], loading[1], met_id, carriers, path | {maker.id})
                                 or [met_id])
                else:
                    parts.append(met_id)
            for source in opened:
                source.upper_bound = 0.0
            return parts

        for met_id in result.missing if expand else []:
            found = only_maker(met_id)
            if found is not None:
                result.missing_parts[met_id] = inputs_not_made(*found, met_id, frozenset())
    return result


def _biomass(model: cobra.Model, biomass: str) -> cobra.Reaction:
    if biomass not in model.reactions:
        raise ValidationError(ErrorCode.INVALID_REACTION, f"Reaction '{biomass}' is not in the model.",
                              details={"biomass": biomass,
                                       "candidates": [r.id for r in model.reactions if is_biomass_like(r)][:10]})
    return model.reactions.get_by_id(biomass)


def growth(model: cobra.Model, biomass: str = "bio1") -> float:
    """The largest flux through `biomass` on the medium as applied (0.0 when infeasible)."""
    with model:
        model.objective = _biomass(model, biomass)
        value = model.slim_optimize(error_value=float("nan"))
    return 0.0 if math.isnan(value) else max(float(value), 0.0)


def diagnose(model: cobra.Model, biomass: str = "bio1", open_exchanges: bool = True) -> Diagnosis:
    """Every check above on `model` as it is (medium applied), each part timed."""
    timings: dict[str, float] = {}

    def timed(name: str, run: Callable[[], Any]) -> Any:
        started = time.perf_counter()
        try:
            return run()
        finally:
            timings[name] = round(time.perf_counter() - started, 4)

    return Diagnosis(
        growth=timed("growth", lambda: growth(model, biomass)),
        balance=timed("imbalanced_reactions", lambda: imbalanced_reactions(model)),
        dead_ends=timed("dead_end_metabolites", lambda: dead_end_metabolites(model)),
        blocked=timed("blocked_reactions", lambda: blocked_reactions(model, open_exchanges)),
        energy_cycles=timed("energy_generating_cycles", lambda: energy_generating_cycles(model)),
        without_genes=timed("reactions_without_genes", lambda: reactions_without_genes(model)),
        precursors=timed("missing_biomass_precursors", lambda: missing_biomass_precursors(model, biomass)),
        reactions=len(model.reactions), metabolites=len(model.metabolites), timings=timings,
        atp_transport_backwards=timed("atp_driven_transport", lambda: sorted(atp_making_directions_open(model))),
    )
