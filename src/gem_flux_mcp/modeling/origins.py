"""How a reaction entered a model, read from the notes a build, a gapfill or a revision left on it
(`gemflux_sources`): one key per reaction, the same for the dashboard's charts and for the
answers that explain a prediction."""

from __future__ import annotations

BOUNDARY_PREFIXES = ("EX_", "DM_", "SK_", "bio", "ATPM")
GAPFILL_SOURCES = frozenset({"template_gapfill", "atp_correction", "medium_uptake", "end_product_export"})

# Where a reaction came from: (key, label), in the order charts stack them.
ORIGINS: tuple[tuple[str, str], ...] = (
    ("fasta_header", "header functions"),
    ("fasta_header+homology", "header functions + homology"),
    ("homology", "homology to BiGG proteins"),
    ("rast", "RAST"),
    ("gapfill", "gapfilling"),
    ("gapfill_exchange", "gapfilling: new exchanges"),
    ("revision", "revisions"),
    ("template", "template, no genes (spontaneous)"),
    ("boundary", "exchanges, biomass, maintenance"),
    ("unrecorded", "not recorded (imported or edited)"),
)


def reaction_origin(reaction_id: str, sources: str, added_by_revision: bool = False) -> str:
    """The ORIGINS key of one reaction, from its `gemflux_sources` note ('' when none)."""
    if added_by_revision:
        return "revision"
    found = set(filter(None, sources.split(";")))
    if found & GAPFILL_SOURCES:
        return "gapfill"
    if "auto_generated" in found:
        return "gapfill_exchange"
    if "rast" in found:
        return "rast"
    if {"fasta_header", "homology"} <= found:
        return "fasta_header+homology"
    for key in ("fasta_header", "homology", "template"):
        if key in found:
            return key
    if reaction_id.startswith(BOUNDARY_PREFIXES):
        return "boundary"
    return "unrecorded"
