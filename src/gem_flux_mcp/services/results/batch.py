"""Results of the batch tools: build_models_batch, run_community_samples, get_batch_status."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from gem_flux_mcp.services.results.base import Result

BatchStatus = Literal["running", "finished", "failed", "cancelled"]


class BatchGenome(Result):
    genome: str
    status: Literal["ok", "failed"]
    template: str | None = None
    num_proteins: int | None = None
    genes_called: int | None = None
    translation_table: int | None = Field(default=None, description="Genetic code the genes were called with "
                                          "(genomes in single mode; None for proteins and meta mode)")
    completeness: float | None = Field(default=None, description="Share of universal single-copy marker genes "
                                       "found, % (build_model's genome_completeness)")
    contamination: float | None = Field(default=None, description="Extra marker copies per marker, %")
    num_reactions: int | None = None
    num_genes: int | None = None
    gapfill_added: int | None = None
    growth: dict[str, float] | None = None
    quality_checks_passed: bool | None = None
    phenotypes: dict[str, int] | None = None
    total_s: float | None = None
    attempts: int | None = None
    skipped: bool = False
    model_file: str | None = None
    stored_model_id: str | None = None
    store_error: str | None = None
    error_code: str | None = None
    error_message: str | None = None


class BatchSample(Result):
    sample: str
    status: Literal["ok", "failed"]
    community_growth: float | None = Field(default=None, description="1/h, at the tradeoff")
    members: int | None = Field(default=None, description="Members present in the sample (abundance > 0)")
    growing_members: int | None = None
    cross_feedings: int | None = None
    member_growth: dict[str, float] | None = Field(default=None, description="Each present member's growth, 1/h")
    seconds: float | None = None
    community_reused: bool | None = Field(
        default=None, description="Grown on the community its worker had built for the previous sample of the same "
                                  "members (abundances set anew), not built again")
    skipped: bool = False
    error_code: str | None = None
    error_message: str | None = None


class BatchCounts(Result):
    total: int
    finished: int
    done_before: int
    ok: int
    failed: int
    unfinished: list[str]


class BuildModelsBatchResult(Result):
    success: Literal[True]
    job_id: str
    status: BatchStatus
    num_genomes: int
    genomes: list[str]
    out_dir: str
    workers: int | None
    scheduler: str | None
    next_steps: list[str]


class BatchStatusResult(Result):
    success: Literal[True]
    job_id: str
    status: BatchStatus
    progress: BatchCounts
    started_at: str
    seconds: float
    out_dir: str
    cluster: str
    files: dict[str, str]
    genomes: list[BatchGenome]
    samples: list[BatchSample] | None = Field(default=None, description="For a run_community_samples batch: this "
                                              "page of its samples, in finishing order (genomes is then empty)")
    offset: int
    next_offset: int | None
    error: dict[str, Any] | None
    next_steps: list[str]


class RunCommunitySamplesResult(Result):
    success: Literal[True]
    job_id: str
    status: BatchStatus
    community_id: str
    media_id: str
    num_samples: int
    samples: list[str] = Field(description="The samples' names (first 200)")
    out_dir: str
    workers: int | None
    scheduler: str | None
    next_steps: list[str]
