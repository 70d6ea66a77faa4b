"""Community tools on MICOM (build_community, get_community, list_communities, delete_community,
run_community, community_knockouts, community_minimal_medium, run_community_samples): stored models
as members of one community that shares a medium; the growth and cross-feeding of the members
and who depends on whom. Solves run in a worker process with progress; many samples run as a
batch on Dask in the server's background (followed with get_batch_status)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import anyio.to_thread
from fastmcp import Context, FastMCP
from fastmcp.dependencies import Depends
from pydantic import Field

from gem_flux_mcp.rules.catalog import (
    CommunityMembersArg,
    CommunityMembersFilterArg,
    LimitArg,
    MinMemberGrowthArg,
    OffsetArg,
    TargetGrowthRateArg,
    TradeoffArg,
    WorkersArg,
)
from gem_flux_mcp.server.dependencies import (
    Caller,
    current_batches,
    current_caller,
    current_file_area,
    current_workspace,
)
from gem_flux_mcp.server.file_area import FileArea
from gem_flux_mcp.server.tools.common import CREATES, DELETES, READ_ONLY, MediaId, OutputPath, output_target, tool
from gem_flux_mcp.server.tools.running import run_job
from gem_flux_mcp.services import results
from gem_flux_mcp.services.batch.background import BatchJobs
from gem_flux_mcp.services.community import build, growth, knockouts, medium, stored
from gem_flux_mcp.services.community import samples as sample_batch
from gem_flux_mcp.services.workspace import Workspace

CommunityId = Annotated[str, Field(description="Id of a stored community (build_community answers with it)")]
Tradeoff = Annotated[TradeoffArg, Field(description="Fraction of the maximal community growth the community keeps "
                                                    "while growth is spread over the members (MICOM's tradeoff)")]
SAMPLES_ANNOTATIONS = {"title": "Grow many samples of a community", "readOnlyHint": False, "destructiveHint": False,
                       "idempotentHint": True, "openWorldHint": False}  # a rerun resumes; no sample is grown twice


def register(mcp: FastMCP) -> None:
    @tool(mcp, "build_community", results.BuildCommunityResult, {"title": "Build a community", **CREATES})
    def build_community(
        model_ids: Annotated[CommunityMembersArg, Field(description="Stored models, the members (each once)")],
        abundances: Annotated[list[float] | None, Field(
            description="Relative abundance of each member, in the order of model_ids, each > 0 (divided by "
                        "their sum); default equal")] = None,
        community_name: Annotated[str | None, Field(description="Id for the community; default an automatic "
                                                                "'community_<date>_<time>_<xxxxxx>'")] = None,
        workspace: Workspace = Depends(current_workspace),
    ) -> results.BuildCommunityResult:
        """A community of stored models (builds, imports, revisions) that share one medium, with
        their relative abundances. Each member must exchange metabolites in ModelSEED ids; the
        community keeps each member's id and the checksum of its stored file, so a member replaced
        later is refused rather than silently used."""
        return build.build_community(workspace, model_ids, abundances, community_name)

    @tool(mcp, "get_community", results.GetCommunityResult, {"title": "Get a community", **READ_ONLY})
    def get_community(
        community_id: CommunityId,
        workspace: Workspace = Depends(current_workspace),
    ) -> results.GetCommunityResult:
        """A stored community: its members with their abundances and whether each is still stored
        as it was when the community was built, and what was run on it (run_community,
        community_knockouts, community_minimal_medium, run_community_samples), newest first."""
        return build.get_community(workspace, community_id)

    @tool(mcp, "list_communities", results.ListCommunitiesResult, {"title": "List communities", **READ_ONLY})
    def list_communities(
        offset: Annotated[OffsetArg, Field(description="First community of the page (paging)")] = 0,
        limit: Annotated[LimitArg, Field(description="Communities per page")] = stored.DEFAULT_PAGE,
        workspace: Workspace = Depends(current_workspace),
    ) -> results.ListCommunitiesResult:
        """The workspace's stored communities, oldest first, a page at a time: each one's members
        and how many results were recorded with it."""
        return stored.list_communities(workspace.store, workspace.workspace_id, offset, limit)

    @tool(mcp, "delete_community", results.DeleteCommunityResult, {"title": "Delete a community", **DELETES})
    def delete_community(
        community_id: CommunityId,
        workspace: Workspace = Depends(current_workspace),
    ) -> results.DeleteCommunityResult:
        """Delete a stored community permanently, with every result recorded with it (one
        transaction). Its member models stay stored."""
        return stored.delete_community(workspace.store, workspace.workspace_id, community_id)

    @tool(mcp, "run_community", results.RunCommunityResult, {"title": "Grow a community", **CREATES})
    async def run_community(
        ctx: Context,
        community_id: CommunityId,
        media_id: MediaId,
        tradeoff: Tradeoff = 0.5,
        offset: Annotated[OffsetArg, Field(description="First row of the cross-feeding and exchange tables "
                                                       "(paging)")] = 0,
        output_path: OutputPath = None,
        limiting_compounds: Annotated[bool, Field(
            description="Also which medium compounds limit community growth: each uptake bound halved in turn and "
                        "the growth left (one linear program per compound taken up near its bound)")] = False,
        caller: Caller = Depends(current_caller),
    ) -> results.RunCommunityResult:
        """The community on a medium by MICOM's cooperative tradeoff: community growth is maximised,
        then held at `tradeoff` x the maximum while the members' growth is spread as evenly as
        possible. Answers the community's growth, each member's growth, what the community takes
        from and gives to the medium, who feeds whom (metabolite, from member, to member, flux),
        and each member's uptake and secretion (paged). With limiting_compounds, the medium
        compounds ranked by how much community growth falls when each one's uptake bound is
        halved. Runs in a worker process; recorded with the community."""
        path = output_target(caller.files, output_path)
        return await run_job(
            ctx, caller, lambda ws: growth.prepare_community_growth(ws, community_id, media_id, tradeoff, offset,
                                                                    limiting_compounds),
            lambda ws, job, outcome: growth.store_community_growth(ws, job, outcome, offset, path))

    @tool(mcp, "community_knockouts", results.CommunityKnockoutsResult,
          {"title": "Remove each member of a community", **CREATES})
    async def community_knockouts(
        ctx: Context,
        community_id: CommunityId,
        media_id: MediaId,
        members: Annotated[CommunityMembersFilterArg, Field(description="Members to remove in turn; default "
                                                                        "every member")] = None,
        tradeoff: Tradeoff = 0.5,
        offset: Annotated[OffsetArg, Field(description="First row of the table (paging)")] = 0,
        caller: Caller = Depends(current_caller),
    ) -> results.CommunityKnockoutsResult:
        """Who depends on whom: each member removed in turn (MICOM's knockout_taxa, the cooperative
        tradeoff solved again), and every other member's growth before and after; the largest falls
        first. Runs in a worker process; recorded with the community."""
        return await run_job(
            ctx, caller,
            lambda ws: knockouts.prepare_knockouts(ws, community_id, media_id, members, tradeoff, offset),
            lambda ws, job, outcome: knockouts.store_knockouts(ws, job, outcome, offset))

    @tool(mcp, "community_minimal_medium", results.CommunityMinimalMediumResult,
          {"title": "Minimal medium of a community", **CREATES})
    async def community_minimal_medium(
        ctx: Context,
        community_id: CommunityId,
        media_id: Annotated[MediaId, Field(description="The medium to search in (e.g. a rich medium)")],
        target_growth_rate: Annotated[TargetGrowthRateArg, Field(description="Community growth to reach, 1/h")],
        min_member_growth: Annotated[MinMemberGrowthArg, Field(description="Growth every member must reach, "
                                                                           "1/h")] = 0.0,
        minimize_components: Annotated[bool, Field(description="Fewest compounds instead of the smallest total "
                                                               "uptake (a mixed-integer problem: slower)")] = False,
        caller: Caller = Depends(current_caller),
    ) -> results.CommunityMinimalMediumResult:
        """The community's minimal medium (MICOM's minimal_medium): the compounds of a medium, with
        their uptakes, that let the community reach a growth rate with every member at least at
        min_member_growth, at the smallest total uptake (or fewest compounds). The answer's
        custom_bounds can be stored with build_media. Runs in a worker process; recorded with the
        community."""
        return await run_job(
            ctx, caller, lambda ws: medium.prepare_minimal_medium(ws, community_id, media_id, target_growth_rate,
                                                                  min_member_growth, minimize_components),
            medium.store_minimal_medium)

    @tool(mcp, "run_community_samples", results.RunCommunitySamplesResult, SAMPLES_ANNOTATIONS)
    async def run_community_samples(
        community_id: CommunityId,
        media_id: MediaId,
        samples: Annotated[dict[str, dict[str, float]], Field(
            min_length=1, max_length=sample_batch.MAX_SAMPLES,
            description="Each sample's abundance of the members present, {sample: {member model id: abundance}}; "
                        "a member left out is absent from that sample; a sample's abundances are divided by "
                        "their sum")],
        out_dir: Annotated[str, Field(description=(
            "Folder for the results: samples.tsv (per sample: community growth, growing members, cross-feedings, "
            "each member's growth), member_growth.tsv, cross_feeding.tsv, summary.json and a report per sample. "
            "Running the same samples into the same folder again skips those finished"))],
        tradeoff: Tradeoff = 0.5,
        workers: Annotated[WorkersArg, Field(description=(
            "Dask worker processes on this server (at most one per core); ignored when the server is configured "
            "with a Dask cluster"))] = 2,
        workspace: Workspace = Depends(current_workspace),
        area: FileArea = Depends(current_file_area),
        batches: BatchJobs = Depends(current_batches),
    ) -> results.RunCommunitySamplesResult:
        """Many samples of a stored community (each its own abundances of the members) as one
        batch on Dask: each sample's community is grown on the medium by the cooperative tradeoff,
        one task per sample. Answers at once with a job id; follow it with get_batch_status (its
        `samples` rows). One batch runs at a time per server; recorded with the community."""
        folder = area.resolve(str(Path(out_dir) / "samples.tsv"), param="out_dir", must_exist=False,
                              for_write=True).parent
        return await anyio.to_thread.run_sync(lambda: sample_batch.start_community_samples(
            batches, workspace, community_id, media_id, samples, folder, tradeoff, workers, area.show))
