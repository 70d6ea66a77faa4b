"""A model as the store keeps it: COBRApy JSON and its counts, made where the model is (a worker
process), so the server never re-parses a model it only has to store."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DatabaseError
from gem_flux_mcp.modeling.media import exchange_reactions
from gem_flux_mcp.modeling.model_io import objective_reaction_ids

if TYPE_CHECKING:
    import cobra


@dataclass(frozen=True)
class SerializedModel:
    """COBRApy JSON of a model with its counts."""

    data: bytes
    stats: dict[str, Any]


def serialize_model(model: cobra.Model, model_id: str) -> SerializedModel:
    try:
        from cobra.io import to_json

        data = to_json(model).encode("utf-8")
    except Exception as exc:  # cobra/json raise many kinds
        raise DatabaseError(
            ErrorCode.MODEL_SAVE_FAILED,
            f"Could not serialize model '{model_id}' to COBRApy JSON: {type(exc).__name__}: {str(exc)[:300]}",
            details={"model_id": model_id},
        ) from exc
    return SerializedModel(data, model_stats(model))


def model_stats(model: cobra.Model) -> dict[str, Any]:
    exchanges = {r.id for r in exchange_reactions(model)} | {r.id for r in model.reactions if r.id.startswith("EX_")}
    objective = objective_reaction_ids(model)
    return {
        "num_reactions": len(model.reactions),
        "num_metabolites": len(model.metabolites),
        "num_genes": len(model.genes),
        "num_exchanges": len(exchanges),
        "compartments": sorted(model.compartments),
        "objective": ",".join(objective) or None,
    }
