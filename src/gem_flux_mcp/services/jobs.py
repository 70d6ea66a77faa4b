"""Long jobs as typed objects: prepared by a service in the server, run in a worker process
(`server/worker.py` sends the object through a pipe and calls `run`), their results stored by the
same service. Everything here is picklable; models travel as COBRApy JSON, never re-parsed by the
server."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, TypeVar

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.errors import GemFluxError

Progress = Callable[[str, float, str], None]
T = TypeVar("T")


class Job(Protocol):
    kind: ClassVar[str]  # names the job in progress, errors ("<KIND>_TIMEOUT") and logs

    def run(self, settings: Settings, progress: Progress) -> Any: ...


@functools.cache
def _biochem(settings: Settings) -> BiochemIndex:
    """The worker's own biochemistry index, opened once per worker process."""
    return BiochemIndex.open(settings.data_dir, settings.cache_dir)


@dataclass(frozen=True)
class BuiltDraft:
    data: bytes  # COBRApy JSON
    stats: dict[str, Any]
    summary: dict[str, Any]
    timings: dict[str, float]


@dataclass(frozen=True)
class BuildJob:
    kind: ClassVar[str] = "build"
    model_id: str
    template: str
    proteins: tuple[tuple[str, str, str], ...]  # (id, sequence, header description)
    use_header_functions: bool = True
    use_homology: bool = True
    annotate_with_rast: bool = False
    exclude_reference_models: tuple[str, ...] = ()

    def run(self, settings: Settings, progress: Progress) -> BuiltDraft:
        from gem_flux_mcp.modeling.build import BuildOptions, describe_draft
        from gem_flux_mcp.modeling.inputs import Protein
        from gem_flux_mcp.modeling.reconstruct import build_with_template
        from gem_flux_mcp.modeling.solver_memory import release_model
        from gem_flux_mcp.store.serialization import serialize_model

        proteins = [Protein(pid, seq, desc) for pid, seq, desc in self.proteins]
        options = BuildOptions(
            use_header_functions=self.use_header_functions, use_homology=self.use_homology,
            use_rast=self.annotate_with_rast, exclude_reference_models=self.exclude_reference_models,
        )
        result, call = build_with_template(self.model_id, proteins, self.template, options, settings.data_dir,
                                           settings.cache_dir, _biochem(settings), progress=progress)
        progress("store", 0.92, "serializing the model")
        serialized = serialize_model(result.model, self.model_id)
        summary = describe_draft(result.model, call.template if call else self.template, result.annotation)
        if call is not None:  # template 'auto': what was chosen and why
            summary["interpretation"]["template_choice"] = call.reason
        release_model(result.model)
        return BuiltDraft(serialized.data, serialized.stats, summary, result.timings)


@dataclass(frozen=True)
class GapfillOutcome:
    data: bytes  # COBRApy JSON of the gapfilled model
    stats: dict[str, Any]
    report: dict[str, Any]
    atp_correction: dict[str, Any] | None


@dataclass(frozen=True)
class StoredModelOnMedium:
    """What every job on a stored model needs: its id and COBRApy JSON, and the medium."""

    model_id: str
    media_id: str
    model_json: str
    medium: dict[str, tuple[float, float]]

    def load_on_medium(self, settings: Settings, objective: str | None = None) -> tuple[Any, list[Any]]:
        """(the COBRApy model with the medium applied and `objective` set, its exchanges). The
        caller releases the model (`solver_memory.release_model`)."""
        from cobra.io import from_json

        from gem_flux_mcp.modeling import media

        model = from_json(self.model_json)
        exchanges, _ = media.put_on_medium(model, self.medium, _biochem(settings))
        if objective is not None:
            model.objective = objective
        return model, exchanges

    def analyse(self, settings: Settings, progress: Progress, objective: str,
                analysis: Callable[[Any, list[Any]], T]) -> tuple[T, float]:
        """`analysis(model, exchanges)` on the model loaded on the medium; (its result, seconds)."""
        from gem_flux_mcp.modeling.solver_memory import release_model

        started = time.perf_counter()
        progress("load", 0.02, "reading the model")
        model, exchanges = self.load_on_medium(settings, objective)
        try:
            return analysis(model, exchanges), time.perf_counter() - started
        finally:
            release_model(model)


