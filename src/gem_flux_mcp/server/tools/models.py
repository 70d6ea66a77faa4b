"""Stored-model tools: list_models, get_model, delete_model, import_model, export_model
(contracts: docs/tools.md)."""

from __future__ import annotations

from typing import Annotated, Literal

from fastmcp import FastMCP
from fastmcp.dependencies import Depends
from pydantic import Field

from gem_flux_mcp.rules.catalog import GapfillReactionsOffsetArg, LimitArg
from gem_flux_mcp.server.dependencies import current_file_area, current_workspace
from gem_flux_mcp.server.file_area import FileArea
from gem_flux_mcp.server.tools.common import CREATES, DELETES, READ_ONLY, ModelId, tool
from gem_flux_mcp.services import models, results
from gem_flux_mcp.services.workspace import Workspace


def register(mcp: FastMCP) -> None:
    @tool(mcp, "list_models", results.ListModelsResult, {"title": "List models", **READ_ONLY})
    def list_models(
        filter_state: Annotated[str, Field(description="all, draft or gapfilled (case-insensitive)")] = "all",
        workspace: Workspace = Depends(current_workspace),
    ) -> results.ListModelsResult:
        """Stored models, oldest first, with counts, template, creation time and lineage parent;
        models_by_state counts all models before filtering."""
        return models.list_models(workspace, filter_state)

    @tool(mcp, "delete_model", results.DeleteModelResult, {"title": "Delete model", **DELETES})
    def delete_model(model_id: ModelId, workspace: Workspace = Depends(current_workspace)) -> results.DeleteModelResult:
        """Delete a stored model permanently (exact id, with its suffix). Other versions of the
        same lineage (draft vs .gf) are kept."""
        return models.delete_model(workspace, model_id)

    @tool(mcp, "get_model", results.GetModelResult, {"title": "Get model", **READ_ONLY})
    def get_model(
        model_id: ModelId,
        include_predictions: Annotated[bool, Field(description="Add the recorded FBA/gapfill results, "
                                                   "newest first")] = False,
        include_revisions: Annotated[bool, Field(description="Add the revision history")] = False,
        limit: Annotated[LimitArg, Field(description="Maximum predictions returned, 1-100")] = 20,
        gapfill_reactions_offset: Annotated[GapfillReactionsOffsetArg, Field(
            description="For a gapfilled model: return the page of added reactions starting here")] = None,
        workspace: Workspace = Depends(current_workspace),
    ) -> results.GetModelResult:
        """Details of one stored model: counts, compartments, objective, genes, template,
        lineage, creation time; optionally its recorded results and revision history."""
        return models.get_model(workspace, model_id, include_predictions, include_revisions, limit,
                                gapfill_reactions_offset)

    @tool(mcp, "import_model", results.ImportModelResult, {"title": "Import model", **CREATES})
    def import_model(
        file_path: Annotated[str | None, Field(description="SBML (.xml/.sbml) or COBRApy JSON (.json) file inside "
                                               "the server's allowed folders; or send file_content")] = None,
        model_name: Annotated[str | None, Field(description="Name for the stored model "
                                                "([A-Za-z0-9_-]); default an automatic id")] = None,
        format: Annotated[str | None, Field(description="'sbml' or 'json'; default from the extension "
                                            "(or, for file_content, from its first character)")] = None,
        file_content: Annotated[str | None, Field(
            description="The model file sent inline instead of file_path (a client on another machine): "
                        "text, or base64 with content_encoding='base64' (gzip allowed)")] = None,
        content_encoding: Annotated[Literal["text", "base64"], Field(
            description="How file_content is sent")] = "text",
        workspace: Workspace = Depends(current_workspace),
        area: FileArea = Depends(current_file_area),
    ) -> results.ImportModelResult:
        """Load a model file into the workspace (ModelSEED or any other namespace; media are
        matched to exchanges through ModelSEED ids and BiGG ids)."""
        return area.scrub_payload(models.import_model_request(
            workspace, file_path, file_content, content_encoding, model_name, format,
            lambda raw: area.resolve(raw, param="file_path", must_exist=True)))

    @tool(mcp, "export_model", results.ExportModelResult,
          {"title": "Export model", **CREATES, "destructiveHint": True, "idempotentHint": True})
    def export_model(
        model_id: ModelId,
        file_path: Annotated[str, Field(description="Target file inside the server's allowed folders; "
                                        "an existing file is replaced atomically")],
        format: Annotated[str | None, Field(description="'sbml' (level 3, FBC) or 'json'; "
                                            "default from the extension")] = None,
        workspace: Workspace = Depends(current_workspace),
        area: FileArea = Depends(current_file_area),
    ) -> results.ExportModelResult:
        """Write a stored model to a file as SBML level 3 with FBC, or COBRApy JSON."""
        area = area
        path = area.resolve(file_path, param="file_path", must_exist=False, for_write=True)
        return area.scrub_payload(models.export_model(workspace, model_id, path, format))
