"""The result of reconcile_phenotypes: a model revised to agree with a lab's phenotype plate and
gene essentiality."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from gem_flux_mcp.services.results.analysis import ConfusionMetrics
from gem_flux_mcp.services.results.base import Result


class BeforeAfter(Result):
    before: ConfusionMetrics = Field(description="The source model's growth calls against the observations")
    after: ConfusionMetrics = Field(description="The revision's growth calls against the same observations")


class EssentialityAgreement(Result):
    fitted: BeforeAfter = Field(description="Essentiality calls (positive = essential) on the genes fitted to")
    held_out: BeforeAfter | None = Field(description="On the genes it did not see (the same holdout_fraction and "
                                                     "seed as the wells); null without a holdout")


class Agreement(Result):
    fitted: BeforeAfter = Field(description="On the wells the reconciliation was fitted to")
    held_out: BeforeAfter | None = Field(description="On the wells it did not see (holdout_fraction): how far to "
                                                     "trust the fit on new data; null without a holdout")
    essentiality: EssentialityAgreement | None = Field(
        default=None, description="Gene essentiality on the base medium against the observed calls (a deletion "
                                  "growing below summary.essential_below of the model's growth is essential); "
                                  "null without gene observations")


class ReconcileSummary(Result):
    new_model_id: str
    wells_observed: int = Field(description="Observed wells mapped to a compound")
    wells_fitted: int
    wells_held_out: int
    reactions_added: int
    directions_blocked: int
    reactions_removed: int = Field(description="Reactions with both directions blocked, taken out")
    conflicts: int = Field(description="Gene-backed reactions that would have to go: listed, not removed unless "
                                       "block_gene_backed")
    gene_backed_blocks: int = Field(default=0, description="Blocked or removed reactions that have genes (only with "
                                                           "block_gene_backed): evidence the observations overrule")
    unreconciled: int
    unmapped_rows: int
    base_growth_before: float = Field(description="Growth on the full base medium, 1/h")
    base_growth_after: float
    panel: str | None
    growth_threshold: float
    uptake_rate: float
    quality_checks_passed: bool = Field(description="The revision passes gapfill_model's quality checks (see "
                                                    "quality_checks)")
    genes_observed: int = Field(default=0, description="Observed essentiality calls mapped to a model gene")
    genes_fitted: int = 0
    genes_held_out: int = 0
    genes_unreconciled: int = 0
    unmapped_gene_rows: int = 0
    essential_below: float = Field(default=0.1, description="A deletion growing below this fraction of the "
                                                            "model's growth on the base medium is essential")


class WellRef(Result):
    compound_id: str
    name: str
    label: str = Field(description="What the lab's file called it (a well id such as PM1-A2, or a name)")


class ReconcileChange(Result):
    reaction_id: str
    name: str
    action: Literal["added", "reversed", "blocked", "removed"]
    direction: str = Field(description="'>' forward, '<' reverse, '<>' both")
    evidence: Literal["none", "weak", "genes"] = Field(description="Genome evidence: no gene, weak homology, genes")
    genes: str = Field(description="The gene rule ('' when none)")
    wells: list[WellRef] = Field(description="The wells whose observation this change answers")
    observed_genes: list[str] = Field(default_factory=list, description=(
        "The genes whose observed essentiality this change answers: an addition lets a non-essential gene's "
        "deletion grow, a block stops an essential gene's bypass"))


class ReconcileConflict(Result):
    reaction_id: str
    name: str
    direction: str
    genes: str
    wells: list[WellRef] = Field(description="Wells observed not to grow that only blocking this reaction would "
                                             "stop")
    observed_genes: list[str] = Field(default_factory=list, description=(
        "Genes observed essential whose deletion only blocking this reaction would stop"))


class UnreconciledWell(Result):
    compound_id: str
    name: str
    label: str
    observed_growth: bool
    reason: str


class UnreconciledGene(Result):
    gene_id: str
    label: str = Field(description="What the lab's table called it")
    observed_essential: bool
    reason: str


class UnmappedRow(Result):
    row: str = Field(description="Line number in the file ('' for a compound given several times)")
    value: str
    reason: str


class ReconcileResult(Result):
    success: Literal[True] = True
    model_id: str = Field(description="The new revision (the source model is unchanged)")
    original_model_id: str
    base_media_id: str
    summary: ReconcileSummary
    agreement: Agreement
    changes: list[ReconcileChange] = Field(description="The first 50 changes, additions first")
    changes_total: int
    conflicts: list[ReconcileConflict] = Field(description="Gene-backed reactions only whose removal would stop an "
                                                           "observed non-grower (first 50; summary.conflicts counts "
                                                           "them all)")
    unreconciled: list[UnreconciledWell] = Field(description="Wells still mismatched after fitting, and why "
                                                             "(first 50)")
    unmapped_rows: list[UnmappedRow] = Field(description="Observations that were not used, and why (first 50)")
    held_out: list[str] = Field(description="Compound ids of the held-out wells")
    unreconciled_genes: list[UnreconciledGene] = Field(
        default_factory=list, description="Genes whose essentiality call still disagrees after fitting, and why "
                                          "(first 50)")
    unmapped_gene_rows: list[UnmappedRow] = Field(
        default_factory=list, description="Gene observations that were not used (unknown or ambiguous ids, unreadable "
                                          "calls), and why (first 50)")
    held_out_genes: list[str] = Field(default_factory=list, description="Model gene ids of the held-out genes")
    quality_checks: dict[str, Any] = Field(
        description="gapfill_model's checks on the revision: growth on the base medium (when it grew before), none "
                    "without carbon, no ATP with every uptake closed, no ATP-driven transport backwards")
    timings_s: dict[str, float]
    next_steps: list[str]
