"""A model fitted to observed growth on a phenotype plate: additions for the wells that grow but
are not predicted to, blocked directions for the wells predicted to grow that do not.

Observed growth, not predicted: ONE joint gapfill over all those wells (`gapfill_genome_scale`,
the multi-medium search of gapfill_model: one copy of the network per well, a reaction pays once
however many wells use it), costed by genome evidence as gapfilling is, with the no-ATP-from-
nothing and no-growth-without-carbon checks. Wells no template reaction set can reach are left
out first (one LP each on the same network), so one impossible well does not sink the others.

Predicted growth, not observed: a greedy loop with checks, not a MILP. A MILP over every
predicted-growth well at once would hold one network copy per protected well (the observed-growth
wells and the base medium) plus one per blocked well, with an indicator per candidate direction:
thousands of integer columns on 190 copies of a genome-scale network. The loop instead, for one
well at a time: solves it (parsimonious FBA), blocks one direction that carries its flux among
the reactions with no or weak genome evidence (no gene, or the weak-homology note of the build),
preferring directions no protected medium uses, and keeps the block only if every protected
medium still grows (a medium is re-solved only when its last solution used the blocked
direction: otherwise that solution still stands). It repeats until the well stops growing, then
re-opens each of its blocks that turned out unnecessary. A gene-backed reaction is never blocked:
when only such reactions would stop the well, they are listed as conflicts and the well as not
reconciled. Both directions blocked means the reaction is removed.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from gem_flux_mcp.modeling import media as media_ops
from gem_flux_mcp.modeling.fluxlp import SolverDeadline
from gem_flux_mcp.modeling.gapfill.changes import evidence_discounts
from gem_flux_mcp.modeling.gapfill.checks import carbon_free, growth_on, quality_checks
from gem_flux_mcp.modeling.gapfill.genome_scale import gapfill_genome_scale
from gem_flux_mcp.modeling.gapfill.network import (
    EMPTY_THRESHOLD,
    AtpTest,
    GapfillOptions,
    Medium,
    Network,
    ReactionFacts,
)
from gem_flux_mcp.modeling.phenotypes import growth_phenotypes
from gem_flux_mcp.modeling.reconcile.outcome import (
    Change,
    Conflict,
    ReconcileOptions,
    Reconciliation,
    Unreconciled,
    Well,
    grows,
)
from gem_flux_mcp.modeling.translation import trna_ligases

if TYPE_CHECKING:
    import cobra

Progress = Callable[[str, float, str], None]
ACTIVE = 1e-7
MAX_BLOCKS_PER_WELL = 8  # blocked directions tried for one well before it is given up
MAX_TRIALS = 15  # candidate directions checked against the protected media per block
MAX_CONFLICTS_TESTED = 12  # gene-backed directions tried for a well that could not be reconciled
TARGET_MARGIN = 1.05  # gapfilled wells must grow this much above the growth call's threshold
DEFAULT_OPTIONS = ReconcileOptions()
EMPTY_MEDIUM = {"cpd00001": (-1000.0, 1000.0), "cpd00067": (-1000.0, 1000.0)}  # water and protons only


def well_medium(array_medium: Medium, compound: str, uptake: float) -> dict[str, tuple[float, float]]:
    return {**array_medium, compound: (-uptake, 1000.0)}


def predict(model: cobra.Model, array_medium: Medium, compounds: Sequence[str], uptake: float,
            objective: str) -> dict[str, float | None]:
    """Predicted growth per compound as predict_growth_phenotypes computes it (None: no exchange)."""
    with model:
        exchanges = media_ops.resolve_exchanges(model)
        media_ops.apply_medium(model, array_medium, exchanges)
        model.objective = objective
        return dict(growth_phenotypes(model, compounds, exchanges, uptake).growth)


def evidence_of(reaction: cobra.Reaction) -> str:
    """'genes' (a gene rule without the weak-homology note), 'weak' or 'none' (no gene)."""
    note = str(reaction.notes.get("gemflux_evidence") or "")
    if "weak_homology" in note:
        return "weak"
    return "genes" if reaction.gene_reaction_rule.strip() else "none"


def reconcile(model: cobra.Model, base_medium: Medium, array_medium: Medium, wells: Sequence[Well], template: Any,
              *, objective: str, formulas: Mapping[str, str], facts: ReactionFacts | None = None,
              options: ReconcileOptions = DEFAULT_OPTIONS, also_predict: Sequence[str] = (),
              progress: Progress = lambda *_: None) -> Reconciliation:
    """Fit a copy of `model` (the argument is not changed) to `wells`: `array_medium` is the base
    medium without the panel's reference sources, each well adds its compound at `options.uptake`.
    Predictions before and after cover the wells and `also_predict` (held-out wells)."""
    started = time.perf_counter()
    facts = facts or ReactionFacts()
    deadline = SolverDeadline(options.time_limit_s)
    work = model.copy()
    compounds = list(dict.fromkeys([*(w.compound for w in wells), *also_predict]))
    progress("predict", 0.02, f"predicting {len(compounds)} wells before fitting")
    before = predict(work, array_medium, compounds, options.uptake, objective)
    base_before = growth_on(work, base_medium, objective)
    result = Reconciliation(work, before, {}, (base_before, base_before))
    result.timings["predict"] = time.perf_counter() - started
    budget = [options.max_changes if options.max_changes is not None else math.inf]
    missing = [w.compound for w in wells if w.grows and not grows(before[w.compound], options.threshold)]
    if missing:
        progress("gapfill", 0.1, f"one joint gapfill over {len(missing)} wells with growth not predicted")
        result.model = work = _add_for_growth(work, base_medium, array_medium, missing, template, objective, formulas,
                                              facts, options, deadline, budget, result)
    result.timings["gapfill"] = time.perf_counter() - started - sum(result.timings.values())
    middle = predict(work, array_medium, [w.compound for w in wells], options.uptake, objective)
    extra = [w.compound for w in wells if not w.grows and grows(middle[w.compound], options.threshold)]
    if extra:
        progress("block", 0.6, f"blocking growth on {len(extra)} wells observed not to grow")
        protected = {w.compound: well_medium(array_medium, w.compound, options.uptake) for w in wells
                     if w.grows and grows(middle[w.compound], options.threshold)}
        if base_before > options.threshold:
            protected["base medium"] = dict(base_medium)
        _Blocker(work, array_medium, protected, objective, options, budget, result).run(extra)
    result.timings["block"] = time.perf_counter() - started - sum(result.timings.values())
    progress("verify", 0.9, "predicting every well after fitting")
    result.after = predict(work, array_medium, compounds, options.uptake, objective)
    result.base_growth = (base_before, growth_on(work, base_medium, objective))
    result.quality = quality_checks(work, base_medium, carbon_free(base_medium, formulas), objective,
                                    options.threshold if base_before > options.threshold else 0.0)
    listed = {u.compound for u in result.unreconciled}
    for w in wells:
        if grows(result.after[w.compound], options.threshold) != w.grows and w.compound not in listed:
            result.unreconciled.append(Unreconciled(w.compound, w.grows, "still predicted "
                                                    + ("growth" if not w.grows else "no growth") + " after fitting"))
    result.timings["verify"] = time.perf_counter() - started - sum(result.timings.values())
    result.timings = {k: round(v, 3) for k, v in result.timings.items()}
    return result


# ---- observed growth: one joint gapfill -------------------------------------------------------


def _add_for_growth(work: cobra.Model, base_medium: Medium, array_medium: Medium, missing: list[str], template: Any,
                    objective: str, formulas: Mapping[str, str], facts: ReactionFacts, options: ReconcileOptions,
                    deadline: SolverDeadline, budget: list[float], result: Reconciliation) -> cobra.Model:
    target = options.threshold * TARGET_MARGIN
    needed = {f"{c.reaction}0" for c in trna_ligases(template).values()}
    excluded = {f"{r}_c0" for r in facts.imbalanced} - needed
    discounts = evidence_discounts(work)
    net = Network(work, template, deadline, excluded=excluded, discounts=discounts,
                  reversibility=facts.reversibility, deltag=facts.deltag)
    column = net.col.get((objective, 1))
    if column is None:
        result.unreconciled += [Unreconciled(c, True, f"the objective {objective} cannot carry flux") for c in missing]
        return work
    media = {c: well_medium(array_medium, c, options.uptake) for c in missing}
    reachable = []
    everything = np.flatnonzero(net.gapfill_columns)
    for compound in missing:
        most = net.lp.maximize(column, *net.bounds(media[compound], allowed=everything))
        if most < target:
            result.unreconciled.append(Unreconciled(compound, True, f"no set of template reactions lets the model "
                                                    f"grow on it (at most {round(most, 4)} /h)"))
        else:
            reachable.append(compound)
    if not reachable:
        return work
    trial = work.copy()
    found = gapfill_genome_scale(trial, template, [media[c] for c in reachable], objective, target,
                                 [AtpTest("empty", EMPTY_THRESHOLD)], {"empty": EMPTY_MEDIUM},
                                 [carbon_free(base_medium, formulas)], GapfillOptions(target_growth=target), excluded,
                                 discounts, deadline, lambda *_: None, facts)
    if found is None:
        result.unreconciled += [Unreconciled(c, True, "the joint gapfill over these wells found no reactions that "
                                             "pass the energy checks") for c in reachable]
        return work
    additions = [(r, s, "added") for r, s in found.added] + [(r, s, "reversed") for r, s in found.reversed]
    if len({r for r, _, _ in additions}) > budget[0]:
        result.unreconciled += [Unreconciled(c, True, f"needs {len({r for r, _, _ in additions})} added reactions, "
                                             f"more than max_changes") for c in reachable]
        return work
    budget[0] -= len({r for r, _, _ in additions})
    behind = _wells_using(trial, {r for r, _, _ in additions}, media, reachable, objective)
    directions: dict[str, set[int]] = {}
    for reaction_id, sign, _ in additions:
        directions.setdefault(reaction_id, set()).add(sign)
    for reaction_id, signs in directions.items():
        reaction = trial.reactions.get_by_id(reaction_id)
        action = next(a for r, _, a in additions if r == reaction_id)
        result.changes.append(Change(reaction_id, reaction.name, action, _arrow(signs), evidence_of(reaction),
                                     reaction.gene_reaction_rule, behind.get(reaction_id, [])))
    return trial


def _wells_using(model: cobra.Model, reactions: set[str], media: Mapping[str, Medium], wells: list[str],
                 objective: str) -> dict[str, list[str]]:
    """Per reaction of `reactions`, the wells whose parsimonious growth solution runs through it."""
    from cobra.flux_analysis import pfba

    exchanges = media_ops.resolve_exchanges(model)
    behind: dict[str, list[str]] = {}
    for compound in wells:
        with model:
            media_ops.apply_medium(model, media[compound], exchanges)
            model.objective = objective
            try:
                fluxes = pfba(model).fluxes
            except Exception:  # infeasible: the well is reported as not reconciled by the final check
                continue
        for reaction_id in reactions:
            if abs(fluxes.get(reaction_id, 0.0)) > ACTIVE:
                behind.setdefault(reaction_id, []).append(compound)
    return behind


def _arrow(signs: set[int]) -> str:
    return "<>" if signs == {1, -1} else ">" if 1 in signs else "<"


# ---- predicted growth, not observed: blocks, checked ---------------------------------------------


class _Blocker:
    """The greedy loop of the module docstring, on `model` in place. The array medium is applied
    once for the whole loop (restored after it); each well or protected medium is solved with only
    the exchange bounds by which it differs from it."""

    def __init__(self, model: cobra.Model, array_medium: Medium, protected: dict[str, dict[str, tuple[float, float]]],
                 objective: str, options: ReconcileOptions, budget: list[float], result: Reconciliation) -> None:
        self.model, self.array_medium, self.objective, self.options = model, array_medium, objective, options
        self.budget, self.result = budget, result
        self.exchanges = media_ops.resolve_exchanges(model)
        ids = sorted({i.reaction_id for i in self.exchanges})
        self.saved = {rid: model.reactions.get_by_id(rid).bounds for rid in ids}
        self.saved_objective = {r.id: r.objective_coefficient for r in model.reactions if r.objective_coefficient}
        media_ops.apply_medium(model, array_medium, self.exchanges)
        model.objective = objective
        self.array_bounds = {rid: model.reactions.get_by_id(rid).bounds for rid in ids}
        self.deltas: dict[str, dict[str, tuple[float, float]]] = {}
        self.boundary = {r.id for r in model.boundary} | {objective}
        self.protected = protected
        self.solutions = {name: self._solve(name, medium, "fluxes")[1] for name, medium in protected.items()}
        self.blocks: list[tuple[str, int]] = []  # in the order made
        self.made_for: dict[tuple[str, int], list[str]] = {}
        self.original: dict[str, tuple[float, float]] = {}

    def _delta(self, key: str, medium: Mapping[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
        """The exchange bounds by which `medium` differs from the array medium (found once)."""
        if key not in self.deltas:
            with self.model:
                media_ops.apply_medium(self.model, medium, self.exchanges)
                now = {rid: self.model.reactions.get_by_id(rid).bounds for rid in self.array_bounds}
            self.deltas[key] = {rid: b for rid, b in now.items() if b != self.array_bounds[rid]}
        return self.deltas[key]

    def _solve(self, key: str, medium: Mapping[str, tuple[float, float]], how: str = "value"
               ) -> tuple[float, dict[str, float]]:
        """Growth on `medium` ('value'), with the fluxes of a solution ('fluxes') or of the
        parsimonious one ('parsimonious')."""
        from cobra.flux_analysis import pfba

        with self.model:
            for rid, bounds in self._delta(key, medium).items():
                self.model.reactions.get_by_id(rid).bounds = bounds
            if how == "value":
                value = self.model.slim_optimize(error_value=float("nan"))
                return (0.0 if math.isnan(value) else max(float(value), 0.0)), {}
            if how == "parsimonious":
                try:
                    solution = pfba(self.model)
                except Exception:  # infeasible
                    return 0.0, {}
                value = float(solution.fluxes[self.objective])
            else:
                solution = self.model.optimize()
                if solution.status != "optimal":
                    return 0.0, {}
                value = float(solution.objective_value)
            return max(value, 0.0), {r: float(v) for r, v in solution.fluxes.items() if abs(v) > ACTIVE}

    def _restore(self) -> None:
        for rid, bounds in self.saved.items():
            if rid in self.model.reactions:
                self.model.reactions.get_by_id(rid).bounds = bounds
        self.model.objective = {self.model.reactions.get_by_id(r): c for r, c in self.saved_objective.items()
                                if r in self.model.reactions}

    def _set(self, reaction_id: str, sign: int, closed: bool) -> None:
        reaction = self.model.reactions.get_by_id(reaction_id)
        self.original.setdefault(reaction_id, reaction.bounds)
        lower, upper = reaction.bounds
        if sign > 0:
            upper = 0.0 if closed else self.original[reaction_id][1]
        else:
            lower = 0.0 if closed else self.original[reaction_id][0]
        reaction.bounds = (lower, upper)

    def _safe(self, reaction_id: str, sign: int) -> bool:
        """Block the direction if every protected medium still grows above the threshold."""
        self._set(reaction_id, sign, True)
        updated = {}
        for name, fluxes in self.solutions.items():
            if sign * fluxes.get(reaction_id, 0.0) <= ACTIVE:
                continue  # its last solution does not use the direction: it still stands
            value, new = self._solve(name, self.protected[name], "fluxes")
            if value <= self.options.threshold:
                self._set(reaction_id, sign, False)
                return False
            updated[name] = new
        self.solutions.update(updated)
        return True

    def _growth(self, compound: str, parsimonious: bool = False) -> tuple[float, dict[str, float]]:
        return self._solve(compound, well_medium(self.array_medium, compound, self.options.uptake),
                           "parsimonious" if parsimonious else "value")

    def run(self, wells: list[str]) -> None:
        try:
            self._run(wells)
        finally:
            self._restore()

    def _run(self, wells: list[str]) -> None:
        for compound in wells:
            if self._growth(compound)[0] <= self.options.threshold:
                continue  # an earlier block already stopped it
            if self.budget[0] < 1:
                self.result.unreconciled.append(Unreconciled(compound, False, "max_changes reached"))
                continue
            self._stop(compound)
        self._record(wells)

    def _stop(self, compound: str) -> None:
        mine: list[tuple[str, int]] = []
        tried: set[tuple[str, int]] = set()
        for _ in range(MAX_BLOCKS_PER_WELL):
            value, fluxes = self._growth(compound, parsimonious=True)
            if value <= self.options.threshold:
                break
            candidates = [(rid, 1 if v > 0 else -1) for rid, v in fluxes.items()
                          if rid not in self.boundary and (rid, 1 if v > 0 else -1) not in tried
                          and evidence_of(self.model.reactions.get_by_id(rid)) != "genes"]
            used = {name: {(r, 1 if v > 0 else -1) for r, v in f.items()} for name, f in self.solutions.items()}
            candidates.sort(key=lambda d: (sum(d in u for u in used.values()), -abs(fluxes[d[0]]), d))
            chosen = None
            for direction in candidates[:MAX_TRIALS]:
                tried.add(direction)
                if self._safe(*direction):
                    chosen = direction
                    break
            if chosen is None or len(mine) + 1 > self.budget[0]:
                if chosen is not None:
                    self._set(*chosen, False)
                break
            mine.append(chosen)
        if self._growth(compound)[0] > self.options.threshold:
            for direction in mine:
                self._set(*direction, False)
            self._conflicts(compound, self._growth(compound, parsimonious=True)[1])
            return
        for direction in reversed(list(mine)):  # re-open what turned out unnecessary
            self._set(*direction, False)
            if self._growth(compound)[0] > self.options.threshold:
                self._set(*direction, True)
            else:
                mine.remove(direction)
        self.budget[0] -= len(mine)
        for direction in mine:
            self.blocks.append(direction)
            self.made_for[direction] = [compound]

    def _conflicts(self, compound: str, fluxes: Mapping[str, float]) -> None:
        """Gene-backed directions whose block alone would stop the well without breaking a
        protected medium: listed, never applied."""
        found = []
        backed = [(rid, 1 if v > 0 else -1) for rid, v in sorted(fluxes.items(), key=lambda i: -abs(i[1]))
                  if rid not in self.boundary and evidence_of(self.model.reactions.get_by_id(rid)) == "genes"]
        for rid, sign in backed[:MAX_CONFLICTS_TESTED]:
            self._set(rid, sign, True)
            stops = self._growth(compound)[0] <= self.options.threshold
            self._set(rid, sign, False)
            if stops and self._safe(rid, sign):
                self._set(rid, sign, False)
                reaction = self.model.reactions.get_by_id(rid)
                found.append(Conflict(rid, reaction.name, ">" if sign > 0 else "<", reaction.gene_reaction_rule,
                                      [compound]))
        self.result.conflicts += found
        self.result.unreconciled.append(Unreconciled(compound, False, (
            f"only blocking gene-backed reactions would stop it ({', '.join(c.reaction for c in found)}: listed as "
            "conflicts)") if found else "no reaction without genome evidence can be blocked without stopping growth "
                                        "on an observed-growth well or the base medium"))

    def _record(self, wells: list[str]) -> None:
        stopped = [c for c in wells if self._growth(c)[0] <= self.options.threshold]
        for direction in self.blocks:  # the other wells a block stops: re-opening it alone lets them grow
            self._set(*direction, False)
            for compound in stopped:
                if compound not in self.made_for[direction] and self._growth(compound)[0] > self.options.threshold:
                    self.made_for[direction].append(compound)
            self._set(*direction, True)
        by_reaction: dict[str, list[tuple[str, int]]] = {}
        for rid, sign in self.blocks:
            by_reaction.setdefault(rid, []).append((rid, sign))
        emptied = []
        for rid, directions in by_reaction.items():
            reaction = self.model.reactions.get_by_id(rid)
            closed = reaction.lower_bound == 0 and reaction.upper_bound == 0
            signs = {s for _, s in directions}
            wells_behind = list(dict.fromkeys(c for d in directions for c in self.made_for[d]))
            reaction.notes["gemflux_reconcile_blocked"] = json.dumps({"directions": _arrow(signs),
                                                                     "wells": wells_behind})
            self.result.changes.append(Change(rid, reaction.name, "removed" if closed else "blocked", _arrow(signs),
                                              evidence_of(reaction), reaction.gene_reaction_rule, wells_behind))
            if closed:
                emptied.append(reaction)
        self.model.remove_reactions(emptied)
