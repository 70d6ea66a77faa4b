"""Results of flux balance analysis."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from gem_flux_mcp.services.results.base import Result


class ExchangeFlux(Result):
    compound_id: str
    compound_name: str
    formula: str
    flux: float = Field(description="< 0 uptake, > 0 secretion (mmol/gDW/h)")
    reaction_id: str


class TopFlux(Result):
    reaction_id: str
    reaction_name: str
    flux: float
    direction: Literal["forward", "reverse"]


class FbaResult(Result):
    success: Literal[True] = True
    model_id: str
    media_id: str
    objective_reaction: str
    objective_direction: Literal["max", "min"]
    objective_value: float = Field(description="Optimum; growth rate in 1/h for a biomass objective")
    status: Literal["optimal"]
    solver_status: str
    solver: str = Field(description="LP solver used (glpk, highs, ...)")
    method: Literal["fba", "pfba"]
    solve_time_ms: float
    active_reactions: int
    total_reactions: int
    total_flux: float
    fluxes: dict[str, float] = Field(description="Nonzero fluxes above flux_threshold, largest first (max 1000)")
    fluxes_truncated: bool
    uptake_fluxes: list[ExchangeFlux]
    secretion_fluxes: list[ExchangeFlux]
    summary: dict[str, int]
    top_fluxes: list[TopFlux]
    interpretation: dict[str, Any]
    next_steps: list[str]
    media_compounds_without_exchange: list[str]
    what_if: dict[str, Any] | None = Field(
        default=None, description="The knockouts and bounds this run applied (for this call only), with the "
                                  "reactions each knocked-out gene blocked")
