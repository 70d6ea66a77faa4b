"""Missing biomass precursors: each substrate of the biomass reaction made or not on the medium as
applied, recycled ones told apart, a missing one followed to what it is made of (see the package
docstring); and the growth the report starts with."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError

if TYPE_CHECKING:
    import cobra
from gem_flux_mcp.modeling.diagnose.energy_cycles import maximum
from gem_flux_mcp.modeling.diagnose.records import NOT_RETURNED, PRODUCIBLE, TEMP_PREFIX, Precursors
from gem_flux_mcp.modeling.diagnose.structure import is_biomass_like, is_boundary


def missing_biomass_precursors(model: cobra.Model, biomass: str = "bio1", expand: bool = True) -> Precursors:
    """Substrates of `biomass` the model cannot make on its current medium (see the module docstring)."""
    import cobra

    reaction = _biomass(model, biomass)
    substrates = sorted(m.id for m, c in reaction.metabolites.items() if c < 0)
    returned = sorted(m.id for m, c in reaction.metabolites.items() if c > 0 and m.id.split("_")[0] not in NOT_RETURNED)
    result = Precursors(biomass, substrates, [])
    with model:
        temporary: dict[str, cobra.Reaction] = {}

        def add(kind: str, met_ids: Sequence[str], coefficient: float) -> list[cobra.Reaction]:
            names = [f"{TEMP_PREFIX}{kind}_{m}" for m in met_ids]
            fresh = [(n, m) for n, m in zip(names, met_ids, strict=True) if n not in temporary]
            for name, met_id in fresh:
                temporary[name] = cobra.Reaction(name, lower_bound=0.0, upper_bound=0.0)
                temporary[name].add_metabolites({model.metabolites.get_by_id(met_id): coefficient})
            model.add_reactions([temporary[n] for n, _ in fresh])
            return [temporary[n] for n in names]

        model.objective = {}  # restored on leaving `with`; each question sets coefficients on the solver

        def makeable(met_ids: Sequence[str]) -> dict[str, bool]:
            answers = {}
            for met_id, demand in zip(met_ids, add("DM", met_ids, -1.0), strict=True):
                demand.upper_bound = 1000.0
                answers[met_id] = maximum(model, demand) > PRODUCIBLE
                demand.upper_bound = 0.0
                result.solves += 1
            return answers

        unmade = [m for m, ok in makeable(substrates).items() if not ok]
        sources = add("SRC", returned, 1.0) if unmade else []
        for source in sources:
            source.upper_bound = 1000.0
        result.recycled = [m for m, ok in makeable(unmade if sources else []).items() if ok]
        for source in sources:
            source.upper_bound = 0.0
        result.missing = [m for m in unmade if m not in result.recycled]

        def only_maker(met_id: str, user: str = biomass) -> tuple[cobra.Reaction, int] | None:
            """The one reaction (and its direction) that can make the metabolite for `user`, if it is
            one (`user` itself run backwards does not count)."""
            met = model.metabolites.get_by_id(met_id)
            makers = [r for r in met.reactions if r.id not in temporary and r.id not in (biomass, user)
                      and not is_boundary(r)
                      and (r.upper_bound > 0 if r.metabolites[met] > 0 else r.lower_bound < 0)]
            return (makers[0], 1 if makers[0].metabolites[met] > 0 else -1) if len(makers) == 1 else None

        def inputs_not_made(maker: cobra.Reaction, sign: int, made: str, supplied: frozenset[str],
                            path: frozenset[str] = frozenset()) -> list[str]:
            """Inputs of `maker` not made, with what it gives back supplied (the tRNAs of protein
            synthesis). An input not made that only the loading of such a carrier makes (an
            aminoacyl-tRNA) is followed to what is loaded (the amino acid)."""
            given_back = frozenset(m.id for m, c in maker.metabolites.items()
                                   if c * sign > 0 and m.id != made and m.id.split("_")[0] not in NOT_RETURNED)
            opened = [s for s in add("SRC", sorted(given_back), 1.0) if s.upper_bound == 0.0]
            for source in opened:
                source.upper_bound = 1000.0
            carriers = supplied | given_back
            parts: list[str] = []
            inputs = sorted(m.id for m, c in maker.metabolites.items() if c * sign < 0)
            for met_id in (m for m, ok in makeable(inputs).items() if not ok):
                loading = only_maker(met_id, maker.id)
                if loading is not None and loading[0].id not in path and any(
                        m.id in carriers for m, c in loading[0].metabolites.items() if c * loading[1] < 0):
                    parts.extend(inputs_not_made(loading[0], loading[1], met_id, carriers, path | {maker.id})
                                 or [met_id])
                else:
                    parts.append(met_id)
            for source in opened:
                source.upper_bound = 0.0
            return parts

        for met_id in result.missing if expand else []:
            found = only_maker(met_id)
            if found is not None:
                result.missing_parts[met_id] = inputs_not_made(*found, met_id, frozenset())
    return result


def _biomass(model: cobra.Model, biomass: str) -> cobra.Reaction:
    if biomass not in model.reactions:
        raise ValidationError(ErrorCode.INVALID_REACTION, f"Reaction '{biomass}' is not in the model.",
                              details={"biomass": biomass,
                                       "candidates": [r.id for r in model.reactions if is_biomass_like(r)][:10]})
    return model.reactions.get_by_id(biomass)


def growth(model: cobra.Model, biomass: str = "bio1") -> float:
    """The largest flux through `biomass` on the medium as applied (0.0 when infeasible)."""
    with model:
        model.objective = _biomass(model, biomass)
        value = model.slim_optimize(error_value=float("nan"))
    return 0.0 if math.isnan(value) else max(float(value), 0.0)
