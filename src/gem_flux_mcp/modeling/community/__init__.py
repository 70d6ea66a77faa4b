"""Microbial communities on MICOM: members that share one medium (an extracellular space of their
own), abundance-weighted community growth and the cooperative tradeoff.

Plain functions a notebook can call on COBRApy models: `members.py` checks members and builds the
MICOM community from them (the adapter), `tradeoff.py` grows it on a medium (member growth,
exchanges, cross-feeding), `knockouts.py` removes each member in turn, `medium.py` finds the
community's minimal medium, `limiting.py` the medium compounds that limit its growth."""

from gem_flux_mcp.modeling.community.knockouts import MemberKnockouts, member_knockouts
from gem_flux_mcp.modeling.community.limiting import LimitingCompounds, limiting_compounds
from gem_flux_mcp.modeling.community.medium import CommunityMinimalMedium, minimal_community_medium
from gem_flux_mcp.modeling.community.members import (
    Member,
    build_micom_community,
    check_member,
    put_community_on_medium,
    relative_abundances,
)
from gem_flux_mcp.modeling.community.tradeoff import CommunityGrowth, cooperative_growth

__all__ = [
    "CommunityGrowth",
    "CommunityMinimalMedium",
    "LimitingCompounds",
    "Member",
    "MemberKnockouts",
    "build_micom_community",
    "check_member",
    "cooperative_growth",
    "limiting_compounds",
    "member_knockouts",
    "minimal_community_medium",
    "put_community_on_medium",
    "relative_abundances",
]
