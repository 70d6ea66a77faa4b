"""reconcile_phenotypes (contract: docs/tools.md): a long job run by the worker process, with
progress and cancellation; the source model is never changed, the fit is a new revision."""

from __future__ import annotations

from typing import Annotated, Literal

import anyio.to_thread
from fastmcp import Context, FastMCP
from fastmcp.dependencies import Depends
from pydantic import Field

from gem_flux_mcp.rules.catalog import (
    EssentialGenesArg,
    FitnessThresholdArg,
    HoldoutFractionArg,
    MaxChangesArg,
    NonessentialGenesArg,
    ObservedThresholdArg,
    PanelArg,
    SeedArg,
)
from gem_flux_mcp.server.dependencies import Caller, current_caller
from gem_flux_mcp.server.tools.common import CREATES, MediaId, ModelId, tool
from gem_flux_mcp.server.tools.running import run_job
from gem_flux_mcp.services import reconcile, results


def register(mcp: FastMCP) -> None:
    @tool(mcp, "reconcile_phenotypes", results.ReconcileResult, {"title": "Reconcile with phenotype data", **CREATES})
    async def reconcile_phenotypes(
        ctx: Context,
        model_id: ModelId,
        base_media_id: Annotated[MediaId, Field(description=(
            "The plate's base medium, e.g. 'glucose_minimal_aerobic' or 'biolog_base_carbon_free': the panel's "
            "reference sources (glucose for carbon) are taken out, each well adds its compound; the fit keeps "
            "growth on the full base medium if it had it"))],
        observed: Annotated[dict[str, bool] | None, Field(
            description="Observed growth {compound id or name: true if it grows}; or give a plate file; may be left "
                        "out when gene observations are given")] = None,
        observed_file_path: Annotated[str | None, Field(
            description="A plate file (CSV/TSV) inside the server's allowed folders: a compound column (ModelSEED "
                        "id or name) or a well column (PM1-A2 style), and a growth column (yes/no, 1/0, +/-, or a "
                        "number with threshold)")] = None,
        observed_content: Annotated[str | None, Field(
            description="The plate file sent inline instead of a path; text, or base64 with "
                        "content_encoding='base64'")] = None,
        content_encoding: Annotated[Literal["text", "base64"], Field(
            description="How observed_content and genes_content are sent")] = "text",
        threshold: Annotated[ObservedThresholdArg, Field(
            description="For numeric plate values (OD, area): growth above it")] = None,
        panel: Annotated[PanelArg, Field(
            description="The Biolog panel (carbon, nitrogen, phosphorus, sulfur); default: the panel holding most "
                        "observed compounds")] = None,
        max_changes: Annotated[MaxChangesArg, Field(
            description="At most this many reactions added plus directions blocked; default no limit")] = None,
        holdout_fraction: Annotated[HoldoutFractionArg, Field(
            description="Hold out this fraction of the wells (e.g. 0.3): fit on the rest and report agreement on "
                        "the held-out wells before and after")] = None,
        seed: Annotated[SeedArg, Field(description="Random seed of the holdout split")] = None,
        essential_genes: Annotated[EssentialGenesArg, Field(
            description="Genes observed essential on the base medium (model gene ids or locus tags)")] = None,
        nonessential_genes: Annotated[NonessentialGenesArg, Field(
            description="Genes observed non-essential on the base medium")] = None,
        genes_file_path: Annotated[str | None, Field(
            description="A gene table (CSV/TSV) inside the server's allowed folders, instead of the gene lists: a "
                        "gene column (gene, locus_tag) and an essential column (yes/no, 1/0, essential/"
                        "non-essential) or a fitness column with fitness_threshold")] = None,
        genes_content: Annotated[str | None, Field(
            description="The gene table sent inline instead of a path")] = None,
        fitness_threshold: Annotated[FitnessThresholdArg, Field(
            description="For a gene table's fitness values: essential below it")] = None,
        block_gene_backed: Annotated[bool, Field(description=(
            "Also block reactions that have genes when nothing else stops a well observed not to grow or the "
            "bypass of a gene observed essential (tried after every reaction without genome evidence); each is "
            "a change with evidence 'genes'. Default false: such reactions are only listed as conflicts"))] = False,
        caller: Caller = Depends(current_caller),
    ) -> results.ReconcileResult:
        """Fit a model to a lab's observed growth (a Biolog plate) and gene essentiality (a
        transposon screen): gapfilling adds what the wells that grow need (a well at a time), a
        gapfill per gene adds an alternative for each non-essential gene whose deletion is lethal;
        blocked directions among reactions without genome evidence stop growth on the wells that do
        not and the bypasses of essential genes (gene-backed reactions are listed as conflicts, and
        blocked only with block_gene_backed=true). Saves a new revision '<id>.rec' whose reasons
        name the wells and genes; answers growth and essentiality agreement (MCC, TP/FP/TN/FN)
        before and after, on the fitted and held-out observations, then the changes and what it
        could not reconcile. Runs in a worker process with progress."""
        path = (caller.files.resolve(observed_file_path, param="observed_file_path", must_exist=True)
                if observed_file_path else None)
        genes_path = (caller.files.resolve(genes_file_path, param="genes_file_path", must_exist=True)
                      if genes_file_path else None)
        text = await anyio.to_thread.run_sync(reconcile.plate_text, path, observed_content, content_encoding)
        genes_text = await anyio.to_thread.run_sync(reconcile.plate_text, genes_path, genes_content,
                                                    content_encoding, "genes")
        return await run_job(
            ctx, caller, lambda ws: reconcile.prepare_reconcile(
                ws, model_id, base_media_id, observed, text, panel, max_changes, holdout_fraction, seed, threshold,
                essential_genes, nonessential_genes, genes_text, fitness_threshold, block_gene_backed),
            reconcile.store_reconcile, abandon=reconcile.abandon_reconcile,  # the reserved id is free again
            done=lambda a: f"{a.changes_total} changes; {a.summary.unreconciled} wells and "
                           f"{a.summary.genes_unreconciled} genes not reconciled")