@dataclass(frozen=True)
class GapfillJob(StoredModelOnMedium):
    kind: ClassVar[str] = "gapfill"
    target_growth: float
    mode: str
    template: str
    new_model_id: str
    atp_correction: dict[str, Any] | None = None  # known from an earlier gapfill of the same model
    template_note: str | None = None
    # more media to reach the target on, at once with `medium` (one cheapest set of additions)
    other_media: tuple[tuple[str, dict[str, tuple[float, float]]], ...] = ()

    def run(self, settings: Settings, progress: Progress) -> GapfillOutcome:
        from cobra.io import from_json

        from gem_flux_mcp.modeling import gapfill, gapfill_report
        from gem_flux_mcp.modeling.solver_memory import release_model
        from gem_flux_mcp.store.serialization import serialize_model

        progress("load", 0.01, "reading the model")
        model = from_json(self.model_json)
        options = gapfill.GapfillOptions(target_growth=self.target_growth, mode=self.mode)
        previous = gapfill.AtpCorrection.from_json(self.atp_correction) if self.atp_correction else None
        biochem = _biochem(settings)
        media = {self.media_id: dict(self.medium), **dict(self.other_media)}
        run = gapfill.gapfill_from_data(model, media if self.other_media else dict(self.medium), options,
                                        template_name=self.template, data_dir=settings.data_dir, biochem=biochem,
                                        previous_atp=previous, progress=progress)
        report = gapfill_report.describe(run, biochem.reaction_details, options.target_growth)
        progress("store", 0.95, "serializing the gapfilled model")
        serialized = serialize_model(run.model, self.new_model_id)
        release_model(run.model)
        release_model(model)
        return GapfillOutcome(serialized.data, serialized.stats, report,
                              run.atp.to_json() if run.atp is not None else None)


def warm_up(settings: Settings) -> None:
    """What every job needs, loaded when a worker starts: ModelSEEDpy, the default template, the
    biochemistry index."""
    from gem_flux_mcp.data.templates import BUILD_TEMPLATES, load_template, template_path

    default = BUILD_TEMPLATES[0]
    if template_path(settings.data_dir, default).is_file():
        load_template(settings.data_dir, default)
    _biochem(settings)


@dataclass(frozen=True)
class DeletionOutcome:
    wild_type_growth: float
    growth: dict[str, float]
    closes: dict[str, list[str]]
    solves: int
    seconds: float


@dataclass(frozen=True)
class EssentialityJob(StoredModelOnMedium):
    kind: ClassVar[str] = "essentiality"
    objective: str
    target: str  # "genes" or "reactions"
    threshold: float  # growth ratio below which a deletion is lethal (used when the answer is shaped)
    ids: tuple[str, ...] | None = None  # None: all

    def run(self, settings: Settings, progress: Progress) -> DeletionOutcome:
        from gem_flux_mcp.modeling.essentiality import single_deletions

        result, seconds = self.analyse(settings, progress, self.objective, lambda model, _: single_deletions(
            model, "genes" if self.target == "genes" else "reactions", self.ids, progress=progress))
        return DeletionOutcome(result.wild_type_growth, result.growth, result.closes, result.solves, seconds)


@dataclass(frozen=True)
class PhenotypeOutcome:
    base_growth: float
    growth: dict[str, float | None]  # None: the model has no exchange for the compound
    exchanges: dict[str, list[str]]
    seconds: float


@dataclass(frozen=True)
class PhenotypeJob(StoredModelOnMedium):
    """`medium` is the base medium with the panel's reference sources already taken out."""

    kind: ClassVar[str] = "phenotypes"
    objective: str
    compounds: tuple[str, ...]
    uptake: float
    panel: str | None = None
    reference_removed: tuple[str, ...] = ()

    def run(self, settings: Settings, progress: Progress) -> PhenotypeOutcome:
        from gem_flux_mcp.modeling.phenotypes import growth_phenotypes

        result, seconds = self.analyse(settings, progress, self.objective, lambda model, exchanges: growth_phenotypes(
            model, self.compounds, exchanges, self.uptake, progress=progress))
        return PhenotypeOutcome(result.base_growth, result.growth, result.exchanges, seconds)


@dataclass(frozen=True)
class VariabilityOutcome:
    optimum: float
    minimum: dict[str, float]
    maximum: dict[str, float]
    solves: int
    seconds: float


