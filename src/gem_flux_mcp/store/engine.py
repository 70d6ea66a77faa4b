"""Where SQLite and PostgreSQL differ, and only here. Everything else in the store speaks the SQL
both accept, through SQLAlchemy Core `text()` statements with `:named` parameters.

The differences:

- **where the database is**: a SQLite file (the default, `gemflux.sqlite` in the state folder) or
  a PostgreSQL URL (`GEMFLUX_DATABASE_URL=postgresql://…`, driven by psycopg 3); `Target` says
  which, and how to show it without its password;
- **connecting**: SQLite in WAL mode with a 10 s busy timeout, foreign keys on and
  `synchronous=NORMAL`, and with sqlite3's own transaction handling off so the store issues
  `BEGIN IMMEDIATE` itself; PostgreSQL with a small pool, `lock_timeout` 10 s (the busy timeout's
  counterpart), a liveness check before a pooled connection is reused, and reads in autocommit;
- **starting a write** (`begin_write`): `BEGIN IMMEDIATE` takes SQLite's one write lock up front,
  so concurrent writers queue in the busy handler instead of failing; PostgreSQL locks rows, so an
  ordinary transaction is enough;
- **serialising writers that must see each other's rows** (`serialize`): migrations and the
  retention of sessions. SQLite needs nothing (every writer holds the write lock already);
  PostgreSQL takes a transaction-scoped advisory lock (`pg_advisory_xact_lock`);
- **migration DDL** (`translate_ddl`): migrations are written in SQLite's types; PostgreSQL gets
  BIGINT for INTEGER (SQLite integers are 64-bit), an identity column for AUTOINCREMENT, DOUBLE
  PRECISION for REAL (PostgreSQL's REAL is 4 bytes), BYTEA for BLOB and for the columns SQLite
  declares TEXT but fills with bytes, and the "C" collation on TEXT so text sorts byte-wise, as
  in SQLite;
- **which errors mean "busy, retry"** (`is_busy`) and "no room left" (`is_full`), and error texts
  with any password removed.
"""

from __future__ import annotations

import errno
import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event, exc
from sqlalchemy.engine import URL, make_url

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DatabaseError

SQLITE = "sqlite"
POSTGRESQL = "postgresql"

BUSY_TIMEOUT_SECONDS = 10.0
CONNECT_TIMEOUT_SECONDS = 10
POOL_SIZE = 5  # PostgreSQL connections kept per server process (plus up to POOL_OVERFLOW more)
POOL_OVERFLOW = 10
SQLITE_POOL_SIZE = 16  # SQLite connections kept; more are opened when needed and closed after use

# Advisory lock keys (PostgreSQL), one per kind of writer that must run one at a time across
# processes: bigints, spelled from ASCII so they are recognisable in pg_locks.
_LOCK_KEYS = {
    "migrations": int.from_bytes(b"gfmigrat", "big") >> 1,
    "sessions": int.from_bytes(b"gfsessns", "big") >> 1,
}

_POSTGRES_DRIVERS = {"postgresql", "postgres", "postgresql+psycopg"}
_SQLITE_DRIVERS = {"sqlite", "sqlite+pysqlite"}
# PostgreSQL SQLSTATEs that mean "try again": serialization failure, deadlock, lock timeout,
# statement timeout, too many connections.
_PG_BUSY_STATES = {"40001", "40P01", "55P03", "57014", "53300"}
_PG_FULL_STATE = "53100"  # disk_full
_SQLITE_FULL = 13  # SQLITE_FULL: "database or disk is full"
_NO_ROOM = {errno.ENOSPC, errno.EDQUOT}


@dataclass(frozen=True)
class Target:
    """Where the state database is: a SQLite file (`path`) or a PostgreSQL server (`url`)."""

    dialect: str  # SQLITE | POSTGRESQL
    url: URL
    path: Path | None  # the SQLite file

    @property
    def display(self) -> str:
        """For logs, errors and the dashboard: the file, or the URL with its password hidden."""
        if self.path is not None:
            return str(self.path)
        return self.url.set(drivername="postgresql").render_as_string(hide_password=True)

    def scrub(self, text: str) -> str:
        """`text` with the password (if the URL has one) replaced by ***."""
        password = self.url.password
        return text.replace(str(password), "***") if password else text


def resolve_target(location: Path | str) -> Target:
    """A Path is a SQLite file; a string is a database URL (`postgresql://…`, `sqlite:///…`)."""
    if isinstance(location, Path):
        path = location.expanduser().resolve()
        return Target(SQLITE, URL.create("sqlite", database=str(path)), path)
    try:
        url = make_url(location)
    except (exc.ArgumentError, ValueError) as err:
        raise _bad_url("it is not a database URL") from err
    if url.drivername in _POSTGRES_DRIVERS:
        if not url.database:
            raise _bad_url("it names no database (postgresql://user@host:port/DATABASE)")
        return Target(POSTGRESQL, url.set(drivername="postgresql+psycopg"), None)
    if url.drivername in _SQLITE_DRIVERS and url.database and url.database != ":memory:":
        path = Path(url.database).expanduser().resolve()
        return Target(SQLITE, URL.create("sqlite", database=str(path)), path)
    raise _bad_url(f"the scheme '{url.drivername}' is not supported")


def _bad_url(reason: str) -> DatabaseError:
    # The URL itself is never quoted: it may carry a password.
    return DatabaseError(
        ErrorCode.STATE_DB_OPEN_FAILED,
        f"Cannot use the database URL: {reason}.",
        details={"reason": reason},
        suggestions=["Use postgresql://USER[:PASSWORD]@HOST[:PORT]/DATABASE, or unset GEMFLUX_DATABASE_URL "
                     "(and --database-url) to keep the state in a SQLite file in the state folder."],
    )


