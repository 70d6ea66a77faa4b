"""Essentiality observations in a reconciliation: each gene's deletion predicted on the base
medium (lethal when it grows below `essential_ratio` of the model's own growth there, as
predict_gene_essentiality calls it), and the two ways a call can disagree.

Observed non-essential, predicted lethal: a missing alternative. Its own step, after the wells'
gapfills and before any block, one gene at a time. It is not joint with the wells: the
multi-medium gapfill holds one copy of the network per medium but cannot close reactions in one
copy only. For each such gene: a copy of the model without the reactions its deletion closes
(those reactions are also excluded from the template, so the answer is never the same reaction
again without its gene) is gapfilled on the base medium by `gapfill_genome_scale`: the cheapest
template reactions, costed by genome evidence, with the same no-ATP-from-nothing and
no-growth-without-carbon checks, to `essential_ratio` of the wild type's growth (with a margin).
The closed reactions are then put back and the copy checked again for ATP from nothing (the
gapfill's own check ran without them; a reaction one gene's rescue adds in one direction and a
later one reverses can close a cycle through them): if it makes ATP, the rescue is refused and
the gene reported; else the copy with the additions is the model from there on.
Genes are taken in order and each sees the additions made for the earlier ones (an alternative
two genes need is added once, its reason names the first). When the fit's time limit runs out
during these gapfills, the genes left are reported as not reconciled and the fit goes on.

Observed essential, predicted viable: a bypass. The deletion is a target of the same checked
blocking the wells observed not to grow use (blocking.py): directions without genome evidence
that carry the deletion's flux are blocked only if the base medium, every observed-growth well
and every observed non-essential deletion that grows (including those just rescued) keep
growing; gene-backed bypasses are listed as conflicts, never removed. A deletion that closes no
reaction at all (each rule holds without the gene: an isozyme, an alternative subunit) grows
exactly as the wild type, so no block could stop it without stopping the base medium: such a
gene is reported at once as needing a gene rule change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.errors import TimeoutError_
from gem_flux_mcp.modeling import media as media_ops
from gem_flux_mcp.modeling.essentiality import closed_by_gene, single_deletions
from gem_flux_mcp.modeling.fluxlp import SolverDeadline
from gem_flux_mcp.modeling.gapfill.checks import atp_with_nothing, carbon_free, growth_on
from gem_flux_mcp.modeling.gapfill.genome_scale import gapfill_genome_scale
from gem_flux_mcp.modeling.gapfill.network import EMPTY_THRESHOLD, AtpTest, GapfillOptions, Medium, ReactionFacts
from gem_flux_mcp.modeling.reconcile.blocking import addition_changes
from gem_flux_mcp.modeling.reconcile.records import Reconciliation, UnreconciledGene
from gem_flux_mcp.modeling.translation import trna_ligases

if TYPE_CHECKING:
    import cobra

TARGET_MARGIN = 1.05  # a rescued deletion must grow this much above the lethal limit
EMPTY_MEDIUM = {"cpd00001": (-1000.0, 1000.0), "cpd00067": (-1000.0, 1000.0)}  # water and protons only


def excluded_reactions(template: Any, facts: ReactionFacts) -> set[str]:
    """Template reactions gapfilling may not add: the imbalanced ones, except the tRNA ligases."""
    needed = {f"{c.reaction}0" for c in trna_ligases(template).values()}
    return {f"{r}_c0" for r in facts.imbalanced} - needed


def deletion_growth(model: cobra.Model, base_medium: Medium, genes: Sequence[str], objective: str
                    ) -> dict[str, float]:
    """Growth on the base medium with each gene deleted (0.0 for all when the model does not grow)."""
    if not genes:
        return {}
    with model:
        media_ops.apply_medium(model, base_medium, media_ops.resolve_exchanges(model))
        model.objective = objective
        if model.slim_optimize(error_value=0.0) <= 1e-9:
            return dict.fromkeys(genes, 0.0)
        return dict(single_deletions(model, "genes", list(genes)).growth)


def knockout_growth(model: cobra.Model, base_medium: Medium, gene: str, objective: str) -> float:
    with model:
        for rid in closed_by_gene(model, gene):
            model.reactions.get_by_id(rid).bounds = (0.0, 0.0)
        return growth_on(model, base_medium, objective)


def rescue(work: cobra.Model, base_medium: Medium, genes: Sequence[str], template: Any, *, objective: str,
           formulas: Mapping[str, str], facts: ReactionFacts, ratio: float, deadline: SolverDeadline,
           discounts: Mapping[str, float], budget: list[float], result: Reconciliation) -> cobra.Model:
    """The module docstring's first step on `work` (a copy already; returned changed or replaced)."""
    excluded = excluded_reactions(template, facts)
    timed_out = False
    for gene in genes:
        limit = ratio * growth_on(work, base_medium, objective)
        if knockout_growth(work, base_medium, gene, objective) >= limit:
            continue  # an earlier rescue covers it too
        if budget[0] < 1 or timed_out:
            result.unreconciled_genes.append(UnreconciledGene(gene, False, "max_changes reached" if budget[0] < 1 else
                                                              "the fit's time limit ran out before its gapfill"))
            continue
        closed = closed_by_gene(work, gene)
        trial = work.copy()
        kept = [trial.reactions.get_by_id(r) for r in closed]
        trial.remove_reactions(kept)
        target = limit * TARGET_MARGIN
        try:
            found = gapfill_genome_scale(trial, template, [dict(base_medium)], objective, target,
                                         [AtpTest("empty", EMPTY_THRESHOLD)], {"empty": EMPTY_MEDIUM},
                                         [carbon_free(base_medium, formulas)], GapfillOptions(target_growth=target),
                                         excluded | set(closed), discounts, deadline, lambda *_: None, facts)
        except TimeoutError_:  # the genes left are reported; the blocks and the answer still come
            timed_out = True
            result.unreconciled_genes.append(UnreconciledGene(gene, False, "the fit's time limit ran out during its "
                                                              "gapfill"))
            continue
        if found is None:
            result.unreconciled_genes.append(UnreconciledGene(gene, False, (
                "no set of template reactions that passes the energy checks lets the model grow without it")))
            continue
        additions = [(r, s, "added") for r, s in found.added] + [(r, s, "reversed") for r, s in found.reversed]
        count = len({r for r, _, _ in additions})
        if count > budget[0]:
            result.unreconciled_genes.append(UnreconciledGene(gene, False, (
                f"needs {count} added reactions, more than max_changes")))
            continue
        trial.add_reactions([r.copy() for r in kept])
        if atp_with_nothing(trial) > EMPTY_THRESHOLD:  # checked without the closed reactions: now with them
            result.unreconciled_genes.append(UnreconciledGene(gene, False, (
                "the reactions that would let its deletion grow make ATP from nothing together with the reactions "
                "the deletion closes")))
            continue
        budget[0] -= count
        result.changes += addition_changes(trial, additions, {}, [gene])
        work = trial
    return work
