"""Two-stage gapfilling that never creates energy from nothing (CONTRACTS §5, §12; DESIGN §5).

Stage 1, ATP correction (the idea of ModelSEEDpy's MSATPCorrection): restricted to its core
metabolism (reactions of the Core-V5.2 template), the draft should make ATP on the ATP test media
(ModelSEEDpy's 54), except where that needs many missing reactions (the organism does not use
that substrate). Small core gaps are filled from the Core template. The core model's ATP yields,
times a tolerance, become tests; genome-scale reactions of the draft that break a test (ATP above
what core metabolism explains, or any ATP with nothing to eat) lose the offending direction.

Stage 2, genome-scale: the cheapest set of template reactions (template base cost plus direction
penalty; weakly genome-supported reactions cheaper; mass-imbalanced ones left out) that lets the
objective reach the target on the medium: a weighted LP, then an integer pass that keeps the
cheapest subset of the LP's reactions. Existing irreversible reactions may be reversed. The
answer is checked against the ATP tests and a no-carbon-growth test; a reaction that breaks one
is banned and the problem solved again.

Both stages run on one sparse LP per network (fluxlp.py). The final model is checked with
COBRApy: growth on the medium, no growth without carbon, no ATP with all uptakes closed.
"""

from __future__ import annotations

import contextlib
import csv
import json
import math
import re
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import GemFluxError, InfeasibilityError, LibraryError, ValidationError
from gem_flux_mcp.modeling import media as media_ops
from gem_flux_mcp.modeling.annotate import WEAK_EVIDENCE_NOTE
from gem_flux_mcp.modeling.fluxlp import Column, FluxLP, SolverDeadline

if TYPE_CHECKING:
    import cobra

Medium = Mapping[str, tuple[float, float]]  # ModelSEED compound id -> (lower, upper)
Progress = Callable[[str, float, str], None]

MODES = ("full", "atp_only", "genomescale_only")
ATP_TEST = "gemflux_atp_test"  # ATP + H2O -> ADP + Pi + H+, added to the LP only: every model has it
ATP_HYDROLYSIS = {"cpd00002_c0": -1.0, "cpd00001_c0": -1.0, "cpd00008_c0": 1.0, "cpd00009_c0": 1.0,
                  "cpd00067_c0": 1.0}
MIN_ATP = 0.01  # ModelSEEDpy's default minimum objective on the ATP media
EMPTY_THRESHOLD = 1e-5  # "no ATP": the solver's tolerance, as in ModelSEEDpy's tests
ATP_MULTIPLIER = {"Glc": 2.0}
DEFAULT_ATP_MULTIPLIER = 1.2
MAX_CORE_GAPFILL = 10  # more missing core reactions than this: the organism does not use that medium
CORE_GAPFILL_DELTA = 0.0  # as ModelSEEDpy: only the media with the smallest core gap are used
WEAK_EVIDENCE_FACTOR = 0.5  # cost multiplier for reactions the genome supports weakly
FLUX_MAX = 1000.0
ACTIVE = 1e-7
MAX_BAN_ROUNDS = 40
MAX_OFFENDER_TRIALS = 12
INTEGER_PASS_LIMIT_S = 30.0
_RXN = re.compile(r"^(rxn\d{5})_([a-z])(\d+)$")
_CARBON = re.compile(r"C(?![a-z])")


# ---- inputs -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class GapfillOptions:
    target_growth: float = 0.01
    mode: str = "full"
    integer_pass: bool = True
    exclude_imbalanced: bool = True
    time_limit_s: float = 600.0


@dataclass(frozen=True)
class ReactionFacts:
    """What the ModelSEED database says about reactions (ids without compartment, e.g. rxn00148)."""

    imbalanced: frozenset[str] = frozenset()  # mass-imbalanced (status MI)
    reversibility: Mapping[str, str] = field(default_factory=dict)  # thermodynamic estimate: > < = ?
    linked: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # obsolete <-> replacement ids
    deltag: Mapping[str, float] = field(default_factory=dict)  # standard ΔG'° (kcal/mol) where estimated


@dataclass(frozen=True)
class AtpTest:
    medium: str
    threshold: float  # ATP flux above this fails


