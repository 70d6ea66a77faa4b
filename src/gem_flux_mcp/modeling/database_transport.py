"""Transporters beyond the template, from the ModelSEED database, where genome evidence supports them.

The templates hold the transporters ModelSEED curated for its roles; the BiGG reference models move
some compounds by reactions no template has, e.g. the ABC transporters of melibiose and raffinose
(MELIBabc, RAFFabc) where the templates know only a proton symport. Homology brings such a BiGG
reaction (a protein's best or near-best hits catalyse it) but it lands on no template reaction
(`HomologyResult.unmatched`). Here each of them that moves a compound between the outside (or the
periplasm) and the cytosol is written in ModelSEED compounds and looked up among the database's
transport reactions by stoichiometry (either direction, protons left out, as `bigg_match.py` does
for the template); a match is added to the draft with the hit proteins' genes when:

- every compound it moves is already in the draft's cytosol (the cell does something with it)
  and nothing in the draft moves it across yet: a transporter is added only where there is none;
- it imports: the BiGG reaction is written as an import (what it moves is taken from outside),
  and the database's reaction can run that way (an ATP-driven one in the direction that
  hydrolyses ATP, as `energy.orient_atp_driven_transport` later makes it). Exporters and flippases
  (lipids, O-antigen, siderophores) are left out: a draft gains nothing from an exchange of a
  phospholipid;
- the draft does not make the compound by a committed step: no reaction with genes produces it
  irreversibly or by spending ATP or GTP (a ligase, a synthetase). Such a compound is the cell's
  own product (D-alanyl-D-alanine of the cell wall, lysophospholipids), and a homolog of another
  organism's recycling transporter would otherwise feed it from a rich medium and hide the
  essential genes that make it (B. subtilis' ddl on LB). What the cell takes in to break down
  passes.

The reaction keeps the database's id in the cytosol (`rxn18574_c0`), its direction (reversible
when the database is unsure) and its compounds' database names, formulas and charges; it is
recorded as homology evidence with the BiGG reactions behind it."""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from gem_flux_mcp.modeling.bigg_match import PROTON, Key, stoichiometry_key
from gem_flux_mcp.modeling.diffusion import moves_across
from gem_flux_mcp.modeling.energy import driven_transport_sign

if TYPE_CHECKING:
    import cobra

    from gem_flux_mcp.modeling.annotate import HomologyEvidence

ATP = "cpd00002"
NUCLEOSIDE_TRIPHOSPHATES = {ATP, "cpd00038"}  # ATP, GTP
PLACES = {0: "c", 1: "e"}  # the database's compartment indices
BOUNDS = {">": (0.0, 1000.0), "<": (-1000.0, 0.0), "=": (-1000.0, 1000.0)}


class TransportSource(Protocol):
    def transport_reactions(self) -> list[tuple[str, str, str, str]]: ...

    def compounds_by_ids(self, ids: Iterable[str]) -> dict[str, dict[str, Any]]: ...

    def __hash__(self) -> int: ...  # database_transport.database_index keeps one index per database


@dataclass(frozen=True)
class DatabaseTransport:
    reaction_id: str
    name: str
    stoichiometry: dict[tuple[str, str], float]  # (compound, 'c' or 'e') -> coefficient, protons included
    symbol: str  # the database's reversibility: > < = ?


@functools.lru_cache(maxsize=2)
def database_index(database: TransportSource) -> dict[Key, list[DatabaseTransport]]:
    """`transport_index` of the database's transport reactions, read and parsed once per database
    a process uses (a worker builds genome after genome on the same one)."""
    return transport_index(database.transport_reactions())


