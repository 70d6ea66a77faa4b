"""Model revisions: add database reactions, remove reactions, change bounds, knock out genes.

Every requested change is validated before any is applied, and all offending ids are reported at
once (INVALID_REACTION / INVALID_GENE).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError

MAX_ABS_BOUND = 1e6  # mmol/gDW/h; COBRApy's "unbounded" is 1000

if TYPE_CHECKING:  # COBRApy takes ~2 s to import; modules import it where first used
    import cobra

_MODEL_REACTION = re.compile(r"^(rxn\d{5})_([a-z]\d*)$")
_TERM = re.compile(r"\((\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\)\s+(cpd\d{5})\[(\d+)\]")
_BOUNDS = {">": (0.0, 1000.0), "<": (-1000.0, 0.0), "=": (-1000.0, 1000.0), "?": (-1000.0, 1000.0)}
# ModelSEED equations index compartments: 0 = the reaction's own compartment, 1 = extracellular.
_EXTRACELLULAR = "e0"

ReactionLookup = Callable[[str], dict[str, Any] | None]  # rxn id -> database record or None
CompoundInfo = Callable[[list[str]], dict[str, tuple[str, str]]]  # cpd ids -> (name, formula)


@dataclass
class RevisionPlan:
    add: list[str] = field(default_factory=list)
    remove: list[str] = field(default_factory=list)
    bounds: dict[str, tuple[float, float]] = field(default_factory=dict)
    knockouts: list[str] = field(default_factory=list)

    def is_empty(self) -> bool:
        return not (self.add or self.remove or self.bounds or self.knockouts)


def parse_equation(equation_ids: str) -> tuple[dict[tuple[str, int], float], str]:
    """`(1) cpd00002[0] + (1) cpd00020[0] <=> (1) cpd00008[0]` -> stoichiometry and direction."""
    arrows = (("<=>", "="), ("=>", ">"), ("<=", "<"))
    found = next(((arrow, sym) for arrow, sym in arrows if arrow in equation_ids), None)
    if found is None:
        raise ValueError(f"no reaction arrow in {equation_ids!r}")
    arrow, symbol = found
    left, right = equation_ids.split(arrow, 1)
    stoichiometry: dict[tuple[str, int], float] = {}
    for side, sign in ((left, -1.0), (right, 1.0)):
        for coefficient, cpd, index in _TERM.findall(side):
            key = (cpd, int(index))
            stoichiometry[key] = stoichiometry.get(key, 0.0) + sign * float(coefficient)
    return {k: v for k, v in stoichiometry.items() if v != 0}, symbol


def validate_plan(model: cobra.Model, add: object, remove: object, bounds: object, knockouts: object,
                  lookup: ReactionLookup, *, allow_empty: bool = False) -> RevisionPlan:
    plan = RevisionPlan()
    bad: dict[str, str] = {}
    for raw in as_list(add, "add_reactions"):
        rid = raw.strip() if isinstance(raw, str) else ""
        match = _MODEL_REACTION.match(rid)
        if not match:
            bad[str(raw)] = "not a model reaction id like 'rxn00148_c0' (database id + compartment)"
        elif rid in model.reactions:
            bad[rid] = "already in the model"
        elif lookup(match.group(1)) is None:
            bad[rid] = f"{match.group(1)} is not in the ModelSEED database"
        elif rid in plan.add:
            bad[rid] = "listed twice"
        else:
            plan.add.append(rid)
    for raw in as_list(remove, "remove_reactions"):
        rid = raw.strip() if isinstance(raw, str) else str(raw)
        if rid not in model.reactions:
            bad[rid] = "not a reaction of this model"
        else:
            plan.remove.append(rid)
    if bounds is not None and not isinstance(bounds, Mapping):
        raise ValidationError(ErrorCode.INVALID_BOUNDS_FORMAT, "reaction_bounds must be {reaction_id: [lower, upper]}.",
                              details={"provided": repr(bounds)[:80]})
    for rid, value in (bounds or {}).items():
        pair = list(value) if isinstance(value, list | tuple) else []
        numbers = [float(v) for v in pair if isinstance(v, int | float) and not isinstance(v, bool)]
        if rid not in model.reactions and rid not in plan.add:
            bad[str(rid)] = "not a reaction of this model (bounds)"
        elif len(pair) != 2 or len(numbers) != 2:
            bad[str(rid)] = "bounds must be two numbers [lower, upper]"
        elif not all(math.isfinite(n) and abs(n) <= MAX_ABS_BOUND for n in numbers):
            bad[str(rid)] = (f"bounds must be finite, from -{MAX_ABS_BOUND:g} to {MAX_ABS_BOUND:g} "
                             "(1000 is the usual 'unbounded')")
        elif numbers[0] > numbers[1]:
            bad[str(rid)] = f"lower bound {numbers[0]} > upper bound {numbers[1]}"
        else:
            plan.bounds[str(rid)] = (numbers[0], numbers[1])
    if bad:
        raise ValidationError(
            ErrorCode.INVALID_REACTION,
            f"{len(bad)} reaction change(s) cannot be applied: "
            + "; ".join(f"{k}: {v}" for k, v in list(bad.items())[:5]),
            details={"invalid_reactions": bad},
            suggestions=["Reaction ids to add are database ids with a compartment, e.g. 'rxn00148_c0'; reaction "
                         "ids to remove or bound are the model's own."],
        )
    genes = [str(g).strip() for g in as_list(knockouts, "knockout_genes")]
    unknown = [g for g in genes if g not in model.genes]
    if unknown:
        raise ValidationError(
            ErrorCode.INVALID_GENE, f"{len(unknown)} gene(s) are not in the model: {', '.join(unknown[:10])}.",
            details={"invalid_genes": unknown, "num_model_genes": len(model.genes)},
            suggestions=["Use gene ids as stored in the model."],
        )
    plan.knockouts = list(dict.fromkeys(genes))
    if plan.is_empty() and not allow_empty:
        raise ValidationError(
            ErrorCode.EMPTY_REVISION, "A revision needs at least one change (add, remove, bounds or knockouts).",
            details={}, suggestions=["Pass add_reactions, remove_reactions, reaction_bounds or knockout_genes."],
        )
    remaining = len(model.reactions) + len(plan.add) - len(set(plan.remove))
    if remaining <= 0:
        raise ValidationError(
            ErrorCode.WOULD_EMPTY, "This revision would leave the model without reactions.",
            details={"reactions_now": len(model.reactions), "removing": len(set(plan.remove))},
            suggestions=["Remove fewer reactions."],
        )
    return plan


def as_list(value: object, name: str) -> list[Any]:
    """`value` as a list (None: empty); anything else is INVALID_<NAME>."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise ValidationError(ErrorCode(f"INVALID_{name.upper()}"), f"{name} must be a list.",
                              details={"provided": repr(value)[:80]})
    return value


