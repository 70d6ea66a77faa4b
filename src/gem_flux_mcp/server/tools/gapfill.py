"""gapfill_model (contract: docs/tools.md): a long job run by the worker process, with progress and
cancellation; the original model is never changed."""

from __future__ import annotations

from typing import Annotated

from fastmcp import Context, FastMCP
from fastmcp.dependencies import Depends
from pydantic import Field

from gem_flux_mcp.rules.catalog import GapfillModeArg, TargetGrowthRateArg
from gem_flux_mcp.server.dependencies import Caller, current_caller
from gem_flux_mcp.server.tools.common import tool
from gem_flux_mcp.server.tools.running import run_job
from gem_flux_mcp.services import gapfill, results
from gem_flux_mcp.services.gapfill import MAX_GAPFILL_MEDIA

GAPFILL_ANNOTATIONS = {"title": "Gapfill model", "readOnlyHint": False, "destructiveHint": False,
                       "idempotentHint": False, "openWorldHint": False}
GAPFILL_TIMEOUT_S = 900.0  # solver limit 600 s inside; this also covers loading and storing


def register(mcp: FastMCP) -> None:
    @tool(mcp, "gapfill_model", results.GapfillModelResult, GAPFILL_ANNOTATIONS)
    async def gapfill_model(
        ctx: Context,
        model_id: Annotated[str, Field(description="Id of the model to gapfill, e.g. 'E_coli.draft'")],
        media_id: Annotated[str | None, Field(description=(
            "Medium to grow on, e.g. 'glucose_minimal_aerobic' (or give media_ids)"))] = None,
        target_growth_rate: Annotated[TargetGrowthRateArg, Field(
            description="Growth the model must reach, 1/h (> 0, <= 10; typical 0.01-1.0)")] = 0.01,
        allow_all_non_grp_reactions: Annotated[bool, Field(
            description="Accepted for compatibility; every template reaction may be added")] = True,
        gapfill_mode: Annotated[GapfillModeArg, Field(description="'full' (ATP correction + genome-scale), 'atp_only' "
                                           "or 'genomescale_only'")] = "full",
        media_ids: Annotated[list[str] | None, Field(max_length=MAX_GAPFILL_MEDIA, description=(
            "Several media to grow on at once, e.g. ['glucose_minimal_aerobic', 'lb_aerobic']: one cheapest set of "
            "reactions that reaches the target on every one (after media_id, if given too)"))] = None,
        caller: Caller = Depends(current_caller),
    ) -> results.GapfillModelResult:
        """Add the cheapest set of template reactions so a model grows on a medium (or on every
        one of several media at once, media_ids), without energy-generating cycles: ATP
        correction on ModelSEED's ATP test media, then a weighted genome-scale gapfill. Saves a
        new model '<id>.gf' and reports the added reactions (paged), growth before/after and
        quality checks. Takes seconds to a minute; reports progress."""
        return await run_job(
            ctx, caller,
            lambda ws: gapfill.prepare_gapfill(ws, model_id, media_id, target_growth_rate, gapfill_mode, media_ids),
            gapfill.store_gapfill, timeout_s=GAPFILL_TIMEOUT_S,
            abandon=gapfill.abandon_gapfill,  # the reserved id is free again
            done=lambda a: f"{a.num_reactions_added} reactions added; growth {a.growth_rate_after:.3f} /h")
