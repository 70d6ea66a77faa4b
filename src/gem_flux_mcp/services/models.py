"""Stored models: list, inspect (with lineage, results, revisions, gapfill pages), delete, import
from and export to files."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import NotFoundError, ValidationError
from gem_flux_mcp.modeling import model_io, solver_memory
from gem_flux_mcp.rules.catalog import GAPFILL_REACTIONS_OFFSET, LIMIT
from gem_flux_mcp.services import paging, results
from gem_flux_mcp.services.revisions import revision_history
from gem_flux_mcp.services.workspace import Workspace, model_info, model_key
from gem_flux_mcp.store.rows import ModelRow

FILTER_STATES = ("all", "draft", "gapfilled")
_GENES_PREVIEW = 50
# Whole tables recorded with some results for the dashboard's pictures (an FBA's fluxes, a
# phenotype array's rows): kept out of get_model's answer, which lists up to 100 results.
RECORDED_TABLES = frozenset({"fluxes", "fluxes_truncated", "array"})


def list_models(ws: Workspace, filter_state: object = "all") -> results.ListModelsResult:
    state = filter_state.strip().lower() if isinstance(filter_state, str) else None
    if state not in FILTER_STATES:
        raise ValidationError(
            ErrorCode.INVALID_FILTER_STATE,
            f"filter_state must be one of {', '.join(FILTER_STATES)}; got {filter_state!r}.",
            details={"provided": filter_state if isinstance(filter_state, str) else repr(filter_state),
                     "valid_values": list(FILTER_STATES)},
            suggestions=["Use 'all', 'draft' or 'gapfilled' (case does not matter)."],
            example_call={"tool": "list_models", "arguments": {"filter_state": "all"}},
        )
    rows = ws.store.list_models(ws.workspace_id)
    counts = {name: sum(r.state == name for r in rows) for name in ("draft", "gapfilled")}
    shown = [r for r in rows if state == "all" or r.state == state]
    return results.ListModelsResult.model_validate({
        "success": True,
        "models": [model_info(r) for r in shown],
        "total_models": len(shown),
        "models_by_state": counts,
        "next_steps": ["Inspect one with get_model(model_id=...).",
                       "Run FBA with run_fba(model_id=..., media_id=...)."] if shown
        else ["Build a model with build_model or load one with import_model."],
    })


def delete_model(ws: Workspace, model_id: object) -> results.DeleteModelResult:
    row = ws.store.delete_model(ws.workspace_id, model_key(model_id))
    return results.DeleteModelResult.model_validate(
        {"success": True, "deleted_model_id": row.model_id, "message": "Model deleted successfully"})


def get_model(ws: Workspace, model_id: object, include_predictions: bool = False, include_revisions: bool = False,
              limit: object = 20, gapfill_reactions_offset: object = None) -> results.GetModelResult:
    key = model_key(model_id)
    size: int = LIMIT.check(limit)
    row = ws.store.get_model_row(ws.workspace_id, key)
    with ws.store.checkout(ws.workspace_id, key) as model:
        summary = model_io.summarize(model)
        genes = sorted(g.id for g in model.genes)
    payload: dict[str, Any] = {
        "success": True,
        **model_info(row),
        "source": row.source,
        "num_exchange_reactions": summary["num_exchange_reactions"],
        "compartments": summary["compartments"],
        "objective": summary["objective"],
        "statistics": summary["statistics"],
        "genes_preview": genes[:_GENES_PREVIEW],
        "genes_truncated": len(genes) > _GENES_PREVIEW,
        "last_media_id": row.last_media_id,
        "lineage": _lineage(ws, row),
    }
    if include_predictions:
        recorded = ws.store.list_results(ws.workspace_id, key, size)
        payload["predictions"] = [{"id": r.id, "kind": r.kind, "media_id": r.media_id, "created_at": r.created_at,
                                   "summary": {k: v for k, v in r.summary.items() if k not in RECORDED_TABLES}}
                                  for r in recorded]
    if include_revisions:
        payload["revisions"] = revision_history(ws, row, size)
    if gapfill_reactions_offset is not None:
        payload["gapfill_reactions"] = _gapfill_page(row, gapfill_reactions_offset)
    return results.GetModelResult.model_validate(payload)


def _gapfill_page(row: ModelRow, offset: object) -> dict[str, Any]:
    from gem_flux_mcp.services.gapfill import reactions_page

    record = row.extra.get("gapfill")
    if not isinstance(record, dict):
        raise ValidationError(
            ErrorCode.NOT_GAPFILLED, f"Model {row.model_id} was not made by gapfill_model; it has no added reactions.",
            details={"model_id": row.model_id, "source": row.source},
            suggestions=["Pass the id of a gapfilled model (ids containing '.gf')."],
            valid_next_steps=["list_models"],
        )
    entries = record.get("reactions_added", [])
    first = paging.check_offset(offset, len(entries), GAPFILL_REACTIONS_OFFSET)
    return {"media_id": record.get("media_id"), **reactions_page(entries, first)}


def _lineage(ws: Workspace, row: ModelRow) -> list[tuple[str, str | None]]:
    chain: list[tuple[str, str | None]] = [(row.model_id, row.derived_from)]
    seen = {row.model_id}
    parent = row.derived_from
    while parent and parent not in seen:
        seen.add(parent)
        try:
            prow = ws.store.get_model_row(ws.workspace_id, parent)
        except NotFoundError:
            chain.append((parent, None))  # the parent was deleted; the id stays on record
            break
        chain.append((prow.model_id, prow.derived_from))
        parent = prow.derived_from
    return chain


def import_model_request(ws: Workspace, file_path: object, file_content: object, encoding: object,
                         model_name: object, fmt: object, resolve: Callable[[object], Path]
                         ) -> results.ImportModelResult:
    """import_model's one input: a file on the server (`resolve` checks it against the caller's
    file area) or the file's content sent inline; exactly one of them."""
    if file_path is not None and file_content is not None:
        raise ValidationError(ErrorCode.BOTH_INPUTS_PROVIDED, "Give file_path or file_content, not both.")
    if file_content is not None:
        return import_model_content(ws, file_content, encoding, model_name, fmt)
    if file_path is None:
        raise ValidationError(ErrorCode.NO_INPUT_PROVIDED, "Pass file_path (a file on the server) or "
                              "file_content (the file itself).")
    return import_model(ws, resolve(file_path), model_name, fmt)


