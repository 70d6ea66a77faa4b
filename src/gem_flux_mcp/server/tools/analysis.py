"""Analysis tools: the questions a model is built for, one call each (predict_gene_essentiality)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import anyio.to_thread
from fastmcp import Context, FastMCP
from pydantic import Field

from gem_flux_mcp.server.runtime import get_jobs, get_workspace
from gem_flux_mcp.server.tools.common import CREATES, MediaId, ModelId, tool
from gem_flux_mcp.server.worker import mcp_progress
from gem_flux_mcp.services import essentiality, results

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
