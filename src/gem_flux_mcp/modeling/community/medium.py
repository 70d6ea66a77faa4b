"""The community's minimal medium: the smallest total uptake (or, with `minimize_components`, the
fewest compounds) from the medium that still lets the community grow at a target rate and every
member at a minimal rate; MICOM's `micom.media.minimal_medium`, among the compounds of the
medium applied (their uptake bounds are kept)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import InfeasibilityError
from gem_flux_mcp.modeling.community.members import compound_of, json_safe, names_of

if TYPE_CHECKING:
    import micom


@dataclass(frozen=True)
class CommunityMinimalMedium:
    compounds: list[dict[str, Any]]  # compound_id, name, uptake (mmol/gDW community/h)
    community_growth: float
    min_member_growth: float
    seconds: float


def minimal_community_medium(community: micom.Community, community_growth: float, min_member_growth: float = 0.0,
                             minimize_components: bool = False) -> CommunityMinimalMedium:
    """MICOM's minimal medium for `community_growth` (1/h), each member at least
    `min_member_growth`; COMMUNITY_INFEASIBLE when the medium cannot reach it."""
    from micom.media import minimal_medium

    started = time.perf_counter()
    found = minimal_medium(community, community_growth, min_growth=min_member_growth,
                           minimize_components=minimize_components)
    if found is None:
        raise InfeasibilityError(
            ErrorCode.COMMUNITY_INFEASIBLE,
            f"The medium cannot give a community growth of {community_growth:g} /h with each member at least "
            f"{min_member_growth:g} /h.",
            details={"community_growth": community_growth, "min_member_growth": min_member_growth},
            suggestions=["Ask for a lower growth, or search a richer medium."])
    names = names_of(community)
    compounds: list[dict[str, Any]] = []
    for reaction_id, uptake in found.items():
        compound = compound_of(next(iter(community.reactions.get_by_id(reaction_id).metabolites)).id)
        compounds.append({"compound_id": compound, "name": names.get(compound, compound), "uptake": json_safe(uptake)})
    compounds.sort(key=lambda r: -r["uptake"])
    return CommunityMinimalMedium(compounds, community_growth, min_member_growth, time.perf_counter() - started)
