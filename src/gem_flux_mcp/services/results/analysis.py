"""Results of the analysis tools (essentiality, phenotype arrays, ...)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from gem_flux_mcp.services.results.base import Result
from gem_flux_mcp.services.results.models import AddedReaction


class TableFile(Result):
    path: str = Field(description="The TSV written (relative to the workspace's file area)")
    rows: int
    columns: list[str]


class DeletionRow(Result):
    id: str
    growth: float = Field(description="Growth (objective value) with it deleted; 0 when infeasible")
    growth_ratio: float = Field(description="growth / wild-type growth")
    status: Literal["essential", "slowed", "no_effect"]
    reactions_closed: list[str] = Field(description="Reactions the deletion closes (a gene: those whose rule "
                                                    "turns false)")


class EssentialitySummary(Result):
    target: Literal["genes", "reactions"]
    tested: int
    essential: int
    slowed: int = Field(description="Viable, but growth below 99 % of the wild type")
    no_effect: int
    wild_type_growth: float
    threshold: float


class ConfusionMetrics(Result):
    tp: int
    fp: int
    tn: int
    fn: int
    compared: int
    accuracy: float | None
    mcc: float


class Mismatch(Result):
    id: str
    predicted_essential: bool
    observed_essential: bool


class Comparison(Result):
    metrics: ConfusionMetrics
    mismatches: list[Mismatch] = Field(description="The first 50")
    mismatches_total: int
    not_in_model: list[str] = Field(description="Observed ids the model does not have (first 50)")


class EssentialityResult(Result):
    success: Literal[True] = True
    model_id: str
    media_id: str
    objective: str
    summary: EssentialitySummary
    essential: list[str] = Field(description="Essential ids, most severe first (first 50)")
    essential_truncated: bool
    rows: list[DeletionRow] = Field(description="This page of every tested id, lowest growth ratio first")
    offset: int
    next_offset: int | None = Field(description="offset of the next page; null at the end")
    comparison: Comparison | None = Field(default=None, description="Against `observed`, when given")
    output_file: TableFile | None = Field(default=None, description="The full table, when output_path was given")
    solves: int = Field(description="Deletions that needed an LP solve; the others cannot change the optimum")
    seconds: float


class PhenotypeRow(Result):
    compound_id: str
    name: str
    status: Literal["growth", "no_growth", "no_uptake"] = Field(
        description="no_uptake: the model has no exchange for the compound, so it cannot take it up")
    growth: float | None = Field(description="Growth (1/h) with the compound; null when it cannot be taken up")
    exchanges: list[str]


class PhenotypeSummary(Result):
    tested: int
    growth: int
    no_growth: int
    no_uptake: int = Field(description="Compounds without an exchange reaction in the model")
    base_growth: float = Field(description="Growth on the base medium minus the reference sources, with no "
                                           "tested compound (the negative control)")
    growth_threshold: float
    panel: Literal["carbon", "nitrogen", "phosphorus", "sulfur"] | None
    reference_removed: list[str] = Field(description="The panel's reference sources taken out of the base medium")
    uptake_rate: float = Field(description="Uptake each tested compound was opened at (mmol/gDW/h)")


class PhenotypeMismatch(Result):
    id: str
    predicted_growth: bool
    observed_growth: bool


class PhenotypeComparison(Result):
    metrics: ConfusionMetrics
    mismatches: list[PhenotypeMismatch] = Field(description="The first 50")
    mismatches_total: int


class PhenotypeResult(Result):
    success: Literal[True] = True
    model_id: str
    base_media_id: str
    objective: str
    summary: PhenotypeSummary
    growth_on: list[str] = Field(description="Compounds it grows on (first 200)")
    no_uptake: list[str] = Field(description="Compounds it cannot take up (first 200)")
    rows: list[PhenotypeRow] = Field(description="This page of the array, in panel order")
    offset: int
    next_offset: int | None = Field(description="offset of the next page; null at the end")
    comparison: PhenotypeComparison | None = Field(default=None, description="Against `observed`, when given "
                                                   "(no_uptake counts as no growth)")
    output_file: TableFile | None = Field(default=None, description="The full table, when output_path was given")
    warnings: list[str]
    provenance: str | None = Field(description="Where the panel's compound list comes from")
    seconds: float


class DifferenceCounts(Result):
    only_a: int
    only_b: int
    shared: int
    changed: int | None = Field(default=None, description="Shared reactions with other bounds or gene rule")


class ComparisonSummary(Result):
    reactions: DifferenceCounts
    genes: DifferenceCounts
    metabolites: DifferenceCounts


class GrowthPair(Result):
    media_id: str
    growth_a: float | None = Field(description="Optimum of model A's objective (1/h); null when infeasible or "
                                               "the medium has nothing A can exchange")
    growth_b: float | None


class CompareModelsResult(Result):
    success: Literal[True] = True
    model_a: str
    model_b: str
    summary: ComparisonSummary
    objectives: dict[str, str] = Field(description="Each model's objective reaction(s), under 'a' and 'b'")
    growth: list[GrowthPair] = Field(description="Growth of both on each medium")
    reactions_only_a: list[str] = Field(description="This page of the ids (sorted); all lists page together")
    reactions_only_b: list[str]
    genes_only_a: list[str]
    genes_only_b: list[str]
    metabolites_only_a: list[str]
    metabolites_only_b: list[str]
    reactions_changed: list[str] = Field(description="Shared reactions whose bounds or gene rule differ")
    reaction_names: dict[str, str] = Field(description="ModelSEED names of the reactions on this page")
    offset: int
    next_offset: int | None = Field(description="offset of the next page; null at the end")


FluxStatus = Literal["blocked", "forward_only_forced", "reverse_only_forced", "variable"]


class VariabilityRow(Result):
    reaction_id: str
    minimum: float = Field(description="Smallest net flux (mmol/gDW/h)")
    maximum: float = Field(description="Largest net flux")
    status: FluxStatus = Field(description="blocked: no flux possible; *_forced: must carry flux in that "
                                           "direction; variable: otherwise")


class VariabilitySummary(Result):
    tested: int
    blocked: int
    forward_only_forced: int
    reverse_only_forced: int
    variable: int
    optimum: float = Field(description="The objective's optimum on the medium")
    fraction_of_optimum: float
    loopless: bool


class VariabilityResult(Result):
    success: Literal[True] = True
    model_id: str
    media_id: str
    objective: str
    summary: VariabilitySummary
    forced: list[VariabilityRow] = Field(description="The 20 reactions that must carry the most flux")
    blocked: list[str] = Field(description="Blocked reactions (first 100)")
    blocked_truncated: bool
    rows: list[VariabilityRow] = Field(description="This page of every reaction, in model order")
    offset: int
    next_offset: int | None = Field(description="offset of the next page; null at the end")
    output_file: TableFile | None = Field(default=None, description="The full table, when output_path was given")
    solves: int = Field(description="LPs solved (the others were known from earlier solutions or fixed bounds)")
    seconds: float


class EnergyCycleFound(Result):
    carrier: str = Field(description="ATP, GTP, NADH or NADPH")
    max_flux: float = Field(description="Largest dissipation flux with every uptake closed")
    dissipation_reaction: str | None = Field(description="The model's own reaction; null: a temporary one")
    members: dict[str, float] = Field(description="Reactions of the cycle and their flux while dissipating 1 "
                                                  "unit (first 20)")
    members_total: int


class MissingPrecursor(Result):
    id: str
    name: str
    inputs_not_made: list[str] = Field(description="For a component made by one reaction (protein, DNA, ...): "
                                                   "its inputs the model cannot make")
    input_names: list[str]


class FixFound(Result):
    template: str
    growth_after: float | None = None
    reactions_total: int | None = None
    reactions_added: list[AddedReaction] | None = Field(default=None, description="First 20")
    error_code: str | None = Field(default=None, description="Set when gapfilling found no fix")
    message: str | None = None


class DiagnosisResult(Result):
    success: Literal[True] = True
    model_id: str
    media_id: str | None = Field(description="null: the model's stored bounds were used")
    biomass: str
    summary: dict[str, Any] = Field(description="Counts of every finding, growth, and whether it grows")
    explanation: list[str] = Field(description="Plain sentences: does it grow, why not, energy from nothing")
    energy_cycles: list[EnergyCycleFound]
    missing_biomass_precursors: list[MissingPrecursor]
    recycled_precursors: list[str] = Field(description="Biomass components made only from what biomass gives "
                                                       "back (not missing)")
    fix: FixFound | None = Field(description="When it does not grow on the medium: what a gapfill would add")
    mass_imbalanced: list[str] = Field(description="This page of each list (all lists page together)")
    charge_imbalanced: list[str]
    blocked_reactions: list[str] = Field(description="No flux possible even with every exchange open")
    dead_end_metabolites: list[str]
    reactions_without_genes: list[str]
    imbalances: dict[str, dict[str, float]] = Field(description="Element (or charge) imbalance of the listed "
                                                                "reactions: products minus substrates")
    names: dict[str, str] = Field(description="ModelSEED names of the ids on this page")
    offset: int
    next_offset: int | None
    output_file: TableFile | None = None
    timings_s: dict[str, float]
    seconds: float
