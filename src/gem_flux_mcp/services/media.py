"""Media: build, list and delete (predefined media are read-only)."""

from __future__ import annotations

from typing import Any

from gem_flux_mcp.data.media_library import PREDEFINED_CREATED_AT
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.modeling import media
from gem_flux_mcp.services import results
from gem_flux_mcp.services.results import GetMediaResult, MediaCompound
from gem_flux_mcp.services.workspace import Medium, Workspace
from gem_flux_mcp.store.ids import MEDIA_NAME_RE, MEDIA_RESERVED_PREFIX
from gem_flux_mcp.store.rows import MediaRow

_MAX_PREVIEW = 3
MAX_PAGE = 500  # compounds per get_media answer (a rich medium has ~100-300)


def build_media(ws: Workspace, compounds: object, default_uptake: object = 100.0, custom_bounds: object = None,
                media_name: object = None, description: object = None) -> results.BuildMediaResult:
    medium = media.validate_media_request(compounds, default_uptake, custom_bounds, ws.biochem.existing_compound_ids)
    if media_name is not None:
        if not isinstance(media_name, str) or not MEDIA_NAME_RE.match(media_name) \
                or media_name.startswith(MEDIA_RESERVED_PREFIX):
            raise ValidationError(
                ErrorCode.INVALID_MEDIA_NAME,
                "media_name must be 1-64 letters, digits, '_' or '-', and must not start with 'media_'.",
                details={"provided": media_name if isinstance(media_name, str) else repr(media_name)},
                suggestions=["Use a name such as 'glucose_m9_aerobic', or omit it for an automatic id."],
            )
        if media_name in ws.media_library:
            raise ValidationError(
                ErrorCode.DUPLICATE_NAME, f"'{media_name}' is a predefined medium; choose another name.",
                details={"name": media_name, "predefined_media": sorted(ws.media_library)},
            )
        media_id = media_name
    else:
        media_id = ws.store.new_media_id(ws.workspace_id)
    row = ws.store.add_media(MediaRow(
        workspace=ws.workspace_id, media_id=media_id, media_name=media_name if media_name else None,
        compounds=medium, default_uptake=float(default_uptake),  # type: ignore[arg-type]
        created_at="", description=description if isinstance(description, str) else None,
    ))
    info = ws.biochem.compound_names(medium)
    custom = len(custom_bounds) if isinstance(custom_bounds, dict) else 0
    return results.BuildMediaResult.model_validate({
        "success": True,
        "media_id": row.media_id,
        "media_name": row.media_name,
        "compounds": [{"id": c, "name": info[c][0], "formula": info[c][1], "bounds": list(b)}
                      for c, b in medium.items()],
        "num_compounds": len(medium),
        "media_type": media.media_type(len(medium)),
        "default_uptake_rate": float(default_uptake),  # type: ignore[arg-type]
        "custom_bounds_applied": custom,
        "created_at": row.created_at,
        "next_steps": [f"Run FBA: run_fba(model_id=..., media_id='{row.media_id}').",
                       f"Gapfill a draft on it: gapfill_model(model_id=..., media_id='{row.media_id}')."],
    })


def list_media(ws: Workspace) -> results.ListMediaResult:
    entries: list[dict[str, Any]] = []
    for medium in ws.media_library.values():
        entries.append(_media_info(ws, medium.media_id, medium.media_id, medium.compounds,
                                   PREDEFINED_CREATED_AT, True, medium.description))
    user = ws.store.list_media(ws.workspace_id)
    for row in user:
        entries.append(_media_info(ws, row.media_id, row.media_name, row.compounds, row.created_at, False,
                                   row.description or ""))
    entries.sort(key=lambda e: (e["created_at"], e["media_id"]))
    return results.ListMediaResult.model_validate({
        "success": True,
        "media": entries,
        "total_media": len(entries),
        "predefined_media": len(ws.media_library),
        "user_created_media": len(user),
        "next_steps": ["Create a medium with build_media(compounds=[...]).",
                       "Use a media_id with run_fba or gapfill_model."],
    })


def _media_info(ws: Workspace, media_id: str, name: str | None, compounds: Medium, created_at: str,
                predefined: bool, description: str) -> dict[str, Any]:
    preview_ids = list(compounds)[:_MAX_PREVIEW]
    names = ws.biochem.compound_names(preview_ids)
    return {
        "media_id": media_id,
        "media_name": name,
        "description": description,
        "num_compounds": len(compounds),
        "media_type": media.media_type(len(compounds)),
        "compounds_preview": [{"id": c, "name": names.get(c, (c, ""))[0]} for c in preview_ids],
        "created_at": created_at,
        "is_predefined": predefined,
    }


def get_media(ws: Workspace, media_id: object, offset: int = 0, limit: int = MAX_PAGE) -> GetMediaResult:
    """Every compound of a medium (a page of them), with names, formulas and bounds."""
    key, compounds = ws.medium(media_id)
    predefined = ws.media_library.get(key)
    row = None if predefined is not None else ws.store.get_media(ws.workspace_id, key)
    ids = list(compounds)
    page = ids[offset:offset + limit]
    names = ws.biochem.compound_names(page)
    return GetMediaResult(
        media_id=key,
        media_name=row.media_name if row is not None else key,
        description=predefined.description if predefined is not None else (row.description or "") if row else "",
        is_predefined=predefined is not None,
        media_type=media.media_type(len(ids)),
        created_at=row.created_at if row is not None else PREDEFINED_CREATED_AT,
        num_compounds=len(ids),
        compounds=[MediaCompound(id=c, name=names.get(c, (c, ""))[0], formula=names.get(c, ("", ""))[1],
                                 bounds=list(compounds[c])) for c in page],
        offset=offset,
        next_offset=offset + limit if offset + limit < len(ids) else None,
    )


def delete_media(ws: Workspace, media_id: object) -> results.DeleteMediaResult:
    if isinstance(media_id, str) and media_id.strip() in ws.media_library:
        raise ValidationError(
            ErrorCode.PREDEFINED_MEDIA_IMMUTABLE,
            f"'{media_id.strip()}' is a predefined medium and cannot be deleted.",
            details={"media_id": media_id.strip(), "predefined_media": sorted(ws.media_library)},
            suggestions=["Predefined media are shared reference data; delete only media you built."],
            valid_next_steps=["list_media"],
        )
    if not isinstance(media_id, str) or not media_id.strip():
        raise ValidationError(ErrorCode.INVALID_MEDIA_ID, "media_id must be a non-empty string.",
                              details={"provided": repr(media_id)[:40]}, valid_next_steps=["list_media"])
    row = ws.store.delete_media(ws.workspace_id, media_id.strip())
    return results.DeleteMediaResult.model_validate(
        {"success": True, "deleted_media_id": row.media_id, "message": "Media deleted successfully"})
