"""How much a gapfilled model rests on reactions without genes: the share of its optimum that runs
through gapfilled reactions, and, for each gene-less addition, whether it fills one missing step
between steps the genome has or sits in a stretch without genes (a pathway the organism lacks, or
sequence an incomplete genome, a MAG, lost)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.modeling import media as media_ops

if TYPE_CHECKING:
    import cobra

# Above this share of the reactions active at optimum being gapfilled ones, the quality checks
# warn. Measured on E. coli K-12 gapfilled on glucose minimal medium: 67 of 482 active reactions
# (14 %) with the whole proteome, 132 of 457 (29 %) with a random 70 % of its proteins.
SHARE_WARNING = 0.2
CURRENCY_DEGREE = 20  # metabolites in more reactions than this (ATP, NADH, H2O, ...) link nothing
TOP_LISTED = 10


def flux_through_added(model: cobra.Model, medium: Mapping[str, tuple[float, float]], objective: str,
                       added: Iterable[str]) -> dict[str, Any]:
    """How much of the minimal-total-flux optimum on `medium` runs through `added`: the share of
    the internal reactions carrying flux (boundary and objective left out) and of their total
    flux, with the largest of those fluxes."""
    from cobra.exceptions import OptimizationError
    from cobra.flux_analysis import pfba

    added_ids = {rid for rid in added if rid in model.reactions}
    with model:
        media_ops.apply_medium(model, medium, media_ops.resolve_exchanges(model))
        model.objective = objective
        try:
            fluxes = pfba(model).fluxes
        except OptimizationError:
            fluxes = None
    if fluxes is None or abs(float(fluxes.get(objective, 0.0))) <= 1e-9:  # no growth here: nothing to measure
        return {"reaction_share": None, "flux_share": None, "threshold": SHARE_WARNING, "passed": True,
                "largest": []}
    boundary = {r.id for r in model.boundary} | {objective}
    active = {rid: abs(float(v)) for rid, v in fluxes.items() if rid not in boundary and abs(float(v)) > 1e-9}
    through = {rid: v for rid, v in active.items() if rid in added_ids}
    total = sum(active.values())
    reaction_share = len(through) / len(active) if active else 0.0
    largest = sorted(through.items(), key=lambda kv: -kv[1])[:TOP_LISTED]
    return {"reaction_share": round(reaction_share, 4), "active_reactions": len(active),
            "active_gapfilled": len(through), "flux_share": round(sum(through.values()) / total, 4) if total else 0.0,
            "threshold": SHARE_WARNING, "passed": reaction_share <= SHARE_WARNING,
            "largest": [{"id": rid, "flux": round(v, 4)} for rid, v in largest]}


def addition_contexts(model: cobra.Model, entries: list[dict[str, Any]]) -> dict[str, Any]:
    """Each gapfilled reaction without genes or genome evidence, by its neighbours in the network
    (reactions sharing a metabolite other than a currency one): `gap_in_covered_pathway` when a
    reaction with genes makes one of its substrates and another uses one of its products (one
    missing step between steps the genome has), `stretch_without_genes` otherwise (part of a run
    of steps without genes: a pathway the genome lacks, or sequence an incomplete genome lost).
    Exchanges and additions with genes or evidence are counted apart."""
    counted = [e for e in entries if e.get("source") != "auto_generated" and e["id"] in model.reactions]
    gene_less = [e for e in counted if not e.get("evidence") and not model.reactions.get_by_id(e["id"]).genes]
    groups: dict[str, list[str]] = {"gap_in_covered_pathway": [], "stretch_without_genes": []}
    for entry in gene_less:
        reaction = model.reactions.get_by_id(entry["id"])
        sign = -1 if entry.get("direction") == "<" else 1
        inputs = [m for m, c in reaction.metabolites.items() if c * sign < 0 and len(m.reactions) <= CURRENCY_DEGREE]
        outputs = [m for m, c in reaction.metabolites.items() if c * sign > 0 and len(m.reactions) <= CURRENCY_DEGREE]
        made = any(_gene_backed_partner(reaction, m, making=True) for m in inputs)
        used = any(_gene_backed_partner(reaction, m, making=False) for m in outputs)
        groups["gap_in_covered_pathway" if made and used else "stretch_without_genes"].append(entry["id"])
    return {
        "without_evidence": len(gene_less),
        "with_genes_or_evidence": len(counted) - len(gene_less),
        **{name: len(ids) for name, ids in groups.items()},
        "examples": {name: ids[:TOP_LISTED] for name, ids in groups.items() if ids},
    }


def _gene_backed_partner(reaction: cobra.Reaction, metabolite: cobra.Metabolite, making: bool) -> bool:
    """Whether a reaction with genes can make (or use) `metabolite` within its bounds."""
    for other in metabolite.reactions:
        if other is reaction or not other.genes:
            continue
        coefficient = other.metabolites[metabolite]
        forward = coefficient > 0 if making else coefficient < 0
        if (forward and other.upper_bound > 0) or (not forward and other.lower_bound < 0):
            return True
    return False