def transport_index(reactions: Iterable[tuple[str, str, str, str]]) -> dict[Key, list[DatabaseTransport]]:
    """The database's transport reactions between the cytosol (0) and the outside (1), by the key
    `bigg_match.stoichiometry_key` gives their stoichiometry."""
    from gem_flux_mcp.modeling.revise import parse_equation

    index: dict[Key, list[DatabaseTransport]] = {}
    for rid, name, equation, symbol in reactions:
        parsed, _ = parse_equation(equation)
        if not parsed or any(i not in PLACES for _, i in parsed):
            continue
        stoichiometry: dict[tuple[str, str], float] = {}
        for (compound, i), value in parsed.items():
            stoichiometry[(compound, PLACES[i])] = stoichiometry.get((compound, PLACES[i]), 0.0) + value
        key = stoichiometry_key(stoichiometry)
        if key:
            index.setdefault(key, []).append(DatabaseTransport(rid, name, stoichiometry, symbol))
    return index


def moved(stoichiometry: Mapping[tuple[str, str], float]) -> list[str]:
    """The compounds a transport moves across (in the cytosol and outside), protons aside."""
    inside = {c for c, where in stoichiometry if where == "c"}
    return sorted(c for c, where in stoichiometry if where == "e" and c in inside and c != PROTON)


def imports(transport: DatabaseTransport) -> bool:
    """Whether the direction the reaction can run (an ATP-driven one: the one that hydrolyses ATP)
    takes every compound it moves into the cell."""
    forward_ok, backward_ok = transport.symbol in (">", "=", "?"), transport.symbol in ("<", "=", "?")
    hydrolysis = driven_transport_sign({f"{c}_{where}0": v for (c, where), v in transport.stoichiometry.items()})
    if hydrolysis is not None:  # ATP-driven: only the direction that uses ATP up
        forward_ok, backward_ok = forward_ok and hydrolysis > 0, backward_ok and hydrolysis < 0
    cargo = moved(transport.stoichiometry)
    if not cargo:
        return False
    forward_in = all(transport.stoichiometry[(c, "e")] < 0 for c in cargo)
    backward_in = all(transport.stoichiometry[(c, "e")] > 0 for c in cargo)
    return (forward_ok and forward_in) or (backward_ok and backward_in)


def made_by_a_committed_step(model: cobra.Model, compound: str, with_genes: Collection[str] = ()) -> bool:
    """Whether a reaction with genes (its own, or its id in `with_genes`: genes the build has not
    written into the rule yet) makes the compound in the cytosol by a committed step: it cannot
    run backwards, or it spends ATP or GTP to make it (a ligase or synthetase, which the build
    makes one-way later: energy.orient_atp_coupled_reactions)."""
    inside = f"{compound}_c0"
    if inside not in model.metabolites:
        return False
    target = model.metabolites.get_by_id(inside)
    for reaction in target.reactions:
        if not (reaction.genes or reaction.id in with_genes):
            continue
        if any(m.compartment != "c0" for m in reaction.metabolites):
            continue
        sign = 1.0 if reaction.metabolites[target] > 0 else -1.0  # the direction that makes it
        if not (reaction.upper_bound > 0 if sign > 0 else reaction.lower_bound < 0):
            continue
        one_way = reaction.lower_bound >= 0 if sign > 0 else reaction.upper_bound <= 0
        spends = any(m.id.split("_")[0] in NUCLEOSIDE_TRIPHOSPHATES and sign * value < 0
                     for m, value in reaction.metabolites.items())
        if one_way or spends:
            return True
    return False


