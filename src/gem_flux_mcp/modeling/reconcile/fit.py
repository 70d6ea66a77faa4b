"""A model fitted to observed growth on a phenotype plate and, when given, observed gene
essentiality: additions for the wells that grow but are not predicted to and for the genes
observed non-essential whose deletion is predicted lethal (genes.py), blocked directions for the
wells predicted to grow that do not and for the genes observed essential whose deletion still
grows (blocking.py). Steps in order: the wells' gapfills, the genes' rescues, one blocking
run over both kinds of target, then the predictions after.

Observed growth, not predicted: gapfills over batches of JOINT_WELLS of those wells, one at a
time by default (`gapfill_genome_scale`, the multi-medium search of gapfill_model: one copy of the
network per well of a batch, a reaction pays once however many of them use it), costed by genome
evidence as gapfilling is, with the no-ATP-from-nothing and no-growth-without-carbon checks; each
batch starts from the additions of the ones before, which pay nothing again, and a well they
already let grow is not gapfilled again. One LP holding a network copy for every well grew too
slow past a few wells (B. subtilis' carbon plate: 13 wells, not done within the fit's 300 s
with HiGHS' simplex, ~50 s per LP with its interior point; see JOINT_WELLS). Wells no template reaction
set can reach are left out first (one LP each on the same network), and a batch that finds
nothing is retried well by well, so one impossible well does not sink the others.

Predicted growth, not observed: a greedy loop with checks, not a MILP. A MILP over every
predicted-growth well at once would hold one network copy per protected well (the observed-growth
wells and the base medium) plus one per blocked well, with an indicator per candidate direction:
thousands of integer columns on 190 copies of a genome-scale network. The loop instead, for one
well at a time: solves it (parsimonious FBA), blocks one direction that carries its flux among
the reactions with no or weak genome evidence (no gene, or the weak-homology note of the build),
preferring directions no protected medium uses, and keeps the block only if every protected
medium still grows (a medium is re-solved only when its last solution used the blocked
direction: otherwise that solution still stands). It repeats until the well stops growing, then
re-opens each of its blocks that turned out unnecessary. A gene-backed reaction is not blocked
unless the user allows it (`ReconcileOptions.block_gene_backed`, tried after the directions
without evidence): otherwise, when only such reactions would stop the well, they are listed as
conflicts and the well as not reconciled. Both directions blocked means the reaction is removed.
A gene observed essential whose deletion grows is a target of the same loop (its deletion's flux
blocked), and every observed non-essential deletion that grows is protected like a well.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from gem_flux_mcp.errors import TimeoutError_
from gem_flux_mcp.modeling import media as media_ops
from gem_flux_mcp.modeling.essentiality import closed_by_gene
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
from gem_flux_mcp.modeling.reconcile.blocking import Blocker, addition_changes, gene_key
from gem_flux_mcp.modeling.reconcile.genes import (
    EMPTY_MEDIUM,
    deletion_growth,
    excluded_reactions,
    rescue,
)
from gem_flux_mcp.modeling.reconcile.records import (
    Gene,
    ReconcileOptions,
    Reconciliation,
    Unreconciled,
    UnreconciledGene,
    Well,
    grows,
)

if TYPE_CHECKING:
    import cobra

Progress = Callable[[str, float, str], None]
ACTIVE = 1e-7
TARGET_MARGIN = 1.05  # gapfilled wells must grow this much above the growth call's threshold
# wells per joint gapfill (its LP holds a copy of the network per well). One: each well is
# gapfilled in turn from the additions before it, which pay nothing again. On B. subtilis' carbon
# plate (13 wells, 3 seeds) batches of 4 took 146-187 s a fit, most of it solving the 4-copy LP
# again and again (47-51 solves a batch, with the energy checks' bans); one well at a time took
# 30-38 s, with the same calls on every fitted and held-out well and 20-29 additions either way.
JOINT_WELLS = 1
GAPFILL_SHARE = 0.6  # of the fit's time limit, for the additions (the blocking gets the rest)
OUT_OF_TIME = "the gapfill for the observed growers ran out of its share of the fit's time"
DEFAULT_OPTIONS = ReconcileOptions()


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


def reconcile(model: cobra.Model, base_medium: Medium, array_medium: Medium, wells: Sequence[Well], template: Any,
              *, objective: str, formulas: Mapping[str, str], facts: ReactionFacts | None = None,
              options: ReconcileOptions = DEFAULT_OPTIONS, also_predict: Sequence[str] = (),
              genes: Sequence[Gene] = (), also_predict_genes: Sequence[str] = (),
              progress: Progress = lambda *_: None) -> Reconciliation:
    """Fit a copy of `model` (the argument is not changed) to `wells` and `genes`: `array_medium`
    is the base medium without the panel's reference sources, each well adds its compound at
    `options.uptake`; gene deletions are predicted on the full base medium (genes.py). Predictions
    before and after cover the wells and `also_predict` (held-out wells), the genes and
    `also_predict_genes` (held-out genes)."""
    started = time.perf_counter()
    facts = facts or ReactionFacts()
    deadline = SolverDeadline(options.time_limit_s)
    work = model.copy()
    compounds = list(dict.fromkeys([*(w.compound for w in wells), *also_predict]))
    gene_ids = list(dict.fromkeys([*(g.gene for g in genes), *also_predict_genes]))
    progress("predict", 0.02, f"predicting {len(compounds)} wells and {len(gene_ids)} deletions before fitting")
    before = predict(work, array_medium, compounds, options.uptake, objective)
    base_before = growth_on(work, base_medium, objective)
    result = Reconciliation(work, before, {}, (base_before, base_before))
    result.deletions_before = deletion_growth(work, base_medium, gene_ids, objective)
    result.timings["predict"] = time.perf_counter() - started
    budget = [options.max_changes if options.max_changes is not None else math.inf]
    missing = [w.compound for w in wells if w.grows and not grows(before[w.compound], options.threshold)]
    if missing:
        progress("gapfill", 0.1, f"gapfilling for {len(missing)} wells with growth not predicted")
        result.model = work = _add_for_growth(work, base_medium, array_medium, missing, template, objective, formulas,
                                              facts, options, deadline, budget, result)
    result.timings["gapfill"] = time.perf_counter() - started - sum(result.timings.values())
    lethal = _lethal(work, base_medium, [g.gene for g in genes if not g.essential], objective, options)
    if lethal:
        progress("rescue", 0.4, f"gapfilling for {len(lethal)} genes observed non-essential, predicted lethal")
        result.model = work = rescue(work, base_medium, lethal, template, objective=objective, formulas=formulas,
                                     facts=facts, ratio=options.essential_ratio, deadline=deadline,
                                     discounts=evidence_discounts(work), budget=budget, result=result)
    result.timings["rescue"] = time.perf_counter() - started - sum(result.timings.values())
    _block(work, base_medium, array_medium, wells, genes, objective, options, budget, result, progress, deadline)
    result.timings["block"] = time.perf_counter() - started - sum(result.timings.values())
    progress("verify", 0.9, "predicting every well and deletion after fitting")
    result.after = predict(work, array_medium, compounds, options.uptake, objective)
    result.base_growth = (base_before, growth_on(work, base_medium, objective))
    result.deletions_after = deletion_growth(work, base_medium, gene_ids, objective)
    result.quality = quality_checks(work, base_medium, carbon_free(base_medium, formulas), objective,
                                    options.threshold if base_before > options.threshold else 0.0)
    _still_mismatched(result, wells, genes, options)
    result.timings["verify"] = time.perf_counter() - started - sum(result.timings.values())
    result.timings = {k: round(v, 3) for k, v in result.timings.items()}
    return result


def _lethal(work: cobra.Model, base_medium: Medium, genes: list[str], objective: str, options: ReconcileOptions
            ) -> list[str]:
    growth = deletion_growth(work, base_medium, genes, objective)
    limit = options.essential_ratio * growth_on(work, base_medium, objective)
    return [g for g in genes if growth[g] < limit]


def _block(work: cobra.Model, base_medium: Medium, array_medium: Medium, wells: Sequence[Well],
           genes: Sequence[Gene], objective: str, options: ReconcileOptions, budget: list[float],
           result: Reconciliation, progress: Progress, deadline: SolverDeadline) -> None:
    """One checked blocking run over the wells observed not to grow and the genes observed
    essential whose deletion grows, protecting the base medium, the growing observed-growth wells
    and the viable observed non-essential deletions (blocking.py)."""
    middle = predict(work, array_medium, [w.compound for w in wells], options.uptake, objective)
    extra = [w.compound for w in wells if not w.grows and grows(middle[w.compound], options.threshold)]
    base_now = growth_on(work, base_medium, objective)
    deletions = deletion_growth(work, base_medium, [g.gene for g in genes], objective)
    limit = options.essential_ratio * base_now
    bypassed = [g.gene for g in genes if g.essential and deletions[g.gene] >= limit]
    for gene in [g for g in bypassed if not closed_by_gene(work, g)]:
        bypassed.remove(gene)
        result.unreconciled_genes.append(UnreconciledGene(gene, True, (
            "its deletion closes no reaction (each of its reactions' gene rules holds without it: an isozyme or an "
            "alternative subunit): only a gene rule change, not a block, would make it essential")))
    if not extra and not bypassed:
        return
    progress("block", 0.6, f"blocking growth on {len(extra)} wells observed not to grow and {len(bypassed)} "
                           "deletions observed lethal")
    protected = {w.compound: well_medium(array_medium, w.compound, options.uptake) for w in wells
                 if w.grows and grows(middle[w.compound], options.threshold)}
    if result.base_growth[0] > options.threshold:
        protected["base medium"] = dict(base_medium)
    viable = [g.gene for g in genes if not g.essential and deletions[g.gene] >= limit]
    protected.update({gene_key(g): dict(base_medium) for g in viable})
    targets = {c: well_medium(array_medium, c, options.uptake) for c in extra}
    targets.update({gene_key(g): dict(base_medium) for g in bypassed})
    knockouts = {gene_key(g): closed_by_gene(work, g) for g in [*viable, *bypassed]}
    limits = {gene_key(g): limit for g in [*viable, *bypassed]}
    shared = {gene_key(g): "base medium" for g in viable} if "base medium" in protected else {}
    Blocker(work, array_medium, protected, objective, options, budget, result, targets=targets,
            knockouts=knockouts, limits=limits, shared=shared, deadline=deadline).run(list(targets))


def _still_mismatched(result: Reconciliation, wells: Sequence[Well], genes: Sequence[Gene],
                      options: ReconcileOptions) -> None:
    listed = {u.compound for u in result.unreconciled}
    for w in wells:
        if grows(result.after[w.compound], options.threshold) != w.grows and w.compound not in listed:
            result.unreconciled.append(Unreconciled(w.compound, w.grows, "still predicted "
                                                    + ("growth" if not w.grows else "no growth") + " after fitting"))
    listed = {u.gene for u in result.unreconciled_genes}
    essential = result.essential("after", options.essential_ratio)
    for g in genes:
        if (g.gene in essential) != g.essential and g.gene not in listed:
            result.unreconciled_genes.append(UnreconciledGene(g.gene, g.essential, "still predicted " + (
                "viable" if g.essential else "lethal") + " after fitting"))


# ---- observed growth: gapfills, a batch of wells at a time -----------------------------------


def _add_for_growth(work: cobra.Model, base_medium: Medium, array_medium: Medium, missing: list[str], template: Any,
                    objective: str, formulas: Mapping[str, str], facts: ReactionFacts, options: ReconcileOptions,
                    deadline: SolverDeadline, budget: list[float], result: Reconciliation) -> cobra.Model:
    """Additions for the observed growers not predicted to grow: gapfills over batches of
    JOINT_WELLS of them (one stacked LP copy per well: a reaction pays once however many wells of
    the batch use it); a well that an earlier batch's additions already let grow is not
    gapfilled again. A batch that finds nothing is retried well by well, so one well whose only
    routes fail the energy checks does not sink the others. The stage has GAPFILL_SHARE of the
    fit's time: wells left when it runs out are reported, and the blocking still runs."""
    target = options.threshold * TARGET_MARGIN
    excluded = excluded_reactions(template, facts)
    discounts = evidence_discounts(work)
    stage = SolverDeadline(max(0.0, min(deadline.seconds * GAPFILL_SHARE,
                                        deadline.seconds - (time.monotonic() - deadline.started))),
                           deadline.cancelled)
    media = {c: well_medium(array_medium, c, options.uptake) for c in missing}
    try:
        reachable = _reachable(work, template, missing, media, objective, target, excluded, discounts, facts, stage,
                               result)
    except TimeoutError_:
        result.unreconciled += [Unreconciled(c, True, OUT_OF_TIME) for c in missing]
        return work
    trial = work
    additions: list[tuple[str, int, str]] = []
    pending = list(reachable)
    while pending:
        batch, pending = pending[:JOINT_WELLS], pending[JOINT_WELLS:]
        try:
            trial, found = _gapfill_batch(trial, template, batch, media, base_medium, objective, target, formulas,
                                          excluded, discounts, facts, stage, budget, result)
        except TimeoutError_:
            result.unreconciled += [Unreconciled(c, True, OUT_OF_TIME) for c in [*batch, *pending]]
            break
        additions += found
        exchanges = media_ops.resolve_exchanges(trial)  # wells the additions so far let grow need nothing more
        pending = [c for c in pending if not _grows_on(trial, media[c], exchanges, objective, target)]
    if not additions:
        return work
    behind = _wells_using(trial, {r for r, _, _ in additions}, media, reachable, objective)
    result.changes += addition_changes(trial, additions, behind, [])
    return trial


