"""The whole gapfilling run (both stages, checks, errors per stage), and the same from the
reference data folder."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import GemFluxError, InfeasibilityError, LibraryError, ValidationError
from gem_flux_mcp.modeling.acyl_coa_dehydrogenases import orient_acyl_coa_dehydrogenases
from gem_flux_mcp.modeling.decarboxylation import orient_decarboxylations
from gem_flux_mcp.modeling.energy import (
    orient_atp_coupled_reactions,
    orient_atp_driven_transport,
    orient_nucleotide_making_kinases,
)
from gem_flux_mcp.modeling.fluxlp import SolverDeadline
from gem_flux_mcp.modeling.gapfill.atp import AtpCorrection, correct_atp
from gem_flux_mcp.modeling.gapfill.changes import evidence_discounts
from gem_flux_mcp.modeling.gapfill.checks import carbon_free, growth_on, quality_checks
from gem_flux_mcp.modeling.gapfill.genome_scale import GenomeScaleResult, gapfill_genome_scale
from gem_flux_mcp.modeling.gapfill.network import (
    ATP_CORRECTION_MODES,
    EMPTY_THRESHOLD,
    MODES,
    RXN_ID,
    AtpTest,
    GapfillOptions,
    Medium,
    NamedMedia,
    Network,
    Progress,
    ReactionFacts,
    atp_media_path,
    load_atp_media,
    named_media,
)
from gem_flux_mcp.modeling.gapfill.reliance import flux_through_added
from gem_flux_mcp.modeling.gapfill.uptake import UptakeResult, complete_uptake
from gem_flux_mcp.modeling.hydrolysis import orient_hydrolyses
from gem_flux_mcp.modeling.phosphorylation import orient_phosphorylations
from gem_flux_mcp.modeling.translation import trna_ligases

if TYPE_CHECKING:
    import cobra

# ---- the whole run -----------------------------------------------------------------------------


@dataclass
class GapfillRun:
    model: cobra.Model
    growth_before: float
    growth_after: float
    atp: AtpCorrection | None
    atp_reused: bool
    genome_scale: GenomeScaleResult | None
    quality: dict[str, Any]
    timings: dict[str, float]
    objective: str
    # per medium, growth before and after (one entry, "medium", when one medium was given);
    # growth_before/after above are the lowest of them
    by_medium: dict[str, tuple[float, float]] = field(default_factory=dict)
    uptake: UptakeResult | None = None
    # ATP-making directions closed first: of ATP-driven transport and reactions, kinases
    atp_transport_oriented: list[str] = field(default_factory=list)
    decarboxylations_oriented: list[str] = field(default_factory=list)  # CO2-fixing directions closed first
    hydrolyses_oriented: list[str] = field(default_factory=list)  # bond-making directions of hydrolyses closed first
    acyl_coa_oriented: list[str] = field(default_factory=list)  # enoyl-CoA reductions by FADH2 closed first


@contextlib.contextmanager
def _stage_errors(code: ErrorCode, stage: str) -> Iterator[None]:
    """A bug or solver failure inside a stage becomes that stage's error code (an ErrorCode)."""
    try:
        yield
    except GemFluxError:
        raise
    except Exception as exc:
        raise LibraryError(
            code, f"{stage} failed: {type(exc).__name__}: {str(exc)[:300]}",
            details={"stage": stage, "exception_type": type(exc).__name__, "original_model_preserved": True},
            suggestions=["Retry once; if it fails again, try gapfill_mode='genomescale_only' or another medium, "
                         "and report it with the arguments used."],
        ) from exc


def pick_objective(model: cobra.Model) -> str:
    if "bio1" in model.reactions:
        return "bio1"
    from gem_flux_mcp.modeling.model_io import objective_reaction_ids

    ids = objective_reaction_ids(model)
    if len(ids) != 1:
        raise ValidationError(
            ErrorCode.NO_BIOMASS_OBJECTIVE,
            "The model has no bio1 reaction and no single objective reaction to gapfill for.",
            details={"objective_reactions": ids},
            suggestions=["Give the model one objective reaction, or use a model with a bio1 reaction."],
        )
    return ids[0]


