"""A model reconciled with a lab's phenotype plate (issue 32): `plate` reads the lab's file into
growth observations per ModelSEED compound, `outcome` holds the wells and what a fit gives (and
splits the wells for cross-validation), `fit` changes a copy of the model so its growth calls
agree with them (one joint gapfill for the wells that grow, checked blocks for those that do not).

`fit` brings COBRApy's solvers, numpy, scipy and the gapfill package: its names are imported on
first use (PEP 562), so that the server, which imports this package at start, does not pay for
them until a plate is reconciled."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gem_flux_mcp.modeling.reconcile.outcome import (
    Change,
    Conflict,
    ReconcileOptions,
    Reconciliation,
    Unreconciled,
    Well,
    grows,
    split_wells,
)
from gem_flux_mcp.modeling.reconcile.plate import Observation, PlateReading, expected_columns, name_lookup, read_plate

if TYPE_CHECKING:
    from gem_flux_mcp.modeling.reconcile.fit import evidence_of, predict, reconcile, well_medium

_FROM_FIT = frozenset({"evidence_of", "predict", "reconcile", "well_medium"})


def __getattr__(name: str) -> object:
    if name in _FROM_FIT:
        from gem_flux_mcp.modeling.reconcile import fit

        return getattr(fit, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Change",
    "Conflict",
    "Observation",
    "PlateReading",
    "ReconcileOptions",
    "Reconciliation",
    "Unreconciled",
    "Well",
    "evidence_of",
    "expected_columns",
    "grows",
    "name_lookup",
    "predict",
    "read_plate",
    "reconcile",
    "split_wells",
    "well_medium",
]