def _reachable(work: cobra.Model, template: Any, missing: list[str], media: Mapping[str, Medium], objective: str,
               target: float, excluded: set[str], discounts: Mapping[str, float], facts: ReactionFacts,
               deadline: SolverDeadline, result: Reconciliation) -> list[str]:
    """The wells some set of template reactions lets grow (one LP each on one network); the others
    are reported."""
    net = Network(work, template, deadline, excluded=excluded, discounts=discounts,
                  reversibility=facts.reversibility, deltag=facts.deltag)
    column = net.col.get((objective, 1))
    if column is None:
        result.unreconciled += [Unreconciled(c, True, f"the objective {objective} cannot carry flux") for c in missing]
        return []
    reachable = []
    everything = np.flatnonzero(net.gapfill_columns)
    for compound in missing:
        most = net.lp.maximize(column, *net.bounds(media[compound], allowed=everything))
        if most < target:
            result.unreconciled.append(Unreconciled(compound, True, f"no set of template reactions lets the model "
                                                    f"grow on it (at most {round(most, 4)} /h)"))
        else:
            reachable.append(compound)
    return reachable


def _gapfill_batch(trial: cobra.Model, template: Any, batch: list[str], media: Mapping[str, Medium],
                   base_medium: Medium, objective: str, target: float, formulas: Mapping[str, str],
                   excluded: set[str], discounts: Mapping[str, float], facts: ReactionFacts,
                   deadline: SolverDeadline, budget: list[float], result: Reconciliation
                   ) -> tuple[cobra.Model, list[tuple[str, int, str]]]:
    """One joint gapfill over the batch's wells on a copy of `trial`, else one per well: the model
    with the additions and the (reaction, direction, action) rows added. Wells left without
    additions are reported."""
    copy = trial.copy()
    found = gapfill_genome_scale(copy, template, [media[c] for c in batch], objective, target,
                                 [AtpTest("empty", EMPTY_THRESHOLD)], {"empty": EMPTY_MEDIUM},
                                 [carbon_free(base_medium, formulas)], GapfillOptions(target_growth=target), excluded,
                                 discounts, deadline, lambda *_: None, facts)
    if found is None and len(batch) > 1:
        rows: list[tuple[str, int, str]] = []
        for compound in batch:
            trial, more = _gapfill_batch(trial, template, [compound], media, base_medium, objective, target, formulas,
                                         excluded, discounts, facts, deadline, budget, result)
            rows += more
        return trial, rows
    if found is None:
        result.unreconciled += [Unreconciled(c, True, "the gapfill for this well found no reactions that pass the "
                                             "energy checks") for c in batch]
        return trial, []
    rows = [(r, s, "added") for r, s in found.added] + [(r, s, "reversed") for r, s in found.reversed]
    count = len({r for r, _, _ in rows})
    if count > budget[0]:
        result.unreconciled += [Unreconciled(c, True, f"needs {count} added reactions, more than max_changes")
                                for c in batch]
        return trial, []
    budget[0] -= count
    return copy, rows


def _grows_on(model: cobra.Model, medium: Medium, exchanges: Any, objective: str, target: float) -> bool:
    with model:
        media_ops.apply_medium(model, medium, exchanges)
        model.objective = objective
        value = model.slim_optimize(error_value=0.0)
    return bool(value >= target * (1 - 1e-6))


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
