"""A model reconciled with a lab's phenotype plate (issue 32): `plate` reads the lab's file into
growth observations per ModelSEED compound, `fit` changes a copy of the model so its growth calls
agree with them (one joint gapfill for the wells that grow, checked blocks for those that do not)
and splits the wells for cross-validation."""

from gem_flux_mcp.modeling.reconcile.fit import (
    Change,
    Conflict,
    ReconcileOptions,
    Reconciliation,
    Unreconciled,
    Well,
    evidence_of,
    grows,
    predict,
    reconcile,
    split_wells,
    well_medium,
)
from gem_flux_mcp.modeling.reconcile.plate import Observation, PlateReading, expected_columns, name_lookup, read_plate

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
