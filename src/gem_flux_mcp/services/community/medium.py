"""community_minimal_medium: the smallest uptake from a medium (or the fewest of its compounds)
that lets the community grow at a target rate with every member at least at a minimal rate
(MICOM's minimal_medium, in a worker process); recorded with the community."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import ClassVar

from gem_flux_mcp.config import Settings
from gem_flux_mcp.modeling.community import CommunityMinimalMedium
from gem_flux_mcp.rules.catalog import MIN_MEMBER_GROWTH, TARGET_GROWTH_RATE
from gem_flux_mcp.services import results
from gem_flux_mcp.services.community.job import CommunityOnMedium, prepare_on_medium
from gem_flux_mcp.services.job_base import Progress
from gem_flux_mcp.services.workspace import Workspace


@dataclass(frozen=True)
class MinimalMediumOutcome:
    medium: CommunityMinimalMedium
    build_seconds: float
    seconds: float


@dataclass(frozen=True)
class CommunityMinimalMediumJob(CommunityOnMedium):
    kind: ClassVar[str] = "community_minimal_medium"
    target_growth_rate: float = 0.1
    min_member_growth: float = 0.0
    minimize_components: bool = False

    def run(self, settings: Settings, progress: Progress) -> MinimalMediumOutcome:
        from gem_flux_mcp.modeling.community import minimal_community_medium

        started = time.perf_counter()
        with self.on_medium(progress) as (community, _, build_seconds):
            progress("medium", 0.5, "minimal medium")
            found = minimal_community_medium(community, self.target_growth_rate, self.min_member_growth,
                                             self.minimize_components)
        return MinimalMediumOutcome(found, build_seconds, time.perf_counter() - started)


def prepare_minimal_medium(ws: Workspace, community_id: object, media_id: object, target_growth_rate: object,
                           min_member_growth: object = 0.0, minimize_components: bool = False
                           ) -> CommunityMinimalMediumJob:
    target = TARGET_GROWTH_RATE.check(target_growth_rate)
    least = MIN_MEMBER_GROWTH.check(min_member_growth)
    base = prepare_on_medium(ws, community_id, media_id)
    return CommunityMinimalMediumJob(**{f: getattr(base, f) for f in base.__dataclass_fields__},
                                     target_growth_rate=target, min_member_growth=least,
                                     minimize_components=bool(minimize_components))


def store_minimal_medium(ws: Workspace, job: CommunityMinimalMediumJob, outcome: MinimalMediumOutcome
                         ) -> results.CommunityMinimalMediumResult:
    found = outcome.medium
    summary = {"compounds": len(found.compounds), "total_uptake": round(sum(c["uptake"] for c in found.compounds), 9),
               "target_growth_rate": job.target_growth_rate, "min_member_growth": job.min_member_growth,
               "minimize_components": job.minimize_components}
    ws.store.add_community_result(ws.workspace_id, job.community_id, "community_minimal_medium", job.media_id,
                                  {**summary, "compound_ids": [c["compound_id"] for c in found.compounds]})
    return results.CommunityMinimalMediumResult.model_validate({
        "success": True, "community_id": job.community_id, "media_id": job.media_id, "summary": summary,
        "compounds": found.compounds,
        "custom_bounds": {c["compound_id"]: [-c["uptake"], 1000.0] for c in found.compounds},
        "seconds": round(outcome.seconds, 3), "build_seconds": round(outcome.build_seconds, 3),
    })
