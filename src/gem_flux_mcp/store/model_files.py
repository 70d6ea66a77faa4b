"""The stored model files: each model's COBRApy JSON, gzip-compressed in the `model_files` table
(same database as the rows, on SQLite and PostgreSQL alike), read back checksum-verified.

Why in the database rather than in a folder: the file is written in the same transaction as its
model's row, so no crash can leave a listed model without its file or a file without its model
(nothing to sweep), and servers on different machines that share one PostgreSQL database need no
shared file system. JSON compresses about 7x (iJO1366: 2.0 MB -> 0.28 MB, ~20 ms).

State folders of earlier releases kept the files as `models/<workspace>/<file_name>`;
`import_legacy_files` moves them into the table when such a folder is opened.
"""

from __future__ import annotations

import gzip
import hashlib
import logging
import re
import uuid
import zlib
from pathlib import Path
from typing import TYPE_CHECKING

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DatabaseError
from gem_flux_mcp.store.rows import ModelRow

if TYPE_CHECKING:
    import cobra

    from gem_flux_mcp.store.db import Database

log = logging.getLogger(__name__)

LEGACY_MODELS_DIR = "models"  # where earlier releases kept the files, under the state folder
LEGACY_LOCK_FILE = "store.lock"  # their cross-process lock file (no longer needed)
MODEL_FILE_RE = re.compile(r"^[0-9a-f]{32}\.json$")
GZIP_LEVEL = 6


def new_file_name() -> str:
    """A new name for a stored model's file: never reused, so a model deleted and re-added under
    the same id is told apart from the old one (the cache and concurrent loads compare names)."""
    return f"{uuid.uuid4().hex}.json"


def pack_model_data(data: bytes) -> bytes:
    """The bytes the table keeps for a model's JSON (gzip; no timestamp, so equal JSON packs alike)."""
    return gzip.compress(data, compresslevel=GZIP_LEVEL, mtime=0)


def unpack_model_data(packed: bytes, row: ModelRow, file_name: str) -> bytes:
    """The JSON of a model from its stored bytes, checked against the row's sha256."""
    try:
        data = gzip.decompress(bytes(packed))
    except (OSError, EOFError, zlib.error) as exc:
        raise corrupt_model_file(row, file_name, f"the stored file cannot be decompressed: {exc}") from exc
    digest = hashlib.sha256(data).hexdigest()
    if digest != row.file_sha256:
        raise corrupt_model_file(row, file_name, f"sha256 {digest} does not match the recorded {row.file_sha256}")
    return data


def parse_model_file(data: bytes, row: ModelRow, file_name: str) -> cobra.Model:
    """A COBRApy model from verified JSON bytes."""
    from gem_flux_mcp.modeling.gene_rules import parse_one_thread_at_a_time

    parse_one_thread_at_a_time()  # stored models are checked out in the server's threads
    try:
        from gem_flux_mcp.modeling.json_model import model_from_json

        return model_from_json(data)
    except Exception as exc:  # checksum matched, so this would be a writer bug
        raise corrupt_model_file(row, file_name, f"{type(exc).__name__}: {str(exc)[:300]}") from exc


def corrupt_model_file(row: ModelRow, file_name: str, reason: str) -> DatabaseError:
    return DatabaseError(
        ErrorCode.MODEL_FILE_CORRUPT,
        f"The stored file of model '{row.model_id}' is damaged: {reason}.",
        details={"model_id": row.model_id, "file_name": file_name, "reason": reason},
    )


def import_legacy_files(db: Database, models_dir: Path) -> int:
    """Move an old state folder's model files (`models/<workspace>/<file_name>`) into the table:
    every file a row names is inserted in one transaction, then the folder is emptied (files no
    row names and temp files of interrupted writes included) and removed, with the old lock file.
    Safe to repeat after a crash: files already imported are skipped, then deleted. Returns how
    many files were imported."""
    if not models_dir.is_dir():
        return 0
    imported = 0
    with db.transaction() as conn:
        for workspace, file_name in db.models_without_file(conn):
            path = models_dir / workspace / file_name
            try:
                data = path.read_bytes()
            except FileNotFoundError:
                log.warning("state store: the file of a model in workspace %s is missing: %s", workspace, path)
                continue  # the model stays listed; loading it reports MODEL_FILE_CORRUPT, as before
            # stored as found: a damaged file stays damaged and is reported when loaded
            imported += db.insert_model_file(conn, workspace, file_name, pack_model_data(data))
    _remove_legacy_folder(models_dir)
    if imported:
        log.info("state store: moved %d model file(s) from %s into the database", imported, models_dir)
    return imported


def _remove_legacy_folder(models_dir: Path) -> None:
    for folder in sorted(p for p in models_dir.iterdir() if p.is_dir()):
        for path in folder.iterdir():
            ours = MODEL_FILE_RE.match(path.name) or (path.name.startswith(".") and path.name.endswith(".tmp"))
            if ours and path.is_file():
                path.unlink(missing_ok=True)
        _remove_if_empty(folder)
    _remove_if_empty(models_dir)
    (models_dir.parent / LEGACY_LOCK_FILE).unlink(missing_ok=True)


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:  # not empty: something that is not ours is left there
        log.warning("state store: leaving %s in place: it holds files that are not model files", folder)
