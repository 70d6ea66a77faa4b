"""Media: build, list and delete (predefined media are read-only)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gem_flux_mcp.data.media_library import PREDEFINED_CREATED_AT
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import NotFoundError, ValidationError
from gem_flux_mcp.modeling import media
from gem_flux_mcp.rules.catalog import MAX_PAGE, MEDIA_COMPOUND_FILTER, MEDIA_NAME_FILTER, MEDIA_PAGE_LIMIT
from gem_flux_mcp.services import results
from gem_flux_mcp.services.paging import check_offset
from gem_flux_mcp.services.results import GetMediaResult, MediaCompound
from gem_flux_mcp.services.workspace import Medium, Workspace
from gem_flux_mcp.store.ids import MEDIA_NAME_RE, MEDIA_RESERVED_PREFIX
from gem_flux_mcp.store.rows import MediaRow

_MAX_PREVIEW = 3
DEFAULT_LIST_PAGE = 25  # media per list_media answer unless asked (the library has ~75)
USER_CATEGORY = "built by you"
_NAME_HITS = 20  # database matches looked at for a compound name
_ID_LIKE = re.compile(r"^(cpd\d+)(?:_[a-z]+\d*)?$")  # an id, or a model metabolite id such as cpd00027_e0
_WORD_SPLIT = re.compile(r"[^a-z0-9]+")


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
                details={"name": media_name},
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


def list_media(ws: Workspace, name: object = None, compound: object = None, offset: object = 0,
               limit: object = DEFAULT_LIST_PAGE) -> results.ListMediaResult:
    """A page of the media that pass the filters, with counts first: yours first (oldest first),
    then the predefined library in its order. `name`: words that each start a word of the id,
    name or description (any order, case-insensitive); `compound`: an id or a name, see
    `resolve_compound_filter`."""
    text = name_filter_words(name) if name is not None else None
    first = check_offset(offset)
    size = MEDIA_PAGE_LIMIT.check(limit)
    user = ws.store.list_media(ws.workspace_id)
    candidates = [_Candidate(row.media_id, row.media_name, row.compounds, row.created_at, False,
                             row.description or "", USER_CATEGORY) for row in user]
    candidates += [_Candidate(m.media_id, m.media_id, m.compounds, PREDEFINED_CREATED_AT, True, m.description,
                              m.category) for m in ws.media_library.values()]
    if text is not None:
        wanted = [f" {w}" for w in text.split()]
        searched = {c.media_id: _words(f"{c.media_id} {c.name or ''} {c.description}") for c in candidates}
        candidates = [c for c in candidates if all(w in searched[c.media_id] for w in wanted)]
    resolved: list[dict[str, str]] | None = None
    if compound is not None:
        ids = resolve_compound_filter(ws, compound, {cpd for c in candidates for cpd in c.compounds})
        names = ws.biochem.compound_names(ids)
        resolved = [{"id": cpd, "name": names.get(cpd, (cpd, ""))[0]} for cpd in ids]
        candidates = [c for c in candidates if not c.compounds.keys().isdisjoint(ids)]
    page = candidates[first:first + size]
    names = ws.biochem.compound_names({cpd for c in page for cpd in list(c.compounds)[:_MAX_PREVIEW]})
    by_category: dict[str, int] = {}
    for c in candidates:
        by_category[c.category] = by_category.get(c.category, 0) + 1
    next_offset = first + size if first + size < len(candidates) else None
    payload: dict[str, Any] = {
        "success": True,
        "total_media": len(user) + len(ws.media_library),
        "predefined_media": len(ws.media_library),
        "user_created_media": len(user),
        "matched_media": len(candidates),
        "media_by_category": by_category,
        "offset": first,
        "next_offset": next_offset,
        "media": [_media_info(c, names) for c in page],
        "next_steps": _list_next_steps(name, compound, len(candidates), size, next_offset),
    }
    if resolved is not None:
        payload["resolved_compounds"] = resolved
    return results.ListMediaResult.model_validate(payload)


@dataclass(frozen=True)
class _Candidate:
    media_id: str
    name: str | None
    compounds: Medium
    created_at: str
    predefined: bool
    description: str
    category: str


def _media_info(c: _Candidate, names: dict[str, tuple[str, str]]) -> dict[str, Any]:
    preview_ids = list(c.compounds)[:_MAX_PREVIEW]
    return {
        "media_id": c.media_id,
        "media_name": c.name,
        "description": c.description,
        "category": c.category,
        "num_compounds": len(c.compounds),
        "media_type": media.media_type(len(c.compounds)),
        "compounds_preview": [{"id": cpd, "name": names.get(cpd, (cpd, ""))[0]} for cpd in preview_ids],
        "created_at": c.created_at,
        "is_predefined": c.predefined,
    }


def _list_next_steps(name: object, compound: object, matched: int, size: int,
                     next_offset: int | None) -> list[str]:
    steps: list[str] = []
    if next_offset is not None:
        filters = "".join(f", {key}={str(value).strip()!r}" for key, value in (("name", name), ("compound", compound))
                          if value is not None)
        steps.append(f"{matched - next_offset} more media: list_media(offset={next_offset}{filters}).")
    if name is None and compound is None and matched > size:
        steps.append("Narrow the list: list_media(name='m9 glucose'), list_media(name='anaerobic'), "
                     "list_media(compound='cpd00027') or list_media(compound='succinate').")
    if matched == 0:
        steps.append("No medium matched: try a shorter name, or build one with build_media(compounds=[...]).")
    steps += ["See every compound and bound of a medium with get_media(media_id=...).",
              "Create a medium with build_media(compounds=[...]).",
              "Use a media_id with run_fba or gapfill_model."]
    return steps


def _words(text: str) -> str:
    """The words of a text (letters and digits), lower case, each after a space: 'M9_glucose-aerobic'
    -> ' m9 glucose aerobic'. Matching ' aerob' in it finds words that start so ('aerobic', not
    'anaerobic'); matching ' d lactate ' finds those words whole."""
    return "".join(f" {w}" for w in _WORD_SPLIT.split(text.lower()) if w)


def name_filter_words(name: object) -> str:
    """The `name` filter as compared (see `_words`): ' m9 glucose' for 'M9_Glucose'."""
    words = _words(MEDIA_NAME_FILTER.check(name))
    if not words:
        raise MEDIA_NAME_FILTER.refusal(name, "name must contain a letter or a digit.")
    return words


def resolve_compound_filter(ws: Workspace, compound: object, present: set[str]) -> list[str]:
    """The ModelSEED compounds that `compound` stands for. An id (or a model id such as
    cpd00027_e0) stands for itself and must be in the database. A name stands for the database's
    exact matches on a name, synonym, abbreviation or external id (not formula: a formula names
    every isomer), and for the compounds of the listed media (`present`) whose ModelSEED name
    contains it as whole words ('lactate' finds D- and L-lactate). Unknown: COMPOUND_NOT_FOUND."""
    text = MEDIA_COMPOUND_FILTER.check(compound)
    id_like = _ID_LIKE.match(text.lower())
    if id_like:
        ident = id_like.group(1)
        if not media.CPD_ID.match(ident):
            raise MEDIA_COMPOUND_FILTER.refusal(
                text, "compound is not a ModelSEED compound id ('cpd' and 5 digits, e.g. 'cpd00027').")
        if not ws.biochem.existing_compound_ids([ident]):
            raise NotFoundError(
                ErrorCode.COMPOUND_NOT_FOUND, f"Compound '{ident}' is not in the ModelSEED database.",
                details={"compound_id": ident, "argument": "compound"},
                suggestions=["Check the id, or pass the compound's name instead (e.g. compound='glucose')."])
        return [ident]
    found = ws.biochem.search_compounds(text, _NAME_HITS)
    ids = [hit["id"] for hit in found["results"] if hit["match_type"] == "exact" and hit["match_field"] != "formula"]
    wanted = _words(text)
    if wanted:
        names = ws.biochem.compound_names(present)
        ids += sorted(cpd for cpd, (label, _) in names.items() if f"{wanted} " in f"{_words(label)} ")
    ids = list(dict.fromkeys(ids))
    if not ids:
        near = [{"id": hit["id"], "name": hit["name"]} for hit in found["results"][:5]]
        raise NotFoundError(
            ErrorCode.COMPOUND_NOT_FOUND,
            f"No compound of the ModelSEED database is named '{text}'.",
            details={"compound": text, "argument": "compound", "similar_compounds": near},
            suggestions=["Pass one of the similar compounds' ids, or a ModelSEED id such as 'cpd00027'."]
            if near else ["Check the spelling, or pass a ModelSEED id such as 'cpd00027'."],
        )
    return ids


def get_media(ws: Workspace, media_id: object, offset: object = 0, limit: object = MAX_PAGE) -> GetMediaResult:
    """Every compound of a medium (a page of them), with names, formulas and bounds."""
    first, size = check_offset(offset), MEDIA_PAGE_LIMIT.check(limit)
    key, compounds = ws.medium(media_id)
    predefined = ws.media_library.get(key)
    row = None if predefined is not None else ws.store.get_media(ws.workspace_id, key)
    ids = list(compounds)
    page = ids[first:first + size]
    names = ws.biochem.compound_names(page)
    return GetMediaResult(
        media_id=key,
        media_name=row.media_name if row is not None else key,
        description=predefined.description if predefined is not None else (row.description or "") if row else "",
        source=(predefined.source or None) if predefined is not None else None,
        is_predefined=predefined is not None,
        media_type=media.media_type(len(ids)),
        created_at=row.created_at if row is not None else PREDEFINED_CREATED_AT,
        num_compounds=len(ids),
        compounds=[MediaCompound(id=c, name=names.get(c, (c, ""))[0], formula=names.get(c, ("", ""))[1],
                                 bounds=list(compounds[c])) for c in page],
        offset=first,
        next_offset=first + size if first + size < len(ids) else None,
    )


def delete_media(ws: Workspace, media_id: object) -> results.DeleteMediaResult:
    if isinstance(media_id, str) and media_id.strip() in ws.media_library:
        raise ValidationError(
            ErrorCode.PREDEFINED_MEDIA_IMMUTABLE,
            f"'{media_id.strip()}' is a predefined medium and cannot be deleted.",
            details={"media_id": media_id.strip()},
            suggestions=["Predefined media are shared reference data; delete only media you built."],
            valid_next_steps=["list_media"],
        )
    if not isinstance(media_id, str) or not media_id.strip():
        raise ValidationError(ErrorCode.INVALID_MEDIA_ID, "media_id must be a non-empty string.",
                              details={"provided": repr(media_id)[:40]}, valid_next_steps=["list_media"])
    row = ws.store.delete_media(ws.workspace_id, media_id.strip())
    return results.DeleteMediaResult.model_validate(
        {"success": True, "deleted_media_id": row.media_id, "message": "Media deleted successfully"})
