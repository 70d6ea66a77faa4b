"""What reconciling a model with a phenotype plate takes and gives: the wells, the options, the
changes, conflicts and wells left unreconciled, the whole outcome; the growth call and the random
split of the wells for cross-validation. Plain data: `fit` does the work (and is imported only
when it runs, with COBRApy, numpy and the gapfill package behind it)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import cobra


@dataclass(frozen=True)
class Well:
    compound: str  # ModelSEED id of the tested compound
    grows: bool  # observed


@dataclass(frozen=True)
class ReconcileOptions:
    threshold: float = 0.1  # 1/h: predicted growth above it is a growth call
    uptake: float = 10.0  # mmol/gDW/h of the tested compound
    max_changes: int | None = None
    time_limit_s: float = 300.0


@dataclass
class Change:
    reaction: str
    name: str
    action: str  # added, reversed, blocked, removed
    direction: str  # '>' forward, '<' reverse, '<>' both (an addition open both ways)
    evidence: str  # none, weak, genes
    genes: str
    wells: list[str]  # compounds whose observation the change answers


@dataclass
class Conflict:
    reaction: str
    name: str
    direction: str
    genes: str
    wells: list[str]


@dataclass
class Unreconciled:
    compound: str
    observed_growth: bool
    reason: str


@dataclass
class Reconciliation:
    model: cobra.Model
    before: dict[str, float | None]  # compound -> predicted growth (None: no exchange)
    after: dict[str, float | None]
    base_growth: tuple[float, float]  # on the full base medium, before and after
    changes: list[Change] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)
    unreconciled: list[Unreconciled] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    # gapfill_model's quality checks on the revision: growth on the base medium (when it grew before),
    # none without carbon, no ATP from nothing, no ATP-driven transport running backwards
    quality: dict[str, Any] = field(default_factory=dict)


def grows(value: float | None, threshold: float) -> bool:
    return value is not None and value > threshold


def split_wells(wells: Sequence[Well], holdout_fraction: float, seed: int | None) -> tuple[list[Well], list[Well]]:
    """(wells to fit, wells held out): a random `holdout_fraction` of them (at least one, and at
    least one left to fit when there are two or more), the same for the same seed."""
    import numpy as np  # here: the package is imported at server start, numpy only when wells are split

    order = np.random.default_rng(seed).permutation(len(wells))
    held = max(1, round(holdout_fraction * len(wells))) if wells else 0
    held = min(held, max(len(wells) - 1, 0)) if len(wells) > 1 else held
    chosen = set(order[:held].tolist())
    return [w for i, w in enumerate(wells) if i not in chosen], [w for i, w in enumerate(wells) if i in chosen]
