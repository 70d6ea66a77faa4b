"""Results of the community tools (build_community, run_community, community_knockouts,
community_minimal_medium)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from gem_flux_mcp.services.results.analysis import TableFile
from gem_flux_mcp.services.results.base import Result


class CommunityMember(Result):
    model_id: str
    abundance: float = Field(description="Relative abundance (the members' sum to 1)")
    file_sha256: str = Field(description="SHA-256 of the member's stored model file when the community was built: a "
                                         "member replaced since is refused")
    model_created_at: str
    source: str = Field(description="How the member model was made: built, imported, gapfilled, revised")
    num_reactions: int
    num_exchanges: int


class BuildCommunityResult(Result):
    success: Literal[True] = True
    community_id: str
    community_name: str | None
    created_at: str
    members: list[CommunityMember]
    next_steps: list[str]


class CommunityGrowthSummary(Result):
    community_growth: float = Field(description="1/h: the abundance-weighted sum of member growth rates, at "
                                                "`tradeoff` x the maximal community growth")
    tradeoff: float
    members: int
    growing_members: int
    cross_feedings: int = Field(description="Rows of the cross-feeding table")
    member_exchanges: int = Field(description="Rows of the member exchange table")
    medium_uptakes: int = Field(description="Compounds the community takes up from the medium")
    medium_secretions: int = Field(description="Compounds the community secretes into the medium")
    medium_compounds_no_member_exchanges: int = Field(description="Medium compounds no member can exchange")


class MemberGrowth(Result):
    member: str = Field(description="The member's model id")
    abundance: float
    growth_rate: float = Field(description="1/h")
    uptakes: int = Field(description="Compounds it takes up")
    secretions: int = Field(description="Compounds it secretes")


class MediumExchange(Result):
    compound_id: str
    name: str
    flux: float = Field(description="mmol per gDW of community per h: < 0 taken up from the medium, > 0 secreted "
                                    "into it")


class CrossFeeding(Result):
    compound_id: str
    name: str
    from_member: str = Field(description="The member that secretes it")
    to_member: str = Field(description="The member that takes it up")
    flux: float = Field(description="min(secretion x abundance of from_member, uptake x abundance of to_member): "
                                    "mmol per gDW of community per h (MICOM's 'provided' interaction)")


class MemberExchange(Result):
    member: str
    compound_id: str
    name: str
    direction: Literal["uptake", "secretion"]
    flux: float = Field(description="mmol per gDW of the member per h")
    weighted: float = Field(description="flux x the member's abundance: mmol per gDW of community per h")


class LimitingCompound(Result):
    compound_id: str
    name: str
    uptake_bound: float = Field(description="The medium's uptake bound, mmol per gDW of community per h")
    uptake: float = Field(description="The community's uptake at its maximal growth on the whole medium")
    growth_halved: float = Field(description="1/h: community growth at the tradeoff with this uptake bound halved")
    growth_drop: float = Field(description="1/h: community growth at the tradeoff minus growth_halved")
    relative_drop: float = Field(description="growth_drop / community growth (0 to 1)")
    limiting: bool = Field(description="Halving its bound lowers community growth (relative_drop > 1e-6)")


class LimitingCompoundsTable(Result):
    tested: int = Field(description="Compounds the medium offers that a member can take up")
    limiting: int = Field(description="Of these, the compounds whose halved bound lowers community growth")
    solved: int = Field(description="Linear programs solved again: a compound taken up at most half its bound at the "
                                    "maximal growth cannot limit, and is not solved")
    rows: list[LimitingCompound] = Field(description="Largest growth_drop first (first 100)")
    rows_truncated: bool
    seconds: float


class RunCommunityResult(Result):
    success: Literal[True] = True
    community_id: str
    media_id: str
    summary: CommunityGrowthSummary
    members: list[MemberGrowth]
    medium_exchanges: list[MediumExchange] = Field(description="The community's exchange with the medium, uptakes "
                                                               "first, largest first (first 100)")
    medium_exchanges_truncated: bool
    medium_missing: list[str] = Field(description="Medium compounds no member exchanges (first 50)")
    cross_feeding: list[CrossFeeding] = Field(description="This page of who feeds whom, largest flux first")
    exchanges: list[MemberExchange] = Field(description="This page of each member's uptake and secretion")
    offset: int
    next_offset: int | None = Field(description="offset of the next page of both tables; null at the end")
    output_file: TableFile | None = Field(default=None, description="The whole cross-feeding table, when "
                                                                    "output_path was given")
    seconds: float
    build_seconds: float = Field(description="Building the MICOM community from the members")
    solve_seconds: float = Field(description="MICOM's cooperative tradeoff")
    limiting_compounds: LimitingCompoundsTable | None = Field(
        default=None, description="With limiting_compounds=true: each medium compound's uptake bound halved and the "
                                  "community growth left, the compounds that limit growth first")


class KnockoutRow(Result):
    removed: str = Field(description="The member taken out of the community")
    member: str = Field(description="Another member")
    growth_before: float = Field(description="1/h with every member present")
    growth_after: float = Field(description="1/h without `removed`")
    change: float = Field(description="growth_after - growth_before: < 0 means member depends on removed")


class KnockoutSummary(Result):
    removed: int
    pairs: int
    dependencies: int = Field(description="Pairs where the member grows slower without the removed one")
    tradeoff: float


class KnockoutGrowth(Result):
    member: str
    growth_rate: float


class CommunityKnockoutsResult(Result):
    success: Literal[True] = True
    community_id: str
    media_id: str
    summary: KnockoutSummary
    growth: list[KnockoutGrowth] = Field(description="Each member's growth with every member present")
    rows: list[KnockoutRow] = Field(description="This page of (removed, member) pairs, largest fall first")
    offset: int
    next_offset: int | None
    seconds: float
    build_seconds: float


class MinimalMediumSummary(Result):
    compounds: int
    total_uptake: float = Field(description="mmol per gDW of community per h")
    target_growth_rate: float
    min_member_growth: float
    minimize_components: bool


class MinimalMediumCompound(Result):
    compound_id: str
    name: str
    uptake: float = Field(description="mmol per gDW of community per h")


class CommunityMinimalMediumResult(Result):
    success: Literal[True] = True
    community_id: str
    media_id: str = Field(description="The medium searched in: only its compounds, at most at its uptake bounds")
    summary: MinimalMediumSummary
    compounds: list[MinimalMediumCompound] = Field(description="The minimal medium, largest uptake first")
    custom_bounds: dict[str, list[float]] = Field(description="The same as build_media's custom_bounds, to store it "
                                                              "as a medium")
    seconds: float
    build_seconds: float


class CommunityMemberState(CommunityMember):
    state: Literal["stored", "replaced", "deleted"] = Field(
        description="stored: the model is stored as it was when the community was built; replaced: another model "
                    "is stored under its id (runs are refused); deleted: no longer stored")


class CommunityRecord(Result):
    kind: str = Field(description="community_growth, community_knockouts, community_minimal_medium or "
                                  "community_samples")
    media_id: str | None
    created_at: str
    summary: dict[str, Any]


class GetCommunityResult(Result):
    success: Literal[True] = True
    community_id: str
    community_name: str | None
    created_at: str
    members: list[CommunityMemberState]
    results: list[CommunityRecord] = Field(description="What was run on it, newest first (at most 20)")


class CommunityListing(Result):
    community_id: str
    community_name: str | None
    created_at: str
    num_members: int
    member_ids: list[str] = Field(description="The members' model ids (first 10)")
    num_results: int = Field(description="Results recorded with the community (run_community, community_knockouts, "
                                         "community_minimal_medium)")


class ListCommunitiesResult(Result):
    success: Literal[True] = True
    total_communities: int
    offset: int
    next_offset: int | None = Field(description="offset of the next page; null at the end")
    communities: list[CommunityListing] = Field(description="This page of the workspace's communities, oldest first")
    next_steps: list[str]


class DeleteCommunityResult(Result):
    success: Literal[True] = True
    deleted_community_id: str
    deleted_results: int = Field(description="Results recorded with the community, deleted with it")
    message: str
