"""Stopping growth the observations say should not be there: the checked, greedy blocking of
directions without genome evidence (fit.py's docstring describes the loop).

One loop serves both kinds of observation. A *target* is a key with a medium and, for a gene,
the reactions its deletion closes: a well observed not to grow (its compound on the array
medium), or a gene observed essential whose deletion still grows (`gene_key(g)`: the base
medium with that gene's reactions closed). A *protected* case is the same shape: an observed-
growth well, the base medium, or a gene observed non-essential whose deletion grows. A target
stops when its growth is at or below its limit; a protected case must stay above its own
(`limits`; default the growth call's threshold).

A protected deletion is solved only when it has to be (`shared`: the case with its medium and no
knockout, the base medium): when that case's current solution carries no flux through the
reactions the deletion closes, the same solution holds with them closed, so the deletion grows as
much (the shortcut of modeling/essentiality.py). On a genome-scale model most of a thousand
non-essential deletions take it.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from gem_flux_mcp.modeling import media as media_ops
from gem_flux_mcp.modeling.fluxlp import SolverDeadline
from gem_flux_mcp.modeling.gapfill.network import Medium
from gem_flux_mcp.modeling.reconcile.records import (
    Change,
    Conflict,
    ReconcileOptions,
    Reconciliation,
    Unreconciled,
    UnreconciledGene,
)

if TYPE_CHECKING:
    import cobra


ACTIVE = 1e-7
MAX_BLOCKS_PER_WELL = 8  # blocked directions tried for one target before it is given up
MAX_TRIALS = 15  # candidate directions checked against the protected cases per block
MAX_CONFLICTS_TESTED = 12  # gene-backed directions tried for a target that could not be reconciled
GENE_KEY = "gene:"  # prefix of a gene deletion's key (wells are keyed by compound id)


def gene_key(gene: str) -> str:
    return GENE_KEY + gene


def split_keys(keys: list[str]) -> tuple[list[str], list[str]]:
    """(compound ids of wells, gene ids of deletions) among target keys."""
    return ([k for k in keys if not k.startswith(GENE_KEY)],
            [k.removeprefix(GENE_KEY) for k in keys if k.startswith(GENE_KEY)])


def evidence_of(reaction: cobra.Reaction) -> str:
    """'genes' (a gene rule without the weak-homology note), 'weak' or 'none' (no gene)."""
    note = str(reaction.notes.get("gemflux_evidence") or "")
    if "weak_homology" in note:
        return "weak"
    return "genes" if reaction.gene_reaction_rule.strip() else "none"


def arrow(signs: set[int]) -> str:
    return "<>" if signs == {1, -1} else ">" if 1 in signs else "<"


def addition_changes(model: cobra.Model, additions: list[tuple[str, int, str]], wells: Mapping[str, list[str]],
                     deletions: list[str]) -> list[Change]:
    """One Change per reaction a gapfill added or reversed ((reaction, direction, action) rows,
    both directions of one reaction merged), naming the wells (per reaction) and the observed
    genes behind it."""
    directions: dict[str, set[int]] = {}
    for reaction_id, sign, _ in additions:
        directions.setdefault(reaction_id, set()).add(sign)
    changes = []
    for reaction_id, signs in directions.items():
        reaction = model.reactions.get_by_id(reaction_id)
        action = next(a for r, _, a in additions if r == reaction_id)
        changes.append(Change(reaction_id, reaction.name, action, arrow(signs), evidence_of(reaction),
                              reaction.gene_reaction_rule, wells.get(reaction_id, []), list(deletions)))
    return changes


class Blocker:
    """The greedy loop on `model` in place. The array medium is applied once for the whole loop
    (restored after it); each case is solved with only the exchange bounds by which its medium
    differs from it, and with its gene's reactions closed."""

    def __init__(self, model: cobra.Model, array_medium: Medium, protected: dict[str, dict[str, tuple[float, float]]],
                 objective: str, options: ReconcileOptions, budget: list[float], result: Reconciliation, *,
                 targets: Mapping[str, Medium], knockouts: Mapping[str, list[str]] | None = None,
                 limits: Mapping[str, float] | None = None, shared: Mapping[str, str] | None = None,
                 deadline: SolverDeadline | None = None) -> None:
        self.model, self.array_medium, self.objective, self.options = model, array_medium, objective, options
        self.budget, self.result = budget, result
        self.targets, self.knockouts, self.limits = targets, dict(knockouts or {}), dict(limits or {})
        self.shared = dict(shared or {})  # protected case -> the case whose solution may stand for it
        self.deadline = deadline  # past it, the targets left are reported, not tried
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
        self.solutions: dict[str, dict[str, float]] = {}
        for name, medium in sorted(protected.items(), key=lambda item: item[0] in self.shared):  # shared ones last
            self.solutions[name] = self._borrowed(name, self.solutions) or self._solve(name, medium, "fluxes")[1]
        self.blocks: list[tuple[str, int]] = []  # in the order made
        self.made_for: dict[tuple[str, int], list[str]] = {}
        self.original: dict[str, tuple[float, float]] = {}

    def _borrowed(self, name: str, solutions: Mapping[str, dict[str, float]]) -> dict[str, float] | None:
        """The shared case's solution in `solutions`, when it holds for `name` too (above)."""
        reference = solutions.get(self.shared.get(name, ""))
        if reference is None or reference.get(self.objective, 0.0) <= self.limit(name):
            return None
        return None if any(abs(reference.get(r, 0.0)) > ACTIVE for r in self.knockouts.get(name, ())) else reference

    def _out_of_time(self) -> bool:
        return self.deadline is not None and time.monotonic() - self.deadline.started >= self.deadline.seconds

    def limit(self, key: str) -> float:
        return self.limits.get(key, self.options.threshold)

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
        """Growth of case `key` ('value'), with the fluxes of a solution ('fluxes') or of the
        parsimonious one ('parsimonious')."""
        from cobra.flux_analysis import pfba

        with self.model:
            for rid, bounds in self._delta(key, medium).items():
                self.model.reactions.get_by_id(rid).bounds = bounds
            for rid in self.knockouts.get(key, ()):
                self.model.reactions.get_by_id(rid).bounds = (0.0, 0.0)
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
        """Block the direction if every protected case still grows above its limit."""
        self._set(reaction_id, sign, True)
        updated: dict[str, dict[str, float]] = {}
        for name, fluxes in self.solutions.items():  # the shared cases come first
            if sign * fluxes.get(reaction_id, 0.0) <= ACTIVE:
                continue  # its last solution does not use the direction: it still stands
            borrowed = self._borrowed(name, {**self.solutions, **updated})
            if borrowed is not None:
                updated[name] = borrowed
                continue
            value, new = self._solve(name, self.protected[name], "fluxes")
            if value <= self.limit(name):
                self._set(reaction_id, sign, False)
                return False
            updated[name] = new
        self.solutions.update(updated)
        return True

    def _growth(self, key: str, parsimonious: bool = False) -> tuple[float, dict[str, float]]:
        return self._solve(key, self.targets[key], "parsimonious" if parsimonious else "value")

    def _stopped(self, key: str) -> bool:
        return self._growth(key)[0] <= self.limit(key)

    def _unreconciled(self, key: str, reason: str) -> None:
        if key.startswith(GENE_KEY):
            self.result.unreconciled_genes.append(UnreconciledGene(key.removeprefix(GENE_KEY), True, reason))
        else:
            self.result.unreconciled.append(Unreconciled(key, False, reason))

    def run(self, keys: list[str]) -> None:
        try:
            self._run(keys)
        finally:
            self._restore()

    def _run(self, keys: list[str]) -> None:
        for key in keys:
            if self._stopped(key):
                continue  # an earlier block already stopped it
            if self.budget[0] < 1:
                self._unreconciled(key, "max_changes reached")
                continue
            if self._out_of_time():
                self._unreconciled(key, "the fit's time limit ran out before it was tried")
                continue
            self._stop(key)
        self._record(keys)

    def _stop(self, key: str) -> None:
        mine: list[tuple[str, int]] = []
        tried: set[tuple[str, int]] = set()
        for _ in range(MAX_BLOCKS_PER_WELL):
            value, fluxes = self._growth(key, parsimonious=True)
            if value <= self.limit(key):
                break
            candidates = [(rid, 1 if v > 0 else -1) for rid, v in fluxes.items()
                          if rid not in self.boundary and (rid, 1 if v > 0 else -1) not in tried
                          and (self.options.block_gene_backed
                               or evidence_of(self.model.reactions.get_by_id(rid)) != "genes")]
            candidates.sort(key=self._order(fluxes))
            backed = {d for d in candidates if evidence_of(self.model.reactions.get_by_id(d[0])) == "genes"}
            trials = ([d for d in candidates if d not in backed][:MAX_TRIALS]
                      + [d for d in candidates if d in backed][:MAX_TRIALS])  # gene-backed: only when allowed
            chosen = None
            for direction in trials:
                if self._out_of_time():
                    break
                tried.add(direction)
                if self._safe(*direction):
                    chosen = direction
                    break
            if chosen is None or len(mine) + 1 > self.budget[0]:
                if chosen is not None:
                    self._set(*chosen, False)
                break
            mine.append(chosen)
        if not self._stopped(key):
            for direction in mine:
                self._set(*direction, False)
            self._conflicts(key, self._growth(key, parsimonious=True)[1])
            return
        for direction in reversed(list(mine)):  # re-open what turned out unnecessary
            self._set(*direction, False)
            if not self._stopped(key):
                self._set(*direction, True)
            else:
                mine.remove(direction)
        self.budget[0] -= len(mine)
        for direction in mine:
            self.blocks.append(direction)
            self.made_for[direction] = [key]

    def _order(self, fluxes: Mapping[str, float]) -> Callable[[tuple[str, int]], tuple[int, int, float, str, int]]:
        """Sort key of candidate directions: without genome evidence before gene-backed ones (which
        are candidates only when the user allows), then those fewest protected solutions use (a
        bypass is what the target runs and the protected cases do not), then by the target's flux."""
        used: dict[tuple[str, int], int] = {}
        for solution in {id(f): f for f in self.solutions.values()}.values():  # a borrowed solution counts once
            for rid, v in solution.items():
                used[(rid, 1 if v > 0 else -1)] = used.get((rid, 1 if v > 0 else -1), 0) + 1
        backed = {rid: evidence_of(self.model.reactions.get_by_id(rid)) == "genes" for rid in fluxes}
        return lambda d: (int(backed[d[0]]), used.get(d, 0), -abs(fluxes[d[0]]), *d)

    def _conflicts(self, key: str, fluxes: Mapping[str, float]) -> None:
        """Gene-backed directions whose block alone would stop the target without breaking a
        protected case: listed, never applied."""
        found = []
        backed = sorted(((rid, 1 if v > 0 else -1) for rid, v in fluxes.items()
                         if rid not in self.boundary and evidence_of(self.model.reactions.get_by_id(rid)) == "genes"
                         and rid not in self.knockouts.get(key, ())), key=self._order(fluxes))
        wells, genes = split_keys([key])
        for rid, sign in backed[:MAX_CONFLICTS_TESTED]:
            if self._out_of_time():
                break
            self._set(rid, sign, True)
            stops = self._stopped(key)
            self._set(rid, sign, False)
            if stops and self._safe(rid, sign):
                self._set(rid, sign, False)
                reaction = self.model.reactions.get_by_id(rid)
                found.append(Conflict(rid, reaction.name, ">" if sign > 0 else "<", reaction.gene_reaction_rule,
                                      wells, genes))
        self.result.conflicts += found
        self._unreconciled(key, (
            f"only blocking gene-backed reactions would stop it ({', '.join(c.reaction for c in found)}: listed as "
            "conflicts)") if found else "no reaction without genome evidence can be blocked without stopping growth "
                                        "on an observed-growth well, the base medium or an observed non-essential "
                                        "gene's deletion")

    def _record(self, keys: list[str]) -> None:
        stopped = [k for k in keys if self._stopped(k)]
        for direction in self.blocks:  # the other targets a block stops: re-opening it alone lets them grow
            self._set(*direction, False)
            for key in stopped:
                if key not in self.made_for[direction] and not self._stopped(key):
                    self.made_for[direction].append(key)
            self._set(*direction, True)
        by_reaction: dict[str, list[tuple[str, int]]] = {}
        for rid, sign in self.blocks:
            by_reaction.setdefault(rid, []).append((rid, sign))
        emptied = []
        for rid, directions in by_reaction.items():
            reaction = self.model.reactions.get_by_id(rid)
            closed = reaction.lower_bound == 0 and reaction.upper_bound == 0
            signs = {s for _, s in directions}
            wells, genes = split_keys(list(dict.fromkeys(c for d in directions for c in self.made_for[d])))
            reaction.notes["gemflux_reconcile_blocked"] = json.dumps({"directions": arrow(signs), "wells": wells,
                                                                     **({"genes": genes} if genes else {})})
            self.result.changes.append(Change(rid, reaction.name, "removed" if closed else "blocked", arrow(signs),
                                              evidence_of(reaction), reaction.gene_reaction_rule, wells, genes))
            if closed:
                emptied.append(reaction)
        self.model.remove_reactions(emptied)
