"""The persistent store: models (rows + JSON files), media, results, and a bounded model cache.

Layout under the state folder:

    gemflux.sqlite                     rows (see db.py)
    store.lock                         advisory lock: tells whether another process has the store open
    models/<workspace>/<uuid4>.json    one COBRApy JSON file per stored model

Crash safety: a model file is written atomically (temp file, fsync, rename, fsync dir) *before*
its row is inserted, and deleted only *after* its row is gone, so a crash at any moment leaves at
worst an unreferenced file, never a listed model without its file. Unreferenced files and leftover
temp files are removed when a Store opens while no other process has the state folder open.

Model ids (CONTRACTS §13):
    auto        model_<YYYYMMDD>_<HHMMSS>_<6 [a-z0-9]>.<state>  (local time)
    user name   <name>.<state>; name matches ^[A-Za-z0-9_-]{1,64}$ and may not start with `model_`
    derived     <parent>.gf (gapfill of `X.draft` -> `X.draft.gf`, of `X` -> `X.gf`); when that id
                is taken: <parent>.gf.v2, <parent>.gf.v3, ... (see `derived_model_id`). The `.gf`
                stays in the id, so the state read off the id stays "gapfilled".
"""

from __future__ import annotations

import difflib
import hashlib
import json
import logging
import math
import os
import re
import sys
import uuid
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DatabaseError, NotFoundError, ValidationError
from gem_flux_mcp.fsutil import atomic_write_bytes
from gem_flux_mcp.store.db import DB_FILE_NAME, Database
from gem_flux_mcp.store.ids import (
    RESERVED_PREFIX,
    STATE_SUFFIX,
    SUFFIX_RE,
    check_media_id,
    check_model_id,
    check_model_name,
    check_workspace,
    random_token,
)
from gem_flux_mcp.store.model_cache import ModelCache
from gem_flux_mcp.store.rows import MODEL_SOURCES, MediaRow, ModelRow, ResultRow, model_state, utc_now
from gem_flux_mcp.store.serialization import SerializedModel, serialize_model

# COBRApy takes ~2 s to import: imported where first used, so the server answers tools/list fast.
if TYPE_CHECKING:
    import cobra

__all__ = ["MODEL_BYTES_PER_JSON_BYTE", "MediaRow", "ModelRow", "ResultRow", "Store", "derived_model_id"]

log = logging.getLogger(__name__)

# Estimated resident size of a loaded COBRApy model per byte of its JSON file: the reference
# measured peak RAM ~25x the JSON size on import (CONTRACTS §19, spec 011). Rough, but it scales
# with model size, which is all the cache budget needs.
MODEL_BYTES_PER_JSON_BYTE = 25

MODELS_DIR = "models"
LOCK_FILE = "store.lock"
_MAX_LISTED_IDS = 50  # ids quoted in not-found errors

KIND_RE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_MODEL_FILE_RE = re.compile(r"^[0-9a-f]{32}\.json$")
MAX_RESULTS_LIMIT = 1000


