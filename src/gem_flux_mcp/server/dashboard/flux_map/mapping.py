"""The map's reactions found in a ModelSEED model, through the BiGG aliases of the ModelSEED
database (reactions.tsv): an edge stands for every model reaction whose ModelSEED id carries one
of the edge's BiGG ids and which touches the edge's drawn metabolites (BiGG compound aliases,
in the edge's compartments). Each gets a sign, so that a positive flux on the map runs from the
edge's source to its target whichever way the model writes the reaction. A model reaction
counts for one edge only. Exchanges are found by compound: `EX_<cpd>_e0`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from gem_flux_mcp.server.dashboard.flux_map.layout import EDGES, EXCHANGES, NODES, Edge, Exchange
from gem_flux_mcp.server.dashboard.model_facts import ModelFacts


class Aliases(Protocol):
    """What the mapping needs of the biochemistry index."""

    def reaction_ids_for_external(self, source: str, values: Iterable[str]) -> dict[str, set[str]]: ...

    def compound_ids_for_external(self, source: str, values: Iterable[str]) -> dict[str, str]: ...


@dataclass(frozen=True)
class MapAliases:
    """The map's BiGG ids in ModelSEED ids, as the database gives them (the same for every model)."""

    reactions: dict[str, set[str]]  # BiGG reaction id -> ModelSEED reaction ids
    compounds: dict[str, str]  # BiGG compound id -> ModelSEED compound id


@dataclass(frozen=True)
class MappedEdge:
    key: str
    members: tuple[tuple[str, int], ...]  # (model reaction id, +1 / -1)
    candidates: tuple[str, ...]  # ModelSEED ids the BiGG aliases name

    @property
    def in_model(self) -> bool:
        return bool(self.members)


@dataclass(frozen=True)
class MapMapping:
    edges: dict[str, MappedEdge]  # reactions and exchanges, by their key on the map
    metabolites: dict[str, str]  # node key -> the model's metabolite id (when the model has it)

    def mapped_reactions(self) -> set[str]:
        return {rid for edge in self.edges.values() for rid, _ in edge.members}

    def flux(self, key: str, fluxes: dict[str, float]) -> float:
        """The edge's flux on the map (source -> target positive); reactions without a recorded
        flux carry none."""
        return sum(sign * fluxes.get(rid, 0.0) for rid, sign in self.edges[key].members)


def map_aliases(aliases: Aliases) -> MapAliases:
    bigg = {b for edge in EDGES for b in edge.bigg}
    compounds = {n.bigg for n in NODES} | {x.compound for x in EXCHANGES}
    return MapAliases(aliases.reaction_ids_for_external("BiGG", sorted(bigg)),
                      aliases.compound_ids_for_external("BiGG", sorted(compounds)))


def map_model(facts: ModelFacts, aliases: MapAliases) -> MapMapping:
    metabolites = {n.key: f"{aliases.compounds[n.bigg]}_{n.compartment}" for n in NODES if n.bigg in aliases.compounds}
    by_base: dict[str, list[str]] = {}
    for rid, reaction in facts.reactions.items():
        by_base.setdefault(reaction.base_id, []).append(rid)
    used: set[str] = set()
    edges: dict[str, MappedEdge] = {}
    for edge in EDGES:
        candidates = sorted({m for b in edge.bigg for m in aliases.reactions.get(b, ())} | set(edge.seed))
        members = [(rid, 1) for rid in edge.model_ids if rid in facts.reactions and rid not in used]
        for base in candidates:
            for rid in by_base.get(base, ()):
                sign = _orientation(facts, rid, edge, metabolites)
                if sign and rid not in used:
                    members.append((rid, sign))
        used |= {rid for rid, _ in members}
        edges[edge.key] = MappedEdge(edge.key, tuple(members), tuple(candidates))
    for exchange in EXCHANGES:
        edges[exchange.key] = _exchange(facts, exchange, aliases)
    return MapMapping(edges, metabolites)


def _orientation(facts: ModelFacts, rid: str, edge: Edge, metabolites: dict[str, str]) -> int:
    """+1 when the reaction's forward direction runs source -> target on the map, -1 when it runs
    back, 0 when it touches neither drawn metabolite (an alias of something else)."""
    stoichiometry = facts.reactions[rid].metabolites
    source, target = metabolites.get(edge.source), metabolites.get(edge.target)
    if source in stoichiometry and target in stoichiometry and stoichiometry[source] * stoichiometry[target] > 0:
        return 0  # both on one side: not this conversion
    if source in stoichiometry:
        return 1 if stoichiometry[source] < 0 else -1
    if target in stoichiometry:
        return 1 if stoichiometry[target] > 0 else -1
    return 0


def _exchange(facts: ModelFacts, exchange: Exchange, aliases: MapAliases) -> MappedEdge:
    """An uptake is drawn into the cell: the map's flux is minus the exchange's (EX_x: x <=>)."""
    cpd = aliases.compounds.get(exchange.compound)
    rid = f"EX_{cpd}_e0"
    if cpd is None or rid not in facts.reactions:
        return MappedEdge(exchange.key, (), (rid,) if cpd else ())
    coefficient = facts.reactions[rid].metabolites.get(f"{cpd}_e0", -1.0)
    return MappedEdge(exchange.key, ((rid, 1 if coefficient > 0 else -1),), (rid,))
