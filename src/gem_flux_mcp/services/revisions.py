"""Revisions: a new model in the same lineage with validated edits, the reason and growth
before/after recorded; the source model is never changed."""

from __future__ import annotations

from typing import Any

from gem_flux_mcp.errors import NotFoundError
from gem_flux_mcp.modeling import media, model_io, revise, solver_memory
from gem_flux_mcp.rules.catalog import REASON
from gem_flux_mcp.services import results
from gem_flux_mcp.services.workspace import Medium, Workspace, model_info, model_key
from gem_flux_mcp.store.rows import ModelRow


def revise_model(ws: Workspace, model_id: object, reason: object, add_reactions: object = None,
                 remove_reactions: object = None, reaction_bounds: object = None, knockout_genes: object = None,
                 media_id: object = None, revision_name: object = None) -> results.ReviseModelResult:
    key = model_key(model_id)
    reason = REASON.check(reason, model_id=key)
    parent = ws.store.get_model_row(ws.workspace_id, key)
    medium_id: str | None = None
    medium = None
    if media_id is not None or parent.last_media_id is not None:
        medium_id, medium = ws.medium(media_id if media_id is not None else parent.last_media_id)
    if revision_name is not None:
        name = revision_name.strip() if isinstance(revision_name, str) else ""
        new_id = ws.store.new_model_id(ws.workspace_id, name, parent.state)
    else:
        new_id = ws.store.derived_model_id(ws.workspace_id, key, suffix="rev")
    with ws.store.checkout(ws.workspace_id, key) as source:
        revised = source.copy()  # the stored source is never changed
    try:
        plan = revise.validate_plan(revised, add_reactions, remove_reactions, reaction_bounds, knockout_genes,
                                    ws.reaction_record)
        before = _growth(ws, revised, medium)
        changes = revise.apply_plan(revised, plan, ws.reaction_record, ws.biochem.compound_names)
        after = _growth(ws, revised, medium)
        record = {"reason": reason, "changes": changes, "media_id": medium_id,
                  "objective": model_io.objective_reaction_ids(revised),
                  "growth_before": before, "growth_after": after}
        row = ws.store.add_model(
            ws.workspace_id, new_id, revised, model_name=revision_name if isinstance(revision_name, str) else None,
            source="revised", template=parent.template, derived_from=key, extra={"revision": record},
        )
    finally:
        solver_memory.release_model(revised)  # stored as a file (or discarded); a checkout reloads it
    if medium_id is not None:
        ws.store.set_last_media(ws.workspace_id, new_id, medium_id)
    return results.ReviseModelResult.model_validate({
        "success": True, **model_info(row), "reason": record["reason"], "changes": changes,
        "summary": {"reactions_added": len(changes["added_reactions"]),
                    "reactions_removed": len(changes["removed_reactions"]),
                    "bounds_changed": len(changes["bounds_changed"]),
                    "genes_knocked_out": len(changes["knocked_out_genes"])},
        "media_id": medium_id, "growth_before": before, "growth_after": after,
        "next_steps": [f"History: get_model(model_id='{row.model_id}', include_revisions=true).",
                       f"Compare: run_fba(model_id='{row.model_id}', media_id=...)."]
        + ([] if medium_id else ["No medium was used yet: pass media_id to get growth before/after."]),
    })


def _growth(ws: Workspace, model: Any, medium: Medium | None) -> float | None:
    if medium is None:
        return None
    with model:
        media.apply_medium(model, medium, ws.exchanges(model))
        return revise.growth(model)


def revision_history(ws: Workspace, row: ModelRow, limit: int) -> list[dict[str, Any]]:
    """Revisions along the lineage, newest first (ids whose rows were deleted are skipped)."""
    history: list[dict[str, Any]] = []
    current: ModelRow | None = row
    seen: set[str] = set()
    while current is not None and current.model_id not in seen and len(history) < limit:
        seen.add(current.model_id)
        revision = current.extra.get("revision")
        if revision:
            history.append({"model_id": current.model_id, "derived_from": current.derived_from,
                            "created_at": current.created_at, **revision})
        parent = current.derived_from
        try:
            current = ws.store.get_model_row(ws.workspace_id, parent) if parent else None
        except NotFoundError:
            current = None
    return history