class Store:
    """Workspaces, models, media and results, persisted under `state_dir`; thread-safe."""

    def __init__(
        self,
        state_dir: Path,
        *,
        cache_max_models: int = 16,
        cache_max_bytes: int = 1_500_000_000,
        idle_seconds: float = 900.0,
    ) -> None:
        if cache_max_models < 0 or cache_max_bytes < 0 or idle_seconds < 0:
            raise ValidationError(
                ErrorCode.INVALID_CACHE_SETTINGS,
                "Cache limits must be zero or positive.",
                details={
                    "cache_max_models": cache_max_models,
                    "cache_max_bytes": cache_max_bytes,
                    "idle_seconds": idle_seconds,
                },
            )
        self.state_dir = Path(state_dir)
        self.models_dir = self.state_dir / MODELS_DIR
        self.cache = ModelCache(cache_max_models, cache_max_bytes, idle_seconds)
        self._lock_fd: int | None = None
        self.db = Database(self.state_dir / DB_FILE_NAME)
        try:
            self.models_dir.mkdir(parents=True, exist_ok=True)
            self._lock_fd, alone = _acquire_process_lock(self.state_dir / LOCK_FILE)
            if alone:
                # Only when no other process has the store open: one of them could be between
                # writing a model file and inserting its row.
                self.cleanup_orphans()
            _share_process_lock(self._lock_fd)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        """Close the database and drop the cache. Idempotent."""
        self.db.close()
        self.cache.clear()
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # releases the advisory lock
            self._lock_fd = None

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- models: ids

    def new_model_id(self, workspace: str, base: str | None, state: str) -> str:
        """A free id: `model_<YYYYMMDD>_<HHMMSS>_<xxxxxx>.<state>` without a base, else `<base>.<state>`.

        `state` is "draft" (suffix `.draft`) or "gapfilled"/"gf" (suffix `.gf`, so the id reads as
        gapfilled). A base already used by any model in the workspace (`<base>.…`) is refused
        with DUPLICATE_NAME. The id is only reserved by `add_model`; a concurrent caller that takes
        it first makes `add_model` raise MODEL_ID_EXISTS.
        """
        check_workspace(workspace)
        suffix = STATE_SUFFIX.get(state)
        if suffix is None:
            raise ValidationError(
                ErrorCode.INVALID_STATE,
                f"Unknown model state '{state}'.",
                details={"provided": state, "valid_values": sorted(STATE_SUFFIX)},
            )
        if base is None:
            for _ in range(100):
                stamp = datetime.now().strftime("%Y%m%d_%H%M%S")
                candidate_base = f"{RESERVED_PREFIX}{stamp}_{random_token()}"
                if not self.db.model_ids_with_prefix(workspace, candidate_base + "."):
                    return f"{candidate_base}.{suffix}"
            raise DatabaseError(ErrorCode.ID_EXHAUSTED, "Could not find a free automatic model id after 100 tries.")
        check_model_name(base)
        taken = [m for m in self.db.model_ids_with_prefix(workspace, base) if m == base or m.startswith(base + ".")]
        if taken:
            raise ValidationError(
                ErrorCode.DUPLICATE_NAME,
                f"A model named '{base}' already exists in this workspace ('{taken[0]}').",
                details={"name": base, "existing_model_id": taken[0], "existing_model_ids": taken[:_MAX_LISTED_IDS]},
                suggestions=[f"Choose another model name (e.g. '{base}_2'), or omit it to get an automatic id."],
            )
        return f"{base}.{suffix}"

    # ---- models: rows and files

    def add_model(
        self,
        workspace: str,
        model_id: str,
        model: cobra.Model | SerializedModel,
        *,
        model_name: str | None,
        source: str,
        template: str | None,
        derived_from: str | None,
        extra: dict[str, Any] | None = None,
    ) -> ModelRow:
        """Store `model` under `model_id`: file first (atomically), then the row in one transaction.

        The caller keeps ownership of `model`; the store keeps the serialized copy (it is not put
        into the cache, so later changes by the caller cannot leak into stored state).
        """
        check_workspace(workspace)
        check_model_id(model_id)
        if source not in MODEL_SOURCES:
            raise ValidationError(
                ErrorCode.INVALID_SOURCE,
                f"Unknown model source '{source}'.",
                details={"provided": source, "valid_values": list(MODEL_SOURCES)},
            )
        extra_json = _to_json(extra or {}, "extra")
        if self.db.model_exists(workspace, model_id):
            raise self._model_id_exists(workspace, model_id)
        serialized = model if isinstance(model, SerializedModel) else serialize_model(model, model_id)
        data = serialized.data
        stats = dict(serialized.stats)
        file_name = f"{uuid.uuid4().hex}.json"
        path = self.models_dir / workspace / file_name
        try:
            atomic_write_bytes(path, data)
        except OSError as exc:
            raise DatabaseError(
                ErrorCode.MODEL_SAVE_FAILED,
                f"Could not write the file of model '{model_id}': {exc}",
                details={"model_id": model_id, "path": str(path)},
                suggestions=["Check free disk space and permissions of the state folder."],
            ) from exc
        row = ModelRow(
            workspace=workspace,
            model_id=model_id,
            model_name=model_name,
            state=model_state(model_id),
            source=source,
            template=template,
            compartments=stats.pop("compartments"),
            objective=stats.pop("objective"),
            derived_from=derived_from,
            created_at=utc_now(),
            file_size=len(data),
            file_sha256=hashlib.sha256(data).hexdigest(),
            last_media_id=None,
            extra=json.loads(extra_json),
            **stats,
        )
        try:
            inserted = self.db.insert_model(row, file_name)
        except BaseException:
            path.unlink(missing_ok=True)
            raise
        if not inserted:  # lost a race for the id between the check above and the insert
            path.unlink(missing_ok=True)
            raise self._model_id_exists(workspace, model_id)
        return row

    def get_model_row(self, workspace: str, model_id: str) -> ModelRow:
        check_workspace(workspace)
        found = self.db.get_model(workspace, model_id)
        if found is None:
            raise self._model_not_found(workspace, model_id)
        return found[0]

    def list_models(self, workspace: str) -> list[ModelRow]:
        """All models of the workspace, oldest first. Pure SQL: no model file is read."""
        check_workspace(workspace)
        return self.db.list_models(workspace)

    def delete_model(self, workspace: str, model_id: str) -> ModelRow:
        """Delete the row and its results (one transaction), then the file; returns the deleted row."""
        check_workspace(workspace)
        deleted = self.db.delete_model(workspace, model_id)
        if deleted is None:
            raise self._model_not_found(workspace, model_id)
        row, file_name = deleted
        self.cache.drop((workspace, model_id))  # a thread inside checkout keeps its object
        try:
            (self.models_dir / workspace / file_name).unlink(missing_ok=True)
        except OSError as exc:  # the row is gone; the orphan file is removed at the next open
            log.warning("could not delete model file %s: %s", file_name, exc)
        return row

    def set_last_media(self, workspace: str, model_id: str, media_id: str) -> None:
        check_workspace(workspace)
        if not self.db.set_last_media(workspace, model_id, media_id):
            raise self._model_not_found(workspace, model_id)

    # ---- models: loading through the cache

    def checkout(self, workspace: str, model_id: str) -> AbstractContextManager[cobra.Model]:
        """`with store.checkout(ws, id) as model:` yields the cached COBRApy model.

        The model's lock is held for the whole block, so other threads wait for it. The object is
        shared with later checkouts: make temporary changes inside `with model:` (COBRApy reverts
        them on exit); to keep changes, `add_model` a copy under a new id.
        """
        check_workspace(workspace)
        return self._checkout(workspace, model_id)

    @contextmanager
    def _checkout(self, workspace: str, model_id: str) -> Iterator[cobra.Model]:
        found = self.db.get_model(workspace, model_id)
        if found is None:
            raise self._model_not_found(workspace, model_id)
        row, file_name = found
        with self.cache.checkout((workspace, model_id), file_name, MODEL_BYTES_PER_JSON_BYTE * row.file_size,
                                 lambda: self._load_model_file(row, file_name)) as model:
            yield model

    def model_data(self, workspace: str, model_id: str) -> bytes:
        """The stored COBRApy JSON of a model (checksum verified), e.g. to hand to a worker process."""
        check_workspace(workspace)
        found = self.db.get_model(workspace, model_id)
        if found is None:
            raise self._model_not_found(workspace, model_id)
        return self._read_model_file(*found)

    def _load_model_file(self, row: ModelRow, file_name: str) -> cobra.Model:
        data = self._read_model_file(row, file_name)
        path = self.models_dir / row.workspace / file_name
        try:
            from cobra.io import from_json

            return from_json(data.decode("utf-8"))
        except Exception as exc:  # checksum matched, so this would be a writer bug
            raise self._corrupt(row, path, f"{type(exc).__name__}: {str(exc)[:300]}") from exc

    def _read_model_file(self, row: ModelRow, file_name: str) -> bytes:
        path = self.models_dir / row.workspace / file_name
        try:
            data = path.read_bytes()
        except FileNotFoundError as exc:
            current = self.db.get_model(row.workspace, row.model_id)
            if current is None:  # deleted meanwhile
                raise self._model_not_found(row.workspace, row.model_id) from exc
            if current[1] != file_name:  # deleted and re-added meanwhile
                raise DatabaseError(
                    ErrorCode.MODEL_CHANGED, f"Model '{row.model_id}' was replaced while it was being loaded.",
                    details={"model_id": row.model_id}, suggestions=["Retry the call."],
                ) from exc
            raise self._corrupt(row, path, "the model file is missing") from exc
        except OSError as exc:
            raise self._corrupt(row, path, f"the model file cannot be read: {exc}") from exc
        digest = hashlib.sha256(data).hexdigest()
        if digest != row.file_sha256:
            raise self._corrupt(row, path, f"sha256 {digest} does not match the recorded {row.file_sha256}")
        return data

    @property
    def cache_max_models(self) -> int:
        return self.cache.max_models

    @property
    def cache_max_bytes(self) -> int:
        return self.cache.max_bytes

    @cache_max_bytes.setter
    def cache_max_bytes(self, value: int) -> None:
        self.cache.max_bytes = value

    @property
    def idle_seconds(self) -> float:
        return self.cache.idle_seconds

    def evict_idle(self, now: float | None = None) -> int:
        """Drop cached models unused for more than `idle_seconds` (see ModelCache.evict_idle)."""
        return self.cache.evict_idle(now)

    def cache_stats(self) -> dict[str, Any]:
        return self.cache.stats()

    def cached_model_ids(self, workspace: str) -> list[str]:
        """Ids of the workspace's models currently in the cache, least recently used first."""
        return self.cache.model_ids(workspace)

    # ---- media

    def add_media(self, row: MediaRow) -> MediaRow:
        """Store a medium; DUPLICATE_NAME if the id exists. An empty `created_at` is set to now."""
        check_workspace(row.workspace)
        check_media_id(row.media_id)
        compounds: dict[str, tuple[float, float]] = {}
        for cpd, bounds in row.compounds.items():
            if not isinstance(cpd, str) or not cpd:
                raise ValidationError(ErrorCode.INVALID_MEDIA, "Compound ids must be non-empty strings.",
                                      details={"compound": repr(cpd)})
            try:
                lower, upper = (float(bounds[0]), float(bounds[1]))
            except (TypeError, ValueError, IndexError) as exc:
                raise ValidationError(
                    ErrorCode.INVALID_MEDIA, f"Bounds of {cpd} must be a pair of numbers (lower, upper).",
                    details={"compound": cpd, "bounds": repr(bounds)},
                ) from exc
            if not (math.isfinite(lower) and math.isfinite(upper)) or lower > upper:
                raise ValidationError(
                    ErrorCode.INVALID_MEDIA, f"Bounds of {cpd} must be finite with lower <= upper.",
                    details={"compound": cpd, "lower": lower, "upper": upper},
                )
            compounds[cpd] = (lower, upper)
        if row.default_uptake is not None and not math.isfinite(row.default_uptake):
            raise ValidationError(ErrorCode.INVALID_MEDIA, "default_uptake must be a finite number.",
                                  details={"default_uptake": row.default_uptake})
        stored = replace(row, compounds=compounds, created_at=row.created_at or utc_now())
        if not self.db.insert_media(stored):
            raise ValidationError(
                ErrorCode.DUPLICATE_NAME,
                f"A medium named '{row.media_id}' already exists in this workspace.",
                details={"name": row.media_id, "existing_media_id": row.media_id},
                suggestions=[f"Choose another media name (e.g. '{row.media_id}_2'), or omit it for an automatic id."],
            )
        return stored

    def get_media(self, workspace: str, media_id: str) -> MediaRow:
        check_workspace(workspace)
        found = self.db.get_media(workspace, media_id)
        if found is None:
            raise self._media_not_found(workspace, media_id)
        return found

    def list_media(self, workspace: str) -> list[MediaRow]:
        """All media of the workspace, oldest first."""
        check_workspace(workspace)
        return self.db.list_media(workspace)

    def delete_media(self, workspace: str, media_id: str) -> MediaRow:
        check_workspace(workspace)
        deleted = self.db.delete_media(workspace, media_id)
        if deleted is None:
            raise self._media_not_found(workspace, media_id)
        return deleted

    def new_media_id(self, workspace: str) -> str:
        """A free `media_<YYYYMMDD>_<HHMMSS>_<xxxxxx>` (local time; CONTRACTS §14)."""
        check_workspace(workspace)
        for _ in range(100):
            candidate = f"media_{datetime.now().strftime('%Y%m%d_%H%M%S')}_{random_token()}"
            if not self.db.media_exists(workspace, candidate):
                return candidate
        raise DatabaseError(ErrorCode.ID_EXHAUSTED, "Could not find a free automatic media id after 100 tries.")

    # ---- results

    def add_result(
        self, workspace: str, model_id: str, kind: str, media_id: str | None, summary: dict[str, Any]
    ) -> ResultRow:
        """Record a result (an FBA, a gapfill, ...) against a stored model."""
        check_workspace(workspace)
        if not KIND_RE.match(kind):
            raise ValidationError(
                ErrorCode.INVALID_RESULT_KIND, f"Result kind '{kind}' must match {KIND_RE.pattern}.",
                details={"provided": kind, "examples": ["fba", "gapfill", "revision"]},
            )
        result = self.db.insert_result(workspace, model_id, kind, media_id, _to_json(summary, "summary"))
        if result is None:
            raise self._model_not_found(workspace, model_id)
        return result

    def list_results(self, workspace: str, model_id: str, limit: int = 20) -> list[ResultRow]:
        """Newest first; an unknown model simply has no results."""
        check_workspace(workspace)
        if not 1 <= limit <= MAX_RESULTS_LIMIT:
            raise ValidationError(
                ErrorCode.INVALID_LIMIT, f"limit must be between 1 and {MAX_RESULTS_LIMIT}.",
                details={"provided": limit, "min": 1, "max": MAX_RESULTS_LIMIT},
            )
        return self.db.list_results(workspace, model_id, limit)

    # ---- housekeeping

    def cleanup_orphans(self) -> int:
        """Delete model files no row references and leftover temp files; returns how many.

        Only safe while no other process writes to this state folder (`__init__` checks that).
        """
        referenced = self.db.referenced_files()
        removed = 0
        for folder in sorted(p for p in self.models_dir.iterdir() if p.is_dir()):
            for path in folder.iterdir():
                name = path.name
                temp = name.startswith(".") and name.endswith(".tmp")  # fsutil's temp-file pattern
                orphan = bool(_MODEL_FILE_RE.match(name)) and (folder.name, name) not in referenced
                if (temp or orphan) and path.is_file():
                    try:
                        path.unlink()
                        removed += 1
                    except OSError as exc:
                        log.warning("could not remove orphan file %s: %s", path, exc)
        if removed:
            log.info("state store: removed %d orphan/temp model file(s) under %s", removed, self.models_dir)
        else:
            log.debug("state store: no orphan model files under %s", self.models_dir)
        return removed

    # ---- errors

    def _model_not_found(self, workspace: str, model_id: str) -> NotFoundError:
        ids, total = self.db.model_ids(workspace, _MAX_LISTED_IDS)
        close = difflib.get_close_matches(model_id, ids, n=3, cutoff=0.6)
        return NotFoundError(
            ErrorCode.MODEL_NOT_FOUND,
            f"Model '{model_id}' does not exist in this workspace.",
            details={"model_id": model_id, "available_models": ids, "num_available": total,
                     **({"did_you_mean": close} if close else {})},
            suggestions=[f"Did you mean {', '.join(repr(c) for c in close)}?"] if close else [],
        )

    def _model_id_exists(self, workspace: str, model_id: str) -> ValidationError:
        return ValidationError(
            ErrorCode.MODEL_ID_EXISTS,
            f"A model with id '{model_id}' already exists in this workspace.",
            details={"model_id": model_id, "workspace": workspace},
            suggestions=["Use a different model name."],
        )

    def _media_not_found(self, workspace: str, media_id: str) -> NotFoundError:
        ids, total = self.db.media_ids(workspace, _MAX_LISTED_IDS)
        close = difflib.get_close_matches(media_id, ids, n=3, cutoff=0.6)
        return NotFoundError(
            ErrorCode.MEDIA_NOT_FOUND,
            f"Medium '{media_id}' does not exist in this workspace.",
            details={"media_id": media_id, "available_media": ids, "num_available": total,
                     **({"did_you_mean": close} if close else {})},
            suggestions=[f"Did you mean {', '.join(repr(c) for c in close)}?"] if close else [],
        )

    @staticmethod
    def _corrupt(row: ModelRow, path: Path, reason: str) -> DatabaseError:
        return DatabaseError(
            ErrorCode.MODEL_FILE_CORRUPT,
            f"The stored file of model '{row.model_id}' is damaged: {reason}.",
            details={"model_id": row.model_id, "path": str(path), "reason": reason},
        )


