"""run_fba: flux balance analysis of a stored model on a medium (contract: docs/tools.md)."""

from __future__ import annotations

from typing import Annotated

from fastmcp import FastMCP
from fastmcp.dependencies import Depends
from pydantic import Field

from gem_flux_mcp.rules.catalog import FluxThresholdArg
from gem_flux_mcp.server.dependencies import current_workspace
from gem_flux_mcp.server.tools.common import CREATES, MediaId, ModelId, tool
from gem_flux_mcp.services import fba, results
from gem_flux_mcp.services.workspace import Workspace


def register(mcp: FastMCP) -> None:
    # Not read-only: every run is recorded with the model (a prediction) and sets its last medium.
    @tool(mcp, "run_fba", results.FbaResult, {"title": "Run FBA", **CREATES})
    def run_fba(
        model_id: ModelId,
        media_id: MediaId,
        objective: Annotated[str, Field(description="Reaction to optimise (default biomass 'bio1')")] = "bio1",
        maximize: Annotated[bool, Field(description="false to minimise")] = True,
        flux_threshold: Annotated[FluxThresholdArg, Field(description="Drop fluxes with |v| <= this "
                                               "from the listing (>= 0); the interpretation uses every flux")] = 1e-6,
        pfba: Annotated[bool, Field(description="Parsimonious FBA: same optimum, minimal total flux")] = False,
        knockout_genes: Annotated[list[str] | None, Field(
            description="What if: genes knocked out for this run only (reactions whose rule turns false are "
                        "blocked); nothing is stored")] = None,
        knockout_reactions: Annotated[list[str] | None, Field(
            description="What if: reaction ids of the model blocked for this run only")] = None,
        reaction_bounds: Annotated[dict[str, list[float]] | None, Field(
            description="What if: [lower, upper] per reaction id for this run only, applied after the medium, "
                        "e.g. {'ATPM_c0': [10, 1000]}")] = None,
        workspace: Workspace = Depends(current_workspace),
    ) -> results.FbaResult:
        """Flux balance analysis of a stored model on a medium: optimum (growth in 1/h for a
        biomass objective), uptake and secretion with compound names, top fluxes. The run is
        recorded with the model (get_model include_predictions). Knockouts and bounds answer "what if"
        for this call only; to keep them, use revise_model."""
        return fba.run_fba(workspace, model_id, media_id, objective, maximize, flux_threshold, pfba,
                           knockout_genes, knockout_reactions, reaction_bounds)