@dataclass(frozen=True)
class VariabilityJob(StoredModelOnMedium):
    kind: ClassVar[str] = "variability"
    objective: str
    fraction_of_optimum: float
    loopless: bool
    reactions: tuple[str, ...] | None = None  # None: all

    def run(self, settings: Settings, progress: Progress) -> VariabilityOutcome:
        from gem_flux_mcp.modeling.variability import flux_variability

        result, seconds = self.analyse(settings, progress, self.objective, lambda model, _: flux_variability(
            model, self.reactions, self.fraction_of_optimum, self.loopless, progress=progress))
        return VariabilityOutcome(result.optimum, result.minimum, result.maximum, result.solves, seconds)


@dataclass(frozen=True)
class DiagnosisOutcome:
    diagnosis: dict[str, Any]  # the modeling Diagnosis as plain data
    fix: dict[str, Any] | None  # what a gapfill on the medium would add, when the model does not grow
    seconds: float


@dataclass(frozen=True)
class DiagnoseJob:
    """`medium` None: the model's bounds as stored. A fix is searched for only with a medium."""

    kind: ClassVar[str] = "diagnose"
    model_id: str
    media_id: str | None
    model_json: str
    medium: dict[str, tuple[float, float]] | None
    biomass: str
    template: str
    atp_correction: dict[str, Any] | None = None
    growth_needed: float = 1e-6  # below this growth the gapfill fix is searched for

    def run(self, settings: Settings, progress: Progress) -> DiagnosisOutcome:
        import dataclasses

        from cobra.io import from_json

        from gem_flux_mcp.modeling import diagnose, gapfill, gapfill_report, media
        from gem_flux_mcp.modeling.solver_memory import release_model

        started = time.perf_counter()
        progress("load", 0.02, "reading the model")
        model = from_json(self.model_json)
        biochem = _biochem(settings)
        if self.medium is not None:
            media.put_on_medium(model, self.medium, biochem)
        progress("diagnose", 0.1, "balance, dead ends, blocked reactions, energy cycles, biomass precursors")
        found = diagnose.diagnose(model, self.biomass)
        plain = {**dataclasses.asdict(found), "counts": found.counts(),
                 "mass_imbalanced": found.balance.mass_imbalanced,
                 "charge_imbalanced": found.balance.charge_imbalanced}
        fix = None
        if self.medium is not None and found.growth < self.growth_needed:
            progress("fix", 0.5, "gapfilling on the medium to find the shortest fix")
            previous = gapfill.AtpCorrection.from_json(self.atp_correction) if self.atp_correction else None
            options = gapfill.GapfillOptions()
            release_model(model)
            model = from_json(self.model_json)  # as gapfill_model would see it, no medium applied
            try:
                run = gapfill.gapfill_from_data(model, dict(self.medium), options, template_name=self.template,
                                                data_dir=settings.data_dir, biochem=biochem, previous_atp=previous,
                                                progress=progress)
            except GemFluxError as exc:  # no fix from the template: say why
                fix = {"template": self.template, "error_code": str(exc.code), "message": exc.message}
            else:
                report = gapfill_report.describe(run, biochem.reaction_details, options.target_growth)
                fix = {"template": self.template, "growth_after": report["growth_rate_after"],
                       "reactions_added": report["reactions_added"]}
                release_model(run.model)
        release_model(model)
        return DiagnosisOutcome(plain, fix, time.perf_counter() - started)


@dataclass(frozen=True)
class FermentationOutcome:
    result: dict[str, Any]  # modeling.fermentation.FermentationResult as plain data
    seconds: float


@dataclass(frozen=True)
class FermentationJob(StoredModelOnMedium):
    kind: ClassVar[str] = "fermentation"
    objective: str
    min_ratio: float

    def run(self, settings: Settings, progress: Progress) -> FermentationOutcome:
        import dataclasses

        from gem_flux_mcp.modeling.fermentation import fermentation_products

        def analysis(model: Any, exchanges: list[Any]) -> dict[str, Any]:
            progress("fermentation", 0.2, "optimal growth, minimal-total-flux solution, flux ranges of the products")
            return dataclasses.asdict(fermentation_products(model, exchanges, self.medium, min_ratio=self.min_ratio))

        result, seconds = self.analyse(settings, progress, self.objective, analysis)
        return FermentationOutcome(result, seconds)
