"""One SQLite file opened once per thread: connections, short write transactions, and sqlite3
errors turned into DatabaseError. The base of `Database` (db.py).

Concurrency model: one connection per thread (tools run in worker threads), WAL so readers never
wait for writers, and every write inside a short `BEGIN IMMEDIATE` transaction. Taking the write
lock up front means SQLite's busy handler (10 s) queues concurrent writers instead of failing one
of them with "database is locked", which a deferred read-then-write transaction can do in WAL mode.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DatabaseError

BUSY_TIMEOUT_SECONDS = 10.0


class SqliteAccess:
    """Per-thread connections to the SQLite file at `path`, and the transaction and read helpers
    every statement of the store goes through."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()
        self._lock = threading.Lock()
        self._connections: dict[int, tuple[threading.Thread, sqlite3.Connection]] = {}
        self._closed = False

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
