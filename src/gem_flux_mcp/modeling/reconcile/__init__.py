"""A model reconciled with a lab's phenotype plate and gene essentiality (issue 32): `plate` reads
the lab's plate file into growth observations per ModelSEED compound, `gene_table` its gene table
into essentiality calls per model gene, `fit` changes a copy of the model so its calls agree with
them (gapfills for the wells that grow, one at a time, `genes` rescues for the non-essential genes
whose deletion is lethal, `blocking` for the wells that do not grow and the essential genes with
a bypass); `records` holds the observations, the options, what a fit gives, and the split of the
observations for cross-validation."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from gem_flux_mcp.modeling.reconcile.gene_table import GeneCall, GeneReading, gene_columns, read_gene_table
from gem_flux_mcp.modeling.reconcile.plate import Observation, PlateReading, expected_columns, name_lookup, read_plate
from gem_flux_mcp.modeling.reconcile.records import (
    Change,
    Conflict,
    Gene,
    ReconcileOptions,
    Reconciliation,
    Unreconciled,
    UnreconciledGene,
    Well,
    grows,
    split_wells,
)

if TYPE_CHECKING:
    from gem_flux_mcp.modeling.reconcile.blocking import evidence_of
    from gem_flux_mcp.modeling.reconcile.fit import predict, reconcile, well_medium

# `fit` and `blocking` bring COBRApy's solvers, numpy, scipy and the gapfill package: their names
# are imported on first use (PEP 562), so the server, which imports this package at start, does
# not pay for them until a plate or gene table is reconciled
_LAZY = {"evidence_of": "blocking", "predict": "fit", "reconcile": "fit", "well_medium": "fit"}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        module = importlib.import_module(f"gem_flux_mcp.modeling.reconcile.{_LAZY[name]}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Change",
    "Conflict",
    "Gene",
    "GeneCall",
    "GeneReading",
    "Observation",
    "PlateReading",
    "ReconcileOptions",
    "Reconciliation",
    "Unreconciled",
    "UnreconciledGene",
    "Well",
    "evidence_of",
    "expected_columns",
    "gene_columns",
    "grows",
    "name_lookup",
    "predict",
    "read_gene_table",
    "read_plate",
    "reconcile",
    "split_wells",
    "well_medium",
]
