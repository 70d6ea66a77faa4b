"""Stage 1, ATP correction: core metabolism held to the ATP yields the Core template explains on
the ATP test media; small core gaps filled; directions that make ATP from nothing closed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from gem_flux_mcp.modeling.fluxlp import SolverDeadline
from gem_flux_mcp.modeling.gapfill.changes import apply_changes, block_directions, flux_label, new_exchange
from gem_flux_mcp.modeling.gapfill.network import (
    ATP_MULTIPLIER,
    CORE_GAPFILL_DELTA,
    DEFAULT_ATP_MULTIPLIER,
    EMPTY_THRESHOLD,
    MAX_BAN_ROUNDS,
    MAX_CORE_GAPFILL,
    MIN_ATP,
    RXN_ID,
    AtpTest,
    Medium,
    Network,
    Progress,
    ReactionFacts,
    find_template_reaction,
)
from gem_flux_mcp.modeling.gapfill.steps import (
    Solution,
    ban_until_passing,
    cheapest_completion,
    exceeds,
    find_offender,
    reopen_unneeded,
    with_closed,
)

if TYPE_CHECKING:
    import cobra

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

    def replay(self, model: cobra.Model, core_template: Any) -> None:
        """Make the changes `correct_atp` made, in its order, to another copy of the model it
        corrected (the same model, not a gapfilled descendant: that is `apply`)."""
        self._change(model, core_template, self.added)

    def apply(self, model: cobra.Model, core_template: Any) -> None:
        """Make the same changes to `model` (a copy of the model this was computed on)."""
        self._change(model, core_template, [a for a in self.added if a[0] not in model.reactions])

    def _change(self, model: cobra.Model, core_template: Any, added: list[tuple[str, int]]) -> None:
        set_core_directions(model, self.core_directions)
        apply_changes(model, core_template, added, source="atp_correction")
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
        model.add_reactions([new_exchange(m) for m in model.metabolites if m.compartment == "e0"])
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
        match = RXN_ID.match(reaction.id)
        if not match:
            continue
        candidates = (match.group(1), *linked.get(match.group(1), ()))
        stoich = {m.id: c for m, c in reaction.metabolites.items()}
        for base in candidates:
            core = find_template_reaction(core_template, f"{base}_{match.group(2)}{match.group(3)}")
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
    bounds = {name: net.bounds(medium, only_core=keep, atp_test=True) for name, medium in atp_media.items()}
    yields = dict(zip(bounds, net.lp.maximize_many(net.atp_column, list(bounds.values())), strict=True))
    for n, name in enumerate(atp_media):
        progress("atp_correction", 0.05 + 0.25 * n / len(atp_media), f"ATP yield on {name}")
        lower, upper = bounds[name]
        atp = yields[name]
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
        result.core_gapfill[name] = {"reactions": [flux_label(net.fluxes[i]) for i in solution.columns],
                                     "score": scores[name]}
    result.loop_candidates = sorted(flux_label(net.fluxes[i]) for i in loops)
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
    usable = [name for name, score in scores.items() if name != "empty" and score <= MAX_CORE_GAPFILL]
    corrected = net.lp.maximize_many(net.atp_column, [
        net.bounds(atp_media[name], only_core=keep, atp_test=True,
                   allowed=[*added, *(solutions[name].columns if name in solutions else [])]) for name in usable])
    for name, most in zip(usable, corrected, strict=True):
        threshold = ATP_MULTIPLIER.get(name, DEFAULT_ATP_MULTIPLIER) * max(most, reference.get(name, 0.0))
        tests.append(AtpTest(name, threshold if threshold > 0 else EMPTY_THRESHOLD))
    result.tests = tests

    # expansion: the whole draft must pass the tests; offending non-core directions are blocked
    # (closing a direction only lowers ATP, so one pass over the tests is enough)
    progress("atp_correction", 0.32, f"checking the genome-scale draft against {len(tests)} ATP tests")
    blocked: set[int] = set()
    internal = [i for i, f in enumerate(net.fluxes) if f.kind == "model" and f.reaction not in keep]
    noncore = [i for i in internal if net.fluxes[i].reaction not in core_of]
    order: list[int] = []
    origin: dict[int, int] = {}  # blocked column -> the test whose bans closed it
    checks = [net.bounds(atp_media[test.medium], allowed=added, atp_test=True) for test in tests]
    # every test's most ATP before any block, at once: a test that passes then passes with more
    # directions closed too, so only the others are asked again (as blocks accrue)
    first = net.lp.maximize_many(net.atp_column, checks)
    for n, test in enumerate(tests):
        if not exceeds(first[n], test.threshold):
            continue
        lower, upper = checks[n][0], with_closed(checks[n][1], np.fromiter(blocked, dtype=int))
        # with nothing to eat, any reaction may be part of the cycle; otherwise core stays as corrected
        suspects = internal if test.medium == "empty" else noncore
        newly = ban_until_passing(net, lower, upper, suspects, net.atp_column, test.threshold,
                                  most=None if blocked else first[n]).closed
        order += [i for i in suspects if i in newly]
        origin.update((i, n) for i in newly)
        blocked |= newly
    progress("atp_correction", 0.36, "re-opening blocked directions that later blocks made unnecessary")
    blocked = reopen_unneeded(net, tests, atp_media, added, blocked, order, origin=origin)
    result.blocked = [(net.fluxes[i].reaction, net.fluxes[i].direction) for i in sorted(blocked)]
    apply_changes(model, core_template, result.added, source="atp_correction")
    block_directions(model, result.blocked)
    return result
