"""The model files under the state folder, `models/<workspace>/<uuid4>.json` (COBRApy JSON):
written atomically, read back checksum-verified, and swept when no row references them.

A file is written *before* its row is inserted and deleted only *after* its row is gone, so a
crash leaves at worst an unreferenced file, which `remove_orphan_files` deletes later.
"""

from __future__ import annotations

import hashlib
import logging
import re
import uuid
from pathlib import Path
from typing import TYPE_CHECKING

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DatabaseError
from gem_flux_mcp.fsutil import atomic_write_bytes
from gem_flux_mcp.store.rows import ModelRow

if TYPE_CHECKING:
    import cobra

log = logging.getLogger(__name__)

MODEL_FILE_RE = re.compile(r"^[0-9a-f]{32}\.json$")


def write_model_file(folder: Path, model_id: str, data: bytes) -> Path:
    """Write `data` atomically (temp file, fsync, rename, fsync dir) under a new name in `folder`."""
    path = folder / f"{uuid.uuid4().hex}.json"
    try:
        atomic_write_bytes(path, data)
    except OSError as exc:
        raise DatabaseError(
            ErrorCode.MODEL_SAVE_FAILED,
            f"Could not write the file of model '{model_id}': {exc}",
            details={"model_id": model_id, "path": str(path)},
            suggestions=["Check free disk space and permissions of the state folder."],
        ) from exc
    return path


def read_model_file(path: Path, row: ModelRow) -> bytes:
    """The file's bytes, checked against the row's sha256; FileNotFoundError passes through (the
    caller tells a deleted model from a damaged one)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise corrupt_model_file(row, path, f"the model file cannot be read: {exc}") from exc
    digest = hashlib.sha256(data).hexdigest()
    if digest != row.file_sha256:
        raise corrupt_model_file(row, path, f"sha256 {digest} does not match the recorded {row.file_sha256}")
    return data


def parse_model_file(data: bytes, row: ModelRow, path: Path) -> cobra.Model:
    """A COBRApy model from verified file bytes."""
    try:
        from cobra.io import from_json

        return from_json(data.decode("utf-8"))
    except Exception as exc:  # checksum matched, so this would be a writer bug
        raise corrupt_model_file(row, path, f"{type(exc).__name__}: {str(exc)[:300]}") from exc


def corrupt_model_file(row: ModelRow, path: Path, reason: str) -> DatabaseError:
    return DatabaseError(
        ErrorCode.MODEL_FILE_CORRUPT,
        f"The stored file of model '{row.model_id}' is damaged: {reason}.",
        details={"model_id": row.model_id, "path": str(path), "reason": reason},
    )


def remove_orphan_files(models_dir: Path, referenced: set[tuple[str, str]]) -> int:
    """Delete model files not in `referenced` ((workspace, file name)) and leftover temp files;
    returns how many. Only safe while no other process writes to this state folder."""
    removed = 0
    for folder in sorted(p for p in models_dir.iterdir() if p.is_dir()):
        for path in folder.iterdir():
            name = path.name
            temp = name.startswith(".") and name.endswith(".tmp")  # fsutil's temp-file pattern
            orphan = bool(MODEL_FILE_RE.match(name)) and (folder.name, name) not in referenced
            if (temp or orphan) and path.is_file():
                try:
                    path.unlink()
                    removed += 1
                except OSError as exc:
                    log.warning("could not remove orphan file %s: %s", path, exc)
    if removed:
        log.info("state store: removed %d orphan/temp model file(s) under %s", removed, models_dir)
    else:
        log.debug("state store: no orphan model files under %s", models_dir)
    return removed
