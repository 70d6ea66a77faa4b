"""Each member removed from the community in turn, and how the others' growth changes: MICOM's
`knockout_taxa` (every reaction of the removed member closed, the cooperative tradeoff solved
again at the same tradeoff). A member whose growth falls when another is removed depends on it."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import InfeasibilityError
from gem_flux_mcp.modeling.community.members import as_dict, json_safe

if TYPE_CHECKING:
    import micom


@dataclass(frozen=True)
class MemberKnockouts:
    growth: dict[str, float]  # member -> growth rate (1/h) with every member present
    rows: list[dict[str, Any]]  # removed, member, growth_before, growth_after, change
    tradeoff: float
    seconds: float


def member_knockouts(community: micom.Community, taxa: dict[str, str], removed: Sequence[str] | None = None,
                     tradeoff: float = 0.5) -> MemberKnockouts:
    """For each member id in `removed` (default all): every other member's growth with and without
    it (`taxa`: {MICOM taxon id: member id}). The growth with everyone present is the one
    `knockout_taxa` starts from (the tradeoff's quadratic step, before any pFBA)."""
    from cobra.exceptions import OptimizationError

    started = time.perf_counter()
    ids = {member: taxon for taxon, member in taxa.items()}
    chosen = [ids[m] for m in (removed if removed is not None else list(taxa.values()))]
    try:
        before = as_dict(community.cooperative_tradeoff(fraction=tradeoff).members["growth_rate"].drop("medium"))
        after = community.knockout_taxa(chosen, fraction=tradeoff, method="raw", progress=False)
    except (OptimizationError, ValueError) as exc:
        raise InfeasibilityError(ErrorCode.COMMUNITY_INFEASIBLE,
                                 f"MICOM's cooperative tradeoff found no solution: {exc}",
                                 details={"tradeoff": tradeoff}) from exc
    rows = []
    for taxon in chosen:
        for other in taxa:
            if other == taxon:
                continue
            new = float(after.at[taxon, other])
            rows.append({"removed": taxa[taxon], "member": taxa[other], "growth_before": json_safe(before[other]),
                         "growth_after": json_safe(new), "change": json_safe(new - before[other])})
    return MemberKnockouts({taxa[t]: json_safe(g) for t, g in before.items()}, rows, tradeoff,
                           time.perf_counter() - started)
