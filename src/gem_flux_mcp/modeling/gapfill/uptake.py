"""Stage 3, medium uptake: a transporter for every medium compound the model cannot take up (and
a way out for the gases and alcohols it makes).

Gapfilling adds only what growth needs, so on a rich medium a draft keeps making every amino
acid and vitamin it could import: LB's phenylalanine, tyrosine, folate, thiamin, nicotinate or
pyridoxal have no exchange, and their biosynthesis genes look essential although the organism
takes them up from the medium (measured on the phenotype benchmark, B. subtilis on LB:
essentiality MCC 0.419 → 0.504, benchmarks/HISTORY.md). For each compound of the gapfill media
that the model has no exchange for but can make itself, the cheapest template reaction carrying
it from e0 into c0 is added (weakly genome-supported transporters are cheaper, so they come
first), in both directions where the chemistry allows (directions.py), unless it breaks an ATP
test or lets the model grow without carbon. Compounds the model cannot make are left alone: a
transporter without genome evidence would only turn them into new electron acceptors or carbon
sources (FT medium's trace arsenate became an electron sink for E. coli). Gases and alcohols the
model makes (H2, ethanol, acetone, butanol, ...; fermentation.DIFFUSIBLE_END_PRODUCTS) but cannot
let out get the cheapest template transporter too: they diffuse through membranes. Organic acids
do not: tried, the optimum then secretes formate through transporters without evidence
(benchmarks/HISTORY.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from gem_flux_mcp.modeling.fermentation import DIFFUSIBLE_END_PRODUCTS
from gem_flux_mcp.modeling.fluxlp import SolverDeadline
from gem_flux_mcp.modeling.gapfill.changes import apply_changes
from gem_flux_mcp.modeling.gapfill.directions import open_both_ways
from gem_flux_mcp.modeling.gapfill.genome_scale import break_tests
from gem_flux_mcp.modeling.gapfill.network import AtpTest, Medium, Network, ReactionFacts

if TYPE_CHECKING:
    import cobra

MAX_ROUNDS = 10
TRACE = 1e-3  # flux a compound must reach to count as made


@dataclass
class UptakeResult:
    added: list[tuple[str, int]]  # (template reaction, direction) per compound now taken up
    compounds: list[str]  # the medium compounds they carry in
    exchanges: list[str]  # exchanges added for the new extracellular metabolites
    without_transporter: list[str]  # medium compounds the template has no transporter for
    rejected: list[tuple[str, int, str]]  # (reaction, direction, which test it broke)
    both_ways: list[str] = field(default_factory=list)  # transporters also opened for export (directions.py)
    # fermentation end products the model makes but could not let out, now exportable, and how
    exported: list[str] = field(default_factory=list)
    export_added: list[tuple[str, int]] = field(default_factory=list)


def complete_uptake(model: cobra.Model, template: Any, media: Sequence[Medium], objective: str,
                    tests: list[AtpTest], atp_media: Mapping[str, Medium], carbon_free: Sequence[Medium],
                    excluded: set[str], discounts: Mapping[str, float], deadline: SolverDeadline,
                    facts: ReactionFacts | None = None) -> UptakeResult:
    """Stage 3 in place on `model`."""
    facts = facts or ReactionFacts()
    wanted = sorted({c for medium in media for c, (lower, _) in medium.items() if lower < 0})
    net = Network(model, template, deadline, excluded=excluded, discounts=discounts,
                  reversibility=facts.reversibility, deltag=facts.deltag)
    # an exchange alone is not a way in: an outside enzyme's product (thiamin from thiamin
    # phosphate, outside_enzymes.py) has an exchange but no transporter
    taken_up = {cpd for rid, cpd in net.exchange_compound.items()
                if rid in net.model_reactions and _transported(model, cpd)}
    missing = [c for c in wanted if c not in taken_up]
    # a gas or an alcohol the model makes but cannot let out: it would diffuse out of a cell
    trapped = sorted(c for c in DIFFUSIBLE_END_PRODUCTS - set(missing)
                     if f"{c}_c0" in model.metabolites and not _can_leave(model, c))
    # only what the model would otherwise make itself: a compound it cannot make (e.g. the arsenate
    # of a trace-element mix) would only become a new electron acceptor or carbon source without
    # genome evidence
    made = made_by_model(model, media, missing + trapped)
    missing = [c for c in missing if c in made]
    trapped = [c for c in trapped if c in made]
    if not missing and not trapped:
        return UptakeResult([], [], [], [], [])
    chosen = {("in", cpd): c for cpd, c in _cheapest_transporters(net, set(missing)).items()}
    chosen |= {("out", cpd): c for cpd, c in _cheapest_transporters(net, set(trapped), export=True).items()}
    without = [c for c in missing if ("in", c) not in chosen]
    rejected: list[tuple[str, int, str]] = []
    cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    target_column = net.col.get((objective, 1), net.atp_column)
    pending = list(tests)
    for _ in range(MAX_ROUNDS):
        offenders = break_tests(net, list(chosen.values()), pending, atp_media, carbon_free, target_column, cache)
        if not offenders:
            break
        for column, why in offenders:
            flux = net.fluxes[column]
            rejected.append((flux.reaction, flux.direction, why))
            chosen = {key: c for key, c in chosen.items() if c != column}
    else:
        chosen = {}
    other_ways, refused = open_both_ways(net, list(chosen.values()), pending, atp_media, carbon_free, target_column,
                                         cache)
    rejected += [(net.fluxes[i].reaction, net.fluxes[i].direction, why) for i, why in refused]

    def with_other_ways(columns: list[int]) -> list[tuple[str, int]]:
        """(reaction, direction) of `columns` and of the other directions opened for their reactions."""
        reactions = {net.fluxes[c].reaction for c in columns}
        both = [*columns, *(i for i in other_ways if net.fluxes[i].reaction in reactions)]
        return sorted({(net.fluxes[c].reaction, net.fluxes[c].direction) for c in both})

    added = with_other_ways([c for (way, _), c in chosen.items() if way == "in"])
    exported = with_other_ways([c for (way, _), c in chosen.items() if way == "out"])
    exchanges = apply_changes(model, template, added, source="medium_uptake", weak=discounts)
    exchanges += apply_changes(model, template, [e for e in exported if e not in added], source="end_product_export",
                               weak=discounts)
    return UptakeResult(added, sorted(cpd for way, cpd in chosen if way == "in"), exchanges, without, rejected,
                        sorted(net.fluxes[i].reaction for i in other_ways),
                        sorted(cpd for way, cpd in chosen if way == "out"), exported)


def _can_leave(model: cobra.Model, compound: str) -> bool:
    """A reaction of the model may move the compound from the cytosol out (by its bounds)."""
    return any((reaction.upper_bound > 0) if value < 0 else (reaction.lower_bound < 0)
               for reaction, value in _transport(model, compound))


def _transported(model: cobra.Model, compound: str) -> bool:
    """The model has a transporter of the compound, whichever way its bounds let it run."""
    return bool(_transport(model, compound))


def _transport(model: cobra.Model, compound: str) -> list[tuple[cobra.Reaction, float]]:
    """(reaction, coefficient of the cytosolic compound) for each reaction that moves the compound
    between the cytosol and outside."""
    inside, outside = f"{compound}_c0", f"{compound}_e0"
    if inside not in model.metabolites or outside not in model.metabolites:
        return []
    found = []
    for reaction in model.metabolites.get_by_id(inside).reactions:
        coefficients = {m.id: c for m, c in reaction.metabolites.items()}
        if outside in coefficients and coefficients[inside] * coefficients[outside] < 0:
            found.append((reaction, coefficients[inside]))
    return found


def made_by_model(model: cobra.Model, media: Sequence[Medium], compounds: Sequence[str]) -> set[str]:
    """The compounds whose cytosolic form the model can make on at least one of the media (COBRApy,
    one LP per medium: a demand reaction per compound, each capped at a trace, their sum maximised;
    a compound is made when its demand carries flux)."""
    import cobra

    from gem_flux_mcp.modeling import media as media_ops

    made: set[str] = set()
    exchanges = media_ops.resolve_exchanges(model)
    present = [c for c in compounds if f"{c}_c0" in model.metabolites]
    for medium in media:
        wanted = [c for c in present if c not in made]
        if not wanted:
            break
        with model:
            media_ops.apply_medium(model, medium, exchanges)
            demands = {}
            for cpd in wanted:
                demand = cobra.Reaction(f"gemflux_make_{cpd}", lower_bound=0.0, upper_bound=TRACE)
                demand.add_metabolites({model.metabolites.get_by_id(f"{cpd}_c0"): -1.0})
                demands[cpd] = demand
            model.add_reactions(list(demands.values()))
            model.objective = {d: 1.0 for d in demands.values()}
            if model.slim_optimize(error_value=float("nan")) > 0:
                values = model.solver.primal_values
                made |= {cpd for cpd, d in demands.items() if values[d.id] - values[d.reverse_id] > 1e-4 * TRACE}
    return made


def _cheapest_transporters(net: Network, compounds: set[str], export: bool = False) -> dict[str, int]:
    """Per compound, the cheapest template column that moves it from e0 into c0 (out of c0 into
    e0 with `export`)."""
    way = -1.0 if export else 1.0
    matrix, names = net.lp.matrix, net.lp.metabolites
    best: dict[str, tuple[float, int]] = {}
    for i in np.flatnonzero(np.array([f.kind == "template" for f in net.fluxes])):
        start, end = matrix.indptr[i], matrix.indptr[i + 1]
        rows = {names[r]: v for r, v in zip(matrix.indices[start:end], matrix.data[start:end], strict=True)}
        for met, value in rows.items():
            cpd, _, compartment = met.partition("_")
            if compartment == "e0" and value * way < 0 and cpd in compounds and rows.get(f"{cpd}_c0", 0.0) * way > 0:
                key = (float(net.costs[i]), int(i))
                if cpd not in best or key < best[cpd]:
                    best[cpd] = key
    return {cpd: column for cpd, (_, column) in best.items()}
