"""Results of the media tools."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gem_flux_mcp.services.results.base import Result


class MediaCompound(Result):
    id: str
    name: str
    formula: str
    bounds: list[float] = Field(description="[lower, upper] exchange bounds, mmol/gDW/h; lower < 0 = uptake")


class BuildMediaResult(Result):
    success: Literal[True] = True
    media_id: str
    media_name: str | None
    compounds: list[MediaCompound]
    num_compounds: int
    media_type: Literal["minimal", "rich"]
    default_uptake_rate: float
    custom_bounds_applied: int
    created_at: str
    next_steps: list[str]


class CompoundPreview(Result):
    id: str
    name: str


class MediaInfo(Result):
    media_id: str
    media_name: str | None
    description: str
    category: str = Field(description="Family of the medium, e.g. 'M9 minimal', 'LB rich', 'Biolog base', "
                                      "'built by you'")
    num_compounds: int
    media_type: Literal["minimal", "rich"]
    compounds_preview: list[CompoundPreview]
    created_at: str
    is_predefined: bool


class ListMediaResult(Result):
    success: Literal[True] = True
    total_media: int = Field(description="Every medium of the workspace, predefined and built")
    predefined_media: int
    user_created_media: int
    matched_media: int = Field(description="Media that pass the filters (all of them without filters)")
    media_by_category: dict[str, int] = Field(description="The matched media counted by category")
    resolved_compounds: list[CompoundPreview] | None = Field(
        None, description="The compounds the `compound` filter stands for (absent without it)")
    offset: int
    next_offset: int | None = Field(description="offset of the next page; null at the end")
    media: list[MediaInfo] = Field(description="This page of the matched media: yours first (oldest first), "
                                               "then the predefined library")
    next_steps: list[str]


class GetMediaResult(Result):
    success: Literal[True] = True
    media_id: str
    media_name: str | None
    description: str
    source: str | None = Field(description="Where a predefined medium's definition comes from; null for media "
                                           "you built")
    is_predefined: bool
    media_type: Literal["minimal", "rich"]
    created_at: str
    num_compounds: int
    compounds: list[MediaCompound] = Field(description="This page of the compounds, in the medium's order")
    offset: int
    next_offset: int | None = Field(description="offset of the next page; null at the end")


class DeleteMediaResult(Result):
    success: Literal[True] = True
    deleted_media_id: str
    message: str
