"""Checks on the network's structure alone: mass and charge balance, reactions without genes, dead-end
metabolites (see the package docstring)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import cobra
from gem_flux_mcp.modeling.biomass_needs import BIOMASS_PART
from gem_flux_mcp.modeling.diagnose.records import BIOMASS_COMPOUND, LUMPED_SIZE, Balance, DeadEnds, Flags, Ways


def is_boundary(reaction: cobra.Reaction) -> bool:
    return bool(reaction.boundary) or reaction.id.startswith(("EX_", "DM_", "SK_"))


def is_biomass_like(reaction: cobra.Reaction) -> bool:
    """The biomass, a lumped reaction, or a part of the biomass (a lipid pool's filling reaction,
    biomass_needs.BIOMASS_PART: gram for gram, not atom for atom)."""
    return (reaction.id.lower().startswith("bio") or len(reaction.metabolites) > LUMPED_SIZE
            or BIOMASS_PART in reaction.notes
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
    uses, _ = incidence(model)
    fwd = [r.upper_bound > 0 for r in model.reactions]
    bwd = [r.lower_bound < 0 for r in model.reactions]
    result = DeadEnds([], [], [])
    for met_id, entries in uses.items():
        if kind := dead_end_kind(*makers_users(entries, fwd, bwd)):
            getattr(result, kind).append(met_id)
    return result


def incidence(model: cobra.Model) -> tuple[dict[str, list[tuple[int, float]]], list[list[str]]]:
    """Per metabolite its (reaction index, coefficient) pairs; per reaction its metabolites."""
    index = {r.id: j for j, r in enumerate(model.reactions)}
    uses = {m.id: [(index[r.id], float(r.metabolites[m])) for r in m.reactions] for m in model.metabolites}
    return uses, [[m.id for m in r.metabolites] for r in model.reactions]


def makers_users(entries: Iterable[tuple[int, float]], fwd: Flags, bwd: Flags) -> tuple[Ways, Ways]:
    makers: Ways = []
    users: Ways = []
    for j, coefficient in entries:
        if fwd[j]:
            (makers if coefficient > 0 else users).append((j, 1))
        if bwd[j]:
            (users if coefficient > 0 else makers).append((j, -1))
    return makers, users


def dead_end_kind(makers: Ways, users: Ways) -> str | None:
    if not users:
        return "only_produced" if makers else "isolated"
    if not makers:
        return "only_consumed"
    return "isolated" if len({j for j, _ in makers + users}) == 1 else None
