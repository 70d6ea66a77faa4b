"""What-if changes for one analysis: gene and reaction knockouts and bounds, applied inside the
caller's `with model:` block so COBRApy reverts them when it ends (nothing is stored)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling import revise

if TYPE_CHECKING:
    import cobra


@dataclass
class WhatIf:
    plan: revise.RevisionPlan = field(default_factory=revise.RevisionPlan)  # bounds and gene knockouts
    knockout_reactions: list[str] = field(default_factory=list)

    def is_empty(self) -> bool:
        return self.plan.is_empty() and not self.knockout_reactions


def validate_what_if(model: cobra.Model, knockout_genes: object, knockout_reactions: object,
                     reaction_bounds: object) -> WhatIf:
    """The changes, checked against the model: every unknown reaction reported at once (then
    every unknown gene), bounds finite and ordered."""
    requested = [str(r) for r in revise.as_list(knockout_reactions, "knockout_reactions")]
    unknown = [r for r in requested if r not in model.reactions]
    if unknown:
        raise ValidationError(
            ErrorCode.INVALID_REACTION,
            f"{len(unknown)} reaction(s) to knock out are not in the model: {', '.join(unknown[:10])}.",
            details={"invalid_reactions": {r: "not a reaction of this model (knockout)" for r in unknown[:50]}},
        )
    plan = revise.validate_plan(model, None, None, reaction_bounds, knockout_genes, lambda _: None,
                                allow_empty=True)
    return WhatIf(plan, list(dict.fromkeys(requested)))


def apply_what_if(model: cobra.Model, what_if: WhatIf) -> dict[str, Any]:
    """Apply the changes (call inside `with model:`); returns what they did."""
    changes = revise.apply_plan(model, what_if.plan, lambda _: None, lambda _: {})  # bounds, then genes
    for rid in what_if.knockout_reactions:
        model.reactions.get_by_id(rid).knock_out()
    return {"knocked_out_genes": what_if.plan.knockouts,
            "reactions_blocked_by_genes": {k["gene"]: k["reactions_disabled"] for k in changes["knocked_out_genes"]},
            "knocked_out_reactions": what_if.knockout_reactions, "bounds_changed": changes["bounds_changed"]}
