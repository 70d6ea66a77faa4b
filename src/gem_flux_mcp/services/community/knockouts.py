"""community_knockouts: each member removed in turn (MICOM's knockout_taxa, in a worker
process), and every other member's growth before and after; recorded with the community."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import ClassVar

from gem_flux_mcp.config import Settings
from gem_flux_mcp.modeling.community import MemberKnockouts
from gem_flux_mcp.rules.catalog import COMMUNITY_MEMBERS_FILTER, DEFAULT_TRADEOFF, TRADEOFF
from gem_flux_mcp.services import results
from gem_flux_mcp.services.community.job import CommunityOnMedium, prepare_on_medium
from gem_flux_mcp.services.job_base import Progress
from gem_flux_mcp.services.paging import check_offset
from gem_flux_mcp.services.workspace import Workspace

PAGE = 200
DEPENDS = 1e-6  # 1/h: a fall in growth larger than this counts as a dependence


@dataclass(frozen=True)
class KnockoutsOutcome:
    knockouts: MemberKnockouts
    build_seconds: float
    seconds: float


@dataclass(frozen=True)
class CommunityKnockoutsJob(CommunityOnMedium):
    kind: ClassVar[str] = "community_knockouts"
    tradeoff: float = DEFAULT_TRADEOFF
    removed: tuple[str, ...] | None = None

    def run(self, settings: Settings, progress: Progress) -> KnockoutsOutcome:
        from gem_flux_mcp.modeling.community import member_knockouts

        started = time.perf_counter()
        with self.on_medium(progress) as (community, taxa, build_seconds):
            progress("knockouts", 0.3, f"removing {len(self.removed or taxa)} members in turn")
            found = member_knockouts(community, taxa, self.removed, self.tradeoff)
        return KnockoutsOutcome(found, build_seconds, time.perf_counter() - started)


def prepare_knockouts(ws: Workspace, community_id: object, media_id: object, members: object = None,
                      tradeoff: object = DEFAULT_TRADEOFF, offset: object = 0) -> CommunityKnockoutsJob:
    share = TRADEOFF.check(tradeoff)
    check_offset(offset)
    chosen = COMMUNITY_MEMBERS_FILTER.check(members)
    base = prepare_on_medium(ws, community_id, media_id)
    if chosen is not None:
        known = [m.model_id for m in base.members]
        unknown = [m for m in chosen if m not in known]
        if unknown:
            raise COMMUNITY_MEMBERS_FILTER.refusal(
                members, f"Not members of community '{base.community_id}': {', '.join(map(str, unknown[:10]))}.")
        chosen = list(dict.fromkeys(chosen))
    return CommunityKnockoutsJob(**{f: getattr(base, f) for f in base.__dataclass_fields__}, tradeoff=share,
                                 removed=tuple(chosen) if chosen is not None else None)


def store_knockouts(ws: Workspace, job: CommunityKnockoutsJob, outcome: KnockoutsOutcome,
                    offset: int = 0) -> results.CommunityKnockoutsResult:
    found = outcome.knockouts
    rows = sorted(found.rows, key=lambda r: (r["change"], r["removed"], r["member"]))
    first = check_offset(offset, len(rows)) if offset else 0
    dependencies = [r for r in rows if r["change"] < -DEPENDS]
    summary = {"removed": len({r["removed"] for r in rows}), "pairs": len(rows), "dependencies": len(dependencies),
               "tradeoff": job.tradeoff}
    ws.store.add_community_result(ws.workspace_id, job.community_id, "community_knockouts", job.media_id, {
        **summary, "dependencies_first": [{k: r[k] for k in ("removed", "member", "change")}
                                          for r in dependencies[:50]]})
    return results.CommunityKnockoutsResult.model_validate({
        "success": True, "community_id": job.community_id, "media_id": job.media_id, "summary": summary,
        "growth": [{"member": m, "growth_rate": g} for m, g in found.growth.items()],
        "rows": rows[first:first + PAGE], "offset": first,
        "next_offset": first + PAGE if first + PAGE < len(rows) else None,
        "seconds": round(outcome.seconds, 3), "build_seconds": round(outcome.build_seconds, 3),
    })
