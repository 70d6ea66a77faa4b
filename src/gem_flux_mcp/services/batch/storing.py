"""Finished genomes of a batch kept in the store as well (when asked): each model read back from
its checked SBML file and stored as `<name>.gf`, so the tools can analyse it next."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import gem_flux_mcp.services.batch.outputs as outputs
from gem_flux_mcp.errors import GemFluxError, NotFoundError
from gem_flux_mcp.store.store import Store

_NOT_IN_NAMES = re.compile(r"[^A-Za-z0-9_-]+")


def store_name(genome: str) -> str:
    """A model name the store accepts (letters, digits, _ and -; 64 at most; not `model_…`)."""
    name = _NOT_IN_NAMES.sub("_", genome).strip("_")[:64] or "genome"
    return f"g_{name}"[:64] if name.startswith("model_") else name


def store_genome(store: Store, workspace: str, out_dir: Path, row: dict[str, Any]) -> None:
    """Store the genome of a finished row; the row says where (`stored_model_id`) or why not
    (`store_error`). A genome stored before from the same file is not stored twice."""
    from gem_flux_mcp.modeling import model_io

    if row.get("status") != "ok":
        return
    report = outputs.read_report(out_dir, row["genome"]) or {}
    sha256 = report.get("model_sha256")
    name = store_name(row["genome"])
    model_id = f"{name}.gf"
    try:
        try:
            existing = store.get_model_row(workspace, model_id)
        except NotFoundError:
            existing = None
        if existing is not None and existing.extra.get("batch_model_sha256") == sha256:
            row["stored_model_id"] = model_id
            return
        model_id = store.new_model_id(workspace, name, "gf")
        path = outputs.model_path(out_dir, row["genome"])
        model = model_io.read_model(path, "sbml")
        try:
            store.add_model(workspace, model_id, model, model_name=name, source="built", template=row.get("template"),
                            derived_from=None, extra={"batch_model_file": str(path), "batch_model_sha256": sha256,
                                                      "growth": row.get("growth")})
        finally:
            model_io.release_model(model)
        row["stored_model_id"] = model_id
    except GemFluxError as exc:
        row["store_error"] = f"{exc.code}: {exc.message}"
