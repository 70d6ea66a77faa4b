"""Predefined phenotype panels: the compounds of the Biolog plates in ModelSEED ids (carbon,
nitrogen, phosphorus, sulfur), shipped with the package as `panels.json` and written by
`scripts/make_panels.py`, which names the source."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources

from gem_flux_mcp.rules.catalog import PANEL_NAMES, PanelName

__all__ = ["PANEL_NAMES", "Panel", "PanelName", "load_panels"]


@dataclass(frozen=True)
class Panel:
    name: str
    reference_sources: tuple[str, ...]  # taken out of the base medium: each tested compound replaces them
    compounds: dict[str, str]  # ModelSEED id -> name, in the panel's order


@functools.cache
def load_panels() -> tuple[str, dict[str, Panel]]:
    """(provenance, {panel name: Panel})."""
    raw = json.loads(resources.files("gem_flux_mcp.data").joinpath("panels.json").read_text(encoding="utf-8"))
    panels = {name: Panel(name, tuple(entry["reference_sources"]),
                          {cpd: str(info["name"]) for cpd, info in entry["compounds"].items()})
              for name, entry in raw["panels"].items()}
    return str(raw["source"]), panels
