"""What the quality checks answer (one dataclass per check, the whole report), and the constants
they share."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

BIOMASS_COMPOUND = "cpd11416"
LUMPED_SIZE = 20  # more metabolites than this: a lumped (biomass-like) reaction
PRODUCIBLE = 1e-6  # a demand or dissipation flux above this counts
TEMP_PREFIX = "diagnose_tmp_"
# biomass products not supplied when testing recycled precursors: energy by-products and biomass
NOT_RETURNED = {"cpd00001", "cpd00008", "cpd00009", "cpd00012", "cpd00018", "cpd00067", BIOMASS_COMPOUND}
# dissipation reactions (Fritzemeier et al. 2017, Table 1) in the ModelSEED namespace
CARRIERS: dict[str, dict[str, float]] = {
    "ATP": {"cpd00002_c0": -1, "cpd00001_c0": -1, "cpd00008_c0": 1, "cpd00009_c0": 1, "cpd00067_c0": 1},
    "GTP": {"cpd00038_c0": -1, "cpd00001_c0": -1, "cpd00031_c0": 1, "cpd00009_c0": 1, "cpd00067_c0": 1},
    "NADH": {"cpd00004_c0": -1, "cpd00003_c0": 1, "cpd00067_c0": 1},
    "NADPH": {"cpd00005_c0": -1, "cpd00006_c0": 1, "cpd00067_c0": 1},
}
Ways = list[tuple[int, int]]  # (reaction index, 1 forward or -1 backward)
Flags = Sequence[bool] | np.ndarray


@dataclass
class Balance:
    checked: int  # reactions whose balance could be computed
    imbalanced: dict[str, dict[str, float]]  # reaction -> {element or "charge": products - substrates}
    unknown: list[str]  # reactions with a metabolite without formula

    @property
    def mass_imbalanced(self) -> list[str]:
        return [r for r, d in self.imbalanced.items() if any(k != "charge" for k in d)]

    @property
    def charge_imbalanced(self) -> list[str]:
        return [r for r, d in self.imbalanced.items() if "charge" in d]


@dataclass
class DeadEnds:
    only_produced: list[str]
    only_consumed: list[str]
    isolated: list[str]

    @property
    def all(self) -> list[str]:
        return sorted({*self.only_produced, *self.only_consumed, *self.isolated})


@dataclass
class EnergyCycle:
    carrier: str  # a key of CARRIERS
    reaction: str | None  # the model's own dissipation reaction; None: a temporary one was used
    max_flux: float
    members: dict[str, float] = field(default_factory=dict)  # reaction -> flux while dissipating 1 unit

    @property
    def found(self) -> bool:
        return self.max_flux > PRODUCIBLE


@dataclass
class Precursors:
    biomass: str
    tested: list[str]
    missing: list[str]
    recycled: list[str] = field(default_factory=list)
    missing_parts: dict[str, list[str]] = field(default_factory=dict)  # missing -> inputs not made
    solves: int = 0


@dataclass
class Diagnosis:
    growth: float  # biomass optimum on the medium as applied (0.0 when infeasible)
    balance: Balance
    dead_ends: DeadEnds
    blocked: list[str]
    energy_cycles: list[EnergyCycle]
    without_genes: list[str]
    precursors: Precursors
    reactions: int
    metabolites: int
    timings: dict[str, float] = field(default_factory=dict)  # part -> seconds
    # ABC transporters and P-type ATPases whose bounds let them run backwards and make ATP (energy.py)
    atp_transport_backwards: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {
            "reactions": self.reactions, "metabolites": self.metabolites,
            "mass_imbalanced": len(self.balance.mass_imbalanced),
            "charge_imbalanced": len(self.balance.charge_imbalanced), "balance_unknown": len(self.balance.unknown),
            "dead_end_metabolites": len(self.dead_ends.only_produced) + len(self.dead_ends.only_consumed),
            "isolated_metabolites": len(self.dead_ends.isolated), "blocked_reactions": len(self.blocked),
            "energy_generating_cycles": sum(c.found for c in self.energy_cycles),
            "reactions_without_genes": len(self.without_genes),
            "missing_biomass_precursors": len(self.precursors.missing),
            "atp_driven_transport_backwards": len(self.atp_transport_backwards),
        }