def apply_plan(model: cobra.Model, plan: RevisionPlan, lookup: ReactionLookup,
               compound_info: CompoundInfo) -> dict[str, Any]:
    """Apply a validated plan; returns what changed, for the revision record."""
    import cobra as cb

    added = []
    for rid in plan.add:
        base, compartment = _MODEL_REACTION.match(rid).groups()  # type: ignore[union-attr]
        record = lookup(base)
        assert record is not None  # validated
        stoichiometry, symbol = parse_equation(record["equation_with_ids"])
        names = compound_info(sorted({cpd for cpd, _ in stoichiometry}))
        reaction = cb.Reaction(rid, name=record["name"] or base)
        metabolites = {}
        for (cpd, index), coefficient in stoichiometry.items():
            where = compartment if index == 0 else _EXTRACELLULAR
            mid = f"{cpd}_{where}"
            if mid in model.metabolites:
                metabolite = model.metabolites.get_by_id(mid)
            else:
                name, formula = names.get(cpd, (cpd, ""))
                metabolite = cb.Metabolite(mid, name=name, formula=formula or None, compartment=where)
            metabolites[metabolite] = coefficient
        reaction.add_metabolites(metabolites)
        reaction.bounds = _BOUNDS.get(symbol if record["reversibility_symbol"] == "?" else
                                      record["reversibility_symbol"], _BOUNDS["="])
        model.add_reactions([reaction])
        added.append({"id": rid, "name": reaction.name, "bounds": list(reaction.bounds),
                      "equation": reaction.build_reaction_string(use_metabolite_names=True)})
    removed = []
    for rid in dict.fromkeys(plan.remove):
        reaction = model.reactions.get_by_id(rid)
        removed.append({"id": rid, "name": reaction.name})
        reaction.remove_from_model(remove_orphans=True)
    bounds_changed = []
    for rid, (lower, upper) in plan.bounds.items():
        reaction = model.reactions.get_by_id(rid)
        bounds_changed.append({"id": rid, "before": list(reaction.bounds), "after": [lower, upper]})
        reaction.bounds = (lower, upper)
    knocked: list[dict[str, Any]] = []
    for gid in plan.knockouts:
        gene = model.genes.get_by_id(gid)
        before = {r.id: r.bounds for r in gene.reactions}
        gene.knock_out()
        knocked.append({"gene": gid, "reactions_disabled": sorted(r for r, b in before.items()
                                                                 if model.reactions.get_by_id(r).bounds != b)})
    return {"added_reactions": added, "removed_reactions": removed, "bounds_changed": bounds_changed,
            "knocked_out_genes": knocked}


def growth(model: cobra.Model) -> float:
    """Optimum of the current objective, 0.0 when infeasible."""
    value = model.slim_optimize(error_value=float("nan"))
    return 0.0 if math.isnan(value) else round(float(value), 6)
