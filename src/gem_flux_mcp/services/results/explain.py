"""explain_essentiality's answer: why one deletion does, or does not, stop growth."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gem_flux_mcp.services.results.analysis import MissingPrecursor
from gem_flux_mcp.services.results.base import Result


class RouteReaction(Result):
    reaction_id: str
    name: str
    change: Literal["appears", "reverses", "rises", "replaces"] = Field(
        description="Against the wild type's minimal-total-flux solution: carries flux only with the deletion, "
                    "runs the other way, or carries at least twice as much; 'replaces': the wild type does not use "
                    "the deleted reactions and makes what they make with this one")
    flux_wild_type: float
    flux_deleted: float
    direction: Literal["forward", "reverse"] = Field(description="The direction it runs in with the deletion")
    reversible: bool
    genes: list[str]
    origin: str = Field(description="How it entered the model: fasta_header, homology, rast, gapfill, "
                                    "gapfill_exchange, revision, template (no genes), boundary, unrecorded")
    evidence: str = Field(description="Its evidence note (roles, homology hits), '' when none")
    equation: str
    deltag: float | None = Field(description="Standard Gibbs energy change of the forward direction, kJ/mol, "
                                             "from the ModelSEED database; null when unknown")


class ExplainEssentialityResult(Result):
    success: Literal[True] = True
    model_id: str
    media_id: str
    objective: str
    target: Literal["genes", "reactions"]
    deleted: str = Field(description="The gene or reaction deleted")
    reactions_closed: list[str] = Field(description="Reactions the deletion closes (a gene: those whose rule "
                                                    "turns false)")
    wild_type_growth: float
    growth: float = Field(description="Optimum with the deletion (0 when infeasible)")
    growth_ratio: float
    threshold: float
    essential: bool = Field(description="growth_ratio < threshold")
    used_in_wild_type: bool = Field(description="The deleted reactions carry flux in the wild type's "
                                                "minimal-total-flux solution")
    explanation: str = Field(description="The answer in one or two sentences")
    route: list[RouteReaction] = Field(description="For a deletion the model survives: the reactions that carry "
                                                   "the flux instead, new or reversed routes first, largest first "
                                                   "(at most 40)")
    route_total: int
    missing_precursors: list[MissingPrecursor] = Field(
        description="For a deletion that stops growth: biomass components the model no longer makes (the wild "
                    "type does)")
    made_only_with_cofactors: list[str] = Field(
        description="Of those, the ones made once the biomass reaction's co-products (ADP, CoA, NAD+, ...) are "
                    "given back: the deletion broke a cofactor's regeneration rather than a synthesis")
    next_steps: list[str]
    seconds: float
