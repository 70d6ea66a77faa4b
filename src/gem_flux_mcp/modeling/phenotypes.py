"""Phenotype arrays: growth on a base medium with one tested compound added at a time.

The Biolog convention as CarveMe's benchmark uses it: the base medium minus the panel's reference
source (glucose for carbon, ammonia for nitrogen, ...) plus the tested compound, opened for uptake
at a given rate; growth above a threshold is a positive call. A compound the model has no
exchange for cannot be taken up: its growth is None ("no uptake"), not a silent "no growth".
Each compound is one bound change on the same problem, re-solved from the previous basis
(`modeling/bound_changes.py`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.data.panels import Panel
from gem_flux_mcp.modeling.bound_changes import optimum_resolver
from gem_flux_mcp.modeling.media import ExchangeInfo

if TYPE_CHECKING:
    import cobra

Progress = Callable[[str, float, str], None]
PROGRESS_EVERY_S = 1.0
DEFAULT_UPTAKE = 10.0  # mmol/gDW/h when the base medium has none of the panel's reference sources


@dataclass(frozen=True)
class ArrayPlan:
    compounds: tuple[str, ...]  # the panel's, then the others, each once
    medium: dict[str, tuple[float, float]]  # the base medium without the removed reference sources
    removed: tuple[str, ...]  # the panel's reference sources that were in the base medium
    uptake: float  # each tested compound is opened at this rate


def plan_array(panel: Panel | None, others: Sequence[str], medium: Mapping[str, tuple[float, float]],
               uptake: float | None = None) -> ArrayPlan:
    """What an array tests, on which medium and at which uptake: the panel's reference sources
    are taken out of the base medium, and each tested compound replaces them at their uptake rate
    (the fastest, when several are in the medium; DEFAULT_UPTAKE when none is), unless `uptake`
    says otherwise."""
    removed = tuple(c for c in (panel.reference_sources if panel else ()) if c in medium)
    if uptake is None:
        uptake = max((-medium[c][0] for c in removed if medium[c][0] < 0), default=DEFAULT_UPTAKE)
    return ArrayPlan(tuple(dict.fromkeys([*(panel.compounds if panel else []), *others])),
                     {c: b for c, b in medium.items() if c not in removed}, removed, uptake)


@dataclass
class PhenotypeArray:
    base_growth: float  # growth on the base medium with no tested compound (the negative control)
    growth: dict[str, float | None] = field(default_factory=dict)  # compound -> growth; None: no exchange
    exchanges: dict[str, list[str]] = field(default_factory=dict)  # compound -> its exchange reactions


def growth_phenotypes(model: cobra.Model, compounds: Sequence[str], exchanges: Sequence[ExchangeInfo],
                      uptake: float, progress: Progress | None = None) -> PhenotypeArray:
    """Growth (the objective's optimum) with each compound of `compounds` (ModelSEED ids) open
    for uptake at `uptake` on top of the model's current bounds (base medium already applied).
    Secretion bounds stay as they are. The model is left unchanged."""
    by_compound: dict[str, list[ExchangeInfo]] = {}
    for info in exchanges:
        if info.compound_id is not None:
            by_compound.setdefault(info.compound_id, []).append(info)
    resolve = optimum_resolver(model)
    result = PhenotypeArray(base_growth=resolve({}))
    last_report = time.monotonic()
    for done, compound in enumerate(compounds):
        infos = by_compound.get(compound, [])
        result.exchanges[compound] = [i.reaction_id for i in infos]
        result.growth[compound] = resolve(_opened(model, infos, uptake)) if infos else None
        if progress is not None and time.monotonic() - last_report >= PROGRESS_EVERY_S:
            last_report = time.monotonic()
            progress("phenotypes", (done + 1) / len(compounds), f"{done + 1} of {len(compounds)} compounds")
    return result


def growth_status(value: float | None, threshold: float) -> str:
    """growth (above `threshold`), no_growth, or no_uptake (None: no exchange for the compound)."""
    return "no_uptake" if value is None else "growth" if value > threshold else "no_growth"


def phenotype_rows(compounds: Sequence[str], growth: Mapping[str, float | None],
                   exchanges: Mapping[str, list[str]], threshold: float, names: Mapping[str, str]
                   ) -> list[dict[str, Any]]:
    """One row per compound in the given order: growth and status (growth above `threshold`,
    no_growth, or no_uptake when the model has no exchange for it)."""
    rows: list[dict[str, Any]] = []
    for compound in compounds:
        value = growth[compound]
        status = growth_status(value, threshold)
        rows.append({"compound_id": compound, "name": names.get(compound, ""), "status": status,
                     "growth": None if value is None else round(value, 6), "exchanges": exchanges.get(compound, [])})
    return rows


def _opened(model: cobra.Model, infos: Sequence[ExchangeInfo], uptake: float) -> Mapping[str, tuple[float, float]]:
    """Bounds that open each exchange for uptake at `uptake` (at least), keeping its secretion."""
    bounds: dict[str, tuple[float, float]] = {}
    for info in infos:
        lower, upper = model.reactions.get_by_id(info.reaction_id).bounds
        if info.sign < 0:  # `met <=>`: negative flux is uptake
            bounds[info.reaction_id] = (min(lower, -uptake), upper)
        else:
            bounds[info.reaction_id] = (lower, max(upper, uptake))
    return bounds
