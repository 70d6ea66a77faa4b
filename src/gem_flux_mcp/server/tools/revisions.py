"""revise_model: a new revision of a stored model, with the reason and growth before/after."""

from __future__ import annotations

from typing import Annotated

from fastmcp import FastMCP
from fastmcp.dependencies import Depends
from pydantic import Field

from gem_flux_mcp.rules.catalog import ReasonArg
from gem_flux_mcp.server.dependencies import current_workspace
from gem_flux_mcp.server.tools.common import CREATES, ModelId, tool
from gem_flux_mcp.services import results, revisions
from gem_flux_mcp.services.workspace import Workspace


def register(mcp: FastMCP) -> None:
    @tool(mcp, "revise_model", results.ReviseModelResult, {"title": "Revise model", **CREATES})
    def revise_model(
        model_id: ModelId,
        reason: Annotated[ReasonArg, Field(
            description="Why the model changes; kept in its revision history")],
        add_reactions: Annotated[list[str] | None, Field(
            description="ModelSEED reactions to add, with compartment, e.g. ['rxn00148_c0']")] = None,
        remove_reactions: Annotated[list[str] | None, Field(description="Reaction ids of the model to remove")] = None,
        reaction_bounds: Annotated[dict[str, list[float]] | None, Field(
            description="New [lower, upper] bounds per reaction id, e.g. {'ATPM_c0': [8.4, 1000]}")] = None,
        knockout_genes: Annotated[list[str] | None, Field(
            description="Genes to knock out (reactions whose rule becomes false are blocked)")] = None,
        media_id: Annotated[str | None, Field(description="Medium for growth before/after; default the "
                                              "model's last-used medium")] = None,
        revision_name: Annotated[str | None, Field(description="Name for the new model; default "
                                                   "'<model_id>.rev'")] = None,
        workspace: Workspace = Depends(current_workspace),
    ) -> results.ReviseModelResult:
        """Make a new revision of a model (a new id in the same lineage; the source is kept):
        add database reactions, remove reactions, set bounds, knock out genes. All changes are
        validated first (every bad id reported at once) and applied together; the reason, the
        changes and the growth before and after are recorded."""
        return revisions.revise_model(workspace, model_id, reason, add_reactions, remove_reactions,
                                      reaction_bounds, knockout_genes, media_id, revision_name)
