"""A model reconciled with a lab's phenotype plate and gene essentiality (issue 32): `plate` reads
the lab's plate file into growth observations per ModelSEED compound, `gene_table` its gene table
into essentiality calls per model gene, `fit` changes a copy of the model so its calls agree with
them (one joint gapfill for the wells that grow, `genes` rescues for the non-essential genes
whose deletion is lethal, `blocking` for the wells that do not grow and the essential genes with
a bypass) and splits the observations for cross-validation."""

from gem_flux_mcp.modeling.reconcile.blocking import evidence_of
from gem_flux_mcp.modeling.reconcile.fit import grows, predict, reconcile, split_wells, well_medium
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
)

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
