"""Why a deletion does or does not stop growth: the answer a modeler wants when a screen and the
model disagree.

A gene (the reactions its rule loses) or a reaction is deleted on the model as it is (medium and
objective applied). When the model still grows, the route that carries the flux instead is the
difference between the wild type's minimal-total-flux solution (COBRApy's pFBA) and the
deletion's solution closest to it at the deletion's optimum (linear MOMA, so another optimum's
noise stays out): the reactions whose flux appears, reverses or more than doubles. When the wild
type does not use the deleted reactions at all, the deletion changes nothing: the answer is then
what the wild type makes their products with instead ("replaces"). Each reaction comes with its
direction, genes, how it entered the model (modeling/origins.py), its evidence note and its
standard Gibbs energy change where the ModelSEED database gives one. When the model no longer
grows, the biomass components it cannot make without the deleted reactions that the wild type
can (`diagnose.missing_biomass_precursors`, with and without the deletion).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import InfeasibilityError, ValidationError
from gem_flux_mcp.modeling.diagnose import missing_biomass_precursors
from gem_flux_mcp.modeling.essentiality import Target, check_ids, closed_by_gene
from gem_flux_mcp.modeling.model_io import objective_reaction_ids
from gem_flux_mcp.modeling.origins import reaction_origin

if TYPE_CHECKING:
    import cobra

ReactionDetails = Callable[[Iterable[str]], dict[str, dict[str, Any]]]
Change = Literal["appears", "reverses", "rises", "replaces"]
FLUX_TOLERANCE = 1e-6  # |flux| at or below this counts as none
ROUTE_MIN_FLUX = 1e-3  # a route reaction carries at least this much with the deletion (mmol/gDW/h)
RISES_BY = 2.0  # a flux that grows by this factor (same direction) is part of the route
MAX_STEPS = 40  # route reactions listed, largest change first
OPTIMUM_SLACK = 1e-6  # an optimum held as a bound, relaxed by this fraction (solver tolerance)
MAKER_DEPTH = 3  # steps followed from the deleted reactions' products to what the wild type makes instead
# water, protons, energy and redox carriers, CO2, CoA and the acyl carrier protein, ammonia, O2
# (ModelSEED and BiGG ids): never what a reaction is "for"
CURRENCY = frozenset({"cpd00001", "cpd00067", "cpd00002", "cpd00008", "cpd00018", "cpd00009", "cpd00012", "cpd00011",
                      "cpd00242", "cpd00003", "cpd00004", "cpd00005", "cpd00006", "cpd00010", "cpd11493", "cpd00013",
                      "cpd00007", "ACP", "acp",
                      "h2o", "h", "atp", "adp", "amp", "pi", "ppi", "co2", "hco3", "nad", "nadh", "nadp", "nadph",
                      "coa", "nh4", "o2"})
_MODEL_SEED = "rxn"


@dataclass
class RouteStep:
    reaction_id: str
    name: str
    change: Change
    flux_wild_type: float
    flux_deleted: float
    direction: Literal["forward", "reverse"]  # the direction it runs in after the deletion
    reversible: bool
    genes: list[str]
    origin: str  # modeling/origins.py key: homology, gapfill, template, ...
    evidence: str  # the gemflux_evidence note ('' when none)
    equation: str
    deltag: float | None  # standard Gibbs energy change, kJ/mol, as the database gives it (forward)


@dataclass
class Explanation:
    target: Target
    deleted: str
    reactions_closed: list[str]
    wild_type_growth: float
    growth: float  # with the deletion (0.0 when infeasible)
    growth_ratio: float
    essential: bool  # growth_ratio < threshold
    threshold: float
    used_in_wild_type: bool = True  # the deleted reactions carry flux in the wild type's minimal-flux solution
    route: list[RouteStep] = field(default_factory=list)
    route_total: int = 0  # route reactions before MAX_STEPS
    # biomass substrates the deleted model cannot make that the wild type can (each on its own,
    # with the medium); of them, those made once the biomass reaction's co-products (ADP, CoA,
    # NAD+, ...) are given back: the deletion broke a cofactor's regeneration, not its synthesis
    missing_precursors: list[str] = field(default_factory=list)
    made_only_with_cofactors: list[str] = field(default_factory=list)
    missing_parts: dict[str, list[str]] = field(default_factory=dict)  # a missing one -> its inputs not made


def explain_deletion(model: cobra.Model, deleted: str, target: Target = "genes", threshold: float = 0.1,
                     details: ReactionDetails | None = None, max_steps: int = MAX_STEPS) -> Explanation:
    """Delete one gene or reaction from `model` as it is and say what happens (module docstring).
    The model is left unchanged; `details` (the biochemistry index's `reaction_details`) adds
    equations and Gibbs energies."""
    (item,) = check_ids(model, target, [deleted])
    closed = closed_by_gene(model, item) if target == "genes" else [item]
    objective = _objective_reaction(model)
    wild_growth = model.slim_optimize(error_value=float("nan"))
    if math.isnan(wild_growth) or wild_growth <= FLUX_TOLERANCE:
        raise InfeasibilityError(
            ErrorCode.MODEL_INFEASIBLE, "The model does not grow on this medium, so no deletion can be explained.",
            details={"growth": 0.0 if math.isnan(wild_growth) else wild_growth})
    reference, used = _reference(model, closed) if closed else (None, True)
    deleted_fluxes: dict[str, float] = {}
    with model:
        for reaction_id in closed:
            model.reactions.get_by_id(reaction_id).bounds = (0.0, 0.0)
        growth = max(model.slim_optimize(error_value=0.0), 0.0)
        ratio = growth / wild_growth
        result = Explanation(target, item, closed, wild_growth, growth, ratio, ratio < threshold, threshold,
                             used_in_wild_type=used)
        if result.essential:
            after = missing_biomass_precursors(model, objective)
        elif reference is not None and used:  # unused in the wild type: nothing to compare
            deleted_fluxes = _closest(model, objective, growth, reference)
    if result.essential:
        before = missing_biomass_precursors(model, objective, expand=False)
        unmade_before = set(before.missing) | set(before.recycled)
        result.missing_precursors = sorted(set(after.missing) | set(after.recycled) - unmade_before)
        result.made_only_with_cofactors = sorted(set(after.recycled) - unmade_before)
        result.missing_parts = {m: parts for m, parts in after.missing_parts.items() if m in result.missing_precursors}
    elif reference is not None:
        wild = {str(k): float(v) for k, v in reference.fluxes.items()}
        steps = _route(model, wild, deleted_fluxes, details) if used else _makers_instead(model, closed, wild, details)
        result.route_total = len(steps)
        result.route = steps[:max_steps]
    return result


def _reference(model: cobra.Model, closed: list[str]) -> tuple[cobra.Solution, bool]:
    """The wild type's minimal-total-flux solution, and whether it uses the deleted reactions."""
    from cobra.flux_analysis import pfba

    solution = pfba(model, fraction_of_optimum=1.0)
    return solution, any(abs(float(solution.fluxes[r])) > FLUX_TOLERANCE for r in closed)


def _makers_instead(model: cobra.Model, closed: list[str], wild: dict[str, float],
                    details: ReactionDetails | None) -> list[RouteStep]:
    """When the wild type does not use the deleted reactions, the reactions that make their
    products in it; when it makes none of them, the products of the reactions that would use them
    (acetyl-CoA carboxylase's malonyl-CoA becomes FabD's malonyl-ACP), at the nearest such step.
    Currency metabolites (water, protons, ATP, NAD(P)H, CO2, CoA, ...) are left out."""
    products = {m for r in closed for sign in (1, -1) for m in _made(model.reactions.get_by_id(r), sign)}
    found: dict[str, float] = {}
    for depth in range(MAKER_DEPTH):
        next_products: set[str] = set()
        for met_id in sorted(products):
            met = model.metabolites.get_by_id(met_id)
            makers = {r.id: wild[r.id] for r in met.reactions
                      if r.id not in closed and r.metabolites[met] * wild.get(r.id, 0.0) > FLUX_TOLERANCE}
            found.update(makers)
            if not makers and depth + 1 < MAKER_DEPTH:
                for user in met.reactions:
                    if user.id not in closed:
                        sign = 1 if user.metabolites[met] < 0 else -1  # the direction that uses met
                        next_products |= _made(user, sign) - {met_id}
        if found or not next_products:
            break  # the nearest step where the wild type makes something instead
        products = next_products
    return _steps(model, {r: (v, v, "replaces") for r, v in found.items()}, details)


def _made(reaction: cobra.Reaction, sign: int) -> set[str]:
    """What `reaction` makes run forward (sign 1) or backward (-1), currency metabolites left out;
    nothing in a direction its bounds close."""
    if (reaction.upper_bound <= 0) if sign > 0 else (reaction.lower_bound >= 0):
        return set()
    return {m.id for m, c in reaction.metabolites.items() if c * sign > 0 and not _currency(m.id)}


def _closest(model: cobra.Model, objective: str, growth: float, reference: cobra.Solution) -> dict[str, float]:
    """With the deletion, the flux distribution at its optimum closest to the reference (linear
    MOMA, sum of absolute differences): what has to change, without the noise of another optimum."""
    from cobra.flux_analysis import moma

    with model:
        model.reactions.get_by_id(objective).lower_bound = growth * (1 - OPTIMUM_SLACK)
        solution = moma(model, solution=reference, linear=True)
    return {str(k): float(v) for k, v in solution.fluxes.items()}


def _route(model: cobra.Model, wild: dict[str, float], deleted: dict[str, float],
           details: ReactionDetails | None) -> list[RouteStep]:
    changes: dict[str, tuple[float, float, Change]] = {}
    for reaction_id, after in deleted.items():
        before = wild.get(reaction_id, 0.0)
        if abs(after) < ROUTE_MIN_FLUX:
            continue
        if abs(before) <= FLUX_TOLERANCE:
            changes[reaction_id] = (before, after, "appears")
        elif before * after < 0:
            changes[reaction_id] = (before, after, "reverses")
        elif abs(after) >= RISES_BY * abs(before):
            changes[reaction_id] = (before, after, "rises")
    return _steps(model, changes, details)


def _steps(model: cobra.Model, changes: dict[str, tuple[float, float, Change]],
           details: ReactionDetails | None) -> list[RouteStep]:
    """Route steps, new or reversed routes first, then by the size of the change."""
    order = {"appears": 0, "reverses": 0, "replaces": 0, "rises": 1}
    ranked = sorted(changes, key=lambda r: (order[changes[r][2]], -abs(changes[r][1] - changes[r][0]), r))
    base_ids = {rid: rid.rsplit("_", 1)[0] for rid in ranked}
    known = details([b for b in set(base_ids.values()) if b.startswith(_MODEL_SEED)]) if details else {}
    steps = []
    for reaction_id in ranked:
        before, after, change = changes[reaction_id]
        reaction = model.reactions.get_by_id(reaction_id)
        info = known.get(base_ids[reaction_id], {})
        steps.append(RouteStep(
            reaction_id=reaction_id, name=reaction.name or reaction_id, change=change,
            flux_wild_type=round(before, 6), flux_deleted=round(after, 6),
            direction="forward" if after > 0 else "reverse", reversible=reaction.reversibility,
            genes=sorted(g.id for g in reaction.genes),
            origin=reaction_origin(reaction_id, str(reaction.notes.get("gemflux_sources") or "")),
            evidence=str(reaction.notes.get("gemflux_evidence") or "")[:300],
            equation=str(info.get("equation") or reaction.build_reaction_string(use_metabolite_names=True))[:200],
            deltag=_deltag(info.get("deltag"))))
    return steps


def _currency(met_id: str) -> bool:
    return met_id.rsplit("_", 1)[0] in CURRENCY


def _deltag(value: Any) -> float | None:
    """The database's ΔG'° (kJ/mol); its placeholder for 'unknown' (10000000) is None."""
    if not isinstance(value, int | float) or not math.isfinite(value) or abs(value) >= 1e6:
        return None
    return round(float(value), 2)


def _objective_reaction(model: cobra.Model) -> str:
    ids = objective_reaction_ids(model)
    if len(ids) != 1:
        raise ValidationError(ErrorCode.INVALID_OBJECTIVE,
                              "The objective must be one reaction (a biomass reaction) to name what is not made.",
                              details={"objective_reactions": ids[:10]})
    return ids[0]
