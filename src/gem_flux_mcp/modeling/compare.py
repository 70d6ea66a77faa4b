"""How two models differ: reactions, genes and metabolites only in one or in both (by id), the
shared reactions whose bounds or gene rules differ, and growth of each on a medium."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import cobra


@dataclass
class Difference:
    only_a: list[str]
    only_b: list[str]
    shared: int


@dataclass
class ModelDifference:
    reactions: Difference
    genes: Difference
    metabolites: Difference
    changed_reactions: list[str] = field(default_factory=list)  # shared, with other bounds or gene rule


def compare_models(a: cobra.Model, b: cobra.Model) -> ModelDifference:
    """Compare by id (both models in the same namespace, e.g. a draft and its gapfilled model)."""
    def split(first: list[str], second: list[str]) -> Difference:
        in_b, in_a = set(second), set(first)
        return Difference(sorted(i for i in in_a if i not in in_b), sorted(i for i in in_b if i not in in_a),
                          len(in_a & in_b))

    changed = sorted(
        r.id for r in a.reactions if r.id in b.reactions
        and (r.bounds != b.reactions.get_by_id(r.id).bounds
             or r.gene_reaction_rule != b.reactions.get_by_id(r.id).gene_reaction_rule)
    )
    return ModelDifference(
        split([r.id for r in a.reactions], [r.id for r in b.reactions]),
        split([g.id for g in a.genes], [g.id for g in b.genes]),
        split([m.id for m in a.metabolites], [m.id for m in b.metabolites]),
        changed,
    )


def growth(model: cobra.Model) -> float | None:
    """The objective's optimum as the model stands (medium applied); None when infeasible."""
    value = model.slim_optimize(error_value=float("nan"))
    return None if math.isnan(value) else max(float(value), 0.0)
