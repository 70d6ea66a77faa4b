"""Media tools: build_media, list_media, delete_media (contracts: docs/tools.md)."""

from __future__ import annotations

from typing import Annotated

from fastmcp import FastMCP
from fastmcp.dependencies import Depends
from pydantic import Field

from gem_flux_mcp.rules.catalog import (
    CompoundsArg,
    DefaultUptakeArg,
    MediaCompoundFilterArg,
    MediaNameFilterArg,
    MediaPageLimitArg,
    OffsetArg,
)
from gem_flux_mcp.server.dependencies import current_workspace
from gem_flux_mcp.server.tools.common import CREATES, DELETES, READ_ONLY, MediaId, tool
from gem_flux_mcp.services import media, results
from gem_flux_mcp.services.workspace import Workspace


def register(mcp: FastMCP) -> None:
    @tool(mcp, "build_media", results.BuildMediaResult, {"title": "Build medium", **CREATES})
    def build_media(
        compounds: Annotated[CompoundsArg, Field(
            description="ModelSEED compound ids, e.g. ['cpd00027', 'cpd00007']")],
        default_uptake: Annotated[DefaultUptakeArg, Field(
            description="Uptake limit for compounds without custom bounds, mmol/gDW/h, > 0 and "
                                             "<= 1000; bounds become (-uptake, 100)")] = 100.0,
        custom_bounds: Annotated[dict[str, list[float]] | None, Field(
            description="Per-compound [lower, upper] exchange bounds; lower < 0 = uptake, upper > 0 = secretion, "
                        "e.g. {'cpd00027': [-5, 100]}")] = None,
        media_name: Annotated[str | None, Field(description="Optional id for the medium ([A-Za-z0-9_-], "
                                                "not starting with 'media_'); default an automatic id")] = None,
        workspace: Workspace = Depends(current_workspace),
    ) -> results.BuildMediaResult:
        """Create a growth medium from ModelSEED compound ids (all-or-nothing; every invalid id is
        reported at once). When applied to a model both bounds hold: uptake limits and secretion
        limits; exchanges of compounds not in the medium are closed for uptake."""
        return media.build_media(workspace, compounds, default_uptake, custom_bounds, media_name)

    @tool(mcp, "list_media", results.ListMediaResult, {"title": "List media", **READ_ONLY})
    def list_media(
        name: Annotated[MediaNameFilterArg, Field(
            description="Only media whose id, name or description has all these words (each matched at the "
                        "start of a word, any order, case-insensitive; '_' and '-' are spaces), e.g. 'm9 glucose', "
                        "'m9 aerobic' (not the anaerobic ones), 'anaerobic', 'lb', 'biolog'")] = None,
        compound: Annotated[MediaCompoundFilterArg, Field(
            description="Only media that contain this compound: a ModelSEED id ('cpd00027') or a name "
                        "('glucose', 'succinate'), resolved through the ModelSEED database")] = None,
        offset: Annotated[OffsetArg, Field(description="First matched medium to return (paging)")] = 0,
        limit: Annotated[MediaPageLimitArg, Field(description="Media per page, 1-500")]
            = media.DEFAULT_LIST_PAGE,
        workspace: Workspace = Depends(current_workspace),
    ) -> results.ListMediaResult:
        """Media usable with run_fba and gapfill_model: the media you built (oldest first), then
        the predefined library (M9 with many carbon sources, aerobic and anaerobic; LB; Biolog
        base media; each with its source). Counts come first, then a page of media with a preview
        of their compounds; filter by name and/or compound."""
        return media.list_media(workspace, name, compound, offset, limit)

    @tool(mcp, "get_media", results.GetMediaResult, {"title": "Get medium", **READ_ONLY})
    def get_media(
        media_id: MediaId,
        offset: Annotated[OffsetArg, Field(description="First compound to return (paging)")] = 0,
        limit: Annotated[MediaPageLimitArg, Field(description="Compounds per page, 1-500")] = 500,
        workspace: Workspace = Depends(current_workspace),
    ) -> results.GetMediaResult:
        """Every compound of a medium, predefined or built, with its name, formula and exchange
        bounds [lower, upper] (lower < 0 = uptake), in the medium's order."""
        return media.get_media(workspace, media_id, offset, limit)

    @tool(mcp, "delete_media", results.DeleteMediaResult, {"title": "Delete medium", **DELETES})
    def delete_media(media_id: MediaId, workspace: Workspace = Depends(current_workspace)) -> results.DeleteMediaResult:
        """Delete a medium you built (permanent). Predefined media cannot be deleted."""
        return media.delete_media(workspace, media_id)
