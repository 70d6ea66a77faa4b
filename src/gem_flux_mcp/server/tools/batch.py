"""build_models_batch, get_batch_status (contract: docs/tools.md): many genomes reconstructed on
Dask in the background; the first answers at once with a job id, the second reports progress
(with MCP progress notifications while it waits) and the finished genomes, a page at a time."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import anyio
import anyio.to_thread
from fastmcp import Context, FastMCP
from fastmcp.dependencies import Depends
from pydantic import Field

from gem_flux_mcp.config import Settings
from gem_flux_mcp.rules.catalog import (
    GeneCallingArg,
    GenomeTemplateArg,
    OffsetArg,
    PanelItemArg,
    TranslationTableArg,
    WorkersArg,
)
from gem_flux_mcp.server.dependencies import current_batches, current_file_area, current_settings, current_workspace
from gem_flux_mcp.server.file_area import FileArea
from gem_flux_mcp.server.tools.common import READ_ONLY, tool
from gem_flux_mcp.services import results
from gem_flux_mcp.services.batch.background import BatchJobs
from gem_flux_mcp.services.batch.requests import MAX_ROWS_PER_PAGE, batch_status, start_batch
from gem_flux_mcp.services.workspace import Workspace

BATCH_ANNOTATIONS = {"title": "Build models in batch", "readOnlyHint": False, "destructiveHint": False,
                     "idempotentHint": True, "openWorldHint": False}  # a rerun resumes; nothing is built twice
MAX_WAIT_S = 600


def register(mcp: FastMCP) -> None:
    @tool(mcp, "build_models_batch", results.BuildModelsBatchResult, BATCH_ANNOTATIONS)
    async def build_models_batch(
        inputs: Annotated[list[str], Field(min_length=1, max_length=1000, description=(
            "Genome or proteome files (protein FASTA, genome FASTA, GenBank, GFF3; .gz too) or folders of them, "
            "inside the server's allowed folders"))],
        out_dir: Annotated[str, Field(description=(
            "Folder for the results: models/<genome>.xml (validated SBML), reports/<genome>.json, summary.tsv and "
            "summary.json. Running the same batch into the same folder again skips finished genomes"))],
        media_ids: Annotated[list[str] | None, Field(max_length=10, description=(
            "Media to gapfill on, in turn (predefined or built); growth is checked on each. Default "
            "['glucose_minimal_aerobic']"))] = None,
        template: Annotated[GenomeTemplateArg, Field(
            description="'auto' (default): Gram-negative when a genome shows an outer membrane "
                        "(outer-membrane proteins named, lipopolysaccharide genes)")] = "auto",
        gene_calling: Annotated[GeneCallingArg, Field(
            description="Prodigal mode for genomes given as contigs")] = "auto",
        translation_table: Annotated[TranslationTableArg, Field(
            description="Genetic code for genomes given as contigs: 11, 4, 25, or 'auto' (default: 11 or 4 "
                        "per genome, from its genes)")] = "auto",
        phenotype_panels: Annotated[list[PanelItemArg] | None, Field(
            description="Phenotype panels to run on the first medium after gapfilling (counts per genome)")] = None,
        workers: Annotated[WorkersArg, Field(description=(
            "Dask worker processes on this server (at most one per core); ignored when the server is configured "
            "with a Dask cluster"))] = 2,
        save_to_store: Annotated[bool, Field(description=(
            "Also keep each model in your workspace as '<genome>.gf' for the other tools"))] = True,
        workspace: Workspace = Depends(current_workspace),
        area: FileArea = Depends(current_file_area),
        batches: BatchJobs = Depends(current_batches),
        settings: Settings = Depends(current_settings),
    ) -> results.BuildModelsBatchResult:
        """Reconstruct many genomes at once on a Dask cluster (local worker processes by default):
        each genome is built, gapfilled on the media, checked and exported as SBML. Answers at once
        with a job id; follow it with get_batch_status. One batch runs at a time per server."""
        paths = [area.resolve(raw, param="inputs", must_exist=False) for raw in inputs]
        folder = area.resolve(str(Path(out_dir) / "summary.tsv"), param="out_dir", must_exist=False,
                              for_write=True).parent
        return await anyio.to_thread.run_sync(lambda: start_batch(
            batches, workspace, paths, media_ids, template, gene_calling, phenotype_panels, folder, workers,
            save_to_store, settings, area.show, translation_table))

    @tool(mcp, "get_batch_status", results.BatchStatusResult, {**READ_ONLY, "title": "Batch status"})
    async def get_batch_status(
        ctx: Context,
        job_id: Annotated[str, Field(max_length=64, description="The job id build_models_batch or "
                                                                "run_community_samples answered")],
        wait_seconds: Annotated[float, Field(ge=0, le=MAX_WAIT_S, description=(
            "Wait up to this long for the batch to finish, with progress notifications meanwhile (0: answer "
            "at once)"))] = 0,
        offset: Annotated[OffsetArg, Field(description="First row (genome or sample), in finishing order")] = 0,
        limit: Annotated[int, Field(ge=1, le=MAX_ROWS_PER_PAGE, description="Rows to return")] = 50,
        workspace: Workspace = Depends(current_workspace),
        area: FileArea = Depends(current_file_area),
        batches: BatchJobs = Depends(current_batches),
    ) -> results.BatchStatusResult:
        """Progress and results of a batch: counts, the genomes (or, for run_community_samples, the
        samples) finished so far (a page), the summary files once it ends. With wait_seconds,
        waits for the end and reports progress."""
        job = batches.get(workspace.workspace_id, job_id)
        deadline = time.monotonic() + wait_seconds
        seen = -1
        while job.status == "running" and time.monotonic() < deadline:
            progress = job.progress
            if progress.finished != seen:
                seen = progress.finished
                await ctx.report_progress(progress.finished, progress.total,
                                          f"{progress.finished} of {progress.total} {job.what} finished "
                                          f"({progress.failed} failed)")
            await anyio.sleep(0.5)
        return area.scrub_payload(batch_status(job, offset, limit, area.show))
