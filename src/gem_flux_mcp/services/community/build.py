"""build_community: stored models become the members of a community with relative abundances;
each member is checked (exchanges, ModelSEED namespace) and recorded with the size and SHA-256
of its stored file, so a member replaced under the same id is told apart later. get_community:
a stored community, whether each member is still stored as it was, and its recorded results."""

from __future__ import annotations

from typing import Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import NotFoundError, ValidationError
from gem_flux_mcp.modeling.community import check_member, relative_abundances
from gem_flux_mcp.modeling.media import exchange_reactions
from gem_flux_mcp.rules.catalog import COMMUNITY_MEMBERS
from gem_flux_mcp.services import results
from gem_flux_mcp.services.workspace import Workspace, model_key
from gem_flux_mcp.store.ids import check_community_id
from gem_flux_mcp.store.rows import CommunityRow
from gem_flux_mcp.store.store import Store


def member_ids(model_ids: object) -> list[str]:
    """The members' model ids, checked for shape; a repeated id is refused."""
    ids = [model_key(m) for m in COMMUNITY_MEMBERS.check(model_ids)]
    repeated = sorted({m for m in ids if ids.count(m) > 1})
    if repeated:
        raise COMMUNITY_MEMBERS.refusal(model_ids, f"Each member must be given once; repeated: {', '.join(repeated)}.")
    return ids


def build_community(ws: Workspace, model_ids: object, abundances: object = None,
                    community_name: object = None) -> results.BuildCommunityResult:
    """Check every member (it exists, has exchanges, names them in ModelSEED ids), then store the
    community in one insert; nothing is stored when any check fails."""
    ids = member_ids(model_ids)
    shares = relative_abundances(abundances, len(ids))
    name: str | None = None
    if community_name is not None:
        if not isinstance(community_name, str) or not community_name.strip():
            raise ValidationError(ErrorCode.INVALID_ID_FORMAT, "community_name must be a non-empty name.",
                                  details={"provided": repr(community_name)[:40]})
        name = community_name.strip()
        check_community_id(name)
    members: list[dict[str, Any]] = []
    for model_id, share in zip(ids, shares, strict=True):
        row = ws.store.get_model_row(ws.workspace_id, model_id)
        with ws.store.checkout(ws.workspace_id, model_id) as model:
            check_member(model_id, model)
            compounds = sorted({next(iter(r.metabolites)).id.rsplit("_", 1)[0] for r in exchange_reactions(model)})
        members.append({"model_id": model_id, "abundance": share, "file_sha256": row.file_sha256,
                        "file_size": row.file_size, "model_created_at": row.created_at, "source": row.source,
                        "num_reactions": row.num_reactions, "exchange_compounds": compounds})
    stored = ws.store.add_community(CommunityRow(ws.workspace_id, name or "", name, members, ""))
    return results.BuildCommunityResult.model_validate({
        "success": True, "community_id": stored.community_id, "community_name": stored.community_name,
        "created_at": stored.created_at, "members": [member_info(m) for m in stored.members],
        "next_steps": [f"run_community(community_id='{stored.community_id}', media_id=...)",
                       f"community_knockouts(community_id='{stored.community_id}', media_id=...)"],
    })


def member_info(member: dict[str, Any]) -> dict[str, Any]:
    return {"model_id": member["model_id"], "abundance": round(member["abundance"], 9),
            "file_sha256": member["file_sha256"], "model_created_at": member["model_created_at"],
            "source": member["source"], "num_reactions": member["num_reactions"],
            "num_exchanges": len(member["exchange_compounds"])}


RESULTS_SHOWN = 20


def member_state(store: Store, workspace: str, member: dict[str, Any]) -> str:
    """stored (as when the community was built), replaced (another file under its id) or deleted."""
    try:
        now = store.get_model_row(workspace, member["model_id"]).file_sha256
    except NotFoundError:
        return "deleted"
    return "stored" if now == member["file_sha256"] else "replaced"


def get_community(ws: Workspace, community_id: object) -> results.GetCommunityResult:
    """The community, each member's state now (stored as built, replaced, or gone) and its newest
    recorded results."""
    from gem_flux_mcp.services.community.job import community_key

    community = ws.store.get_community(ws.workspace_id, community_key(community_id))
    members = [{**member_info(m), "state": member_state(ws.store, ws.workspace_id, m)} for m in community.members]
    recorded = ws.store.list_community_results(ws.workspace_id, community.community_id, RESULTS_SHOWN)
    return results.GetCommunityResult.model_validate({
        "success": True, "community_id": community.community_id, "community_name": community.community_name,
        "created_at": community.created_at, "members": members,
        "results": [{"kind": r.kind, "media_id": r.media_id, "created_at": r.created_at, "summary": r.summary}
                    for r in recorded],
    })
