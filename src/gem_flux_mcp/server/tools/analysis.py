"""Analysis tools: the questions a model is built for, one call each (predict_gene_essentiality,
predict_growth_phenotypes)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import anyio.to_thread
from fastmcp import Context, FastMCP
from pydantic import Field

from gem_flux_mcp.server.runtime import get_file_area, get_jobs, get_workspace
from gem_flux_mcp.server.tools.common import CREATES, MediaId, ModelId, tool
from gem_flux_mcp.server.worker import mcp_progress
from gem_flux_mcp.services import essentiality, phenotypes, results

ANALYSIS_TIMEOUT_S = 1800.0


def register(mcp: FastMCP) -> None:
    # Not read-only: the result is recorded with the model (get_model include_predictions).
    @tool(mcp, "predict_gene_essentiality", results.EssentialityResult,
          {"title": "Predict gene essentiality", **CREATES})
    async def predict_gene_essentiality(
        ctx: Context,
        model_id: ModelId,
        media_id: MediaId,
        genes: Annotated[list[str] | None, Field(description="Ids to test; default every gene (or reaction) "
                                                             "of the model")] = None,
        threshold: Annotated[float, Field(gt=0, lt=1, description="Growth ratio below which a deletion is "
                                                                  "lethal (essential)")] = 0.1,
        observed: Annotated[dict[str, bool] | None, Field(
            description="Known essentiality {id: true if essential in vivo}: adds TP/FP/TN/FN, accuracy, "
                        "MCC and the mismatches")] = None,
        target: Annotated[Literal["genes", "reactions"], Field(
            description="'genes' (single-gene deletions) or 'reactions' (single-reaction deletions)")] = "genes",
        objective: Annotated[str, Field(description="Reaction whose optimum is growth (default 'bio1')")] = "bio1",
        offset: Annotated[int, Field(ge=0, description="First row of the table to return (paging)")] = 0,
    ) -> dict[str, Any]:
        """Which genes (or reactions) the model cannot grow without on a medium: single deletions
        (a gene closes the reactions whose rule turns false), growth ratio to the wild type,
        essential (ratio < threshold) and slowed ones; with `observed`, the confusion numbers.
        Runs in a worker process with progress; the answer pages the full table (offset)."""
        workspace = get_workspace()
        job = await anyio.to_thread.run_sync(lambda: essentiality.prepare_essentiality(
            workspace, model_id, media_id, target, genes, objective, threshold))
        outcome = await get_jobs().run(job, mcp_progress(ctx), timeout_s=ANALYSIS_TIMEOUT_S,
                                       workspace=workspace.workspace_id)
        return await anyio.to_thread.run_sync(
            lambda: essentiality.store_essentiality(workspace, job, outcome, observed, offset))

    @tool(mcp, "predict_growth_phenotypes", results.PhenotypeResult,
          {"title": "Predict growth phenotypes", **CREATES})
    async def predict_growth_phenotypes(
        ctx: Context,
        model_id: ModelId,
        base_media_id: Annotated[MediaId, Field(description="The base medium (e.g. a minimal medium); the panel's "
                                                           "reference sources are taken out of it")],
        panel: Annotated[Literal["carbon", "nitrogen", "phosphorus", "sulfur"] | None, Field(
            description="A predefined Biolog panel (PM1/PM2 carbon, PM3 nitrogen, PM4 phosphorus and sulfur)")] = None,
        compounds: Annotated[list[str] | None, Field(description="ModelSEED compound ids to test (besides the "
                                                                 "panel's)")] = None,
        observed: Annotated[dict[str, bool] | None, Field(
            description="Known growth {compound id: true if it grows}: adds TP/FP/TN/FN, accuracy, MCC and the "
                        "mismatches; these compounds are tested too")] = None,
        growth_threshold: Annotated[float, Field(gt=0, le=10, description="Growth (1/h) above which a compound "
                                                                         "counts as a growth substrate")] = 0.1,
        uptake_rate: Annotated[float | None, Field(
            gt=0, le=1000, description="Uptake (mmol/gDW/h) each tested compound is opened at; default the "
                                       "removed reference source's rate in the base medium, else 10")] = None,
        objective: Annotated[str, Field(description="Reaction whose optimum is growth (default 'bio1')")] = "bio1",
        offset: Annotated[int, Field(ge=0, description="First row of the array to return (paging)")] = 0,
        output_path: Annotated[str | None, Field(description="Also write the full array as TSV to this file "
                                                             "(inside the allowed folders)")] = None,
    ) -> dict[str, Any]:
        """What the model grows on: for each compound of a panel (or list), growth on the base medium
        minus the panel's reference source plus that compound (the Biolog convention). Compounds the
        model cannot take up are reported as such. With `observed`, the confusion numbers."""
        workspace, area = get_workspace(), get_file_area()
        path = area.resolve(output_path, param="output_path", must_exist=False, for_write=True) \
            if output_path is not None else None
        job, context = await anyio.to_thread.run_sync(lambda: phenotypes.prepare_phenotypes(
            workspace, model_id, base_media_id, panel, compounds, observed, objective, uptake_rate))
        outcome = await get_jobs().run(job, mcp_progress(ctx), timeout_s=ANALYSIS_TIMEOUT_S,
                                       workspace=workspace.workspace_id)
        return area.scrub_payload(await anyio.to_thread.run_sync(lambda: phenotypes.store_phenotypes(
            workspace, job, context, outcome, observed, growth_threshold, offset, path)))
