"""Quality checks with COBRApy: growth on the medium, no growth without carbon, no ATP with
every uptake closed."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.modeling import media as media_ops
from gem_flux_mcp.modeling.gapfill.network import (
    ATP_HYDROLYSIS,
    ATP_TEST,
    CARBON_ATOM,
    EMPTY_THRESHOLD,
    FLUX_MAX,
    Medium,
)

if TYPE_CHECKING:
    import cobra

# ---- checks with COBRApy -----------------------------------------------------------------------


def carbon_free(medium: Medium, formulas: Mapping[str, str]) -> dict[str, tuple[float, float]]:
    """The medium without any carbon-containing compound (CO2 included)."""
    return {c: b for c, b in medium.items() if not CARBON_ATOM.search(formulas.get(c, "") or "")}


def growth_on(model: cobra.Model, medium: Medium, objective: str) -> float:
    with model:
        media_ops.apply_medium(model, medium, media_ops.resolve_exchanges(model))
        model.objective = objective
        value = model.slim_optimize(error_value=float("nan"))
    return 0.0 if math.isnan(value) else max(float(value), 0.0)


def atp_with_nothing(model: cobra.Model) -> float:
    """Most ATP hydrolysis flux with every uptake (exchanges, sinks, demands) closed."""
    import cobra

    with model:
        for reaction in model.boundary:
            coefficient = next(iter(reaction.metabolites.values()))
            if coefficient < 0:
                reaction.lower_bound = max(reaction.lower_bound, 0.0) if reaction.upper_bound >= 0 else 0.0
            else:
                reaction.upper_bound = min(reaction.upper_bound, 0.0) if reaction.lower_bound <= 0 else 0.0
        test = cobra.Reaction(ATP_TEST, lower_bound=0.0, upper_bound=FLUX_MAX)
        mets = {model.metabolites.get_by_id(m): c for m, c in ATP_HYDROLYSIS.items() if m in model.metabolites}
        if len(mets) < len(ATP_HYDROLYSIS):
            return 0.0
        test.add_metabolites(mets)
        model.add_reactions([test])
        model.objective = ATP_TEST
        value = model.slim_optimize(error_value=float("nan"))
    return 0.0 if math.isnan(value) else max(float(value), 0.0)


def quality_checks(model: cobra.Model, medium: Medium, no_carbon: Medium, objective: str,
                   target: float) -> dict[str, Any]:
    growth = growth_on(model, medium, objective)
    without_carbon = growth_on(model, no_carbon, objective)
    atp = atp_with_nothing(model)
    return {
        "growth_on_medium": {"value": round(growth, 6), "target": target, "passed": growth >= target * (1 - 1e-6)},
        "growth_without_carbon": {"value": round(without_carbon, 6), "passed": without_carbon <= EMPTY_THRESHOLD,
                                  "removed_compounds": sorted(set(medium) - set(no_carbon))},
        "atp_with_all_uptakes_closed": {"value": round(atp, 6), "passed": atp <= EMPTY_THRESHOLD},
        "all_passed": growth >= target * (1 - 1e-6) and without_carbon <= EMPTY_THRESHOLD and atp <= EMPTY_THRESHOLD,
    }
