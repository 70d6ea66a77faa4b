"""The workspace's stored communities: list_communities (a page, oldest first, with how many
results each has recorded) and delete_community (the community and its recorded results, in one
transaction; its member models are kept). They need the store and a workspace id only, not
the reference data of a `Workspace`, so `gem-flux community list|delete` runs on a state folder
alone."""

from __future__ import annotations

from gem_flux_mcp.rules.catalog import LIMIT
from gem_flux_mcp.services import results
from gem_flux_mcp.services.community.job import community_key
from gem_flux_mcp.services.paging import check_offset
from gem_flux_mcp.store.store import Store

DEFAULT_PAGE = 25
MEMBERS_LISTED = 10


def list_communities(store: Store, workspace_id: str, offset: object = 0, limit: object = DEFAULT_PAGE
                     ) -> results.ListCommunitiesResult:
    check_offset(offset)
    size: int = LIMIT.check(limit)
    rows = store.list_communities(workspace_id)
    first = check_offset(offset, len(rows))
    counts = store.community_result_counts(workspace_id)
    page = rows[first:first + size]
    return results.ListCommunitiesResult.model_validate({
        "success": True, "total_communities": len(rows), "offset": first,
        "next_offset": first + size if first + size < len(rows) else None,
        "communities": [{"community_id": r.community_id, "community_name": r.community_name,
                         "created_at": r.created_at, "num_members": len(r.members),
                         "member_ids": [m["model_id"] for m in r.members[:MEMBERS_LISTED]],
                         "num_results": counts.get(r.community_id, 0)} for r in page],
        "next_steps": ["Inspect one with get_community(community_id=...).",
                       "Grow one with run_community(community_id=..., media_id=...)."] if rows
        else ["Build one from stored models with build_community(model_ids=[...])."],
    })


def delete_community(store: Store, workspace_id: str, community_id: object) -> results.DeleteCommunityResult:
    row, gone = store.delete_community(workspace_id, community_key(community_id))
    return results.DeleteCommunityResult.model_validate({
        "success": True, "deleted_community_id": row.community_id, "deleted_results": gone,
        "message": f"Community deleted with its {gone} recorded result(s); its member models are kept."})
