"""The tools' results as Pydantic models: each tool's answer is constructed (validated) as one of
these before it is sent, and its MCP `outputSchema` is generated from the same model, so the
published contract and the answers cannot drift apart. Unknown fields are refused
(`extra="forbid"`): a new field needs a new field here, and so a contract change.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Result(BaseModel):
    """Base of every result model (and of the models nested in them)."""

    model_config = ConfigDict(extra="forbid")


class Envelope(BaseModel):
    """The error envelope (returned with isError: true)."""

    success: Literal[False]
    error_type: str
    error_code: str
    jsonrpc_error_code: int
    message: str
    details: dict[str, Any]
    suggestions: list[str]
    valid_next_steps: list[str]
    example_call: dict[str, Any] | None
    tool_name: str | None
    timestamp: str


class Pathway(Result):
    source: str = Field(description="Pathway database, e.g. KEGG or MetaCyc")
    id: str
    name: str


class CompoundRecord(Result):
    success: Literal[True] = True
    id: str = Field(description="ModelSEED compound id, e.g. cpd00027")
    name: str
    abbreviation: str
    formula: str = Field(description="Empty when unknown")
    mass: float | None = Field(description="g/mol; null when unknown")
    charge: int | None = Field(description="Default charge; null when unknown")
    inchikey: str
    smiles: str
    is_core: bool
    is_obsolete: bool
    replaced_by: list[str] = Field(description="For obsolete entries: the ids that replace it")
    deltag: float | None = Field(description="Gibbs energy of formation, kcal/mol; null unknown")
    deltagerr: float | None
    aliases: dict[str, list[str]] = Field(
        description="Synonyms under 'Name' and external ids by source (KEGG, BiGG, MetaCyc, ...)"
    )


class CompoundHit(Result):
    id: str
    name: str
    abbreviation: str
    formula: str
    mass: float | None
    charge: int | None
    match_field: str = Field(
        description="Where the query matched: id, name, synonym, abbreviation, formula, "
        "external_id or aliases"
    )
    match_type: Literal["exact", "partial"]
    matched_value: str
    is_obsolete: bool
    replaced_by: list[str]


class CompoundSearch(Result):
    success: Literal[True] = True
    query: str
    num_results: int
    results: list[CompoundHit]
    truncated: bool = Field(description="More matches exist than `limit` allowed")
    suggestions: list[str]
    next_steps: list[str]


class ReactionRecord(Result):
    success: Literal[True] = True
    id: str = Field(description="ModelSEED reaction id, e.g. rxn00148")
    name: str = Field(description="May be empty in the database")
    abbreviation: str
    equation: str = Field(description="With compound names; [e0] marks extracellular species")
    equation_with_ids: str
    reversibility: Literal["irreversible", "irreversible_reverse", "reversible", "unknown"]
    reversibility_symbol: str = Field(description="Database symbol: >, <, = or ?")
    direction: Literal["forward", "reverse", "bidirectional"]
    is_transport: bool
    ec_numbers: list[str]
    pathways: list[Pathway]
    status: str = Field(description="OK, or imbalance flags such as MI:... and CI:...")
    is_obsolete: bool
    replaced_by: list[str]
    deltag: float | None = Field(description="kcal/mol; null when unknown")
    deltagerr: float | None
    aliases: dict[str, list[str]]


class ReactionHit(Result):
    id: str
    name: str
    equation: str
    ec_numbers: list[str]
    status: str
    match_field: str = Field(
        description="Where the query matched: id, name, synonym, abbreviation, ec_numbers, "
        "external_id, aliases or pathways_or_equation"
    )
    match_type: Literal["exact", "partial"]
    matched_value: str
    is_obsolete: bool
    replaced_by: list[str]


class ReactionSearch(Result):
    success: Literal[True] = True
    query: str
    num_results: int
    results: list[ReactionHit]
    truncated: bool
    suggestions: list[str]
    next_steps: list[str]


def output_schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(mode="serialization")


# -- media ---------------------------------------------------------------------------------------


class MediaCompound(Result):
    id: str
    name: str
    formula: str
    bounds: list[float] = Field(description="[lower, upper] exchange bounds, mmol/gDW/h; lower < 0 = uptake")


class BuildMediaResult(Result):
    success: Literal[True] = True
    media_id: str
    media_name: str | None
    compounds: list[MediaCompound]
    num_compounds: int
    media_type: Literal["minimal", "rich"]
    default_uptake_rate: float
    custom_bounds_applied: int
    created_at: str
    next_steps: list[str]


class CompoundPreview(Result):
    id: str
    name: str


class MediaInfo(Result):
    media_id: str
    media_name: str | None
    description: str
    num_compounds: int
    media_type: Literal["minimal", "rich"]
    compounds_preview: list[CompoundPreview]
    created_at: str
    is_predefined: bool


class ListMediaResult(Result):
    success: Literal[True] = True
    media: list[MediaInfo]
    total_media: int
    predefined_media: int
    user_created_media: int
    next_steps: list[str]


class GetMediaResult(Result):
    success: Literal[True] = True
    media_id: str
    media_name: str | None
    description: str
    is_predefined: bool
    media_type: Literal["minimal", "rich"]
    created_at: str
    num_compounds: int
    compounds: list[MediaCompound] = Field(description="This page of the compounds, in the medium's order")
    offset: int
    next_offset: int | None = Field(description="offset of the next page; null at the end")


class DeleteMediaResult(Result):
    success: Literal[True] = True
    deleted_media_id: str
    message: str


# -- models --------------------------------------------------------------------------------------


class ModelInfo(Result):
    model_id: str
    model_name: str | None
    state: Literal["draft", "gapfilled"]
    num_reactions: int
    num_metabolites: int
    num_genes: int
    template_used: str | None
    created_at: str
    derived_from: str | None


class ListModelsResult(Result):
    success: Literal[True] = True
    models: list[ModelInfo]
    total_models: int
    models_by_state: dict[str, int]
    next_steps: list[str]


class DeleteModelResult(Result):
    success: Literal[True] = True
    deleted_model_id: str
    message: str


class Prediction(Result):
    id: int
    kind: str = Field(description="fba, gapfill, ...")
    media_id: str | None
    created_at: str
    summary: dict[str, Any]


class GetModelResult(ModelInfo):
    success: Literal[True] = True
    source: str = Field(description="built, imported, gapfilled or revised")
    num_exchange_reactions: int
    compartments: list[str]
    objective: list[str]
    statistics: dict[str, Any]
    genes_preview: list[str]
    genes_truncated: bool
    last_media_id: str | None
    lineage: list[list[str | None]] = Field(description="[model_id, derived_from] pairs, newest first")
    predictions: list[Prediction] | None = None
    revisions: list[dict[str, Any]] | None = None
    gapfill_reactions: dict[str, Any] | None = Field(
        default=None, description="A page of the reactions gapfill_model added (with gapfill_reactions_offset)")


class ImportModelResult(ModelInfo):
    success: Literal[True] = True
    format: Literal["sbml", "json"]
    original_model_id: str
    num_exchange_reactions: int
    compartments: list[str]
    objective: list[str]
    next_steps: list[str]


class ModelStatistics(Result):
    reactions_by_compartment: dict[str, int]
    metabolites_by_compartment: dict[str, int]
    reversible_reactions: int
    irreversible_reactions: int
    transport_reactions: int = Field(description="Reactions with metabolites in more than one compartment")


class BuildModelResult(ModelInfo):
    success: Literal[True] = True
    annotated_with_rast: bool
    num_exchange_reactions: int
    has_biomass_reaction: bool
    biomass_reaction_id: str
    compartments: list[str]
    has_atpm: bool
    atpm_reaction_id: str
    statistics: ModelStatistics
    annotation: dict[str, Any] = Field(
        description="Evidence summary: sources used, reactions per source (fasta_header, homology, rast), "
                    "gene-associated reactions, homology search figures. Per-reaction evidence is in the "
                    "model's reaction notes (gemflux_sources, gemflux_evidence)")
    model_properties: dict[str, Any]
    atp_correction: dict[str, Any]
    interpretation: dict[str, str]
    timings_s: dict[str, float]
    next_steps: list[str]


class AddedReaction(Result):
    id: str
    name: str
    direction: str = Field(description="'>' forward, '<' reverse, '=' both")
    equation: str
    source: str = Field(description="atp_correction, template_gapfill, reversed (an existing reaction "
                                    "opened in a new direction) or auto_generated (exchange)")
    pathway: str
    evidence: dict[str, Any] | None = None


class GapfillModelResult(Result):
    success: Literal[True] = True
    model_id: str = Field(description="Id of the new gapfilled model (the original is unchanged)")
    original_model_id: str
    media_id: str
    target_growth_rate: float
    gapfill_mode: str
    template_used: str
    objective: str
    growth_rate_before: float
    growth_rate_after: float
    gapfilling_successful: bool
    num_reactions_added: int
    reactions_added: list[AddedReaction] = Field(description="First page; see reactions_next_offset")
    reactions_added_total: int
    reactions_offset: int
    reactions_next_offset: int | None = Field(
        description="Offset for get_model(gapfill_reactions_offset=...) to read the next page; null at the end")
    pathway_summary: dict[str, Any]
    atp_correction: dict[str, Any]
    genomescale_gapfill: dict[str, Any]
    quality_checks: dict[str, Any] = Field(
        description="growth_on_medium >= target, growth_without_carbon = 0, atp_with_all_uptakes_closed = 0")
    interpretation: dict[str, Any]
    model_properties: dict[str, Any]
    timings_s: dict[str, float]
    next_steps: list[str]


class ExportModelResult(Result):
    success: Literal[True] = True
    model_id: str
    file_path: str
    format: Literal["sbml", "json"]
    size_bytes: int


# -- FBA -----------------------------------------------------------------------------------------


class ExchangeFlux(Result):
    compound_id: str
    compound_name: str
    formula: str
    flux: float = Field(description="< 0 uptake, > 0 secretion (mmol/gDW/h)")
    reaction_id: str


class TopFlux(Result):
    reaction_id: str
    reaction_name: str
    flux: float
    direction: Literal["forward", "reverse"]


class FbaResult(Result):
    success: Literal[True] = True
    model_id: str
    media_id: str
    objective_reaction: str
    objective_direction: Literal["max", "min"]
    objective_value: float = Field(description="Optimum; growth rate in 1/h for a biomass objective")
    status: Literal["optimal"]
    solver_status: str
    solver: str = Field(description="LP solver used (glpk, highs, ...)")
    method: Literal["fba", "pfba"]
    solve_time_ms: float
    active_reactions: int
    total_reactions: int
    total_flux: float
    fluxes: dict[str, float] = Field(description="Nonzero fluxes above flux_threshold, largest first (max 1000)")
    fluxes_truncated: bool
    uptake_fluxes: list[ExchangeFlux]
    secretion_fluxes: list[ExchangeFlux]
    summary: dict[str, int]
    top_fluxes: list[TopFlux]
    interpretation: dict[str, Any]
    next_steps: list[str]
    media_compounds_without_exchange: list[str]
    what_if: dict[str, Any] | None = Field(
        default=None, description="The knockouts and bounds this run applied (for this call only), with the "
                                  "reactions each knocked-out gene blocked")


class ReviseModelResult(ModelInfo):
    success: Literal[True] = True
    reason: str
    changes: dict[str, list[dict[str, Any]]] = Field(
        description="added_reactions, removed_reactions, bounds_changed, knocked_out_genes"
    )
    summary: dict[str, int]
    media_id: str | None = Field(description="Medium used for growth before/after (the model's last-used one)")
    growth_before: float | None
    growth_after: float | None
    next_steps: list[str]


# -- analyses ------------------------------------------------------------------------------------


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
    solves: int = Field(description="Deletions that needed an LP solve; the others cannot change the optimum")
    seconds: float