def gapfill(model: cobra.Model, media: Medium | NamedMedia, options: GapfillOptions, *, genome_template: Any,
            core_template: Any, atp_media: Mapping[str, Medium], formulas: Mapping[str, str],
            facts: ReactionFacts, previous_atp: AtpCorrection | None = None,
            progress: Progress = lambda *_: None, inplace: bool = False,
            atp_ahead: AtpCorrection | None = None) -> GapfillRun:
    """Gapfill a copy of `model` (the argument is not changed) on one medium, or on several
    named media at once (one cheapest set of additions that reaches the target on each).
    `inplace`: gapfill `model` itself, for a caller with no other use for it (a worker's job,
    which read it for this; a copy of an E. coli draft takes ~0.3 s). `atp_ahead`: this model's
    ATP correction, computed ahead by `correct_atp_ahead` on another copy of it; the run and its
    answer are the same as with the correction computed here."""
    if options.mode not in MODES:
        raise ValidationError(ErrorCode.INVALID_GAPFILL_MODE, f"gapfill_mode must be one of {', '.join(MODES)}.",
                              details={"provided_mode": options.mode, "valid_modes": list(MODES)})
    named = named_media(media)
    timings: dict[str, float] = {}
    started = time.perf_counter()
    deadline = SolverDeadline(options.time_limit_s)
    work = model if inplace else model.copy()
    oriented, decarboxylations, hydrolyses, acyl_coa = orient_for_gapfilling(work, facts)
    objective = pick_objective(work)
    no_carbon = {name: carbon_free(medium, formulas) for name, medium in named.items()}
    progress("baseline", 0.02, "growth before gapfilling")
    before = {name: growth_on(work, medium, objective) for name, medium in named.items()}
    timings["baseline"] = time.perf_counter() - started

    atp: AtpCorrection | None = None
    reused = False
    if options.mode in ATP_CORRECTION_MODES:
        if previous_atp is not None:
            atp, reused = previous_atp, True
            atp.apply(work, core_template)
        elif atp_ahead is not None:  # computed on another copy of this very model: its changes again
            progress("atp_correction", 0.3, "computed while the draft was read; its changes made again")
            atp = atp_ahead
            atp.replay(work, core_template)
        else:
            with _stage_errors(ErrorCode.ATP_CORRECTION_FAILED, "ATP correction"):
                atp = correct_atp(work, core_template, atp_media, deadline, progress, facts)
        timings["atp_correction"] = time.perf_counter() - started - sum(timings.values())

    genome: GenomeScaleResult | None = None
    uptake: UptakeResult | None = None
    current = {name: growth_on(work, medium, objective) for name, medium in named.items()} if atp else before
    short = [name for name in named if current[name] < options.target_growth]  # media still below the target
    tests = atp.tests if atp is not None else [AtpTest("empty", EMPTY_THRESHOLD)]
    # the tRNA ligases protein synthesis needs count as imbalanced only for their tRNAs' R groups
    needed = {f"{c.reaction}0" for c in trna_ligases(genome_template).values()}
    excluded = {f"{r}_c0" for r in facts.imbalanced} - needed if options.exclude_imbalanced else set()
    blocked_ids = {r for r, _ in atp.blocked} if atp is not None else set()
    if options.mode in ("full", "genomescale_only") and short:
        progress("genomescale", 0.40, "building the gapfilling network")
        with _stage_errors(ErrorCode.GENOMESCALE_GAPFILL_FAILED, "Genome-scale gapfilling"):
            genome = gapfill_genome_scale(work, genome_template, [named[n] for n in short], objective,
                                          options.target_growth, tests, atp_media, list(no_carbon.values()), options,
                                          excluded | blocked_ids, evidence_discounts(work), deadline, progress, facts)
        timings["genomescale"] = time.perf_counter() - started - sum(timings.values())
        if genome is None:
            raise _infeasible(work, genome_template, named, short, objective, options.target_growth, deadline,
                              excluded)
    if options.mode in ("full", "genomescale_only") and options.medium_uptake:
        progress("uptake", 0.85, "transporters for medium compounds the model cannot take up")
        with _stage_errors(ErrorCode.GENOMESCALE_GAPFILL_FAILED, "Medium uptake"):
            uptake = complete_uptake(work, genome_template, list(named.values()), objective, tests, atp_media,
                                     list(no_carbon.values()), excluded | blocked_ids, evidence_discounts(work),
                                     deadline, facts)
        timings["medium_uptake"] = time.perf_counter() - started - sum(timings.values())
    progress("verify", 0.9, "checking growth and energy with COBRApy")
    after = {name: growth_on(work, medium, objective) for name, medium in named.items()}
    quality = quality_checks(work, named, no_carbon, objective, options.target_growth, growth=after)
    # informational (not in all_passed): how much of the optimum runs through what was added
    added = {r for r, _ in (atp.added if atp is not None and not reused else [])}
    added |= {r for r, _ in (genome.added + genome.reversed if genome is not None else [])}
    added |= {r for r, _ in (uptake.added if uptake is not None else [])}
    quality["flux_through_gapfilled_reactions"] = flux_through_added(work, next(iter(named.values())), objective,
                                                                     added)
    timings["verify"] = time.perf_counter() - started - sum(timings.values())
    timings["total"] = time.perf_counter() - started
    return GapfillRun(work, min(before.values()), min(after.values()), atp, reused, genome, quality,
                      {k: round(v, 3) for k, v in timings.items()}, objective,
                      {name: (before[name], after[name]) for name in named}, uptake, oriented, decarboxylations,
                      hydrolyses, acyl_coa)


