"""A stored model's facts and family, computed once per stored file (cached by its checksum)."""

from __future__ import annotations

from typing import cast

from gem_flux_mcp.server.dashboard.lineage import Family, family_of
from gem_flux_mcp.server.dashboard.model_facts import ModelFacts, read_model_facts
from gem_flux_mcp.server.dashboard.source import DashboardSource
from gem_flux_mcp.store.rows import ModelRow


def family(source: DashboardSource, row: ModelRow) -> Family:
    return family_of(source.store.list_models(row.workspace), row.model_id)


def model_facts(source: DashboardSource, row: ModelRow, lineage: Family | None = None) -> ModelFacts:
    """Read from the stored file (checksum verified by the store); the same file gives the same
    facts, so they are cached under its sha256."""
    def make() -> ModelFacts:
        added = (lineage or family(source, row)).revision_added(row.model_id)
        return read_model_facts(source.store.model_data(row.workspace, row.model_id), row, added)

    return cast(ModelFacts, source.cached(("facts", row.workspace, row.model_id, row.file_sha256), make))
