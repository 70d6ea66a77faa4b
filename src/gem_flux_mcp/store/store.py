"""The persistent store: models (rows + their COBRApy JSON), media, results, and a bounded model cache.

Where it lives: by default a SQLite file under the state folder, `gemflux.sqlite` (WAL); with a
database URL (`GEMFLUX_DATABASE_URL` / `--database-url`), a PostgreSQL database that several
servers share. Both hold the same tables (db.py, schema.py); a model's JSON is kept
gzip-compressed in the `model_files` table, written in the same transaction as the model's row
(model_files.py), so a crash at any moment leaves either both or neither, and servers on
different machines need no shared folder.

The Store ties together the modules that hold the parts: the id grammar (ids.py) and the choice of
free ids (id_allocation.py), the SQL (db.py; engine.py for what differs between SQLite and
PostgreSQL), the stored model files (model_files.py), the loaded-model cache (model_cache.py),
serialisation (serialization.py) and value checks (value_checks.py).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import logging
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DatabaseError, NotFoundError, ValidationError
from gem_flux_mcp.rules.catalog import DEFAULT_UPTAKE
from gem_flux_mcp.store.db import DB_FILE_NAME, Database
from gem_flux_mcp.store.engine import SQLITE
from gem_flux_mcp.store.id_allocation import MAX_LISTED_IDS, derived_model_id, new_media_id, new_model_id
from gem_flux_mcp.store.ids import check_community_id, check_media_id, check_model_id, check_workspace, random_token
from gem_flux_mcp.store.model_cache import ModelCache
from gem_flux_mcp.store.model_files import (
    LEGACY_MODELS_DIR,
    corrupt_model_file,
    import_legacy_files,
    new_file_name,
    pack_model_data,
    parse_model_file,
    unpack_model_data,
)
from gem_flux_mcp.store.rows import (
    MODEL_SOURCES,
    CommunityResultRow,
    CommunityRow,
    MediaRow,
    ModelRow,
    ResultRow,
    model_state,
    utc_now,
)
from gem_flux_mcp.store.serialization import SerializedModel, serialize_model
from gem_flux_mcp.store.value_checks import (
    check_result_kind,
    check_results_limit,
    checked_compounds,
    to_json,
)

# COBRApy takes ~2 s to import: imported where first used, so the server answers tools/list fast.
if TYPE_CHECKING:
    import cobra

__all__ = ["MODEL_BYTES_PER_JSON_BYTE", "MediaRow", "ModelRow", "ResultRow", "Store"]

log = logging.getLogger(__name__)

# Estimated resident size of a loaded COBRApy model per byte of its JSON file: loading a model
# from COBRApy JSON was measured to peak at ~25x the JSON size in RAM. Rough, but it scales
# with model size, which is all the cache budget needs.
MODEL_BYTES_PER_JSON_BYTE = 25


class Store:
    """Workspaces, models, media and results, persisted in a SQLite file under `state_dir`, or in
    the database `database_url` names (PostgreSQL); thread-safe, and several processes may share
    one database."""

    def __init__(
        self,
        state_dir: Path,
        *,
        database_url: str | None = None,
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
        self._reserved: dict[str, set[str]] = {}  # workspace -> ids promised to running jobs
        self._reserving = threading.Lock()
        self.cache = ModelCache(cache_max_models, cache_max_bytes, idle_seconds)
        self.db = Database(database_url or self.state_dir / DB_FILE_NAME)
        try:
            if self.db.dialect == SQLITE and self.db.path is not None:
                # a state folder of an earlier release keeps its model files in models/
                import_legacy_files(self.db, self.db.path.parent / LEGACY_MODELS_DIR)
        except BaseException:
            self.close()
            raise

    @property
    def location(self) -> str:
        """Where the state is, for logs and pages: the SQLite file, or the URL without its password."""
        return self.db.location

    def close(self) -> None:
        """Close the database and drop the cache. Idempotent."""
        self.db.close()
        self.cache.clear()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- models: ids

    def new_model_id(self, workspace: str, base: str | None, state: str) -> str:
        """A free id: `model_<YYYYMMDD>_<HHMMSS>_<xxxxxx>.<state>` without a base, else `<base>.<state>`
        (see `id_allocation.new_model_id`); only reserved by `add_model`."""
        return new_model_id(self.db, workspace, base, state)

    def derived_model_id(self, workspace: str, parent_id: str, suffix: str = "gf") -> str:
        """The id for a model derived from `parent_id` (see `id_allocation.derived_model_id`),
        besides the ids reserved for running jobs; only reserved by `add_model`."""
        with self._reserving:
            return derived_model_id(self.db, workspace, parent_id, suffix, self._reserved.get(workspace, ()))

    def reserve_derived_model_id(self, workspace: str, parent_id: str, suffix: str = "gf") -> str:
        """A derived id promised to a job until it stores its model (`add_model`) or gives up
        (`release_model_id`): two jobs on one parent started together get `.gf` and `.gf.v2`, and
        each stores its model under the id it was given. (Across servers sharing one database,
        `add_model` still refuses a taken id.)"""
        with self._reserving:
            reserved = self._reserved.setdefault(workspace, set())
            model_id = derived_model_id(self.db, workspace, parent_id, suffix, reserved)
            reserved.add(model_id)
            return model_id

    def release_model_id(self, workspace: str, model_id: str) -> None:
        """Forget a reservation (the job stored its model, failed or was cancelled)."""
        with self._reserving:
            self._reserved.get(workspace, set()).discard(model_id)

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
        """Store `model` under `model_id`: its row and its compressed JSON in one transaction.

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
        extra_json = to_json(extra or {}, "extra")
        if self.db.model_exists(workspace, model_id):  # answers early; the insert decides
            raise self._model_id_exists(workspace, model_id)
        serialized = model if isinstance(model, SerializedModel) else serialize_model(model, model_id)
        data = serialized.data
        stats = dict(serialized.stats)
        packed = pack_model_data(data)  # before the transaction: no lock held while compressing
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
        if not self.db.insert_model(row, new_file_name(), packed):
            # lost a race for the id (another thread or server) between the check and the insert
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
        """Delete the row, its file and its results (one transaction); returns the deleted row."""
        check_workspace(workspace)
        deleted = self.db.delete_model(workspace, model_id)
        if deleted is None:
            raise self._model_not_found(workspace, model_id)
        self.cache.drop((workspace, model_id))  # a thread inside checkout keeps its object
        return deleted[0]

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
        return parse_model_file(data, row, file_name)

    def _read_model_file(self, row: ModelRow, file_name: str) -> bytes:
        packed = self.db.model_file(row.workspace, file_name)
        if packed is None:
            current = self.db.get_model(row.workspace, row.model_id)
            if current is None:  # deleted meanwhile
                raise self._model_not_found(row.workspace, row.model_id)
            if current[1] != file_name:  # deleted and re-added meanwhile
                raise DatabaseError(
                    ErrorCode.MODEL_CHANGED, f"Model '{row.model_id}' was replaced while it was being loaded.",
                    details={"model_id": row.model_id}, suggestions=["Retry the call."],
                )
            raise corrupt_model_file(row, file_name, "the model file is missing")
        return unpack_model_data(packed, row, file_name)

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
        compounds = checked_compounds(row.compounds)
        if row.default_uptake is not None:  # None: a medium without one default uptake
            DEFAULT_UPTAKE.check(row.default_uptake)
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
        """A free `media_<YYYYMMDD>_<HHMMSS>_<xxxxxx>` (local time)."""
        return new_media_id(self.db, workspace)

    # ---- results

    def add_result(
        self, workspace: str, model_id: str, kind: str, media_id: str | None, summary: dict[str, Any]
    ) -> ResultRow:
        """Record a result (an FBA, a gapfill, ...) against a stored model."""
        check_workspace(workspace)
        check_result_kind(kind)
        result = self.db.insert_result(workspace, model_id, kind, media_id, to_json(summary, "summary"))
        if result is None:
            raise self._model_not_found(workspace, model_id)
        return result

    def list_results(self, workspace: str, model_id: str, limit: int = 20) -> list[ResultRow]:
        """Newest first; an unknown model simply has no results."""
        check_workspace(workspace)
        check_results_limit(limit)
        return self.db.list_results(workspace, model_id, limit)

    # ---- communities

    def add_community(self, row: CommunityRow) -> CommunityRow:
        """Store a community (one insert); DUPLICATE_NAME if the id exists. An empty `created_at`
        is set to now, an empty id to a free `community_<YYYYMMDD>_<HHMMSS>_<xxxxxx>`."""
        check_workspace(row.workspace)
        community_id = row.community_id
        if not community_id:
            from datetime import datetime

            community_id = f"community_{datetime.now().strftime('%Y%m%d_%H%M%S')}_{random_token()}"
        check_community_id(community_id)
        stored = replace(row, community_id=community_id, created_at=row.created_at or utc_now())
        json.loads(to_json({"members": stored.members}, "members"))  # refuses what JSON cannot keep
        if not self.db.insert_community(stored):
            raise ValidationError(
                ErrorCode.DUPLICATE_NAME, f"A community named '{community_id}' already exists in this workspace.",
                details={"name": community_id},
                suggestions=[f"Choose another community name (e.g. '{community_id}_2'), or omit it for an "
                             "automatic id."])
        return stored

    def get_community(self, workspace: str, community_id: str) -> CommunityRow:
        check_workspace(workspace)
        found = self.db.get_community(workspace, community_id)
        if found is None:
            known = [c.community_id for c in self.db.list_communities(workspace)]
            close = difflib.get_close_matches(community_id, known, n=3, cutoff=0.6)
            raise NotFoundError(
                ErrorCode.COMMUNITY_NOT_FOUND, f"Community '{community_id}' does not exist in this workspace.",
                details={"community_id": community_id, "available_communities": known[:MAX_LISTED_IDS],
                         "num_available": len(known), **({"did_you_mean": close} if close else {})},
                suggestions=[f"Did you mean {', '.join(repr(c) for c in close)}?"] if close else [])
        return found

    def list_communities(self, workspace: str) -> list[CommunityRow]:
        """Oldest first."""
        check_workspace(workspace)
        return self.db.list_communities(workspace)

    def community_result_counts(self, workspace: str) -> dict[str, int]:
        """{community id: results recorded with it}."""
        check_workspace(workspace)
        return self.db.count_community_results(workspace)

    def delete_community(self, workspace: str, community_id: str) -> tuple[CommunityRow, int]:
        """Delete the community and the results recorded with it (one transaction); returns the
        deleted row and how many results went with it. COMMUNITY_NOT_FOUND (nothing deleted) for
        an unknown id."""
        check_workspace(workspace)
        deleted = self.db.delete_community(workspace, community_id)
        if deleted is None:
            self.get_community(workspace, community_id)  # raises COMMUNITY_NOT_FOUND with its hints
            raise DatabaseError(ErrorCode.DATABASE_ERROR, "The community was not deleted.")
        return deleted

    def add_community_result(self, workspace: str, community_id: str, kind: str, media_id: str | None,
                             summary: dict[str, Any]) -> CommunityResultRow:
        check_workspace(workspace)
        check_result_kind(kind)
        found = self.db.insert_community_result(workspace, community_id, kind, media_id, to_json(summary, "summary"))
        if found is None:
            self.get_community(workspace, community_id)  # raises COMMUNITY_NOT_FOUND
            raise DatabaseError(ErrorCode.DATABASE_ERROR, "The community result was not stored.")
        return found

    def list_community_results(self, workspace: str, community_id: str, limit: int = 20) -> list[CommunityResultRow]:
        """Newest first."""
        check_workspace(workspace)
        check_results_limit(limit)
        return self.db.list_community_results(workspace, community_id, limit)

    # ---- errors

    def _model_not_found(self, workspace: str, model_id: str) -> NotFoundError:
        ids, total = self.db.model_ids(workspace, MAX_LISTED_IDS)
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
        ids, total = self.db.media_ids(workspace, MAX_LISTED_IDS)
        close = difflib.get_close_matches(media_id, ids, n=3, cutoff=0.6)
        return NotFoundError(
            ErrorCode.MEDIA_NOT_FOUND,
            f"Medium '{media_id}' does not exist in this workspace.",
            details={"media_id": media_id, "available_media": ids, "num_available": total,
                     **({"did_you_mean": close} if close else {})},
            suggestions=[f"Did you mean {', '.join(repr(c) for c in close)}?"] if close else [],
        )