def orient_for_gapfilling(model: cobra.Model,
                          facts: ReactionFacts) -> tuple[list[str], list[str], list[str], list[str]]:
    """The directions closed before gapfilling begins, in place: an ATP-driven transporter never
    runs backwards to make ATP (drafts built before this rule, imported models), nor a kinase
    to remake its donor; no CO2 is fixed without energy; no bond is made by reversing a
    hydrolysis; no acyl-CoA dehydrogenase reduces an enoyl-CoA. Returns what was closed:
    (ATP-making, decarboxylations, hydrolyses, acyl-CoA dehydrogenases)."""
    oriented = (orient_atp_driven_transport(model) + orient_atp_coupled_reactions(model, facts.reversibility)
                + orient_nucleotide_making_kinases(model) + orient_phosphorylations(model, facts.deltag))
    return (oriented, orient_decarboxylations(model, facts.deltag), orient_hydrolyses(model, facts.deltag),
            orient_acyl_coa_dehydrogenases(model))


def _infeasible(model: cobra.Model, template: Any, named: Mapping[str, Medium], short: list[str], objective: str,
                target: float, deadline: SolverDeadline, excluded: set[str]) -> InfeasibilityError:
    best = {name: _best_possible(model, template, named[name], objective, deadline, excluded) for name in short}
    worst = min(best.values())
    several = len(named) > 1
    where = f"on every one of the {len(named)} media" if several else "on this medium"
    lowest = min(best, key=lambda name: best[name])
    compounds = list(named[lowest])[:60]
    return InfeasibilityError(
        ErrorCode.GAPFILL_INFEASIBLE,
        f"No set of {len(template.reactions)} template reactions lets {objective} reach {target} /h {where} "
        f"without breaking the energy checks.",
        details={"target_growth": target, "max_achievable_growth": round(worst, 6),
                 **({"max_achievable_growth_by_medium": {n: round(v, 6) for n, v in best.items()},
                     "media_below_target": short} if several else {}),
                 "media_compounds": compounds, "stage_failed": "genomescale",
                 "template_reactions_available": len(template.reactions), "original_model_preserved": True},
        suggestions=["Check that the medium has carbon, nitrogen, phosphorus and sulfur sources.",
                     "Lower target_growth_rate (max_achievable_growth says what is possible)."
                     if worst > 0 else "Try a richer medium (e.g. add amino acids or vitamins).",
                     *(["Gapfill on the media one at a time to see which cannot be reached."] if several else [])],
    )


def _best_possible(model: cobra.Model, template: Any, medium: Medium, objective: str, deadline: SolverDeadline,
                   excluded: set[str]) -> float:
    """Most objective flux with every allowed template reaction open (for the error message)."""
    try:
        net = Network(model, template, deadline, excluded=excluded)
        column = net.col.get((objective, 1))
        if column is None:
            return 0.0
        lower, upper = net.bounds(medium, allowed=np.flatnonzero(net.gapfill_columns))
        return net.lp.maximize(column, lower, upper)
    except Exception:  # only decorates an error message
        return 0.0


# ---- convenience: everything from the data folder -----------------------------------------------


