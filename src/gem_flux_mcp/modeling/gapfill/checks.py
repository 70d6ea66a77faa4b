"""Quality checks with COBRApy: growth on the medium, no growth without carbon, no ATP with
every uptake closed; and, for information, the ATP yield of glucose with and without O2."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.modeling import media as media_ops
from gem_flux_mcp.modeling.energy import atp_making_directions_open
from gem_flux_mcp.modeling.gapfill.network import (
    ATP_HYDROLYSIS,
    ATP_TEST,
    CARBON_ATOM,
    EMPTY_THRESHOLD,
    FLUX_MAX,
    Medium,
    NamedMedia,
    named_media,
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


GLUCOSE, OXYGEN = "cpd00027", "cpd00007"
# what glucose is burnt with: water, protons, phosphate (both ways); everything else only leaves
INORGANIC = ("cpd00001", "cpd00067", "cpd00009")


def atp_with_nothing(model: cobra.Model) -> float:
    """Most ATP hydrolysis flux with every uptake (exchanges, sinks, demands) closed."""
    return _most_atp(model, {})


def atp_per_glucose(model: cobra.Model) -> dict[str, float]:
    """Most ATP made per glucose, aerobically and without O2: glucose taken up at 1, water,
    protons and phosphate free, every other uptake closed. A respiring bacterium makes ~20-30
    aerobically and 2-3 by fermentation; equal values mean the model has no respiration."""
    exchanges = {info.compound_id: info.reaction_id for info in media_ops.resolve_exchanges(model)}
    if GLUCOSE not in exchanges:
        return {"aerobic": 0.0, "anaerobic": 0.0}
    opened = {exchanges[c]: FLUX_MAX for c in INORGANIC if c in exchanges}
    opened[exchanges[GLUCOSE]] = 1.0
    anaerobic = _most_atp(model, opened)
    if OXYGEN in exchanges:
        opened[exchanges[OXYGEN]] = FLUX_MAX
    return {"aerobic": round(_most_atp(model, opened), 3), "anaerobic": round(anaerobic, 3)}


def _most_atp(model: cobra.Model, uptake: Mapping[str, float]) -> float:
    """Most ATP hydrolysis flux with the boundary reactions of `uptake` open for uptake up to
    their rate and every other uptake closed (secretion left as it is)."""
    import cobra

    with model:
        for reaction in model.boundary:
            coefficient = next(iter(reaction.metabolites.values()))
            rate = uptake.get(reaction.id, 0.0)
            if coefficient < 0:
                reaction.lower_bound = -rate if rate else (
                    max(reaction.lower_bound, 0.0) if reaction.upper_bound >= 0 else 0.0)
            else:
                reaction.upper_bound = rate if rate else (
                    min(reaction.upper_bound, 0.0) if reaction.lower_bound <= 0 else 0.0)
        test = cobra.Reaction(ATP_TEST, lower_bound=0.0, upper_bound=FLUX_MAX)
        mets = {model.metabolites.get_by_id(m): c for m, c in ATP_HYDROLYSIS.items() if m in model.metabolites}
        if len(mets) < len(ATP_HYDROLYSIS):
            return 0.0
        test.add_metabolites(mets)
        model.add_reactions([test])
        model.objective = ATP_TEST
        value = model.slim_optimize(error_value=float("nan"))
    return 0.0 if math.isnan(value) else max(float(value), 0.0)


def quality_checks(model: cobra.Model, media: Medium | NamedMedia, no_carbon: Medium | NamedMedia, objective: str,
                   target: float, growth: Mapping[str, float] | None = None) -> dict[str, Any]:
    """Growth on the medium, none without carbon, no ATP from nothing. On several media (named,
    with their carbon-free versions under the same names) growth must reach the target on each
    and no carbon-free version may grow; `by_medium` gives each medium's values. `growth`: the
    model's growth per named medium when the caller has just computed it (not solved again)."""
    named, carbonless = named_media(media), named_media(no_carbon)
    growth = dict(growth) if growth is not None else {
        name: growth_on(model, medium, objective) for name, medium in named.items()}
    without_carbon = {name: growth_on(model, carbonless[name], objective) for name in named}
    worst, most = min(growth.values()), max(without_carbon.values())
    atp = atp_with_nothing(model)
    reversible_atp = sorted(atp_making_directions_open(model))
    removed = sorted({c for name, medium in named.items() for c in set(medium) - set(carbonless[name])})
    checks: dict[str, Any] = {
        "growth_on_medium": {"value": round(worst, 6), "target": target, "passed": worst >= target * (1 - 1e-6)},
        "growth_without_carbon": {"value": round(most, 6), "passed": most <= EMPTY_THRESHOLD,
                                  "removed_compounds": removed},
        "atp_with_all_uptakes_closed": {"value": round(atp, 6), "passed": atp <= EMPTY_THRESHOLD},
        # an ABC transporter or P-type ATPase that may run backwards makes ATP from a real substrate
        "no_atp_driven_transport_backwards": {"value": len(reversible_atp), "reactions": reversible_atp[:10],
                                              "passed": not reversible_atp},
        # informational (not in all_passed): does the model respire?
        "atp_per_glucose": atp_per_glucose(model),
        "all_passed": worst >= target * (1 - 1e-6) and most <= EMPTY_THRESHOLD and atp <= EMPTY_THRESHOLD
        and not reversible_atp,
    }
    if len(named) > 1:
        checks["growth_on_medium"]["by_medium"] = {name: round(v, 6) for name, v in growth.items()}
        checks["growth_without_carbon"]["by_medium"] = {name: round(v, 6) for name, v in without_carbon.items()}
    return checks
