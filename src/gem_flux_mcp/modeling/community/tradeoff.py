"""A community grown on its medium by MICOM's cooperative tradeoff (Diener et al. 2020, mSystems):
the community's growth is maximised, then held at `tradeoff` x that maximum while the members'
growth rates are spread as evenly as possible (the smallest sum of squares, a quadratic program);
fluxes are then the minimal-total-flux solution at those rates (MICOM's pfba, as it recommends).

What comes back, besides the growth rates: what each member takes up and secretes, the community's
exchange with the environment, and who feeds whom. A cross-feeding is MICOM's own "provided"
interaction (`micom.interaction`): member A secretes a metabolite that member B takes up, with the
flux min(A's secretion, B's uptake), each weighted by abundance (mmol per gDW of community per h).
It is computed here from the solution's exchange fluxes, the same rule without MICOM's per-pair
pandas loop (the test compares it with `micom.interaction.interactions`)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import InfeasibilityError
from gem_flux_mcp.modeling.community.members import as_dict, compound_of, json_safe, names_of

if TYPE_CHECKING:
    import micom


@dataclass(frozen=True)
class CommunityGrowth:
    community_growth: float  # 1/h: the abundance-weighted sum of the members' growth rates
    members: list[dict[str, Any]]  # member, abundance, growth_rate
    exchanges: list[dict[str, Any]]  # member, compound_id, name, direction, flux (per gDW of member), weighted
    environment: list[dict[str, Any]]  # compound_id, name, flux (< 0 uptake from the medium, > 0 secretion into it)
    cross_feeding: list[dict[str, Any]]  # compound_id, name, from_member, to_member, flux
    tradeoff: float
    tolerance: float
    seconds: float = 0.0


def cooperative_growth(community: micom.Community, taxa: dict[str, str], tradeoff: float = 0.5,
                       pfba: bool = True) -> CommunityGrowth:
    """MICOM's `cooperative_tradeoff(fraction=tradeoff, fluxes=True, pfba=pfba)` on the community
    as it is (medium already applied), reported per member under our ids (`taxa`: {MICOM taxon id:
    member id}). COMMUNITY_INFEASIBLE when the community cannot grow."""
    from cobra.exceptions import OptimizationError

    started = time.perf_counter()
    try:
        solution = community.cooperative_tradeoff(fraction=tradeoff, fluxes=True, pfba=pfba)
    except (OptimizationError, ValueError) as exc:
        raise InfeasibilityError(
            ErrorCode.COMMUNITY_INFEASIBLE, f"MICOM's cooperative tradeoff found no solution: {exc}",
            details={"tradeoff": tradeoff},
            suggestions=["Check that each member grows alone on a richer medium (run_fba), or add the compounds "
                         "a member needs to the medium."]) from exc
    tolerance = float(community.solver.configuration.tolerances.feasibility)
    growth = solution.members.drop("medium")
    rates = as_dict(growth["growth_rate"])
    abundance = as_dict(growth["abundance"])
    members = [{"member": taxa[t], "abundance": json_safe(abundance[t]), "growth_rate": json_safe(rates[t])}
               for t in taxa]
    names = names_of(community)
    exchanges = member_exchanges(community, solution.fluxes, taxa, abundance, names, tolerance)
    environment: list[dict[str, Any]] = []
    for reaction in community.exchanges:
        flux = float(solution.fluxes.at["medium", reaction.id])
        if abs(flux) > tolerance:
            compound = compound_of(next(iter(reaction.metabolites)).id)
            environment.append({"compound_id": compound, "name": names.get(compound, compound),
                                "flux": json_safe(flux)})
    environment.sort(key=lambda r: (float(r["flux"]) > 0, -abs(float(r["flux"]))))
    return CommunityGrowth(
        community_growth=json_safe(float(solution.growth_rate)), members=members, exchanges=exchanges,
        environment=environment, cross_feeding=cross_feeding(exchanges), tradeoff=tradeoff,
        tolerance=tolerance, seconds=time.perf_counter() - started)


def member_exchanges(community: micom.Community, fluxes: Any, taxa: dict[str, str], abundance: dict[str, float],
                     names: dict[str, str], tolerance: float) -> list[dict[str, Any]]:
    """Each member's uptake and secretion (flux per gDW of the member; `weighted`: times its
    abundance), kept where the weighted flux exceeds the solver tolerance (MICOM's own cut)."""
    rows: list[dict[str, Any]] = []
    for reaction in community.internal_exchanges:
        taxon = reaction.community_id
        outside = next(m for m in reaction.metabolites if m.compartment != "m")
        flux = float(fluxes.at[taxon, reaction.global_id]) * -reaction.metabolites[outside]  # > 0: secretion
        weighted = flux * abundance[taxon]
        if abs(weighted) <= tolerance:
            continue
        compound = compound_of(outside.global_id)
        rows.append({"member": taxa[taxon], "compound_id": compound, "name": names.get(compound, compound),
                     "direction": "secretion" if flux > 0 else "uptake", "flux": json_safe(abs(flux)),
                     "weighted": json_safe(abs(weighted))})
    rows.sort(key=lambda r: (r["member"], r["direction"], -r["weighted"]))
    return rows


def cross_feeding(exchanges: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """(metabolite, from member, to member, flux) for every member that secretes a metabolite
    another takes up: flux = min(weighted secretion, weighted uptake), largest first."""
    by_compound: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
    for row in exchanges:
        secreted, taken = by_compound.setdefault(row["compound_id"], ([], []))
        (secreted if row["direction"] == "secretion" else taken).append(row)
    found = [{"compound_id": compound, "name": giver["name"], "from_member": giver["member"],
              "to_member": taker["member"], "flux": min(giver["weighted"], taker["weighted"])}
             for compound, (secreted, taken) in by_compound.items() for giver in secreted for taker in taken
             if giver["member"] != taker["member"]]
    found.sort(key=lambda r: (-r["flux"], r["compound_id"], r["from_member"], r["to_member"]))
    return found