def reaction_facts(biochem: Any, templates: Iterable[Any], model: cobra.Model | None = None) -> ReactionFacts:
    """ReactionFacts for every reaction of the templates (and the model), from a BiochemIndex."""
    ids = {r.id.rsplit("_", 1)[0] for t in templates for r in t.reactions}
    if model is not None:
        ids |= {r.id.split("_")[0] for r in model.reactions if RXN_ID.match(r.id)}
    details = biochem.reaction_details(ids)
    return ReactionFacts(
        imbalanced=frozenset(k for k, d in details.items() if "MI" in d["status"]),
        reversibility={k: d["reversibility"] for k, d in details.items()},
        linked={k: tuple(d["linked"]) for k, d in details.items() if d["linked"]},
        deltag={k: d["deltag"] for k, d in details.items() if d["deltag"] is not None and abs(d["deltag"]) < 1e6},
    )


def load_shared_inputs(data_dir: Path, biochem: Any, template_name: str) -> None:
    """Compute once what every gapfill with `template_name` computes first in a process and then
    keeps: the two templates, their reaction facts (the biochemistry index keeps them), and the
    directions each template reaction may be offered in (network._required_signs), found by
    laying the template out as a network around an empty model. For a worker's warm-up
    (services/job_base.warm_up): ~1 s of an E. coli gapfill otherwise."""
    import cobra

    from gem_flux_mcp.data.templates import ATP_TEMPLATE, load_template

    templates = [load_template(data_dir, name) for name in dict.fromkeys((template_name, ATP_TEMPLATE))]
    facts = reaction_facts(biochem, templates)
    for template in templates:
        Network(cobra.Model("warm_up"), template, SolverDeadline(600.0), reversibility=facts.reversibility,
                deltag=facts.deltag)


def correct_atp_ahead(model: cobra.Model, *, template_name: str, data_dir: Path, biochem: Any,
                      deadline: SolverDeadline) -> AtpCorrection:
    """Stage 1 for `model`, in place, before its gapfill is asked for (a worker's idle time after
    a build: services/gapfill_ahead.py): what `gapfill` does first, the directions closed and the
    ATP correction, which depends on the model alone, not on the medium. `gapfill(...,
    atp_ahead=the result)` on another copy of the same model replays its changes."""
    _, core_template, atp_media, facts = _inputs(model, template_name, data_dir, biochem)
    orient_for_gapfilling(model, facts)
    return correct_atp(model, core_template, atp_media, deadline, lambda *_: None, facts)


def _inputs(model: cobra.Model, template_name: str, data_dir: Path,
            biochem: Any) -> tuple[Any, Any, dict[str, dict[str, tuple[float, float]]], ReactionFacts]:
    """(the genome template, the ATP template, the ATP test media, the reaction facts) for `model`."""
    from gem_flux_mcp.data.templates import ATP_TEMPLATE, load_template

    genome_template = load_template(data_dir, template_name)
    core_template = load_template(data_dir, ATP_TEMPLATE)
    facts = reaction_facts(biochem, (genome_template, core_template), model)
    return genome_template, core_template, load_atp_media(atp_media_path()), facts


def gapfill_from_data(model: cobra.Model, media: Medium | NamedMedia, options: GapfillOptions, *, template_name: str,
                      data_dir: Path, biochem: Any, previous_atp: AtpCorrection | None = None,
                      progress: Progress = lambda *_: None, inplace: bool = False,
                      atp_ahead: AtpCorrection | None = None) -> GapfillRun:
    """`gapfill` with templates, ATP media and biochemistry facts loaded from the data folder."""
    from gem_flux_mcp.data.templates import ATP_TEMPLATE

    progress("load", 0.01, f"loading the {template_name} and {ATP_TEMPLATE} templates")
    genome_template, core_template, atp_media, facts = _inputs(model, template_name, data_dir, biochem)
    named = named_media(media)
    compounds = {c for medium in named.values() for c in medium} | {c for m in atp_media.values() for c in m}
    formulas = {cid: formula for cid, (_, formula) in biochem.compound_names(compounds).items()}
    return gapfill(model, named, options, genome_template=genome_template, core_template=core_template,
                   atp_media=atp_media, formulas=formulas, facts=facts, previous_atp=previous_atp,
                   progress=progress, inplace=inplace, atp_ahead=atp_ahead)
