"""Finished genomes of a batch kept in the store as well (when asked), as `<name>.gf`, so the
tools can analyse them next. A worker stores the model it has just built itself (`store_built`,
with its own connection to the store: SQLite file or PostgreSQL), so storing scales with the
workers; a genome finished by an earlier run is stored by the caller from its SBML file
(`store_genome`). A genome stored before from the same model file is not stored twice."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import gem_flux_mcp.services.batch.outputs as outputs
from gem_flux_mcp.errors import GemFluxError, NotFoundError
from gem_flux_mcp.store.store import Store

if TYPE_CHECKING:
    import cobra

_NOT_IN_NAMES = re.compile(r"[^A-Za-z0-9_-]+")
_stores: dict[tuple[str, str | None], Store] = {}
_stores_lock = threading.Lock()


@dataclass(frozen=True)
class StoreTarget:
    """Which store and workspace a batch keeps its models in."""

    state_dir: str
    database_url: str | None
    workspace: str

    def open(self) -> Store:
        """This process's store for the target, opened once (a worker keeps it for its next genomes)."""
        key = (self.state_dir, self.database_url)
        with _stores_lock:
            if key not in _stores:
                _stores[key] = Store(Path(self.state_dir), database_url=self.database_url)
            return _stores[key]


def store_name(genome: str) -> str:
    """A model name the store accepts (letters, digits, _ and -; 64 at most; not `model_…`)."""
    name = _NOT_IN_NAMES.sub("_", genome).strip("_")[:64] or "genome"
    return f"g_{name}"[:64] if name.startswith("model_") else name


def store_built(target: StoreTarget, row: dict[str, Any], model: cobra.Model, model_file: Path, sha256: str) -> None:
    """In the worker: store the model just written to `model_file`; the row says where or why not."""
    _store(target.open(), target.workspace, row, model_file, sha256, lambda: model)


def store_genome(store: Store, workspace: str, out_dir: Path, row: dict[str, Any]) -> None:
    """Store a finished genome that its worker did not store (finished by an earlier run): its
    model read back from the SBML file."""
    from gem_flux_mcp.modeling import model_io, solver_memory

    if row.get("status") != "ok" or "stored_model_id" in row or "store_error" in row:
        return
    report = outputs.read_report(out_dir, row["genome"]) or {}
    path = outputs.model_path(out_dir, row["genome"])
    loaded: list[cobra.Model] = []

    def load() -> cobra.Model:
        loaded.append(model_io.read_model(path, "sbml"))
        return loaded[0]

    try:
        _store(store, workspace, row, path, str(report.get("model_sha256")), load)
    finally:
        for model in loaded:
            solver_memory.release_model(model)


def _store(store: Store, workspace: str, row: dict[str, Any], model_file: Path, sha256: str,
           model: Any) -> None:
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
        store.add_model(workspace, model_id, model(), model_name=name, source="built", template=row.get("template"),
                        derived_from=None, extra={"batch_model_file": str(model_file), "batch_model_sha256": sha256,
                                                  "growth": row.get("growth")})
        row["stored_model_id"] = model_id
    except GemFluxError as exc:
        row["store_error"] = f"{exc.code}: {exc.message}"
