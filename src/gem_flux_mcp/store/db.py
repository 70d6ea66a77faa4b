"""The state database: connections, migrations (schema.py) and every SQL statement of the store.

Why all SQL lives here: the store is SQLite now and PostgreSQL when a lab outgrows one machine
(DESIGN §7), so the port should touch one module. Statements stick to the subset both engines
accept; the SQLite-only parts are the PRAGMAs, `?` placeholders and `AUTOINCREMENT` (marked).

Concurrency model: one connection per thread (tools run in worker threads), WAL so readers never
wait for writers, and every write inside a short `BEGIN IMMEDIATE` transaction. Taking the write
lock up front means SQLite's busy handler (10 s) queues concurrent writers instead of failing one
of them with "database is locked", which a deferred read-then-write transaction can do in WAL mode.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DatabaseError
from gem_flux_mcp.store.row_mapping import (
    PRUNED_RESULT_KINDS,
    RESULTS_KEPT_PER_KIND,
    call_row,
    media_row,
    model_row,
    pack_text,
    session_row,
)
from gem_flux_mcp.store.rows import CallRow, MediaRow, ModelRow, ResultRow, SessionRow, utc_now
from gem_flux_mcp.store.schema import MIGRATIONS, split_sql

log = logging.getLogger(__name__)

DB_FILE_NAME = "gemflux.sqlite"
BUSY_TIMEOUT_SECONDS = 10.0


_MODEL_COLUMNS = (
    "workspace, model_id, model_name, state, source, template, num_reactions, num_metabolites, num_genes, "
    "num_exchanges, compartments_json, objective, derived_from, created_at, file_name, file_size, file_sha256, "
    "last_media_id, extra_json"
)
_MEDIA_COLUMNS = "workspace, media_id, media_name, compounds_json, default_uptake, created_at, description"
_RESULT_COLUMNS = "id, workspace, model_id, kind, media_id, created_at, summary_json"
_SESSION_COLUMNS = (
    "id, workspace, transport, transport_session_id, client_name, client_version, protocol_version, status, "
    "start_time, end_time, last_activity, tool_call_count, total_tokens"
)
_CALL_COLUMNS = (
    "id, session_id, workspace, seq, client_name, client_version, tool_name, arguments_json, response_json, "
    "response_size, response_truncated, is_error, error_code, error_message, duration_ms, timestamp, request_id, "
    "annotations_json, tokens"
)


class Database:
    """One SQLite file, one connection per thread, versioned migrations applied at open."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: dict[int, tuple[threading.Thread, sqlite3.Connection]] = {}
        self._closed = False
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

    # connections and transactions

    def connection(self) -> sqlite3.Connection:
        """This thread's connection, opened on first use."""
        if self._closed:
            raise DatabaseError(
                ErrorCode.STORE_CLOSED, "The state store has been closed.",
                details={"path": str(self.path)},
                suggestions=["This is a server bug if it happens during a tool call; restart the server."],
            )
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
            with self._lock:
                self._close_dead_threads_locked()
                self._connections[threading.get_ident()] = (threading.current_thread(), conn)
        return conn

    def _connect(self) -> sqlite3.Connection:
        # isolation_level=None: the module starts no implicit transactions; we issue BEGIN ourselves.
        # check_same_thread=False only so close() may close the connections of other threads.
        conn = sqlite3.connect(
            self.path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None, check_same_thread=False
        )
        conn.row_factory = sqlite3.Row
        conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
        conn.execute("PRAGMA foreign_keys = ON")
        # NORMAL in WAL mode: durable against process crashes; a power cut may lose the last commits.
        conn.execute("PRAGMA synchronous = NORMAL")
        return conn

    def _close_dead_threads_locked(self) -> None:
        """Close connections whose thread has ended, so short-lived threads do not leak them."""
        for ident, (thread, conn) in list(self._connections.items()):
            if not thread.is_alive():
                conn.close()
                del self._connections[ident]

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """A short write transaction (`BEGIN IMMEDIATE`); nested calls join the outer one."""
        conn = self.connection()
        if conn.in_transaction:
            yield conn
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            raise self._error(exc, "starting a write transaction") from exc
        try:
            yield conn
            conn.execute("COMMIT")
        except BaseException as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            if isinstance(exc, sqlite3.Error):
                raise self._error(exc, "writing") from exc
            raise

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        try:
            return self.connection().execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise self._error(exc, "reading") from exc

    def _error(self, exc: sqlite3.Error, action: str) -> DatabaseError:
        busy = "locked" in str(exc) or "busy" in str(exc)
        return DatabaseError(
            ErrorCode.DATABASE_BUSY if busy else ErrorCode.DATABASE_ERROR,
            f"State database error while {action}: {exc}",
            details={"path": str(self.path), "sqlite_error": str(exc)},
            suggestions=(
                ["The database stayed locked for over 10 s; retry the call."]
                if busy
                else ["Retry once; if it persists, check disk space and the server log."]
            ),
        )

    def close(self) -> None:
        """Close every thread's connection. Idempotent."""
        with self._lock:
            self._closed = True
            for _thread, conn in self._connections.values():
                conn.close()
            self._connections.clear()
        self._local = threading.local()

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


    # MCP sessions and tool calls

    def insert_session(self, row: SessionRow, keep_newest: int) -> int:
        """Insert a session and prune to the newest `keep_newest` sessions (their calls go with
        them through ON DELETE CASCADE), in one transaction. Returns how many were pruned."""
        with self.transaction() as conn:
            conn.execute(
                f"INSERT INTO mcp_sessions ({_SESSION_COLUMNS}) VALUES ({','.join('?' * 13)})",
                (row.id, row.workspace, row.transport, row.transport_session_id, row.client_name,
                 row.client_version, row.protocol_version, row.status, row.start_time, row.end_time,
                 row.last_activity, row.tool_call_count, row.total_tokens),
            )
            pruned = conn.execute(
                "DELETE FROM mcp_sessions WHERE id IN (SELECT id FROM mcp_sessions "
                "ORDER BY start_time DESC, id DESC LIMIT -1 OFFSET ?)", (keep_newest,),
            ).rowcount
        return int(pruned)

    def insert_calls(self, calls: Sequence[CallRow], keep_per_session: int | None = None) -> None:
        """Insert calls and bump their sessions' counters in one transaction; with
        `keep_per_session`, a session's older calls beyond that many are dropped (its counters
        still count them)."""
        if not calls:
            return
        with self.transaction() as conn:
            known = {r[0] for r in conn.execute(
                f"SELECT id FROM mcp_sessions WHERE id IN ({','.join('?' * len({c.session_id for c in calls}))})",
                list({c.session_id for c in calls}),
            )}
            kept = [c for c in calls if c.session_id in known]  # a pruned session's late calls are dropped
            conn.executemany(
                f"INSERT INTO tool_calls ({_CALL_COLUMNS}) VALUES ({','.join('?' * 19)})",
                [(c.id, c.session_id, c.workspace, c.seq, c.client_name, c.client_version, c.tool_name,
                  pack_text(json.dumps(c.arguments, default=str)), pack_text(c.response), c.response_size,
                  int(c.response_truncated), int(c.is_error), c.error_code, c.error_message, c.duration_ms,
                  c.timestamp, c.request_id, None if c.annotations is None else json.dumps(c.annotations), c.tokens)
                 for c in kept],
            )
            totals: dict[str, tuple[int, int, str]] = {}
            for c in kept:
                count, tokens, last = totals.get(c.session_id, (0, 0, c.timestamp))
                totals[c.session_id] = (count + 1, tokens + c.tokens, max(last, c.timestamp))
            conn.executemany(
                "UPDATE mcp_sessions SET tool_call_count = tool_call_count + ?, total_tokens = total_tokens + ?, "
                "last_activity = CASE WHEN last_activity > ? THEN last_activity ELSE ? END WHERE id = ?",
                [(n, t, last, last, sid) for sid, (n, t, last) in totals.items()],
            )
            if keep_per_session is not None:
                conn.executemany(
                    "DELETE FROM tool_calls WHERE session_id = ? AND seq <= (SELECT MAX(seq) FROM tool_calls "
                    "WHERE session_id = ?) - ?", [(sid, sid, keep_per_session) for sid in totals],
                )

    def touch_session(self, session_id: str, when: str) -> None:
        with self.transaction() as conn:
            conn.execute("UPDATE mcp_sessions SET last_activity = ? WHERE id = ? AND last_activity < ?",
                         (when, session_id, when))

    def close_sessions(self, ids: Sequence[str], end_time: str) -> int:
        if not ids:
            return 0
        with self.transaction() as conn:
            return int(conn.execute(
                f"UPDATE mcp_sessions SET status = 'closed', end_time = ? WHERE status = 'active' "
                f"AND id IN ({','.join('?' * len(ids))})", [end_time, *ids],
            ).rowcount)

    def active_sessions(self) -> list[SessionRow]:
        return [session_row(r) for r in self._read(
            f"SELECT {_SESSION_COLUMNS} FROM mcp_sessions WHERE status = 'active' ORDER BY start_time")]

    def recent_sessions(self, workspace: str | None, limit: int, offset: int = 0) -> list[SessionRow]:
        where, params = ("WHERE workspace = ?", [workspace]) if workspace is not None else ("", [])
        return [session_row(r) for r in self._read(
            f"SELECT {_SESSION_COLUMNS} FROM mcp_sessions {where} ORDER BY start_time DESC, id DESC "
            "LIMIT ? OFFSET ?", [*params, limit, offset])]

    def get_session(self, session_id: str) -> SessionRow | None:
        rows = self._read(f"SELECT {_SESSION_COLUMNS} FROM mcp_sessions WHERE id = ?", (session_id,))
        return session_row(rows[0]) if rows else None

    def session_aggregates(self, session_id: str) -> dict[str, Any]:
        """Counts computed from the calls themselves (seed 003's GetSessionWithAggregates)."""
        row = self._read(
            "SELECT COUNT(*) AS calls, COALESCE(SUM(tokens), 0) AS tokens, COALESCE(SUM(is_error), 0) AS errors, "
            "COALESCE(AVG(duration_ms), 0) AS mean_ms FROM tool_calls WHERE session_id = ?", (session_id,))[0]
        by_tool = self._read(
            "SELECT tool_name, COUNT(*) AS n FROM tool_calls WHERE session_id = ? GROUP BY tool_name "
            "ORDER BY n DESC, tool_name", (session_id,))
        return {"tool_calls": int(row["calls"]), "tokens": int(row["tokens"]), "errors": int(row["errors"]),
                "mean_duration_ms": round(float(row["mean_ms"]), 3),
                "calls_by_tool": {str(r["tool_name"]): int(r["n"]) for r in by_tool}}

    def calls_by_session(self, session_id: str, limit: int, offset: int = 0, tool: str | None = None,
                         errors_only: bool = False) -> list[CallRow]:
        sql = f"SELECT {_CALL_COLUMNS} FROM tool_calls WHERE session_id = ?"
        params: list[Any] = [session_id]
        if tool:
            sql += " AND tool_name = ?"
            params.append(tool)
        if errors_only:
            sql += " AND is_error = 1"
        sql += " ORDER BY seq LIMIT ? OFFSET ?"
        return [call_row(r) for r in self._read(sql, [*params, limit, offset])]

    def count_sessions(self) -> int:
        return int(self._read("SELECT COUNT(*) AS n FROM mcp_sessions")[0]["n"])


