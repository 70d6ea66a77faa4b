"""What a reconciliation is made of and answers: the observations (wells, genes), its options,
each change with the observations behind it, the conflicts and what it could not reconcile."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    import cobra


Item = TypeVar("Item")  # a well or a gene: split_wells splits either

@dataclass(frozen=True)
class Well:
    compound: str  # ModelSEED id of the tested compound
    grows: bool  # observed


@dataclass(frozen=True)
class Gene:
    gene: str  # a gene id of the model
    essential: bool  # observed


@dataclass(frozen=True)
class ReconcileOptions:
    threshold: float = 0.1  # 1/h: predicted growth above it is a growth call
    uptake: float = 10.0  # mmol/gDW/h of the tested compound
    max_changes: int | None = None
    time_limit_s: float = 300.0
    essential_ratio: float = 0.1  # a deletion growing below this fraction of the wild type is lethal
    # the user's opt-in: gene-backed directions may be blocked too (after every direction without
    # genome evidence was tried), each reported as a change with evidence 'genes'
    block_gene_backed: bool = False


@dataclass
class Change:
    reaction: str
    name: str
    action: str  # added, reversed, blocked, removed
    direction: str  # '>' forward, '<' reverse, '<>' both (an addition open both ways)
    evidence: str  # none, weak, genes
    genes: str
    wells: list[str]  # compounds whose observation the change answers
    deletions: list[str] = field(default_factory=list)  # observed genes whose call the change answers


@dataclass
class Conflict:
    reaction: str
    name: str
    direction: str
    genes: str
    wells: list[str]
    deletions: list[str] = field(default_factory=list)  # genes observed essential only this block would make so


@dataclass
class Unreconciled:
    compound: str
    observed_growth: bool
    reason: str


@dataclass
class UnreconciledGene:
    gene: str
    observed_essential: bool
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
    # gene -> growth on the base medium with it deleted, before and after (fitted and held-out genes)
    deletions_before: dict[str, float] = field(default_factory=dict)
    deletions_after: dict[str, float] = field(default_factory=dict)
    unreconciled_genes: list[UnreconciledGene] = field(default_factory=list)

    def essential(self, when: str, ratio: float) -> set[str]:
        """Genes predicted essential ('before' or 'after'): deletion growth below `ratio` of the
        base medium's growth then."""
        growth = self.deletions_before if when == "before" else self.deletions_after
        wild_type = self.base_growth[0 if when == "before" else 1]
        return {g for g, v in growth.items() if v < ratio * wild_type}


def grows(value: float | None, threshold: float) -> bool:
    return value is not None and value > threshold


def split_wells(wells: Sequence[Item], holdout_fraction: float, seed: int | None) -> tuple[list[Item], list[Item]]:
    """(observations to fit, observations held out): a random `holdout_fraction` of them (at
    least one, and at least one left to fit when there are two or more), the same for the same
    seed. Wells and genes are split alike."""
    import numpy as np  # here: this module is imported at server start, numpy only when a split is made

    order = np.random.default_rng(seed).permutation(len(wells))
    held = max(1, round(holdout_fraction * len(wells))) if wells else 0
    held = min(held, max(len(wells) - 1, 0)) if len(wells) > 1 else held
    chosen = set(order[:held].tolist())
    return [w for i, w in enumerate(wells) if i not in chosen], [w for i, w in enumerate(wells) if i in chosen]
