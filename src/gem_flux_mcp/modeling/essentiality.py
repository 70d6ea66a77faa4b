"""Single gene (or reaction) deletions: growth of the model with each one removed.

The same answer as `cobra.flux_analysis.single_gene_deletion`, computed with less work:
- a gene is deleted by closing the reactions whose gene rule turns false without it (the rule
  evaluated with that gene knocked out, as COBRApy does);
- a deletion that closes nothing, or only reactions that carry no flux in the wild-type optimum,
  leaves that optimum feasible, so growth is the wild type's: no solve;
- the other deletions are re-solved one after another on the same solver problem, which starts
  from the previous basis (`modeling/bound_changes.py`: GLPK called directly, bounds restored after each).
An infeasible deletion has growth 0.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import InfeasibilityError, ValidationError
from gem_flux_mcp.modeling.bound_changes import optimum_resolver

if TYPE_CHECKING:
    import cobra

Target = Literal["genes", "reactions"]
Progress = Callable[[str, float, str], None]
ZERO_FLUX = 1e-9  # below this a wild-type flux counts as none
PROGRESS_EVERY_S = 1.0
SLOWED_BELOW = 0.99  # growth ratio below which a viable deletion counts as slowing growth


@dataclass
class Deletions:
    target: Target
    wild_type_growth: float
    growth: dict[str, float]  # id -> growth with it deleted (0.0 when infeasible)
    closes: dict[str, list[str]] = field(default_factory=dict)  # id -> reactions its deletion closes
    solves: int = 0  # deletions that needed a solve (the rest could not change the optimum)


def single_deletions(model: cobra.Model, target: Target = "genes", ids: Iterable[str] | None = None,
                     progress: Progress | None = None) -> Deletions:
    """Growth after deleting each gene (or reaction) of `ids` (default: all) from `model` as it is
    (medium and objective already applied). The model is left unchanged."""
    wanted = check_ids(model, target, ids)
    solution = model.optimize()
    if solution.status != "optimal":
        raise InfeasibilityError(
            ErrorCode.MODEL_INFEASIBLE, "The model has no optimum on this medium, so no deletion can be compared.",
            details={"status": solution.status},
        )
    wild_type = float(solution.objective_value)
    fluxes = solution.fluxes
    result = Deletions(target, wild_type, {})
    resolve = optimum_resolver(model)
    last_report = time.monotonic()
    for done, item_id in enumerate(wanted):
        closed = (closed_by_gene(model, item_id) if target == "genes" else [item_id])
        result.closes[item_id] = closed
        if all(abs(float(fluxes[r])) <= ZERO_FLUX for r in closed):
            result.growth[item_id] = wild_type  # the wild-type optimum stays feasible
        else:
            result.growth[item_id] = resolve(dict.fromkeys(closed, (0.0, 0.0)))
            result.solves += 1
        if progress is not None and time.monotonic() - last_report >= PROGRESS_EVERY_S:
            last_report = time.monotonic()
            progress("deletions", (done + 1) / len(wanted), f"{done + 1} of {len(wanted)} {target}")
    return result


def deletion_rows(wild_type_growth: float, growth: dict[str, float], closes: dict[str, list[str]],
                  threshold: float) -> list[dict[str, Any]]:
    """One row per deletion, lowest growth ratio first: growth, ratio to the wild type, and status
    (essential: ratio < threshold; slowed: below 99 %; no_effect)."""
    rows: list[dict[str, Any]] = []
    for item, value in growth.items():
        ratio = value / wild_type_growth if wild_type_growth > 0 else 0.0
        status = "essential" if ratio < threshold else "slowed" if ratio < SLOWED_BELOW else "no_effect"
        rows.append({"id": item, "growth": round(value, 6), "growth_ratio": round(ratio, 6), "status": status,
                     "reactions_closed": closes.get(item, [])})
    rows.sort(key=lambda r: (r["growth_ratio"], r["id"]))
    return rows


def check_ids(model: cobra.Model, target: Target, ids: Iterable[str] | None) -> list[str]:
    """The ids to delete (default: every gene or reaction), every unknown one reported at once."""
    pool = model.genes if target == "genes" else model.reactions
    wanted = list(dict.fromkeys(ids)) if ids is not None else [item.id for item in pool]
    unknown = [i for i in wanted if i not in pool]
    if unknown:
        raise ValidationError(
            ErrorCode.INVALID_GENE if target == "genes" else ErrorCode.INVALID_REACTION,
            f"{len(unknown)} {target[:-1]} id(s) are not in the model: {', '.join(unknown[:10])}.",
            details={f"invalid_{target}": unknown[:50]},
        )
    return wanted


def closed_by_gene(model: cobra.Model, gene_id: str) -> list[str]:
    gene = model.genes.get_by_id(gene_id)
    return sorted(r.id for r in gene.reactions if not r.gpr.eval(knockouts={gene_id}))
