"""Results of the model tools: stored models, build, gapfill, import/export, revisions."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from gem_flux_mcp.services.results.base import Result


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


class GenomeCompleteness(Result):
    completeness: float = Field(description="Share of the universal single-copy marker genes found, in %")
    contamination: float = Field(description="Extra copies of those markers per marker, in % (CheckM's "
                                             "definition; a second copy is most often another organism's)")
    markers: int = Field(description="Marker gene families looked for (ribosomal proteins, aminoacyl-tRNA "
                                     "synthetases, RNA polymerase, translation factors, ...)")
    markers_found: int
    extra_copies: int
    verdict: str = Field(description="near complete, partial (medium-quality draft), fragmentary or "
                                     "contaminated (MIMAG's tiers, by markers only), with the counts")
    missing_markers: list[str] = Field(description="Marker families not found")
    duplicated_markers: dict[str, list[str]] = Field(description="Marker family -> the proteins found for it, "
                                                                 "where more than one")


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
    genome_completeness: GenomeCompleteness | None = Field(
        default=None, description="How complete and how contaminated the genome looks, from universal "
                                  "single-copy marker genes found in the proteins")
    model_properties: dict[str, Any]
    input: dict[str, Any] = Field(
        description="What was read: input_kind (protein_fasta, genome_fasta, genbank, gff3, inline_proteins), "
                    "num_proteins, num_skipped and the skipped ids with their reason (internal_stop, empty, "
                    "invalid_characters, pseudogene), trailing_stops_removed; for genomes genes_called, "
                    "gene_calling_mode, genome_bp, translation_tables (the genetic code used), "
                    "translation_table_reason (why: 'auto' chooses 11 or 4) and coding_density")
    warnings: list[str] = Field(description="What was skipped or changed on the way in; empty when nothing was")
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
                                    "opened in a new direction), medium_uptake (a transporter for a medium "
                                    "compound) or auto_generated (exchange)")
    pathway: str
    evidence: dict[str, Any] | None = None


class GrowthOnMedium(Result):
    before: float
    after: float
    met_target: bool


class GapfillModelResult(Result):
    success: Literal[True] = True
    model_id: str = Field(description="Id of the new gapfilled model (the original is unchanged)")
    original_model_id: str
    media_id: str = Field(description="The (first) medium gapfilled on")
    media_ids: list[str] = Field(description="Every medium the model was gapfilled on at once (media_id first)")
    target_growth_rate: float
    gapfill_mode: str
    template_used: str
    objective: str
    growth_rate_before: float = Field(description="On several media, the lowest growth before")
    growth_rate_after: float = Field(description="On several media, the lowest growth after")
    growth_by_medium: dict[str, GrowthOnMedium] | None = Field(
        description="On several media, each one's growth before and after; null for one medium")
    gapfilling_successful: bool
    num_reactions_added: int
    reactions_added: list[AddedReaction] = Field(description="First page; see reactions_next_offset")
    reactions_added_total: int
    reactions_offset: int
    reactions_next_offset: int | None = Field(
        description="Offset for get_model(gapfill_reactions_offset=...) to read the next page; null at the end")
    pathway_summary: dict[str, Any]
    additions_by_context: dict[str, Any] | None = Field(
        default=None, description="The added reactions without genes or genome evidence, by where they sit: "
                                  "gap_in_covered_pathway (one missing step: reactions with genes make its "
                                  "substrate and use its product), stretch_without_genes (a run of steps without "
                                  "genes: a pathway the organism lacks, or sequence an incomplete genome lost); "
                                  "with_genes_or_evidence counts the others")
    atp_correction: dict[str, Any]
    genomescale_gapfill: dict[str, Any]
    medium_uptake: dict[str, Any] = Field(
        description="Transporters added for medium compounds the model could not take up (e.g. LB's amino acids "
                    "and vitamins), so it uses them instead of making them; source 'medium_uptake'")
    quality_checks: dict[str, Any] = Field(
        description="growth_on_medium >= target, growth_without_carbon = 0, atp_with_all_uptakes_closed = 0, "
                    "no_atp_driven_transport_backwards (no ABC transporter or P-type ATPase may run in the "
                    "direction that makes ATP); "
                    "for information, atp_per_glucose (aerobic / anaerobic; a respiring model makes ~20-30 "
                    "aerobically, 2-3 without O2) and flux_through_gapfilled_reactions (reaction_share: the share "
                    "of reactions active at the minimal-total-flux optimum that were added, and flux_share; "
                    "above the threshold the answer warns)")
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
    resource_uri: str = Field(description="The model as an MCP resource (resources/read), for a client that "
                                          "cannot read the server's disk")
    warnings: list[str] = Field(description="What was changed so that the format can hold the model (an id that "
                                "is not an SBML identifier, a formula that is not a chemical formula); "
                                "empty when nothing was")


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
