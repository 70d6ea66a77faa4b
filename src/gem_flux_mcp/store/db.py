"""The state database: migrations (schema.py) and the SQL of workspaces, models, media and results.

Why the SQL stays in a few modules (this one; sqlite_access.py for connections and transactions;
activity_queries.py for MCP sessions and tool calls): the store is SQLite now and is meant to move
to PostgreSQL when a lab outgrows one machine, so the port should touch these modules only.
Statements stick to the subset both engines accept; the SQLite-only parts are the PRAGMAs, `?`
placeholders and `AUTOINCREMENT` (marked).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from pathlib import Path

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DatabaseError
from gem_flux_mcp.store.activity_queries import ActivityQueries
from gem_flux_mcp.store.row_mapping import PRUNED_RESULT_KINDS, RESULTS_KEPT_PER_KIND, media_row, model_row
from gem_flux_mcp.store.rows import MediaRow, ModelRow, ResultRow, utc_now
from gem_flux_mcp.store.schema import MIGRATIONS, split_sql
from gem_flux_mcp.store.sqlite_access import BUSY_TIMEOUT_SECONDS, SqliteAccess

__all__ = ["BUSY_TIMEOUT_SECONDS", "DB_FILE_NAME", "Database"]

log = logging.getLogger(__name__)

DB_FILE_NAME = "gemflux.sqlite"


_MODEL_COLUMNS = (
    "workspace, model_id, model_name, state, source, template, num_reactions, num_metabolites, num_genes, "
    "num_exchanges, compartments_json, objective, derived_from, created_at, file_name, file_size, file_sha256, "
    "last_media_id, extra_json"
)
_MEDIA_COLUMNS = "workspace, media_id, media_name, compounds_json, default_uptake, created_at, description"
_RESULT_COLUMNS = "id, workspace, model_id, kind, media_id, created_at, summary_json"


class Database(ActivityQueries, SqliteAccess):
    """One SQLite file, one connection per thread, versioned migrations applied at open."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise DatabaseError(
                ErrorCode.STATE_DIR_UNWRITABLE,
                f"Cannot create the state folder {path.parent}: {exc}",
                details={"state_dir": str(path.parent)},
                suggestions=["Pass a writable folder with --state-dir or GEMFLUX_STATE_DIR."],
            ) from exc
        try:
            conn = self.connection()
            mode = conn.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        except sqlite3.Error as exc:
            self.close()
            raise DatabaseError(
                ErrorCode.STATE_DB_OPEN_FAILED,
                f"Cannot open the state database {path}: {exc}",
                details={"path": str(path), "sqlite_error": str(exc)},
                suggestions=[
                    "Check that the file is a gem-flux state database and the folder is writable.",
                    "Start with an empty folder via --state-dir or GEMFLUX_STATE_DIR to keep the old file aside.",
                ],
            ) from exc
        if str(mode).lower() != "wal":
            # Some network file systems refuse WAL; the store still works, with more lock waits.
            log.warning("state database %s: journal_mode is %s, not WAL", path, mode)
        try:
            self._migrate()
        except BaseException:
            self.close()
            raise

    # migrations

    def _migrate(self) -> None:
        with self.transaction() as conn:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
        self._check_not_too_new()
        for migration in MIGRATIONS:
            # One transaction per migration; the re-check inside it makes two processes opening
            # the same fresh database at once apply each migration exactly once.
            with self.transaction() as conn:
                done = conn.execute(
                    "SELECT 1 FROM schema_migrations WHERE version = ?", (migration.version,)
                ).fetchone()
                if done:
                    continue
                for statement in split_sql(migration.sql):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                    (migration.version, migration.name, utc_now()),
                )
                log.info("state database %s: applied migration %d (%s)", self.path, migration.version, migration.name)

    def _check_not_too_new(self) -> None:
        version = self.schema_version()
        known = MIGRATIONS[-1].version
        if version > known:
            raise DatabaseError(
                ErrorCode.STATE_DB_TOO_NEW,
                f"The state database {self.path} has schema version {version}, but this gem-flux "
                f"only knows versions up to {known}; it was written by a newer release.",
                details={"path": str(self.path), "db_version": version, "code_version": known},
                suggestions=[
                    "Upgrade gem-flux to the release that created this database.",
                    "Or use another state folder (--state-dir / GEMFLUX_STATE_DIR); the database is left unchanged.",
                ],
            )

    def schema_version(self) -> int:
        row = self._read("SELECT MAX(version) AS v FROM schema_migrations")
        return int(row[0]["v"] or 0)

    def applied_migrations(self) -> list[tuple[int, str, str]]:
        rows = self._read("SELECT version, name, applied_at FROM schema_migrations ORDER BY version")
        return [(int(r["version"]), str(r["name"]), str(r["applied_at"])) for r in rows]

    # workspaces

    @staticmethod
    def _ensure_workspace(conn: sqlite3.Connection, workspace: str) -> None:
        conn.execute(
            "INSERT INTO workspaces (id, created_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
            (workspace, utc_now()),
        )

    def workspaces(self) -> list[str]:
        return [str(r["id"]) for r in self._read("SELECT id FROM workspaces ORDER BY created_at, id")]

    # models

    def insert_model(self, row: ModelRow, file_name: str) -> bool:
        """Insert the row; False (nothing written) if the id is taken in that workspace."""
        with self.transaction() as conn:
            if conn.execute(
                "SELECT 1 FROM models WHERE workspace = ? AND model_id = ?", (row.workspace, row.model_id)
            ).fetchone():
                return False
            self._ensure_workspace(conn, row.workspace)
            conn.execute(
                f"INSERT INTO models ({_MODEL_COLUMNS}) VALUES ({', '.join('?' * 19)})",
                (
                    row.workspace, row.model_id, row.model_name, row.state, row.source, row.template,
                    row.num_reactions, row.num_metabolites, row.num_genes, row.num_exchanges,
                    json.dumps(row.compartments), row.objective, row.derived_from, row.created_at, file_name,
                    row.file_size, row.file_sha256, row.last_media_id, json.dumps(row.extra),
                ),
            )
        return True

    def get_model(self, workspace: str, model_id: str) -> tuple[ModelRow, str] | None:
        """The row and its file name, or None."""
        rows = self._read(
            f"SELECT {_MODEL_COLUMNS} FROM models WHERE workspace = ? AND model_id = ?", (workspace, model_id)
        )
        return (model_row(rows[0]), str(rows[0]["file_name"])) if rows else None

    def model_exists(self, workspace: str, model_id: str) -> bool:
        return bool(self._read("SELECT 1 FROM models WHERE workspace = ? AND model_id = ?", (workspace, model_id)))

    def list_models(self, workspace: str) -> list[ModelRow]:
        rows = self._read(
            f"SELECT {_MODEL_COLUMNS} FROM models WHERE workspace = ? ORDER BY created_at, model_id", (workspace,)
        )
        return [model_row(r) for r in rows]

    def model_ids(self, workspace: str, limit: int) -> tuple[list[str], int]:
        """Up to `limit` ids (oldest first) and the total count, for not-found messages."""
        ids = self._read(
            "SELECT model_id FROM models WHERE workspace = ? ORDER BY created_at, model_id LIMIT ?", (workspace, limit)
        )
        total = self._read("SELECT COUNT(*) AS n FROM models WHERE workspace = ?", (workspace,))
        return [str(r["model_id"]) for r in ids], int(total[0]["n"])

    def model_ids_with_prefix(self, workspace: str, prefix: str) -> list[str]:
        """Ids equal to `prefix` or starting with it (substr, not LIKE: `_` is a LIKE wildcard)."""
        rows = self._read(
            "SELECT model_id FROM models WHERE workspace = ? AND substr(model_id, 1, ?) = ? "
            "ORDER BY created_at, model_id",
            (workspace, len(prefix), prefix),
        )
        return [str(r["model_id"]) for r in rows]

    def delete_model(self, workspace: str, model_id: str) -> tuple[ModelRow, str] | None:
        """Delete the row and its results in one transaction; returns what was deleted, or None."""
        with self.transaction() as conn:
            found = conn.execute(
                f"SELECT {_MODEL_COLUMNS} FROM models WHERE workspace = ? AND model_id = ?", (workspace, model_id)
            ).fetchone()
            if found is None:
                return None
            conn.execute("DELETE FROM results WHERE workspace = ? AND model_id = ?", (workspace, model_id))
            conn.execute("DELETE FROM models WHERE workspace = ? AND model_id = ?", (workspace, model_id))
        return model_row(found), str(found["file_name"])

    def set_last_media(self, workspace: str, model_id: str, media_id: str) -> bool:
        with self.transaction() as conn:
            cursor = conn.execute(
                "UPDATE models SET last_media_id = ? WHERE workspace = ? AND model_id = ?",
                (media_id, workspace, model_id),
            )
            return cursor.rowcount > 0

    def referenced_files(self) -> set[tuple[str, str]]:
        """(workspace, file name) of every stored model, across all workspaces (orphan scan)."""
        rows = self._read("SELECT workspace, file_name FROM models")
        return {(str(r["workspace"]), str(r["file_name"])) for r in rows}

    # media

    def insert_media(self, row: MediaRow) -> bool:
        """Insert the medium; False (nothing written) if the id is taken in that workspace."""
        with self.transaction() as conn:
            if conn.execute(
                "SELECT 1 FROM media WHERE workspace = ? AND media_id = ?", (row.workspace, row.media_id)
            ).fetchone():
                return False
            self._ensure_workspace(conn, row.workspace)
            conn.execute(
                f"INSERT INTO media ({_MEDIA_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    row.workspace, row.media_id, row.media_name,
                    json.dumps([[cpd, lo, hi] for cpd, (lo, hi) in row.compounds.items()]),
                    row.default_uptake, row.created_at, row.description,
                ),
            )
        return True

    def get_media(self, workspace: str, media_id: str) -> MediaRow | None:
        rows = self._read(
            f"SELECT {_MEDIA_COLUMNS} FROM media WHERE workspace = ? AND media_id = ?", (workspace, media_id)
        )
        return media_row(rows[0]) if rows else None

    def media_exists(self, workspace: str, media_id: str) -> bool:
        return bool(self._read("SELECT 1 FROM media WHERE workspace = ? AND media_id = ?", (workspace, media_id)))

    def list_media(self, workspace: str) -> list[MediaRow]:
        rows = self._read(
            f"SELECT {_MEDIA_COLUMNS} FROM media WHERE workspace = ? ORDER BY created_at, media_id", (workspace,)
        )
        return [media_row(r) for r in rows]

    def media_ids(self, workspace: str, limit: int) -> tuple[list[str], int]:
        ids = self._read(
            "SELECT media_id FROM media WHERE workspace = ? ORDER BY created_at, media_id LIMIT ?", (workspace, limit)
        )
        total = self._read("SELECT COUNT(*) AS n FROM media WHERE workspace = ?", (workspace,))
        return [str(r["media_id"]) for r in ids], int(total[0]["n"])

    def delete_media(self, workspace: str, media_id: str) -> MediaRow | None:
        with self.transaction() as conn:
            found = conn.execute(
                f"SELECT {_MEDIA_COLUMNS} FROM media WHERE workspace = ? AND media_id = ?", (workspace, media_id)
            ).fetchone()
            if found is None:
                return None
            conn.execute("DELETE FROM media WHERE workspace = ? AND media_id = ?", (workspace, media_id))
        return media_row(found)

    # results

    def insert_result(
        self, workspace: str, model_id: str, kind: str, media_id: str | None, summary_json: str
    ) -> ResultRow | None:
        """Record a result; None (nothing written) if the model does not exist."""
        with self.transaction() as conn:
            if not conn.execute(
                "SELECT 1 FROM models WHERE workspace = ? AND model_id = ?", (workspace, model_id)
            ).fetchone():
                return None
            created_at = utc_now()
            cursor = conn.execute(
                "INSERT INTO results (workspace, model_id, kind, media_id, created_at, summary_json) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (workspace, model_id, kind, media_id, created_at, summary_json),
            )
            result_id = cursor.lastrowid  # PostgreSQL: INSERT ... RETURNING id
            if kind in PRUNED_RESULT_KINDS:  # repeatable runs: keep the newest, not every one ever made
                conn.execute(
                    "DELETE FROM results WHERE workspace = ? AND model_id = ? AND kind = ? AND id <= ("
                    "SELECT id FROM results WHERE workspace = ? AND model_id = ? AND kind = ? "
                    "ORDER BY id DESC LIMIT 1 OFFSET ?)",
                    (workspace, model_id, kind, workspace, model_id, kind, RESULTS_KEPT_PER_KIND),
                )
        assert result_id is not None
        return ResultRow(result_id, workspace, model_id, kind, media_id, created_at, json.loads(summary_json))

    def list_results(self, workspace: str, model_id: str, limit: int) -> list[ResultRow]:
        rows = self._read(
            f"SELECT {_RESULT_COLUMNS} FROM results WHERE workspace = ? AND model_id = ? ORDER BY id DESC LIMIT ?",
            (workspace, model_id, limit),
        )
        return [
            ResultRow(
                int(r["id"]), str(r["workspace"]), str(r["model_id"]), str(r["kind"]), r["media_id"],
                str(r["created_at"]), json.loads(r["summary_json"]),
            )
            for r in rows
        ]

    def count_results(self, workspace: str, model_id: str | None = None) -> int:
        if model_id is None:
            rows = self._read("SELECT COUNT(*) AS n FROM results WHERE workspace = ?", (workspace,))
        else:
            rows = self._read(
                "SELECT COUNT(*) AS n FROM results WHERE workspace = ? AND model_id = ?", (workspace, model_id)
            )
        return int(rows[0]["n"])