def create_engine(target: Target) -> sa.Engine:
    """The engine of one Store (its pool holds the connections)."""
    if target.dialect == SQLITE:
        engine = sa.create_engine(
            target.url, poolclass=sa.QueuePool, pool_size=SQLITE_POOL_SIZE, max_overflow=-1,
            # check_same_thread=False: a pooled connection serves one thread at a time, not always the same one
            connect_args={"timeout": BUSY_TIMEOUT_SECONDS, "check_same_thread": False},
        )
        event.listen(engine, "connect", _sqlite_on_connect)
        return engine
    return sa.create_engine(
        target.url, pool_size=POOL_SIZE, max_overflow=POOL_OVERFLOW, pool_timeout=BUSY_TIMEOUT_SECONDS,
        pool_pre_ping=True,  # a server restart must not fail the next call
        connect_args={
            "connect_timeout": CONNECT_TIMEOUT_SECONDS,
            "application_name": "gem-flux",
            "options": f"-c lock_timeout={int(BUSY_TIMEOUT_SECONDS * 1000)}",
        },
    )


def _sqlite_on_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
    # sqlite3 starts no transactions of its own: the store issues BEGIN IMMEDIATE (begin_write);
    # reads run in autocommit mode, each statement its own snapshot.
    dbapi_connection.isolation_level = None
    dbapi_connection.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_SECONDS * 1000)}")
    dbapi_connection.execute("PRAGMA foreign_keys = ON")
    # NORMAL in WAL mode: durable against process crashes; a power cut may lose the last commits.
    dbapi_connection.execute("PRAGMA synchronous = NORMAL")


def read_engine(engine: sa.Engine, dialect: str) -> sa.Engine:
    """The engine reads go through: PostgreSQL reads in autocommit (no BEGIN/ROLLBACK round
    trips); SQLite reads already run in autocommit (see `_sqlite_on_connect`)."""
    return engine.execution_options(isolation_level="AUTOCOMMIT") if dialect == POSTGRESQL else engine


def prepare(conn: sa.Connection, dialect: str) -> str | None:
    """At open: switch a SQLite file to WAL (a persistent setting of the file). Returns the
    journal mode when it is not WAL (some network file systems refuse it), else None."""
    if dialect != SQLITE:
        conn.exec_driver_sql("SELECT 1")  # connects: a wrong URL or password fails here, at start-up
        return None
    mode = str(conn.exec_driver_sql("PRAGMA journal_mode=WAL").scalar())
    return None if mode.lower() == "wal" else mode


def begin_write(conn: sa.Connection, dialect: str) -> None:
    """Start a write transaction on a fresh connection."""
    if dialect == SQLITE:
        # Take the write lock now: a deferred read-then-write transaction can fail with
        # "database is locked" in WAL mode instead of waiting in the busy handler.
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    else:
        conn.begin()


def serialize(conn: sa.Connection, dialect: str, what: str) -> None:
    """Inside a write transaction: wait until no other transaction (of any process) holds the
    lock named `what` ("migrations", "sessions"); it is released at commit or rollback."""
    if dialect == POSTGRESQL:
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK_KEYS[what]})
    # SQLite: the transaction holds the database's one write lock already (BEGIN IMMEDIATE).


# ---- migration DDL: written for SQLite, translated for PostgreSQL

# Columns SQLite declares TEXT but the store fills with bytes (SQLite columns take any value):
# the recorded arguments and responses, zlib-compressed when long (row_mapping.pack_text).
PACKED_TEXT_COLUMNS = ("arguments_json", "response_json")

_PG_DDL = (
    (re.compile(rf"\b({'|'.join(PACKED_TEXT_COLUMNS)}) TEXT\b"), r"\1 BYTEA"),
    (re.compile(r"\bINTEGER PRIMARY KEY AUTOINCREMENT\b"), "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"),
    (re.compile(r"\bINTEGER\b"), "BIGINT"),
    (re.compile(r"\bREAL\b"), "DOUBLE PRECISION"),
    (re.compile(r"\bBLOB\b"), "BYTEA"),
    (re.compile(r"\bTEXT\b"), 'TEXT COLLATE "C"'),
)


def translate_ddl(statement: str, dialect: str) -> str:
    """A migration statement as `dialect` needs it (unchanged for SQLite)."""
    if dialect == SQLITE:
        return statement
    for pattern, replacement in _PG_DDL:
        statement = pattern.sub(replacement, statement)
    return statement


# ---- errors


def is_busy(error: BaseException) -> bool:
    """True for errors that mean "another writer held on too long; retry"."""
    if isinstance(error, exc.TimeoutError):  # no pooled connection free within the timeout
        return True
    original = getattr(error, "orig", None)
    if isinstance(original, sqlite3.Error):
        return "locked" in str(original) or "busy" in str(original)
    return getattr(original, "sqlstate", None) in _PG_BUSY_STATES


def is_full(error: BaseException) -> bool:
    """True for errors that mean "the disk (or quota) holding the database is full": nothing of
    the statement was kept, and retrying helps only once there is room."""
    original = getattr(error, "orig", None) or error
    if isinstance(original, sqlite3.Error):
        return getattr(original, "sqlite_errorcode", None) == _SQLITE_FULL or "disk is full" in str(original)
    if isinstance(original, OSError):
        return original.errno in _NO_ROOM
    return getattr(original, "sqlstate", None) == _PG_FULL_STATE


def error_text(error: BaseException, target: Target) -> str:
    """The driver's message (not SQLAlchemy's, which quotes the statement and its parameters),
    without the password."""
    original = getattr(error, "orig", None)
    text = " ".join(str(original if original is not None else error).split())[:500]
    return target.scrub(text or type(error).__name__)