def derived_model_id(store: Store, workspace: str, parent_id: str, suffix: str = "gf") -> str:
    """The id for a model derived from `parent_id`: `<parent>.<suffix>`, else `.v2`, `.v3`, ...

    Gapfilling `X.draft` gives `X.draft.gf`; gapfilling `X` gives `X.gf` (CONTRACTS §13). A second
    gapfill of the same parent (e.g. on another medium) gives `X.draft.gf.v2`, then `.v3`: the
    `.gf` stays in the id, so the state read off the id stays "gapfilled". With another suffix
    (e.g. "rev" for revisions) the state is inherited from the parent's id.
    """
    check_workspace(workspace)
    check_model_id(parent_id)
    if not SUFFIX_RE.match(suffix):
        raise ValidationError(
            ErrorCode.INVALID_SUFFIX,
            f"Suffix '{suffix}' must match {SUFFIX_RE.pattern}.", details={"provided": suffix}
        )
    base = f"{parent_id}.{suffix}"
    taken = set(store.db.model_ids_with_prefix(workspace, base))
    if base not in taken:
        return base
    version = 2
    while f"{base}.v{version}" in taken:
        version += 1
    return f"{base}.v{version}"


# ---- helpers





def _to_json(value: dict[str, Any], what: str) -> str:
    if not isinstance(value, dict):
        raise ValidationError(ErrorCode.INVALID_JSON, f"{what} must be a dict.", details={"type": type(value).__name__})
    try:
        return json.dumps(value)
    except (TypeError, ValueError) as exc:
        raise ValidationError(
            ErrorCode.INVALID_JSON, f"{what} is not JSON-serializable: {exc}", details={"field": what}
        ) from exc


# ---- cross-process advisory lock (POSIX flock; released by the kernel when a process dies)


def _acquire_process_lock(path: Path) -> tuple[int | None, bool]:
    """Open the lock file; returns (fd, alone) where alone = no other process holds it."""
    if sys.platform == "win32":  # no flock: assume one process per state folder
        return None, True
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return fd, False
    return fd, True


def _share_process_lock(fd: int | None) -> None:
    """Hold a shared lock for the Store's lifetime (waits while another process cleans up)."""
    if fd is None or sys.platform == "win32":
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_SH)