def import_model_content(ws: Workspace, content: object, encoding: object, model_name: object = None,
                         fmt: object = None) -> results.ImportModelResult:
    """A model file sent inline (text or base64; SBML or JSON, told by `fmt` or by its first
    character), for a client that cannot put files on the server's disk."""
    from gem_flux_mcp.modeling.inputs import text_of_content

    text = text_of_content(content, str(encoding), "file_content")
    if isinstance(fmt, str) and fmt.strip():
        file_format = model_io.detect_format(Path("inline"), fmt)
    elif text.lstrip().startswith("<"):
        file_format = "sbml"
    elif text.lstrip().startswith("{"):
        file_format = "json"
    else:
        raise ValidationError(ErrorCode.UNSUPPORTED_FORMAT, "file_content is neither SBML (XML) nor COBRApy JSON.",
                              details={"starts_with": text.lstrip()[:40]},
                              suggestions=["Send the model file as it is, or pass format='sbml' or 'json'."])
    with tempfile.TemporaryDirectory(prefix="gemflux-import-") as folder:
        path = Path(folder) / f"inline.{'xml' if file_format == 'sbml' else 'json'}"
        path.write_text(text, encoding="utf-8")
        return import_model(ws, path, model_name, file_format, imported_from="inline content")


def import_model(ws: Workspace, path: Path, model_name: object = None, fmt: object = None,
                 imported_from: str | None = None) -> results.ImportModelResult:
    """`path` is already resolved and allowed (the caller's file area)."""
    file_format = model_io.detect_format(path, fmt if isinstance(fmt, str) else None)
    model = model_io.read_model(path, file_format)
    name = model_name if isinstance(model_name, str) and model_name.strip() else None
    model_id = ws.store.new_model_id(ws.workspace_id, name, "draft")
    try:
        row = ws.store.add_model(ws.workspace_id, model_id, model, model_name=name, source="imported",
                                 template=None, derived_from=None,
                                 extra={"imported_from": imported_from or path.name, "original_id": model.id})
        summary = model_io.summarize(model)
    finally:
        solver_memory.release_model(model)  # stored as a file; the next checkout loads it
    return results.ImportModelResult.model_validate({
        "success": True, **model_info(row), "format": file_format, "original_model_id": model.id,
        "num_exchange_reactions": summary["num_exchange_reactions"], "compartments": summary["compartments"],
        "objective": summary["objective"],
        "next_steps": [f"Run FBA: run_fba(model_id='{row.model_id}', media_id=...)."]})


def export_model(ws: Workspace, model_id: object, path: Path, fmt: object = None) -> results.ExportModelResult:
    """`path` is already resolved and allowed for writing (the caller's file area)."""
    from gem_flux_mcp.modeling.sbml.annotations import model_annotations

    key = model_key(model_id)
    file_format = model_io.detect_format(path, fmt if isinstance(fmt, str) else None)
    with ws.store.checkout(ws.workspace_id, key) as model:
        annotations = model_annotations(model, ws.biochem)  # identifiers.org and SBO, from the database
        written = model_io.export_model_file(model, path, file_format, annotations)
    return results.ExportModelResult.model_validate(
        {"success": True, "model_id": key, "file_path": str(path), "format": file_format,
         "size_bytes": written.size_bytes, "resource_uri": model_resource_uri(key, file_format),
         "warnings": written.warnings})


def model_resource_uri(model_id: str, fmt: str) -> str:
    """The MCP resource a stored model is served as (server/model_resources.py)."""
    return f"gemflux://models/{model_id}/{fmt}"


def model_file_text(ws: Workspace, model_id: object, fmt: str) -> str:
    """A stored model's file as export_model writes it (same checks), as text: the content of
    the model resources, for clients that cannot read the server's disk."""
    key = model_key(model_id)
    with tempfile.TemporaryDirectory(prefix="gemflux-resource-") as folder:
        path = Path(folder) / f"model.{'xml' if fmt == 'sbml' else 'json'}"
        export_model(ws, key, path, fmt)
        return path.read_text(encoding="utf-8")
