"""run_community: the stored community grown on a medium by MICOM's cooperative tradeoff in a
worker process; the answer (summary, member growth, the community's exchange with the medium,
then the cross-feeding and member exchange tables paged together, and on request the medium
compounds that limit community growth) recorded with the community."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from gem_flux_mcp.config import Settings
from gem_flux_mcp.modeling.community import CommunityGrowth, LimitingCompounds
from gem_flux_mcp.rules.catalog import DEFAULT_TRADEOFF, TRADEOFF
from gem_flux_mcp.services import results
from gem_flux_mcp.services.community.job import CommunityOnMedium, prepare_on_medium
from gem_flux_mcp.services.job_base import Progress
from gem_flux_mcp.services.paging import check_offset
from gem_flux_mcp.services.tables import write_tsv
from gem_flux_mcp.services.workspace import Workspace

PAGE = 100
LISTED = 50
GROWING = 1e-6  # 1/h: a member grows above this
CROSS_FEEDING_COLUMNS = ("compound_id", "name", "from_member", "to_member", "flux")
EXCHANGE_COLUMNS = ("member", "compound_id", "name", "direction", "flux", "weighted")


@dataclass(frozen=True)
class CommunityGrowthOutcome:
    growth: CommunityGrowth
    build_seconds: float
    seconds: float
    limiting: LimitingCompounds | None = None


@dataclass(frozen=True)
class CommunityGrowthJob(CommunityOnMedium):
    kind: ClassVar[str] = "community"
    tradeoff: float = DEFAULT_TRADEOFF
    limiting: bool = False

    def run(self, settings: Settings, progress: Progress) -> CommunityGrowthOutcome:
        from gem_flux_mcp.modeling.community import cooperative_growth, limiting_compounds

        started = time.perf_counter()
        with self.on_medium(progress) as (community, taxa, build_seconds):
            progress("tradeoff", 0.5, "cooperative tradeoff")
            grown = cooperative_growth(community, taxa, self.tradeoff)
            limiting = None
            if self.limiting:
                progress("limiting", 0.8, "medium compounds that limit growth")
                limiting = limiting_compounds(community, self.tradeoff)
        return CommunityGrowthOutcome(grown, build_seconds, time.perf_counter() - started, limiting)


def prepare_community_growth(ws: Workspace, community_id: object, media_id: object,
                             tradeoff: object = DEFAULT_TRADEOFF, offset: object = 0,
                             limiting: object = False) -> CommunityGrowthJob:
    share = TRADEOFF.check(tradeoff)
    check_offset(offset)
    base = prepare_on_medium(ws, community_id, media_id)
    return CommunityGrowthJob(**{f: getattr(base, f) for f in base.__dataclass_fields__}, tradeoff=share,
                              limiting=limiting is True)


def growth_summary(job: CommunityGrowthJob, grown: CommunityGrowth) -> dict[str, Any]:
    return {"community_growth": grown.community_growth, "tradeoff": job.tradeoff, "members": len(grown.members),
            "growing_members": sum(m["growth_rate"] > GROWING for m in grown.members),
            "cross_feedings": len(grown.cross_feeding), "member_exchanges": len(grown.exchanges),
            "medium_uptakes": sum(e["flux"] < 0 for e in grown.environment),
            "medium_secretions": sum(e["flux"] > 0 for e in grown.environment),
            "medium_compounds_no_member_exchanges": len(job.medium_missing)}


def store_community_growth(ws: Workspace, job: CommunityGrowthJob, outcome: CommunityGrowthOutcome,
                           offset: int = 0, output_path: Path | None = None) -> results.RunCommunityResult:
    grown = outcome.growth
    total = max(len(grown.cross_feeding), len(grown.exchanges))
    first = check_offset(offset, total) if offset else 0
    summary = growth_summary(job, grown)
    limiting = outcome.limiting
    ws.store.add_community_result(ws.workspace_id, job.community_id, "community_growth", job.media_id, {
        **summary, "member_growth": {m["member"]: m["growth_rate"] for m in grown.members},
        "cross_feeding": grown.cross_feeding[:LISTED],
        **({"limiting_compounds": [r["compound_id"] for r in limiting.rows if r["limiting"]][:LISTED]}
           if limiting else {})})
    written = write_tsv(output_path, CROSS_FEEDING_COLUMNS, grown.cross_feeding) if output_path else None
    return results.RunCommunityResult.model_validate({
        "success": True, "community_id": job.community_id, "media_id": job.media_id, "summary": summary,
        "members": [{**m, "uptakes": sum(e["member"] == m["member"] and e["direction"] == "uptake"
                                         for e in grown.exchanges),
                     "secretions": sum(e["member"] == m["member"] and e["direction"] == "secretion"
                                       for e in grown.exchanges)} for m in grown.members],
        "medium_exchanges": grown.environment[:LISTED * 2],
        "medium_exchanges_truncated": len(grown.environment) > LISTED * 2,
        "medium_missing": list(job.medium_missing[:LISTED]),
        "cross_feeding": grown.cross_feeding[first:first + PAGE], "exchanges": grown.exchanges[first:first + PAGE],
        "offset": first, "next_offset": first + PAGE if first + PAGE < total else None,
        **({"output_file": written} if written else {}),
        "seconds": round(outcome.seconds, 3), "build_seconds": round(outcome.build_seconds, 3),
        "solve_seconds": round(grown.seconds, 3),
        **({"limiting_compounds": limiting_table(limiting)} if limiting else {}),
    })


def limiting_table(limiting: LimitingCompounds) -> dict[str, Any]:
    return {"tested": len(limiting.rows), "limiting": sum(r["limiting"] for r in limiting.rows),
            "solved": limiting.solved, "rows": limiting.rows[:LISTED * 2],
            "rows_truncated": len(limiting.rows) > LISTED * 2, "seconds": round(limiting.seconds, 3)}
