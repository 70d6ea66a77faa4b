"""Connections, short write transactions and reads of the state database, on SQLite or
PostgreSQL alike, with database errors turned into DatabaseError. The base of `Database` (db.py);
what differs between the two engines is in engine.py.

Concurrency model: every statement borrows a pooled connection for as long as it runs (a
connection serves one thread at a time), and every write is one short transaction (`transaction`),
inside which the thread keeps its connection, so nested calls and reads join it. SQLite: WAL, so
readers never wait for writers, and `BEGIN IMMEDIATE` writers queued by the 10 s busy handler.
PostgreSQL: READ COMMITTED; inserts that may race use `ON CONFLICT DO NOTHING` and check the row
count, and writers that must see each other's rows take an advisory lock (engine.serialize).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from functools import lru_cache
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import RowMapping

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DatabaseError
from gem_flux_mcp.store.engine import (
    BUSY_TIMEOUT_SECONDS,
    Target,
    begin_write,
    create_engine,
    error_text,
    is_busy,
    is_full,
    read_engine,
    resolve_target,
    serialize,
)

Params = Mapping[str, Any]


@lru_cache(maxsize=512)
def sql(statement: str, expanding: tuple[str, ...] = ()) -> sa.TextClause:
    """A `text()` statement (parsed once); `expanding` names parameters that take a list
    (`WHERE id IN :ids`)."""
    clause = sa.text(statement)
    return clause.bindparams(*(sa.bindparam(name, expanding=True) for name in expanding)) if expanding else clause


class SqlAccess:
    """The engine of one state database (`location`: a SQLite file, or a database URL) and the
    transaction and read helpers every statement of the store goes through."""

    def __init__(self, location: Path | str) -> None:
        self.target: Target = resolve_target(location)
        self.dialect = self.target.dialect
        self.path = self.target.path  # the SQLite file, None on PostgreSQL
        self.location = self.target.display  # never shows a password
        self._engine: sa.Engine | None = None
        self._reader: sa.Engine | None = None
        self._local = threading.local()
        self._closed = False

    def _start_engine(self) -> None:
        self._engine = create_engine(self.target)
        self._reader = read_engine(self._engine, self.dialect)

    def _check_open(self) -> tuple[sa.Engine, sa.Engine]:
        if self._closed or self._engine is None or self._reader is None:
            raise DatabaseError(
                ErrorCode.STORE_CLOSED, "The state store has been closed.",
                details={"database": self.location},
                suggestions=["This is a server bug if it happens during a tool call; restart the server."],
            )
        return self._engine, self._reader

    @contextmanager
    def connect(self) -> Iterator[sa.Connection]:
        """This thread's open transaction's connection, else a pooled one for reading."""
        current: sa.Connection | None = getattr(self._local, "conn", None)
        if current is not None:
            yield current
            return
        _, reader = self._check_open()
        try:
            conn = reader.connect()
        except sa.exc.SQLAlchemyError as exc:
            raise self._error(exc, "connecting") from exc
        with conn:
            yield conn

    @contextmanager
    def transaction(self) -> Iterator[sa.Connection]:
        """A short write transaction; nested calls join the outer one."""
        current: sa.Connection | None = getattr(self._local, "conn", None)
        if current is not None:
            yield current
            return
        engine, _ = self._check_open()
        conn: sa.Connection | None = None
        try:
            conn = engine.connect()
            begin_write(conn, self.dialect)
        except sa.exc.SQLAlchemyError as exc:
            if conn is not None:
                conn.close()
            raise self._error(exc, "starting a write transaction") from exc
        self._local.conn = conn
        try:
            yield conn
            conn.commit()
        except BaseException as exc:
            with suppress(sa.exc.SQLAlchemyError):  # the first error is the one to report
                conn.rollback()
            if isinstance(exc, sa.exc.SQLAlchemyError):
                raise self._error(exc, "writing") from exc
            raise
        finally:
            self._local.conn = None
            conn.close()

    def _read(self, statement: str, params: Params | None = None, expanding: tuple[str, ...] = ()) -> list[RowMapping]:
        try:
            with self.connect() as conn:
                return list(conn.execute(sql(statement, expanding), dict(params or {})).mappings().all())
        except sa.exc.SQLAlchemyError as exc:
            raise self._error(exc, "reading") from exc

    @staticmethod
    def _run(conn: sa.Connection, statement: str, params: Params | Sequence[Params] | None = None,
             expanding: tuple[str, ...] = ()) -> sa.CursorResult[Any]:
        """Execute inside a transaction (a list of parameter sets runs the statement for each)."""
        if isinstance(params, Sequence):
            return conn.execute(sql(statement, expanding), [dict(p) for p in params])
        return conn.execute(sql(statement, expanding), dict(params or {}))

    def _serialize(self, conn: sa.Connection, what: str) -> None:
        serialize(conn, self.dialect, what)

    def _error(self, exc: BaseException, action: str) -> DatabaseError:
        busy = is_busy(exc)
        message = error_text(exc, self.target)
        if is_full(exc):
            return DatabaseError(
                ErrorCode.STORAGE_FULL,
                f"The state database has no room left while {action}: {message}. This write was rolled back.",
                details={"database": self.location, "database_error": message},
                suggestions=["Free disk space where the state is kept (the database above), then retry the call; "
                             "what was stored before is unchanged and can still be read."],
            )
        return DatabaseError(
            ErrorCode.DATABASE_BUSY if busy else ErrorCode.DATABASE_ERROR,
            f"State database error while {action}: {message}",
            details={"database": self.location, "database_error": message},
            suggestions=(
                [f"The database stayed locked for over {BUSY_TIMEOUT_SECONDS:.0f} s; retry the call."]
                if busy
                else ["Retry once; if it persists, check the database (disk space, server) and the server log."]
            ),
        )

    def close(self) -> None:
        """Close the pooled connections. Idempotent; a transaction still running finishes on its
        own connection, which is then discarded."""
        self._closed = True
        if self._engine is not None:
            self._engine.dispose()
        self._engine = self._reader = None
