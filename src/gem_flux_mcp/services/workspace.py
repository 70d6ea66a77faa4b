"""One workspace's view of the store and the reference data, shared by every service."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gem_flux_mcp.data.biochem import BiochemIndex
from gem_flux_mcp.data.media_library import PredefinedMedium
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import NotFoundError, ValidationError
from gem_flux_mcp.modeling import media
from gem_flux_mcp.store.rows import ModelRow
from gem_flux_mcp.store.store import Store

Medium = dict[str, tuple[float, float]]


@dataclass(frozen=True)
class Workspace:
    store: Store
    workspace_id: str
    biochem: BiochemIndex
    media_library: Mapping[str, PredefinedMedium]

    def medium(self, media_id: object) -> tuple[str, Medium]:
        """(id, compound bounds) of a predefined or built medium."""
        if not isinstance(media_id, str) or not media_id.strip():
            raise ValidationError(ErrorCode.INVALID_MEDIA_ID, "media_id must be a non-empty string.",
                                  details={"provided": repr(media_id)[:40]},
                                  suggestions=["Call list_media to see the available media."],
                                  valid_next_steps=["list_media"])
        key = media_id.strip()
        if key in self.media_library:
            return key, self.media_library[key].compounds
        try:
            return key, self.store.get_media(self.workspace_id, key).compounds
        except NotFoundError as exc:  # the few predefined ids like it, not all 75 (a compact answer)
            similar = difflib.get_close_matches(key, list(self.media_library), n=5, cutoff=0.6)
            exc.details["num_predefined_media"] = len(self.media_library)
            if similar:
                exc.details["similar_predefined_media"] = similar
                exc.suggestions.append(f"Predefined media with a similar id: {', '.join(similar)}.")
            exc.suggestions.append("list_media(name='m9 glucose') or list_media(compound='glucose') finds media.")
            raise

    def exchanges(self, model: Any) -> list[media.ExchangeInfo]:
        """The model's exchanges resolved to ModelSEED compounds (BiGG ids through the database)."""
        return media.exchanges_of(model, self.biochem)

    def reaction_record(self, reaction_id: str) -> dict[str, Any] | None:
        try:
            return self.biochem.get_reaction(reaction_id)
        except NotFoundError:
            return None


def model_key(model_id: object) -> str:
    """A model id as given by a user, checked for shape (existence is the store's to say)."""
    if not isinstance(model_id, str) or not model_id.strip():
        raise ValidationError(
            ErrorCode.INVALID_MODEL_ID, "model_id must be a non-empty string (e.g. 'E_coli.draft').",
            details={"provided": model_id if isinstance(model_id, str) else repr(model_id)[:40]},
            suggestions=["Call list_models to see the ids of stored models."],
            valid_next_steps=["list_models"],
        )
    return model_id.strip()


def model_info(row: ModelRow) -> dict[str, Any]:
    """Seed 000's ModelInfo: the part of every model answer that describes the stored model."""
    return {
        "model_id": row.model_id,
        "model_name": row.model_name,
        "state": row.state,
        "num_reactions": row.num_reactions,
        "num_metabolites": row.num_metabolites,
        "num_genes": row.num_genes,
        "template_used": row.template,
        "created_at": row.created_at,
        "derived_from": row.derived_from,
    }