def add_database_transporters(model: cobra.Model, unmatched: Mapping[str, HomologyEvidence],
                              in_modelseed: Mapping[str, Mapping[tuple[str, str], float]],
                              index: Mapping[Key, list[DatabaseTransport]], database: TransportSource,
                              with_genes: Collection[str] = ()) -> dict[str, HomologyEvidence]:
    """Add the database transporters matching the homology-evidenced BiGG reactions that no
    template reaction has (`in_modelseed`: those BiGG reactions in ModelSEED compounds), under the
    rules of the module docstring (`with_genes`: reactions with genes not yet in their rule).
    Returns {added reaction id: the evidence behind it}."""
    chosen: dict[str, tuple[DatabaseTransport, HomologyEvidence]] = {}
    covered: set[str] = set()  # compounds a chosen transporter moves
    for bigg in sorted(unmatched):
        converted = in_modelseed.get(bigg)
        cargo = moved(converted or {})
        if not converted or not cargo or any(converted[(c, "e")] >= 0 for c in cargo):
            continue  # not a transport, or written as an export
        if any(made_by_a_committed_step(model, c, with_genes) for c in cargo):
            continue
        for transport in index.get(stoichiometry_key(converted), []):
            cargo = moved(transport.stoichiometry)
            rid = f"{transport.reaction_id}_c0"
            if (imports(transport) and all(f"{c}_c0" in model.metabolites for c in cargo)
                    and not any(moves_across(model, c) for c in cargo)
                    and (rid in chosen or not covered.intersection(cargo))):
                covered.update(cargo)
                if rid in chosen:
                    merged = chosen[rid][1]
                    merged.complexes |= unmatched[bigg].complexes
                    merged.bigg_reactions |= unmatched[bigg].bigg_reactions
                else:  # a copy: evidence merged into it stays out of `unmatched`
                    evidence = unmatched[bigg]
                    chosen[rid] = (transport, dataclasses.replace(evidence, complexes=set(evidence.complexes),
                                                                  bigg_reactions=set(evidence.bigg_reactions)))
                break
    made = to_reactions(model, [transport for transport, _ in chosen.values()], database)
    new = [reaction for rid, reaction in sorted(made.items()) if rid not in model.reactions]
    model.add_reactions(new)
    return {r.id: chosen[r.id][1] for r in new}


def to_reactions(model: cobra.Model, transports: Iterable[DatabaseTransport],
                 database: TransportSource) -> dict[str, cobra.Reaction]:
    """{id: COBRApy reaction} of database transports, in the cytosol (`rxn18574_c0`), with the
    model's metabolites where it has them and the database's names, formulas and charges for the
    others; the database's direction; not added to the model."""
    import cobra as cb

    transports = list(transports)
    records = database.compounds_by_ids({c for t in transports for c, _ in t.stoichiometry})
    made = {}
    for transport in transports:
        reaction = cb.Reaction(f"{transport.reaction_id}_c0", name=transport.name or transport.reaction_id)
        metabolites = {}
        for (compound, where), value in transport.stoichiometry.items():
            mid = f"{compound}_{where}0"
            if mid in model.metabolites:
                metabolite = model.metabolites.get_by_id(mid)
            else:
                record = records.get(compound, {})
                charge = record.get("charge")
                metabolite = cb.Metabolite(mid, name=f"{record.get('name') or compound} [{where}0]",
                                           formula=record.get("formula") or None, compartment=f"{where}0",
                                           charge=int(charge) if isinstance(charge, int | float) else None)
            metabolites[metabolite] = value
        reaction.add_metabolites(metabolites)
        reaction.bounds = BOUNDS.get(transport.symbol, BOUNDS["="])
        reaction.annotation["sbo"] = "SBO:0000185"
        made[reaction.id] = reaction
    return made


def moving_alone(model: cobra.Model, compounds: Iterable[str], index: Mapping[Key, list[DatabaseTransport]],
                 database: TransportSource) -> dict[str, cobra.Reaction]:
    """{compound: the database's reaction (the lowest id) that moves it alone, nothing else and no
    proton, between the cytosol and the outside}, for those of `compounds` that have one: what
    diffusion.py adds where the template has no such reaction. Not added to the model."""
    found: dict[str, DatabaseTransport] = {}
    for compound in compounds:
        alone = {(compound, "c"), (compound, "e")}
        matches = [t for t in index.get(stoichiometry_key({(compound, "c"): -1.0, (compound, "e"): 1.0}), [])
                   if set(t.stoichiometry) == alone]
        if matches:
            found[compound] = min(matches, key=lambda t: t.reaction_id)
    made = to_reactions(model, found.values(), database)
    return {compound: made[f"{t.reaction_id}_c0"] for compound, t in found.items()}
