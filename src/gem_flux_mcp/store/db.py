"""The state database: migrations (schema.py) and the SQL of workspaces, models, model files,
media and results.

The SQL is in a few modules (this one; activity_queries.py for MCP sessions and tool calls;
sql_access.py for connections and transactions) and sticks to what SQLite and PostgreSQL both
accept, through SQLAlchemy `text()` with `:named` parameters: `ON CONFLICT ... DO NOTHING`,
`RETURNING`, row counts. What differs between the engines is in engine.py.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import sqlalchemy as sa

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DatabaseError
from gem_flux_mcp.store.activity_queries import ActivityQueries
from gem_flux_mcp.store.community_queries import CommunityQueries
from gem_flux_mcp.store.engine import BUSY_TIMEOUT_SECONDS, SQLITE, error_text, prepare, translate_ddl
from gem_flux_mcp.store.row_mapping import PRUNED_RESULT_KINDS, RESULTS_KEPT_PER_KIND, media_row, model_row
from gem_flux_mcp.store.rows import MediaRow, ModelRow, ResultRow, utc_now
from gem_flux_mcp.store.schema import MIGRATIONS, split_sql

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


def _values(columns: str) -> str:
    return ", ".join(f":{c.strip()}" for c in columns.split(","))


class Database(ActivityQueries, CommunityQueries):
    """The state database at `location` (a SQLite file, or a PostgreSQL URL), migrated at open."""

    def __init__(self, location: Path | str) -> None:
        super().__init__(location)
        if self.path is not None:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise DatabaseError(
                    ErrorCode.STATE_DIR_UNWRITABLE,
                    f"Cannot create the state folder {self.path.parent}: {exc}",
                    details={"state_dir": str(self.path.parent)},
                    suggestions=["Pass a writable folder with --state-dir or GEMFLUX_STATE_DIR."],
                ) from exc
        try:
            self._start_engine()
            with self.connect() as conn:
                mode = prepare(conn, self.dialect)
        except (sa.exc.SQLAlchemyError, DatabaseError) as exc:
            self.close()
            raise self._open_failed(exc) from exc
        if mode is not None:
            # Some network file systems refuse WAL; the store still works, with more lock waits.
            log.warning("state database %s: journal_mode is %s, not WAL", self.location, mode)
        try:
            self._migrate()
        except BaseException:
            self.close()
            raise

    def _open_failed(self, exc: BaseException) -> DatabaseError:
        reason = exc.message if isinstance(exc, DatabaseError) else error_text(exc, self.target)
        sqlite = self.dialect == SQLITE
        return DatabaseError(
            ErrorCode.STATE_DB_OPEN_FAILED,
            f"Cannot open the state database {self.location}: {reason}",
            details={"database": self.location, "database_error": reason},
            suggestions=[
                "Check that the file is a gem-flux state database and the folder is writable.",
                "Start with an empty folder via --state-dir or GEMFLUX_STATE_DIR to keep the old file aside.",
            ] if sqlite else [
                "Check that the PostgreSQL server is running and reachable, and that the database exists "
                "(createdb) and the user may create tables in it.",
                "The password can come from the URL, PGPASSWORD or ~/.pgpass.",
            ],
        )

    # migrations

    def _migrate(self) -> None:
        # Each step is one transaction that first takes the migration lock (SQLite: the write
        # lock; PostgreSQL: an advisory lock), then re-checks what is applied: servers opening the
        # same fresh database at once apply each migration exactly once.
        with self.transaction() as conn:
            self._serialize(conn, "migrations")
            conn.exec_driver_sql(translate_ddl(
                "CREATE TABLE IF NOT EXISTS schema_migrations "
                "(version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)", self.dialect))
        self._check_not_too_new()
        for migration in MIGRATIONS:
            with self.transaction() as conn:
                self._serialize(conn, "migrations")
                done = self._run(conn, "SELECT 1 FROM schema_migrations WHERE version = :v",
                                 {"v": migration.version}).first()
                if done:
                    continue
                for statement in split_sql(migration.sql):
                    conn.exec_driver_sql(translate_ddl(statement, self.dialect))
                self._run(conn, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (:v, :n, :t)",
                          {"v": migration.version, "n": migration.name, "t": utc_now()})
                log.info("state database %s: applied migration %d (%s)", self.location, migration.version,
                         migration.name)

    def _check_not_too_new(self) -> None:
        version = self.schema_version()
        known = MIGRATIONS[-1].version
        if version > known:
            raise DatabaseError(
                ErrorCode.STATE_DB_TOO_NEW,
                f"The state database {self.location} has schema version {version}, but this gem-flux "
                f"only knows versions up to {known}; it was written by a newer release.",
                details={"database": self.location, "db_version": version, "code_version": known},
                suggestions=[
                    "Upgrade gem-flux to the release that created this database.",
                    "Or use another state folder (--state-dir / GEMFLUX_STATE_DIR) or database "
                    "(--database-url / GEMFLUX_DATABASE_URL); the database is left unchanged.",
                ],
            )

    def schema_version(self) -> int:
        row = self._read("SELECT MAX(version) AS v FROM schema_migrations")
        return int(row[0]["v"] or 0)

    def applied_migrations(self) -> list[tuple[int, str, str]]:
        rows = self._read("SELECT version, name, applied_at FROM schema_migrations ORDER BY version")
        return [(int(r["version"]), str(r["name"]), str(r["applied_at"])) for r in rows]

    # workspaces

    def _ensure_workspace(self, conn: sa.Connection, workspace: str) -> None:
        self._run(conn, "INSERT INTO workspaces (id, created_at) VALUES (:id, :t) ON CONFLICT (id) DO NOTHING",
                  {"id": workspace, "t": utc_now()})

    def workspaces(self) -> list[str]:
        return [str(r["id"]) for r in self._read("SELECT id FROM workspaces ORDER BY created_at, id")]

    # models

    def insert_model(self, row: ModelRow, file_name: str, packed: bytes) -> bool:
        """Insert the row and its file (packed JSON) in one transaction; False (nothing written)
        if the id is taken in that workspace, also by a concurrent insert."""
        with self.transaction() as conn:
            self._ensure_workspace(conn, row.workspace)
            inserted = self._run(
                conn,
                f"INSERT INTO models ({_MODEL_COLUMNS}) VALUES ({_values(_MODEL_COLUMNS)}) "
                "ON CONFLICT (workspace, model_id) DO NOTHING",
                {
                    "workspace": row.workspace, "model_id": row.model_id, "model_name": row.model_name,
                    "state": row.state, "source": row.source, "template": row.template,
                    "num_reactions": row.num_reactions, "num_metabolites": row.num_metabolites,
                    "num_genes": row.num_genes, "num_exchanges": row.num_exchanges,
                    "compartments_json": json.dumps(row.compartments), "objective": row.objective,
                    "derived_from": row.derived_from, "created_at": row.created_at, "file_name": file_name,
                    "file_size": row.file_size, "file_sha256": row.file_sha256, "last_media_id": row.last_media_id,
                    "extra_json": json.dumps(row.extra),
                },
            ).rowcount
            if not inserted:
                return False
            self.insert_model_file(conn, row.workspace, file_name, packed)
        return True

    def insert_model_file(self, conn: sa.Connection, workspace: str, file_name: str, packed: bytes) -> int:
        """Inside a transaction: store a model's packed file (1), unless it is there already (0)."""
        return int(self._run(
            conn, "INSERT INTO model_files (workspace, file_name, data) VALUES (:ws, :name, :data) "
            "ON CONFLICT (workspace, file_name) DO NOTHING", {"ws": workspace, "name": file_name, "data": packed},
        ).rowcount)

    def model_file(self, workspace: str, file_name: str) -> bytes | None:
        """A model's packed file, or None."""
        rows = self._read("SELECT data FROM model_files WHERE workspace = :ws AND file_name = :name",
                          {"ws": workspace, "name": file_name})
        return bytes(rows[0]["data"]) if rows else None

    def models_without_file(self, conn: sa.Connection) -> list[tuple[str, str]]:
        """(workspace, file name) of the models whose file is not in the table (legacy import)."""
        rows = self._run(
            conn, "SELECT m.workspace, m.file_name FROM models m LEFT JOIN model_files f "
            "ON f.workspace = m.workspace AND f.file_name = m.file_name WHERE f.file_name IS NULL "
            "ORDER BY m.workspace, m.created_at").mappings().all()
        return [(str(r["workspace"]), str(r["file_name"])) for r in rows]

    def stored_files(self) -> set[tuple[str, str]]:
        """(workspace, file name) of every stored model file."""
        return {(str(r["workspace"]), str(r["file_name"]))
                for r in self._read("SELECT workspace, file_name FROM model_files")}

    def get_model(self, workspace: str, model_id: str) -> tuple[ModelRow, str] | None:
        """The row and its file name, or None."""
        rows = self._read(f"SELECT {_MODEL_COLUMNS} FROM models WHERE workspace = :ws AND model_id = :id",
                          {"ws": workspace, "id": model_id})
        return (model_row(rows[0]), str(rows[0]["file_name"])) if rows else None

    def model_exists(self, workspace: str, model_id: str) -> bool:
        return bool(self._read("SELECT 1 FROM models WHERE workspace = :ws AND model_id = :id",
                               {"ws": workspace, "id": model_id}))

    def list_models(self, workspace: str) -> list[ModelRow]:
        rows = self._read(
            f"SELECT {_MODEL_COLUMNS} FROM models WHERE workspace = :ws ORDER BY created_at, model_id",
            {"ws": workspace})
        return [model_row(r) for r in rows]

    def model_ids(self, workspace: str, limit: int) -> tuple[list[str], int]:
        """Up to `limit` ids (oldest first) and the total count, for not-found messages."""
        ids = self._read("SELECT model_id FROM models WHERE workspace = :ws ORDER BY created_at, model_id "
                         "LIMIT :n", {"ws": workspace, "n": limit})
        total = self._read("SELECT COUNT(*) AS n FROM models WHERE workspace = :ws", {"ws": workspace})
        return [str(r["model_id"]) for r in ids], int(total[0]["n"])

    def model_ids_with_prefix(self, workspace: str, prefix: str) -> list[str]:
        """Ids equal to `prefix` or starting with it (substr, not LIKE: `_` is a LIKE wildcard)."""
        rows = self._read(
            "SELECT model_id FROM models WHERE workspace = :ws AND substr(model_id, 1, :n) = :prefix "
            "ORDER BY created_at, model_id", {"ws": workspace, "n": len(prefix), "prefix": prefix})
        return [str(r["model_id"]) for r in rows]

    def delete_model(self, workspace: str, model_id: str) -> tuple[ModelRow, str] | None:
        """Delete the row, its file and its results (ON DELETE CASCADE) in one transaction;
        returns what this call deleted, or None."""
        with self.transaction() as conn:
            found = self._run(
                conn, f"DELETE FROM models WHERE workspace = :ws AND model_id = :id RETURNING {_MODEL_COLUMNS}",
                {"ws": workspace, "id": model_id}).mappings().first()
        return (model_row(found), str(found["file_name"])) if found is not None else None

    def set_last_media(self, workspace: str, model_id: str, media_id: str) -> bool:
        with self.transaction() as conn:
            return self._run(conn, "UPDATE models SET last_media_id = :media WHERE workspace = :ws AND model_id = :id",
                             {"media": media_id, "ws": workspace, "id": model_id}).rowcount > 0

    # media

    def insert_media(self, row: MediaRow) -> bool:
        """Insert the medium; False (nothing written) if the id is taken in that workspace, also by
        a concurrent insert."""
        with self.transaction() as conn:
            self._ensure_workspace(conn, row.workspace)
            return self._run(
                conn,
                f"INSERT INTO media ({_MEDIA_COLUMNS}) VALUES ({_values(_MEDIA_COLUMNS)}) "
                "ON CONFLICT (workspace, media_id) DO NOTHING",
                {
                    "workspace": row.workspace, "media_id": row.media_id, "media_name": row.media_name,
                    "compounds_json": json.dumps([[cpd, lo, hi] for cpd, (lo, hi) in row.compounds.items()]),
                    "default_uptake": row.default_uptake, "created_at": row.created_at,
                    "description": row.description,
                },
            ).rowcount > 0

    def get_media(self, workspace: str, media_id: str) -> MediaRow | None:
        rows = self._read(f"SELECT {_MEDIA_COLUMNS} FROM media WHERE workspace = :ws AND media_id = :id",
                          {"ws": workspace, "id": media_id})
        return media_row(rows[0]) if rows else None

    def media_exists(self, workspace: str, media_id: str) -> bool:
        return bool(self._read("SELECT 1 FROM media WHERE workspace = :ws AND media_id = :id",
                               {"ws": workspace, "id": media_id}))

    def list_media(self, workspace: str) -> list[MediaRow]:
        rows = self._read(f"SELECT {_MEDIA_COLUMNS} FROM media WHERE workspace = :ws ORDER BY created_at, media_id",
                          {"ws": workspace})
        return [media_row(r) for r in rows]

    def media_ids(self, workspace: str, limit: int) -> tuple[list[str], int]:
        ids = self._read("SELECT media_id FROM media WHERE workspace = :ws ORDER BY created_at, media_id LIMIT :n",
                         {"ws": workspace, "n": limit})
        total = self._read("SELECT COUNT(*) AS n FROM media WHERE workspace = :ws", {"ws": workspace})
        return [str(r["media_id"]) for r in ids], int(total[0]["n"])

    def delete_media(self, workspace: str, media_id: str) -> MediaRow | None:
        with self.transaction() as conn:
            found = self._run(
                conn, f"DELETE FROM media WHERE workspace = :ws AND media_id = :id RETURNING {_MEDIA_COLUMNS}",
                {"ws": workspace, "id": media_id}).mappings().first()
        return media_row(found) if found is not None else None

    # results

    def insert_result(
        self, workspace: str, model_id: str, kind: str, media_id: str | None, summary_json: str
    ) -> ResultRow | None:
        """Record a result; None (nothing written) if the model does not exist."""
        key = {"ws": workspace, "id": model_id}
        with self.transaction() as conn:
            # Checks that the model exists and locks its row (PostgreSQL) in one statement, so a
            # concurrent delete waits and concurrent results of one model prune one after another.
            if not self._run(conn, "UPDATE models SET state = state WHERE workspace = :ws AND model_id = :id",
                             key).rowcount:
                return None
            created_at = utc_now()
            result_id = int(self._run(
                conn, "INSERT INTO results (workspace, model_id, kind, media_id, created_at, summary_json) "
                "VALUES (:ws, :id, :kind, :media, :t, :summary) RETURNING id",
                {**key, "kind": kind, "media": media_id, "t": created_at, "summary": summary_json},
            ).scalar_one())
            if kind in PRUNED_RESULT_KINDS:  # repeatable runs: keep the newest, not every one ever made
                self._run(
                    conn, "DELETE FROM results WHERE workspace = :ws AND model_id = :id AND kind = :kind AND id <= ("
                    "SELECT id FROM results WHERE workspace = :ws AND model_id = :id AND kind = :kind "
                    "ORDER BY id DESC LIMIT 1 OFFSET :keep)", {**key, "kind": kind, "keep": RESULTS_KEPT_PER_KIND})
        return ResultRow(result_id, workspace, model_id, kind, media_id, created_at, json.loads(summary_json))

    def list_results(self, workspace: str, model_id: str, limit: int) -> list[ResultRow]:
        rows = self._read(
            f"SELECT {_RESULT_COLUMNS} FROM results WHERE workspace = :ws AND model_id = :id ORDER BY id DESC LIMIT :n",
            {"ws": workspace, "id": model_id, "n": limit})
        return [
            ResultRow(
                int(r["id"]), str(r["workspace"]), str(r["model_id"]), str(r["kind"]), r["media_id"],
                str(r["created_at"]), json.loads(r["summary_json"]),
            )
            for r in rows
        ]

    def count_results(self, workspace: str, model_id: str | None = None) -> int:
        if model_id is None:
            rows = self._read("SELECT COUNT(*) AS n FROM results WHERE workspace = :ws", {"ws": workspace})
        else:
            rows = self._read("SELECT COUNT(*) AS n FROM results WHERE workspace = :ws AND model_id = :id",
                              {"ws": workspace, "id": model_id})
        return int(rows[0]["n"])
