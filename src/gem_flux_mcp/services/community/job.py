"""What every job on a stored community shares: the request's community and medium checked in
the server (each member still stored with the file it had when the community was built, the
medium offering something a member can take up), the members' COBRApy JSON sent to the worker,
and there the MICOM community built and put on the medium."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import NotFoundError, ValidationError
from gem_flux_mcp.modeling.community import Member
from gem_flux_mcp.services.job_base import Progress
from gem_flux_mcp.services.workspace import Workspace
from gem_flux_mcp.store.rows import CommunityRow


@dataclass(frozen=True)
class CommunityOnMedium:
    community_id: str
    media_id: str
    medium: dict[str, tuple[float, float]]
    members: tuple[Member, ...]
    medium_missing: tuple[str, ...]  # medium compounds no member exchanges

    @contextmanager
    def on_medium(self, progress: Progress) -> Iterator[tuple[Any, dict[str, str], float]]:
        """(the MICOM community on the medium, {taxon: member id}, seconds it took to build or
        take up again) for the block: the worker keeps the community for its next job on the same
        members (modeling/community/reuse.py), the block's changes undone."""
        from gem_flux_mcp.modeling.community import put_community_on_medium
        from gem_flux_mcp.modeling.community.reuse import community_of

        started = time.perf_counter()
        progress("build", 0.05, f"building the community of {len(self.members)} members")
        with community_of(self.members, self.community_id) as (community, taxa, _):
            put_community_on_medium(community, self.medium)
            yield community, taxa, time.perf_counter() - started


def community_key(community_id: object) -> str:
    if not isinstance(community_id, str) or not community_id.strip():
        raise ValidationError(ErrorCode.INVALID_ID_FORMAT, "community_id must be a non-empty string.",
                              details={"provided": repr(community_id)[:40]},
                              suggestions=["build_community answers with the id of the community it stores."])
    return community_id.strip()


def load_members(ws: Workspace, community: CommunityRow) -> tuple[Member, ...]:
    """Each member's stored JSON, refused when the member was deleted or replaced since the
    community was built."""
    members = []
    for member in community.members:
        model_id = member["model_id"]
        try:
            row = ws.store.get_model_row(ws.workspace_id, model_id)
        except NotFoundError as exc:
            exc.message = f"Member '{model_id}' of community '{community.community_id}' is no longer stored."
            exc.details["community_id"] = community.community_id
            exc.suggestions.append("Build the community again from stored models (build_community).")
            raise
        if row.file_sha256 != member["file_sha256"]:
            raise ValidationError(
                ErrorCode.COMMUNITY_MEMBER_CHANGED,
                f"Member '{model_id}' of community '{community.community_id}' was replaced since the community "
                "was built (its stored file differs).",
                details={"community_id": community.community_id, "model_id": model_id,
                         "built_with": member["file_sha256"][:16], "stored_now": row.file_sha256[:16],
                         "built_with_created_at": member["model_created_at"], "stored_now_created_at": row.created_at},
                suggestions=["Build the community again (build_community) to use the model stored now."],
                valid_next_steps=["build_community"])
        members.append(Member(model_id, float(member["abundance"]),
                              ws.store.model_data(ws.workspace_id, model_id).decode("utf-8")))
    return tuple(members)


def prepare_on_medium(ws: Workspace, community_id: object, media_id: object) -> CommunityOnMedium:
    """The stored community and the medium, checked: MEDIA_INCOMPATIBLE when no member exchanges
    any compound the medium offers for uptake."""
    community = ws.store.get_community(ws.workspace_id, community_key(community_id))
    medium_id, medium = ws.medium(media_id)
    exchanged = {c for m in community.members for c in m["exchange_compounds"]}
    offered = [c for c, (lower, _) in medium.items() if lower < 0]
    if not exchanged.intersection(offered):
        raise ValidationError(
            ErrorCode.MEDIA_INCOMPATIBLE,
            f"No member of community '{community.community_id}' can take up any compound medium '{medium_id}' "
            "offers.", details={"community_id": community.community_id, "media_id": medium_id,
                                "medium_compounds": offered[:20]},
            suggestions=["Choose a medium with compounds the members exchange (get_media, list_media)."])
    return CommunityOnMedium(community.community_id, medium_id, dict(medium), load_members(ws, community),
                             tuple(c for c in medium if c not in exchanged))