def load_atp_media(path: Path) -> dict[str, dict[str, tuple[float, float]]]:
    """ModelSEEDpy's ATP test media: donors at uptake 1, acceptors at 1000, plus H2O and H+."""
    with path.open(newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t"))
    names = rows[0][1:]
    result: dict[str, dict[str, tuple[float, float]]] = {
        name: {"cpd00001": (-1000.0, 1000.0), "cpd00067": (-1000.0, 1000.0)} for name in names}
    for row in rows[1:]:
        match = re.match(r"EX_(cpd\d{5})_e0$", row[0])
        if not match:
            continue
        for name, value in zip(names, row[1:], strict=False):
            uptake = float(value or 0)
            if uptake > 0:
                result[name][match.group(1)] = (-uptake, 1000.0)
    return result


def atp_media_path() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("modelseedpy")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("modelseedpy is not installed")
    return Path(next(iter(spec.submodule_search_locations))) / "data" / "atp_medias.tsv"


# ---- the network ------------------------------------------------------------------------------


@dataclass
class Flux:
    """One direction of one reaction in the network."""

    reaction: str  # model reaction id, e.g. rxn00148_c0
    direction: int  # +1 forward, -1 reverse
    kind: str  # "model" (already allowed), "reverse" (reversal of a model reaction), "template", "exchange"
    cost: float = 0.0


class Network:
    """The model's reactions and the template reactions it could gain, one column per direction."""

    def __init__(self, model: cobra.Model, template: Any, deadline: SolverDeadline, *,
                 excluded: AbstractSet[str] = frozenset(), discounts: Mapping[str, float] | None = None,
                 reversibility: Mapping[str, str] | None = None, deltag: Mapping[str, float] | None = None) -> None:
        discounts = discounts or {}
        reversibility = reversibility or {}
        deltag = deltag or {}
        self.fluxes: list[Flux] = []
        columns: list[Column] = []

        def add(flux: Flux, stoichiometry: Mapping[str, float], lower: float, upper: float) -> None:
            self.fluxes.append(flux)
            sign = flux.direction
            columns.append(Column(f"{flux.reaction}#{'f' if sign > 0 else 'r'}",
                                  {m: sign * c for m, c in stoichiometry.items()}, lower, upper))

        self.model_reactions: set[str] = set()
        self.exchange_compound: dict[str, str] = {}  # reaction id -> cpd id (uptake = reverse column)
        self.sinks: set[str] = set()
        self.uptake_sign: dict[str, int] = {}  # boundary reaction -> direction that takes mass in
        for reaction in model.reactions:
            stoich = {m.id: c for m, c in reaction.metabolites.items()}
            self.model_reactions.add(reaction.id)
            if len(stoich) == 1 and reaction.boundary:
                (met, coefficient), = stoich.items()
                match = re.match(r"^(cpd\d{5})_e\d+$", met)
                self.uptake_sign[reaction.id] = -1 if coefficient < 0 else 1
                if reaction.id.startswith(("SK_", "DM_")) or not match:
                    self.sinks.add(reaction.id)
                else:
                    self.exchange_compound[reaction.id] = match.group(1)
            lower, upper = reaction.lower_bound, reaction.upper_bound
            template_reaction = _template_reaction(template, reaction.id)
            gapfill_dir = getattr(template_reaction, "GapfillDirection", "=") if template_reaction else ""
            for sign in (1, -1):
                top = upper if sign > 0 else -lower
                bottom = lower if sign > 0 else -upper
                if top > 0:
                    add(Flux(reaction.id, sign, "model"), stoich, max(bottom, 0.0), top)
                elif template_reaction is not None and reaction.id not in excluded and \
                        gapfill_dir in ("=", ">" if sign > 0 else "<"):
                    cost = _direction_cost(template_reaction, sign) * discounts.get(reaction.id, 1.0)
                    add(Flux(reaction.id, sign, "reverse", cost), stoich, 0.0, 0.0)
        new_extracellular: set[str] = set()
        for template_reaction in template.reactions:
            rid = f"{template_reaction.id}0"
            if rid in self.model_reactions or rid in excluded or template_reaction.type == "biomass":
                continue
            stoich = {f"{m.id}0": c for m, c in template_reaction.metabolites.items()}
            if not stoich:
                continue
            for sign in (1, -1):
                if template_reaction.GapfillDirection in ("=", ">" if sign > 0 else "<"):
                    cost = _direction_cost(template_reaction, sign) * discounts.get(rid, 1.0)
                    add(Flux(rid, sign, "template", cost), stoich, 0.0, 0.0)
            new_extracellular.update(m for m in stoich if re.match(r"^cpd\d{5}_e0$", m))
        model_mets = {m.id for m in model.metabolites}
        for met in sorted(new_extracellular - model_mets):
            rid = f"EX_{met}"
            if rid in self.model_reactions:
                continue
            self.exchange_compound[rid] = met.split("_")[0]
            self.uptake_sign[rid] = -1
            for sign in (1, -1):
                add(Flux(rid, sign, "exchange"), {met: -1.0}, 0.0, 0.0)
        add(Flux(ATP_TEST, 1, "test"), ATP_HYDROLYSIS, 0.0, 0.0)
        self.lp = FluxLP(columns, deadline)
        self.base_lower = self.lp.lower.copy()
        self.base_upper = self.lp.upper.copy()
        self.costs = np.array([f.cost for f in self.fluxes])
        self.gapfill_columns = np.array([f.kind in ("template", "reverse") for f in self.fluxes])
        self.col = {(f.reaction, f.direction): i for i, f in enumerate(self.fluxes)}
        # directions ModelSEED's thermodynamic estimate says a reaction cannot run
        self.disfavored = np.array([
            reversibility.get(f.reaction.split("_")[0]) == ("<" if f.direction > 0 else ">") for f in self.fluxes])
        # standard ΔG'° in the column's direction (NaN if unknown): an energy-generating cycle
        # needs at least one step that runs uphill
        self.uphill = np.array([f.direction * deltag.get(f.reaction.split("_")[0], np.nan) for f in self.fluxes])
        self.atp_column = self.col[(ATP_TEST, 1)]

    # -- bounds for a question --------------------------------------------------------------------

    def bounds(self, medium: Medium, *, allowed: Iterable[int] = (), atp_test: bool = False,
               only_core: set[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Column bounds on a medium: gapfill columns closed except `allowed` (opened to
        FLUX_MAX); uptake only of medium compounds. For an ATP test, sinks take nothing in and
        the ATP hydrolysis test column is open."""
        lower, upper = self.base_lower.copy(), self.base_upper.copy()
        close_sinks = atp_test
        if atp_test:
            upper[self.atp_column] = FLUX_MAX
        for i in allowed:
            upper[i] = FLUX_MAX
        for i, flux in enumerate(self.fluxes):
            cpd = self.exchange_compound.get(flux.reaction)
            if cpd is not None:
                uptake = flux.direction == self.uptake_sign[flux.reaction]
                if cpd in medium:
                    low, up = medium[cpd]
                    upper[i] = max(-low, 0.0) if uptake else max(up, 0.0)
                    lower[i] = max(-up, 0.0) if uptake else max(low, 0.0)
                elif uptake:
                    upper[i] = lower[i] = 0.0
                elif flux.kind == "exchange":
                    upper[i], lower[i] = FLUX_MAX, 0.0
            elif close_sinks and flux.reaction in self.sinks and flux.direction == self.uptake_sign[flux.reaction]:
                upper[i] = lower[i] = 0.0
            if only_core is not None and flux.kind == "model" and flux.reaction not in only_core:
                lower[i] = upper[i] = 0.0
        return lower, upper


def _template_reaction(template: Any, reaction_id: str) -> Any:
    match = _RXN.match(reaction_id)
    if not match:
        return None
    try:
        return template.reactions.get_by_id(f"{match.group(1)}_{match.group(2)}")
    except KeyError:
        return None


def _direction_cost(template_reaction: Any, sign: int) -> float:
    penalty = template_reaction.forward_penalty if sign > 0 else template_reaction.reverse_penalty
    return max(float(template_reaction.base_cost or 0) + float(penalty or 0), 0.1)


# ---- generic steps ----------------------------------------------------------------------------


@dataclass
class Solution:
    columns: list[int]
    cost: float
    integer_pass: bool = False


def cheapest_completion(net: Network, lower: np.ndarray, upper: np.ndarray, candidates: np.ndarray,
                        target_column: int, target: float, integer_pass: bool,
                        banned: AbstractSet[int] = frozenset()) -> Solution | None:
    """Cheapest set of `candidates` columns giving `target` flux through `target_column`."""
    lower, upper = lower.copy(), upper.copy()
    upper[candidates] = FLUX_MAX
    upper[np.fromiter(banned, dtype=int)] = 0.0
    lower[target_column] = max(lower[target_column], target)
    costs = np.where(candidates, net.costs, 0.0)
    values = net.lp.solve(costs, lower, upper)
    if values is None:
        return None
    chosen = [int(i) for i in np.flatnonzero(candidates & (values > ACTIVE))]
    solution = Solution(chosen, float(sum(net.costs[i] for i in chosen)))
    if integer_pass and len(chosen) > 1:
        subset = net.lp.cheapest_subset(chosen, {i: float(net.costs[i]) for i in chosen}, lower,
                                        _only_open(upper, candidates, chosen), INTEGER_PASS_LIMIT_S)
        # re-checked as a plain LP: guards against the integrality tolerance
        if subset is not None and net.lp.solve(np.zeros(len(net.fluxes)), lower,
                                               _only_open(upper, candidates, subset)) is not None:
            solution = Solution(subset, float(sum(net.costs[i] for i in subset)), True)
    return solution


def _only_open(upper: np.ndarray, candidates: np.ndarray, keep: Iterable[int]) -> np.ndarray:
    """`upper` with every candidate column closed except those in `keep`."""
    closed = np.where(candidates, 0.0, upper)
    kept = np.fromiter(keep, dtype=int)
    closed[kept] = upper[kept]
    return closed


def with_open(upper: np.ndarray, columns: Iterable[int]) -> np.ndarray:
    upper = upper.copy()
    for i in columns:
        upper[i] = FLUX_MAX
    return upper


def _exceeds(value: float, threshold: float) -> bool:
    """Above a test's threshold by more than the solver's tolerance."""
    return value > threshold * (1 + 1e-6) + 1e-9


def ban_until_passing(net: Network, lower: np.ndarray, upper: np.ndarray, suspects: list[int],
                      target_column: int, threshold: float, max_rounds: int = 400) -> set[int]:
    """Close suspect columns one at a time until the most flux through `target_column` is at
    most `threshold`; returns the closed ones (the caller checks whether that was enough)."""
    banned: set[int] = set()
    upper = upper.copy()
    for _ in range(max_rounds):
        most = net.lp.maximize(target_column, lower, upper)
        if not _exceeds(most, threshold):
            break
        offender = find_offender(net, lower, upper, [i for i in suspects if i not in banned], target_column,
                                 threshold, most)
        if offender is None:
            break
        banned.add(offender)
        upper[offender] = 0.0
    return banned


def reopen_unneeded(net: Network, tests: list[AtpTest], media: Mapping[str, Medium], added: Iterable[int],
                    blocked: set[int], order: list[int]) -> set[int]:
    """Blocking one direction per cycle, early blocks can become unnecessary once later ones
    close the same cycles: re-open each (last blocked first) if every test still passes."""
    added = list(added)
    bounds = [net.bounds(media[t.medium], allowed=added, atp_test=True) for t in tests]
    kept = set(blocked)
    for i in reversed(order):
        kept.discard(i)
        closed = np.fromiter(kept, dtype=int)
        for test, (lower, upper) in zip(tests, bounds, strict=True):
            trial = upper.copy()
            trial[closed] = 0.0
            if _exceeds(net.lp.maximize(net.atp_column, lower, trial), test.threshold):
                kept.add(i)
                break
    return kept


def find_offender(net: Network, lower: np.ndarray, upper: np.ndarray, suspects: list[int],
                  target_column: int, threshold: float, most: float | None = None) -> int | None:
    """Which one of `suspects` (open columns) to close so flux through `target_column` drops
    below `threshold` (`most` = its current maximum): first the cheapest way above the threshold
    tells who takes part."""
    if most is None:
        most = net.lp.maximize(target_column, lower, upper)
    lower_t = lower.copy()
    # well above the threshold (fluxes of ~1e-6 would hide among solver tolerances), but feasible
    lower_t[target_column] = min(threshold + max(0.01 * threshold, 1.0), (threshold + most) / 2)
    costs = np.zeros(len(net.fluxes))
    for i in suspects:
        costs[i] = 1.0 + net.costs[i]
    values = net.lp.solve(costs, lower_t, upper)
    if values is None:
        return None
    active = [i for i in suspects if values[i] > ACTIVE]
    # a direction ModelSEED's thermodynamics says is impossible is closed first (e.g. an ABC
    # transporter running backwards): the one carrying most of that flux
    disfavored = [i for i in active if net.disfavored[i]]
    if disfavored:
        return max(disfavored, key=lambda i: (values[i], net.costs[i]))
    # then the step that runs most steeply uphill by its standard ΔG'°
    uphill = [i for i in active if net.uphill[i] > 0]
    if uphill:
        return max(uphill, key=lambda i: (net.uphill[i], net.costs[i]))
    # otherwise the one whose closing lowers the flux most (ties: the costliest)
    active.sort(key=lambda i: -net.costs[i])
    best: tuple[float, float, int] | None = None
    for i in active[:MAX_OFFENDER_TRIALS]:
        closed = upper.copy()
        closed[i] = 0.0
        left = round(net.lp.maximize(target_column, lower, closed), 6)
        key = (left, -net.costs[i], i)
        if best is None or key < best:
            best = key
    return None if best is None else best[2]


# ---- stage 1: ATP correction -------------------------------------------------------------------


@dataclass
class AtpCorrection:
    media_tested: int = 0
    yields_before: dict[str, float] = field(default_factory=dict)
    core_gapfill: dict[str, Any] = field(default_factory=dict)  # medium -> {"reactions": [...]} or "failed"
    selected_media: list[str] = field(default_factory=list)
    added: list[tuple[str, int]] = field(default_factory=list)  # (reaction, direction)
    blocked: list[tuple[str, int]] = field(default_factory=list)  # draft directions that broke a test
    tests: list[AtpTest] = field(default_factory=list)
    core_directions: list[tuple[str, float, float]] = field(default_factory=list)  # bounds set from Core
    loop_candidates: list[str] = field(default_factory=list)  # Core reactions never offered (ATP loops)

    def to_json(self) -> dict[str, Any]:
        return {"media_tested": self.media_tested, "yields_before": self.yields_before,
                "core_gapfill": self.core_gapfill, "selected_media": self.selected_media,
                "added": [list(a) for a in self.added], "blocked": [list(b) for b in self.blocked],
                "tests": [[t.medium, t.threshold] for t in self.tests],
                "core_directions": [list(c) for c in self.core_directions]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AtpCorrection:
        return cls(media_tested=data["media_tested"], yields_before=dict(data["yields_before"]),
                   core_gapfill=dict(data["core_gapfill"]), selected_media=list(data["selected_media"]),
                   added=[(r, int(d)) for r, d in data["added"]], blocked=[(r, int(d)) for r, d in data["blocked"]],
                   tests=[AtpTest(m, float(t)) for m, t in data["tests"]],
                   core_directions=[(r, float(lo), float(up)) for r, lo, up in data.get("core_directions", [])])

    def apply(self, model: cobra.Model, core_template: Any) -> None:
        """Make the same changes to `model` (a copy of the model this was computed on)."""
        set_core_directions(model, self.core_directions)
        apply_changes(model, core_template, [a for a in self.added if a[0] not in model.reactions], "atp_correction")
        block_directions(model, self.blocked)


_REFERENCE_YIELDS: dict[tuple[int, tuple[str, ...]], dict[str, float]] = {}


def core_reference_yields(core_template: Any, atp_media: Mapping[str, Medium],
                          deadline: SolverDeadline) -> dict[str, float]:
    """ATP yield of the complete Core template (its own directions) on each ATP medium: what a
    curated core energy metabolism can make. Computed once per process."""
    key = (id(core_template), tuple(atp_media))
    if key not in _REFERENCE_YIELDS:
        import cobra

        model = cobra.Model("core_reference")
        reactions = []
        for template_reaction in core_template.reactions:
            reaction = template_reaction.to_reaction(model, index="0")
            reaction.bounds = template_reaction.bounds
            reactions.append(reaction)
        model.add_reactions(reactions)
        model.add_reactions([_new_exchange(m) for m in model.metabolites if m.compartment == "e0"])
        net = Network(model, core_template, deadline)
        yields = {}
        for name, medium in atp_media.items():
            lower, upper = net.bounds(medium, atp_test=True)
            yields[name] = net.lp.maximize(net.atp_column, lower, upper)
        _REFERENCE_YIELDS[key] = yields
    return _REFERENCE_YIELDS[key]


def core_counterparts(model: cobra.Model, core_template: Any, linked: Mapping[str, tuple[str, ...]]) -> dict[str, Any]:
    """Model reaction id -> its Core template reaction: the same id, or a linked ModelSEED id
    with the same equation (the genome-scale templates use rxn10042 for Core's ATP synthase
    rxn08173)."""
    found: dict[str, Any] = {}
    for reaction in model.reactions:
        match = _RXN.match(reaction.id)
        if not match:
            continue
        candidates = (match.group(1), *linked.get(match.group(1), ()))
        stoich = {m.id: c for m, c in reaction.metabolites.items()}
        for base in candidates:
            core = _template_reaction(core_template, f"{base}_{match.group(2)}{match.group(3)}")
            if core is not None and (base == match.group(1) or
                                     {f"{m.id}0": c for m, c in core.metabolites.items()} == stoich):
                found[reaction.id] = core
                break
    return found


def set_core_directions(model: cobra.Model, changes: list[tuple[str, float, float]]) -> None:
    for reaction_id, lower, upper in changes:
        if reaction_id in model.reactions:
            reaction = model.reactions.get_by_id(reaction_id)
            reaction.bounds = (lower, upper)
            reaction.notes["gemflux_direction_from"] = "Core template"


def correct_atp(model: cobra.Model, core_template: Any, atp_media: Mapping[str, Medium],
                deadline: SolverDeadline, progress: Progress, facts: ReactionFacts) -> AtpCorrection:
    """Stage 1 on `model` in place: add the selected core gaps, block directions that break the
    ATP tests; returns what it did and the tests for stage 2."""
    result = AtpCorrection(media_tested=len(atp_media))
    core_of = core_counterparts(model, core_template, facts.linked)
    result.core_directions = [(rid, float(t.lower_bound), float(t.upper_bound)) for rid, t in core_of.items()
                              if model.reactions.get_by_id(rid).bounds != tuple(t.bounds)]
    set_core_directions(model, result.core_directions)
    covered = {f"{t.id}0" for rid, t in core_of.items() if rid != f"{t.id}0"}
    net = Network(model, core_template, deadline, excluded=covered, reversibility=facts.reversibility,
                  deltag=facts.deltag)
    keep = set(core_of) | set(net.exchange_compound) | set(net.sinks)
    core_candidates = net.gapfill_columns
    empty = atp_media.get("empty", {})
    loops: set[int] = set()
    scores: dict[str, float] = {}
    solutions: dict[str, Solution] = {}
    for n, (name, medium) in enumerate(atp_media.items()):
        progress("atp_correction", 0.05 + 0.25 * n / len(atp_media), f"ATP yield on {name}")
        lower, upper = net.bounds(medium, only_core=keep, atp_test=True)
        atp = net.lp.maximize(net.atp_column, lower, upper)
        result.yields_before[name] = round(atp, 6)
        if atp >= MIN_ATP:
            scores[name] = 0.0
            continue
        solution: Solution | None = None
        for _ in range(MAX_BAN_ROUNDS):
            solution = cheapest_completion(net, lower, upper, core_candidates, net.atp_column, MIN_ATP, True, loops)
            if solution is None:
                break
            # the added core reactions must not make ATP from nothing
            lower_e, upper_e = net.bounds(empty, only_core=keep, atp_test=True, allowed=solution.columns)
            if net.lp.maximize(net.atp_column, lower_e, upper_e) <= EMPTY_THRESHOLD:
                break
            offender = find_offender(net, lower_e, upper_e, solution.columns, net.atp_column, EMPTY_THRESHOLD)
            if offender is None:
                solution = None
                break
            loops.add(offender)
        if solution is None:
            result.core_gapfill[name] = "failed"
            continue
        solutions[name] = solution
        new = [i for i in solution.columns if net.fluxes[i].kind == "template"]
        reversed_ = [i for i in solution.columns if net.fluxes[i].kind == "reverse"]
        scores[name] = len(new) + 0.5 * len(reversed_)
        result.core_gapfill[name] = {"reactions": [_label(net.fluxes[i]) for i in solution.columns],
                                     "score": scores[name]}
    result.loop_candidates = sorted(_label(net.fluxes[i]) for i in loops)
    best = min(scores.values(), default=0.0)
    result.selected_media = [m for m, s in scores.items() if s <= min(MAX_CORE_GAPFILL, best + CORE_GAPFILL_DELTA)]
    added: set[int] = set()
    for name in result.selected_media:
        if name in solutions:
            added.update(solutions[name].columns)
    result.added = [(net.fluxes[i].reaction, net.fluxes[i].direction) for i in sorted(added)]

    # tests: on each medium core metabolism can use (it makes ATP, or needs at most
    # MAX_CORE_GAPFILL reactions, counted with its own core gapfill) the genome-scale model may
    # make at most the tolerance times the ATP yield of the corrected core, or of the complete
    # Core template if that is higher (drafts whose core lacks respiration would otherwise get
    # thresholds below glycolysis's, and gapfilling would have to ban biosynthesis); and nothing
    # may make ATP from nothing
    reference = core_reference_yields(core_template, atp_media, deadline)
    tests = [AtpTest("empty", EMPTY_THRESHOLD)] if "empty" in atp_media else []
    for name, score in scores.items():
        if name == "empty" or score > MAX_CORE_GAPFILL:
            continue
        own = solutions[name].columns if name in solutions else []
        lower, upper = net.bounds(atp_media[name], only_core=keep, atp_test=True, allowed=[*added, *own])
        atp = max(net.lp.maximize(net.atp_column, lower, upper), reference.get(name, 0.0))
        threshold = ATP_MULTIPLIER.get(name, DEFAULT_ATP_MULTIPLIER) * atp
        tests.append(AtpTest(name, threshold if threshold > 0 else EMPTY_THRESHOLD))
    result.tests = tests

    # expansion: the whole draft must pass the tests; offending non-core directions are blocked
    # (closing a direction only lowers ATP, so one pass over the tests is enough)
    progress("atp_correction", 0.32, f"checking the genome-scale draft against {len(tests)} ATP tests")
    blocked: set[int] = set()
    internal = [i for i, f in enumerate(net.fluxes) if f.kind == "model" and f.reaction not in keep]
    noncore = [i for i in internal if net.fluxes[i].reaction not in core_of]
    order: list[int] = []
    for test in tests:
        lower, upper = net.bounds(atp_media[test.medium], allowed=added, atp_test=True)
        upper[np.fromiter(blocked, dtype=int)] = 0.0
        # with nothing to eat, any reaction may be part of the cycle; otherwise core stays as corrected
        suspects = internal if test.medium == "empty" else noncore
        newly = ban_until_passing(net, lower, upper, [i for i in suspects if i not in blocked],
                                  net.atp_column, test.threshold)
        order += [i for i in suspects if i in newly]
        blocked |= newly
    progress("atp_correction", 0.36, "re-opening blocked directions that later blocks made unnecessary")
    blocked = reopen_unneeded(net, tests, atp_media, added, blocked, order)
    result.blocked = [(net.fluxes[i].reaction, net.fluxes[i].direction) for i in sorted(blocked)]
    apply_changes(model, core_template, result.added, source="atp_correction")
    block_directions(model, result.blocked)
    return result


# ---- stage 2: genome-scale ---------------------------------------------------------------------


@dataclass
class GenomeScaleResult:
    added: list[tuple[str, int]]  # new template reactions (reaction, direction)
    reversed: list[tuple[str, int]]  # model reactions opened in a new direction
    exchanges: list[str]
    banned: list[tuple[str, int, str]]  # (reaction, direction, which test it broke)
    cost: float
    integer_pass: bool
    lp_solves: int


def gapfill_genome_scale(model: cobra.Model, template: Any, medium: Medium, objective: str, target: float,
                         tests: list[AtpTest], atp_media: Mapping[str, Medium], carbon_free: Medium,
                         options: GapfillOptions, excluded: set[str], discounts: Mapping[str, float],
                         deadline: SolverDeadline, progress: Progress,
                         facts: ReactionFacts | None = None) -> GenomeScaleResult | None:
    """Stage 2 in place on `model`. None when no set of template reactions reaches the target."""
    facts = facts or ReactionFacts()
    net = Network(model, template, deadline, excluded=excluded, discounts=discounts,
                  reversibility=facts.reversibility, deltag=facts.deltag)
    target_column = net.col.get((objective, 1))
    if target_column is None:
        raise ValidationError(ErrorCode.OBJECTIVE_NOT_FORWARD, f"The objective {objective} cannot carry forward flux.")
    lower, upper = net.bounds(medium)
    banned: set[int] = set()
    banned_why: list[tuple[str, int, str]] = []
    pending_tests = list(tests)
    cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    candidates = net.gapfill_columns
    for round_ in range(MAX_BAN_ROUNDS):
        progress("genomescale", 0.45 + min(round_, 10) * 0.03,
                 "solving the gapfilling LP" if round_ == 0 else f"re-solving without {len(banned)} banned reactions")
        # LP answers while banning: any subset of a passing answer passes too (closing columns
        # only lowers ATP and growth), so the integer pass runs once, at the end
        solution = cheapest_completion(net, lower, upper, candidates, target_column, target, False, banned)
        if solution is None:
            return None
        offenders = _break_tests(net, solution.columns, pending_tests, atp_media, carbon_free, target_column, cache)
        if not offenders:
            break
        for offender, why in offenders:
            banned.add(offender)
            banned_why.append((net.fluxes[offender].reaction, net.fluxes[offender].direction, why))
    else:
        return None
    if options.integer_pass:
        progress("genomescale", 0.80, "integer pass: the cheapest subset of the LP answer")
        solution = cheapest_completion(net, lower, upper, candidates, target_column, target, True, banned) or solution
    chosen = solution.columns
    added = [(net.fluxes[i].reaction, net.fluxes[i].direction) for i in chosen if net.fluxes[i].kind == "template"]
    reversed_ = [(net.fluxes[i].reaction, net.fluxes[i].direction) for i in chosen if net.fluxes[i].kind == "reverse"]
    exchanges = apply_changes(model, template, added + reversed_, source="template_gapfill",
                              weak=discounts)
    return GenomeScaleResult(added, reversed_, exchanges, banned_why, solution.cost, solution.integer_pass,
                             net.lp.solves)


def _break_tests(net: Network, chosen: list[int], tests: list[AtpTest], atp_media: Mapping[str, Medium],
                 carbon_free: Medium, target_column: int,
                 cache: dict[str, tuple[np.ndarray, np.ndarray]]) -> list[tuple[int, str]]:
    """Chosen columns to ban so the answer passes the ATP tests and cannot grow without carbon.
    Tests run in order and stop at the first that needed bans; a test that failed moves to the
    front of `tests` (a new answer usually fails the same test), so the rounds stay cheap and
    only an answer that passes everything has been checked against every test."""
    for k, test in enumerate(tests):
        if test.medium not in cache:
            cache[test.medium] = net.bounds(atp_media[test.medium], atp_test=True)
        lower, upper = cache[test.medium]
        newly = ban_until_passing(net, lower, with_open(upper, chosen), list(chosen), net.atp_column,
                                  test.threshold, max_rounds=20)
        if newly:
            tests.insert(0, tests.pop(k))
            return [(i, f"ATP test {test.medium}") for i in newly]
    lower, upper = net.bounds(carbon_free, allowed=chosen)
    newly = ban_until_passing(net, lower, upper, list(chosen), target_column, EMPTY_THRESHOLD, max_rounds=20)
    return [(i, "growth without carbon") for i in newly]


# ---- changing the COBRApy model ----------------------------------------------------------------


def apply_changes(model: cobra.Model, template: Any, changes: list[tuple[str, int]], source: str,
                  weak: Mapping[str, float] | None = None) -> list[str]:
    """Add template reactions / open directions; returns ids of exchanges added for new
    extracellular metabolites."""

    directions: dict[str, set[int]] = {}
    for reaction_id, sign in changes:
        directions.setdefault(reaction_id, set()).add(sign)
    evidence = _weak_evidence(model)
    new_reactions = []
    for reaction_id, signs in directions.items():
        lower = -FLUX_MAX if -1 in signs else 0.0
        upper = FLUX_MAX if 1 in signs else 0.0
        if reaction_id in model.reactions:
            reaction = model.reactions.get_by_id(reaction_id)
            reaction.bounds = (min(reaction.lower_bound, lower), max(reaction.upper_bound, upper))
            reaction.notes["gemflux_reversed_by"] = source
            continue
        template_reaction = _template_reaction(template, reaction_id)
        if template_reaction is None:
            continue
        reaction = template_reaction.to_reaction(model, index="0")
        reaction.bounds = (lower, upper)
        reaction.notes["gemflux_sources"] = source
        hint = evidence.get(reaction_id)
        if hint and weak and reaction_id in weak:
            reaction.gene_reaction_rule = str(hint.get("gene", ""))
            reaction.notes["gemflux_evidence"] = json.dumps({"weak_homology": hint}, sort_keys=True)
        new_reactions.append(reaction)
    model.add_reactions(new_reactions)
    added_exchanges = [_new_exchange(m) for m in model.metabolites
                       if m.compartment == "e0" and not any(len(r.metabolites) == 1 for r in m.reactions)]
    for exchange in added_exchanges:
        exchange.notes["gemflux_sources"] = "auto_generated"
    model.add_reactions(added_exchanges)
    return [r.id for r in added_exchanges]


def _new_exchange(metabolite: cobra.Metabolite) -> cobra.Reaction:
    """`EX_<met>: met <=>`, open both ways (a medium sets the uptake when it is applied)."""
    import cobra

    exchange = cobra.Reaction(f"EX_{metabolite.id}", f"Exchange for {metabolite.name}",
                              lower_bound=-FLUX_MAX, upper_bound=FLUX_MAX)
    exchange.add_metabolites({metabolite: -1.0})
    return exchange


def block_directions(model: cobra.Model, blocked: list[tuple[str, int]]) -> None:
    for reaction_id, sign in blocked:
        if reaction_id not in model.reactions:
            continue
        reaction = model.reactions.get_by_id(reaction_id)
        if sign > 0:
            reaction.upper_bound = min(reaction.upper_bound, 0.0)
        else:
            reaction.lower_bound = max(reaction.lower_bound, 0.0)
        reaction.notes["gemflux_atp_filtered"] = ">" if sign > 0 else "<"
        if reaction.lower_bound == 0 and reaction.upper_bound == 0:
            model.remove_reactions([reaction])


def _weak_evidence(model: cobra.Model) -> dict[str, dict[str, Any]]:
    raw = model.notes.get(WEAK_EVIDENCE_NOTE) if isinstance(model.notes, dict) else None
    if not raw:
        return {}
    try:
        data = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def evidence_discounts(model: cobra.Model) -> dict[str, float]:
    """Template reactions the draft's genome supports weakly (homology below the build's
    identity cut-off): cheaper to add than reactions with no evidence."""
    return {rid: WEAK_EVIDENCE_FACTOR for rid in _weak_evidence(model)}


def _label(flux: Flux) -> str:
    return f"{flux.reaction}{'>' if flux.direction > 0 else '<'}"


# ---- checks with COBRApy -----------------------------------------------------------------------


def carbon_free(medium: Medium, formulas: Mapping[str, str]) -> dict[str, tuple[float, float]]:
    """The medium without any carbon-containing compound (CO2 included)."""
    return {c: b for c, b in medium.items() if not _CARBON.search(formulas.get(c, "") or "")}


def growth_on(model: cobra.Model, medium: Medium, objective: str) -> float:
    with model:
        media_ops.apply_medium(model, medium, media_ops.resolve_exchanges(model))
        model.objective = objective
        value = model.slim_optimize(error_value=float("nan"))
    return 0.0 if math.isnan(value) else max(float(value), 0.0)


def atp_with_nothing(model: cobra.Model) -> float:
    """Most ATP hydrolysis flux with every uptake (exchanges, sinks, demands) closed."""
    import cobra

    with model:
        for reaction in model.boundary:
            coefficient = next(iter(reaction.metabolites.values()))
            if coefficient < 0:
                reaction.lower_bound = max(reaction.lower_bound, 0.0) if reaction.upper_bound >= 0 else 0.0
            else:
                reaction.upper_bound = min(reaction.upper_bound, 0.0) if reaction.lower_bound <= 0 else 0.0
        test = cobra.Reaction(ATP_TEST, lower_bound=0.0, upper_bound=FLUX_MAX)
        mets = {model.metabolites.get_by_id(m): c for m, c in ATP_HYDROLYSIS.items() if m in model.metabolites}
        if len(mets) < len(ATP_HYDROLYSIS):
            return 0.0
        test.add_metabolites(mets)
        model.add_reactions([test])
        model.objective = ATP_TEST
        value = model.slim_optimize(error_value=float("nan"))
    return 0.0 if math.isnan(value) else max(float(value), 0.0)


def quality_checks(model: cobra.Model, medium: Medium, no_carbon: Medium, objective: str,
                   target: float) -> dict[str, Any]:
    growth = growth_on(model, medium, objective)
    without_carbon = growth_on(model, no_carbon, objective)
    atp = atp_with_nothing(model)
    return {
        "growth_on_medium": {"value": round(growth, 6), "target": target, "passed": growth >= target * (1 - 1e-6)},
        "growth_without_carbon": {"value": round(without_carbon, 6), "passed": without_carbon <= EMPTY_THRESHOLD,
                                  "removed_compounds": sorted(set(medium) - set(no_carbon))},
        "atp_with_all_uptakes_closed": {"value": round(atp, 6), "passed": atp <= EMPTY_THRESHOLD},
        "all_passed": growth >= target * (1 - 1e-6) and without_carbon <= EMPTY_THRESHOLD and atp <= EMPTY_THRESHOLD,
    }


# ---- the whole run -----------------------------------------------------------------------------


@dataclass
class GapfillRun:
    model: cobra.Model
    growth_before: float
    growth_after: float
    atp: AtpCorrection | None
    atp_reused: bool
    genome_scale: GenomeScaleResult | None
    quality: dict[str, Any]
    timings: dict[str, float]
    objective: str


@contextlib.contextmanager
def _stage_errors(code: ErrorCode, stage: str) -> Iterator[None]:
    """A bug or solver failure inside a stage becomes that stage's error code (CONTRACTS §5)."""
    try:
        yield
    except GemFluxError:
        raise
    except Exception as exc:
        raise LibraryError(
            code, f"{stage} failed: {type(exc).__name__}: {str(exc)[:300]}",
            details={"stage": stage, "exception_type": type(exc).__name__, "original_model_preserved": True},
            suggestions=["Retry once; if it fails again, try gapfill_mode='genomescale_only' or another medium, "
                         "and report it with the arguments used."],
        ) from exc


def pick_objective(model: cobra.Model) -> str:
    if "bio1" in model.reactions:
        return "bio1"
    from gem_flux_mcp.modeling.model_io import objective_reaction_ids

    ids = objective_reaction_ids(model)
    if len(ids) != 1:
        raise ValidationError(
            ErrorCode.NO_BIOMASS_OBJECTIVE,
            "The model has no bio1 reaction and no single objective reaction to gapfill for.",
            details={"objective_reactions": ids},
            suggestions=["Set one objective reaction (e.g. with revise_model) or import a model with bio1."],
        )
    return ids[0]


def gapfill(model: cobra.Model, medium: Medium, options: GapfillOptions, *, genome_template: Any,
            core_template: Any, atp_media: Mapping[str, Medium], formulas: Mapping[str, str],
            facts: ReactionFacts, previous_atp: AtpCorrection | None = None,
            progress: Progress = lambda *_: None) -> GapfillRun:
    """Gapfill a copy of `model` (the argument is not changed)."""
    if options.mode not in MODES:
        raise ValidationError(ErrorCode.INVALID_GAPFILL_MODE, f"gapfill_mode must be one of {', '.join(MODES)}.",
                              details={"provided_mode": options.mode, "valid_modes": list(MODES)})
    timings: dict[str, float] = {}
    started = time.perf_counter()
    deadline = SolverDeadline(options.time_limit_s)
    work = model.copy()
    objective = pick_objective(work)
    no_carbon = carbon_free(medium, formulas)
    progress("baseline", 0.02, "growth before gapfilling")
    before = growth_on(work, medium, objective)
    timings["baseline"] = time.perf_counter() - started

    atp: AtpCorrection | None = None
    reused = False
    if options.mode in ("full", "atp_only"):
        if previous_atp is not None:
            atp, reused = previous_atp, True
            atp.apply(work, core_template)
        else:
            with _stage_errors(ErrorCode.ATP_CORRECTION_FAILED, "ATP correction"):
                atp = correct_atp(work, core_template, atp_media, deadline, progress, facts)
        timings["atp_correction"] = time.perf_counter() - started - sum(timings.values())

    genome: GenomeScaleResult | None = None
    current = growth_on(work, medium, objective) if atp is not None else before
    if options.mode in ("full", "genomescale_only") and current < options.target_growth:
        tests = atp.tests if atp is not None else [AtpTest("empty", EMPTY_THRESHOLD)]
        excluded = {f"{r}_c0" for r in facts.imbalanced} if options.exclude_imbalanced else set()
        blocked_ids = {r for r, _ in atp.blocked} if atp is not None else set()
        progress("genomescale", 0.40, "building the gapfilling network")
        with _stage_errors(ErrorCode.GENOMESCALE_GAPFILL_FAILED, "Genome-scale gapfilling"):
            genome = gapfill_genome_scale(work, genome_template, medium, objective, options.target_growth, tests,
                                          atp_media, no_carbon, options, excluded | blocked_ids,
                                          evidence_discounts(work), deadline, progress, facts)
        timings["genomescale"] = time.perf_counter() - started - sum(timings.values())
        if genome is None:
            best = _best_possible(work, genome_template, medium, objective, deadline, excluded)
            raise InfeasibilityError(
                ErrorCode.GAPFILL_INFEASIBLE,
                f"No set of {len(genome_template.reactions)} template reactions lets {objective} reach "
                f"{options.target_growth} /h on this medium without breaking the energy checks.",
                details={"target_growth": options.target_growth, "max_achievable_growth": round(best, 6),
                         "media_compounds": list(medium)[:60], "stage_failed": "genomescale",
                         "template_reactions_available": len(genome_template.reactions),
                         "original_model_preserved": True},
                suggestions=["Check that the medium has carbon, nitrogen, phosphorus and sulfur sources.",
                             "Lower target_growth_rate (max_achievable_growth says what is possible)."
                             if best > 0 else "Try a richer medium (e.g. add amino acids or vitamins)."],
                valid_next_steps=["build_media", "gapfill_model", "list_media"],
            )
    progress("verify", 0.9, "checking growth and energy with COBRApy")
    after = growth_on(work, medium, objective)
    quality = quality_checks(work, medium, no_carbon, objective, options.target_growth)
    timings["verify"] = time.perf_counter() - started - sum(timings.values())
    timings["total"] = time.perf_counter() - started
    return GapfillRun(work, before, after, atp, reused, genome, quality,
                      {k: round(v, 3) for k, v in timings.items()}, objective)


def _best_possible(model: cobra.Model, template: Any, medium: Medium, objective: str, deadline: SolverDeadline,
                   excluded: set[str]) -> float:
    """Most objective flux with every allowed template reaction open (for the error message)."""
    try:
        net = Network(model, template, deadline, excluded=excluded)
        column = net.col.get((objective, 1))
        if column is None:
            return 0.0
        lower, upper = net.bounds(medium, allowed=np.flatnonzero(net.gapfill_columns))
        return net.lp.maximize(column, lower, upper)
    except Exception:  # only decorates an error message
        return 0.0


# ---- convenience: everything from the data folder -----------------------------------------------


def reaction_facts(biochem: Any, templates: Iterable[Any], model: cobra.Model | None = None) -> ReactionFacts:
    """ReactionFacts for every reaction of the templates (and the model), from a BiochemIndex."""
    ids = {r.id.rsplit("_", 1)[0] for t in templates for r in t.reactions}
    if model is not None:
        ids |= {r.id.split("_")[0] for r in model.reactions if _RXN.match(r.id)}
    details = biochem.reaction_details(ids)
    return ReactionFacts(
        imbalanced=frozenset(k for k, d in details.items() if "MI" in d["status"]),
        reversibility={k: d["reversibility"] for k, d in details.items()},
        linked={k: tuple(d["linked"]) for k, d in details.items() if d["linked"]},
        deltag={k: d["deltag"] for k, d in details.items() if d["deltag"] is not None and abs(d["deltag"]) < 1e6},
    )


def gapfill_from_data(model: cobra.Model, medium: Medium, options: GapfillOptions, *, template_name: str,
                      data_dir: Path, biochem: Any, previous_atp: AtpCorrection | None = None,
                      progress: Progress = lambda *_: None) -> GapfillRun:
    """`gapfill` with templates, ATP media and biochemistry facts loaded from the data folder."""
    from gem_flux_mcp.data.templates import ATP_TEMPLATE, load_template

    progress("load", 0.01, f"loading the {template_name} and {ATP_TEMPLATE} templates")
    genome_template = load_template(data_dir, template_name)
    core_template = load_template(data_dir, ATP_TEMPLATE)
    atp_media = load_atp_media(atp_media_path())
    compounds = set(medium) | {c for m in atp_media.values() for c in m}
    formulas = {cid: formula for cid, (_, formula) in biochem.compound_names(compounds).items()}
    facts = reaction_facts(biochem, (genome_template, core_template), model)
    return gapfill(model, medium, options, genome_template=genome_template, core_template=core_template,
                   atp_media=atp_media, formulas=formulas, facts=facts, previous_atp=previous_atp,
                   progress=progress)
