"""Genome to gapfilled model in one call (the command line's `reconstruct`, a batch's task):
the template chosen from the genome when asked, the draft gapfilled on each medium in turn, growth
checked on every medium at the end. Plain functions on COBRApy models, as in a notebook."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.errors import GemFluxError

from .build import BuildOptions, BuildResult, build_draft, describe_draft
from .gram import GramCall, gram_from_draft, gram_from_names, outer_membrane_names
from .inputs import Protein
from .solver_memory import release_model

if TYPE_CHECKING:
    import cobra

    from .bigg_match import Aliases
    from .gapfill import AtpCorrection

Medium = Mapping[str, tuple[float, float]]
Progress = Callable[[str, float, str], None]
TEMPLATE_CHOICES = ("auto", "GramNegative", "GramPositive")


def _quiet(stage: str, fraction: float, message: str) -> None:
    return None


def _scaled(progress: Progress, start: float, end: float) -> Progress:
    return lambda stage, fraction, message: progress(stage, start + (end - start) * fraction, message)


@dataclass
class GapfillStep:
    medium: str
    growth_before: float
    growth_after: float
    reactions_added: int
    quality_checks_passed: bool
    seconds: float
    report: dict[str, Any]


@dataclass
class Reconstruction:
    model: cobra.Model
    template: str
    template_reason: str
    draft: dict[str, Any]
    gapfills: list[GapfillStep] = field(default_factory=list)
    growth: dict[str, float] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        return {
            "model_id": self.model.id, "template": self.template, "template_reason": self.template_reason,
            "num_reactions": len(self.model.reactions), "num_metabolites": len(self.model.metabolites),
            "num_genes": len(self.model.genes),
            "draft": {k: self.draft[k] for k in ("num_reactions", "num_genes") if k in self.draft},
            "genome_completeness": self.draft.get("genome_completeness"),
            "gapfills": [{"medium": g.medium, "growth_before": g.growth_before, "growth_after": g.growth_after,
                          "reactions_added": g.reactions_added, "quality_checks_passed": g.quality_checks_passed,
                          "seconds": g.seconds} for g in self.gapfills],
            "growth": self.growth, "timings_s": self.timings,
        }


def build_with_template(model_id: str, proteins: list[Protein], template: str, options: BuildOptions,
                        data_dir: Path, cache_dir: Path, aliases: Aliases,
                        progress: Progress = _quiet) -> tuple[BuildResult, GramCall | None]:
    """A draft with the given template. For 'auto', the proteins' names decide when they say there is
    no outer membrane (one Gram-positive draft); otherwise a Gram-negative draft is built, its
    lipopolysaccharide genes and the names decide, and it is rebuilt with the Gram-positive template
    when they say so (modeling/gram.py)."""
    if template != "auto":
        return build_draft(model_id, proteins, replace(options, template=template), data_dir, cache_dir, aliases,
                           progress=progress), None
    names = outer_membrane_names(proteins) if options.use_header_functions else None
    call = gram_from_names(names) if names is not None else None
    if call is not None:
        return build_draft(model_id, proteins, replace(options, template=call.template), data_dir, cache_dir,
                           aliases, progress=progress), call
    first = build_draft(model_id, proteins, replace(options, template="GramNegative"), data_dir, cache_dir, aliases,
                        progress=_scaled(progress, 0.0, 0.5))
    call = gram_from_draft(first.model, aliases, names)
    if call.template == "GramNegative":
        return first, call
    progress("assemble", 0.5, "no outer membrane: rebuilding with the GramPositive template")
    release_model(first.model)
    return build_draft(model_id, proteins, replace(options, template="GramPositive"), data_dir, cache_dir, aliases,
                       progress=_scaled(progress, 0.5, 1.0)), call


def gapfill_in_turn(model: cobra.Model, media: Mapping[str, Medium], template: str, data_dir: Path, biochem: Any,
                    target_growth: float = 0.01, mode: str = "full", progress: Progress = _quiet,
                    together: bool = False) -> tuple[cobra.Model, list[GapfillStep]]:
    """Gapfill on each medium in turn, each on the result of the last (the ATP correction of the
    first reused); a medium the model already grows on adds nothing. `together`: one gapfill on
    all the media at once (one cheapest set of additions for every medium), one step."""
    from . import gapfill
    from .gapfill import report as gapfill_report

    groups = [dict(media)] if together and len(media) > 1 else [{name: medium} for name, medium in media.items()]
    steps: list[GapfillStep] = []
    atp: AtpCorrection | None = None
    current = model
    for number, group in enumerate(groups):
        name = " + ".join(group)
        started = time.perf_counter()
        share = _scaled(progress, number / len(groups), (number + 1) / len(groups))
        options = gapfill.GapfillOptions(target_growth=target_growth, mode=mode)
        try:
            run = gapfill.gapfill_from_data(current, group if len(group) > 1 else dict(group[name]), options,
                                            template_name=template, data_dir=data_dir, biochem=biochem,
                                            previous_atp=atp, progress=share)
        except GemFluxError as exc:
            if len(groups) > 1:  # say which medium of several failed
                exc.message = f"Gapfilling on medium {name} (number {number + 1} of {len(groups)}): {exc.message}"
                exc.details = {**exc.details, "medium": name, "media_done": [s.medium for s in steps]}
            raise
        report = gapfill_report.describe(run, biochem.reaction_details, target_growth)
        atp = run.atp or atp
        if current is not model:  # an intermediate model nobody else holds
            release_model(current)
        current = run.model
        steps.append(GapfillStep(name, report["growth_rate_before"], report["growth_rate_after"],
                                 len(report["reactions_added"]), bool(report["quality_checks"]["all_passed"]),
                                 round(time.perf_counter() - started, 2), report))
    return current, steps


def reconstruct(model_id: str, proteins: list[Protein], media: Mapping[str, Medium], *, template: str,
                data_dir: Path, cache_dir: Path, biochem: Any, options: BuildOptions | None = None,
                progress: Progress = _quiet, together: bool = False) -> Reconstruction:
    from .gapfill import growth_on
    from .gapfill.run import pick_objective

    timings: dict[str, float] = {}
    started = time.perf_counter()
    built, call = build_with_template(model_id, proteins, template, options or BuildOptions(), data_dir, cache_dir,
                                      biochem, progress=_scaled(progress, 0.0, 0.4))
    chosen = call.template if call else template
    timings["build"] = round(time.perf_counter() - started, 2)
    draft = describe_draft(built.model, chosen, built.annotation)
    model, steps = gapfill_in_turn(built.model, media, chosen, data_dir, biochem,
                                   progress=_scaled(progress, 0.4, 0.95), together=together)
    if model is not built.model:
        release_model(built.model)
    timings["gapfill"] = round(time.perf_counter() - started - timings["build"], 2)
    objective = pick_objective(model)
    growth = {name: round(growth_on(model, medium, objective), 6) for name, medium in media.items()}
    timings["total"] = round(time.perf_counter() - started, 2)
    return Reconstruction(model, chosen, call.reason if call else f"{template} as requested", draft, steps, growth,
                          timings)
