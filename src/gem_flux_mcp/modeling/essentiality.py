"""Single gene (or reaction) deletions: growth of the model with each one removed.

The same answer as `cobra.flux_analysis.single_gene_deletion`, computed with less work:
- a gene is deleted by closing the reactions whose gene rule turns false without it (the rule
  evaluated with that gene knocked out, as COBRApy does);
- a deletion that closes nothing, or only reactions that carry no flux in the wild-type optimum,
  leaves that optimum feasible, so growth is the wild type's: no solve;
- the other deletions are re-solved one after another on the same solver problem, which starts
  from the previous basis (the bounds are restored after each). With GLPK the re-solve calls
  `glp_simplex` on the problem directly: optlang re-scales the whole problem before every solve,
  which is half the time here and not needed when only column bounds change
  (benchmarks/analysis.py measures it against COBRApy). Anything but an optimum or a proven
  infeasibility is solved again through COBRApy.
An infeasible deletion has growth 0.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import InfeasibilityError, ValidationError

if TYPE_CHECKING:
    import cobra

Target = Literal["genes", "reactions"]
Progress = Callable[[str, float, str], None]
ZERO_FLUX = 1e-9  # below this a wild-type flux counts as none
PROGRESS_EVERY_S = 1.0


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
    resolve = _glpk_resolver(model) or (lambda closed: _growth_without(model, closed))
    last_report = time.monotonic()
    for done, item_id in enumerate(wanted):
        closed = (_closed_by_gene(model, item_id) if target == "genes" else [item_id])
        result.closes[item_id] = closed
        if all(abs(float(fluxes[r])) <= ZERO_FLUX for r in closed):
            result.growth[item_id] = wild_type  # the wild-type optimum stays feasible
        else:
            result.growth[item_id] = resolve(closed)
            result.solves += 1
        if progress is not None and time.monotonic() - last_report >= PROGRESS_EVERY_S:
            last_report = time.monotonic()
            progress("deletions", (done + 1) / len(wanted), f"{done + 1} of {len(wanted)} {target}")
    return result


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


def _glpk_resolver(model: cobra.Model) -> Callable[[list[str]], float] | None:
    """Growth with some reactions closed, solved on the GLPK problem itself (None: not GLPK)."""
    if not model.solver.interface.__name__.endswith("glpk_interface"):
        return None
    import swiglpk as glp

    problem = model.solver.problem
    parameters = model.solver.configuration._smcp

    def columns(reaction_id: str) -> list[int]:
        reaction = model.reactions.get_by_id(reaction_id)
        return [glp.glp_find_col(problem, v.name) for v in (reaction.forward_variable, reaction.reverse_variable)]

    def resolve(closed: list[str]) -> float:
        saved = [(c, glp.glp_get_col_type(problem, c), glp.glp_get_col_lb(problem, c), glp.glp_get_col_ub(problem, c))
                 for rid in closed for c in columns(rid)]
        for column, *_ in saved:
            glp.glp_set_col_bnds(problem, column, glp.GLP_FX, 0.0, 0.0)
        try:
            code = glp.glp_simplex(problem, parameters)
            status = glp.glp_get_status(problem)
            value = glp.glp_get_obj_val(problem) if code == 0 and status == glp.GLP_OPT else None
            infeasible = code == 0 and status == glp.GLP_NOFEAS
        finally:
            for column, kind, lower, upper in saved:
                glp.glp_set_col_bnds(problem, column, kind, lower, upper)
        if value is not None:
            return max(float(value), 0.0)
        return 0.0 if infeasible else _growth_without(model, closed)

    return resolve


def _closed_by_gene(model: cobra.Model, gene_id: str) -> list[str]:
    gene = model.genes.get_by_id(gene_id)
    return sorted(r.id for r in gene.reactions if not r.gpr.eval(knockouts={gene_id}))


def _growth_without(model: cobra.Model, reactions: list[str]) -> float:
    with model:
        for rid in reactions:
            model.reactions.get_by_id(rid).bounds = (0.0, 0.0)
        value = model.slim_optimize(error_value=float("nan"))
    return 0.0 if math.isnan(value) else max(float(value), 0.0)
