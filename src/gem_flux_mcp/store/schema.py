"""The state database's schema as ordered migrations (append only), and the splitter that runs a
migration script statement by statement.

Migrations are written in SQLite's dialect; `engine.translate_ddl` adapts each statement for
PostgreSQL (types, identity column, collation), so both engines get the same tables."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


_MIGRATION_1 = """
CREATE TABLE workspaces (
    id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL
);

CREATE TABLE models (
    workspace TEXT NOT NULL REFERENCES workspaces (id),
    model_id TEXT NOT NULL,
    model_name TEXT,
    state TEXT NOT NULL,
    source TEXT NOT NULL,
    template TEXT,
    num_reactions INTEGER NOT NULL,
    num_metabolites INTEGER NOT NULL,
    num_genes INTEGER NOT NULL,
    num_exchanges INTEGER NOT NULL,
    compartments_json TEXT NOT NULL,
    objective TEXT,
    derived_from TEXT,
    created_at TEXT NOT NULL,
    file_name TEXT NOT NULL,
    file_size INTEGER NOT NULL,
    file_sha256 TEXT NOT NULL,
    last_media_id TEXT,
    extra_json TEXT NOT NULL,
    PRIMARY KEY (workspace, model_id)
);
CREATE INDEX models_by_created ON models (workspace, created_at);
CREATE UNIQUE INDEX models_by_file ON models (workspace, file_name);

CREATE TABLE media (
    workspace TEXT NOT NULL REFERENCES workspaces (id),
    media_id TEXT NOT NULL,
    media_name TEXT,
    compounds_json TEXT NOT NULL,
    default_uptake REAL,
    created_at TEXT NOT NULL,
    description TEXT,
    PRIMARY KEY (workspace, media_id)
);
CREATE INDEX media_by_created ON media (workspace, created_at);

-- SQLite: AUTOINCREMENT (PostgreSQL: GENERATED ALWAYS AS IDENTITY) so ids are never reused
CREATE TABLE results (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace TEXT NOT NULL,
    model_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    media_id TEXT,
    created_at TEXT NOT NULL,
    summary_json TEXT NOT NULL,
    FOREIGN KEY (workspace, model_id) REFERENCES models (workspace, model_id) ON DELETE CASCADE
);
CREATE INDEX results_by_model ON results (workspace, model_id, id DESC);
"""

# MCP sessions and tool calls (the activity record). The CHECK constraints are the rules a row must
# satisfy, so no code path can store an active session with an end time or a closed one without.
_MIGRATION_2 = """
CREATE TABLE mcp_sessions (
    id TEXT PRIMARY KEY,
    workspace TEXT NOT NULL,
    transport TEXT NOT NULL,
    transport_session_id TEXT,
    client_name TEXT,
    client_version TEXT,
    protocol_version TEXT,
    status TEXT NOT NULL CHECK (status IN ('active', 'closed')),
    start_time TEXT NOT NULL,
    end_time TEXT,
    last_activity TEXT NOT NULL,
    tool_call_count INTEGER NOT NULL DEFAULT 0 CHECK (tool_call_count >= 0),
    total_tokens INTEGER NOT NULL DEFAULT 0 CHECK (total_tokens >= 0),
    CHECK ((status = 'active' AND end_time IS NULL) OR (status = 'closed' AND end_time IS NOT NULL))
);
CREATE INDEX mcp_sessions_by_start ON mcp_sessions (workspace, start_time DESC);
CREATE INDEX mcp_sessions_by_status ON mcp_sessions (status);

CREATE TABLE tool_calls (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL REFERENCES mcp_sessions (id) ON DELETE CASCADE,
    workspace TEXT NOT NULL,
    seq INTEGER NOT NULL,
    client_name TEXT,
    client_version TEXT,
    tool_name TEXT NOT NULL,
    arguments_json TEXT NOT NULL,
    response_json TEXT,
    response_size INTEGER NOT NULL,
    response_truncated INTEGER NOT NULL,
    is_error INTEGER NOT NULL,
    error_code TEXT,
    error_message TEXT,
    duration_ms REAL NOT NULL,
    timestamp TEXT NOT NULL,
    request_id TEXT,
    annotations_json TEXT,
    tokens INTEGER NOT NULL
);
CREATE INDEX tool_calls_by_session ON tool_calls (session_id, seq);
"""

# The stored COBRApy JSON of each model, gzip-compressed, written in the same transaction as its
# row (it used to be a file models/<workspace>/<file_name>; an old state folder's files are
# imported when it is opened: model_files.import_legacy_files). The model's row names it by
# `file_name`, a new name for every stored model, so a model deleted and re-added under the same
# id is never mistaken for the old one.
_MIGRATION_3 = """
CREATE TABLE model_files (
    workspace TEXT NOT NULL,
    file_name TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (workspace, file_name),
    FOREIGN KEY (workspace, file_name) REFERENCES models (workspace, file_name) ON DELETE CASCADE
);
"""

# Server processes writing to the database, with a heartbeat, and which one owns each session: a
# server starting (or sweeping) closes the sessions of servers that are gone, never those of a
# server that is still running on the same database.
_MIGRATION_4 = """
CREATE TABLE server_processes (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    heartbeat_at TEXT NOT NULL
);
ALTER TABLE mcp_sessions ADD COLUMN server_id TEXT;
"""

# Communities of stored models (MICOM): each member's id, abundance and the size and SHA-256 of its
# stored file when the community was built, so a member replaced under the same id is told apart;
# and the results recorded with a community (its own table: `results` belongs to one model).
_MIGRATION_5 = """
CREATE TABLE communities (
    workspace TEXT NOT NULL REFERENCES workspaces (id),
    community_id TEXT NOT NULL,
    community_name TEXT,
    members_json TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (workspace, community_id)
);
CREATE INDEX communities_by_created ON communities (workspace, created_at);

CREATE TABLE community_results (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace TEXT NOT NULL,
    community_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    media_id TEXT,
    created_at TEXT NOT NULL,
    summary_json TEXT NOT NULL,
    FOREIGN KEY (workspace, community_id) REFERENCES communities (workspace, community_id) ON DELETE CASCADE
);
CREATE INDEX community_results_by_community ON community_results (workspace, community_id, id DESC);
"""

# Ordered; append only. A released migration is never edited: add a new one instead.
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "workspaces_models_media_results", _MIGRATION_1),
    Migration(2, "mcp_sessions_tool_calls", _MIGRATION_2),
    Migration(3, "model_files", _MIGRATION_3),
    Migration(4, "server_processes", _MIGRATION_4),
    Migration(5, "communities", _MIGRATION_5),
)


def split_sql(script: str) -> list[str]:
    """Split a script into statements (so a migration can run inside one transaction:
    `executescript` would commit first). Uses SQLite's own notion of a complete statement."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statement = "\n".join(
                part for part in pending.strip().splitlines() if not part.lstrip().startswith("--")
            ).strip()
            if statement.rstrip(";").strip():
                statements.append(statement)
            pending = ""
    if pending.strip() and any(not p.lstrip().startswith("--") for p in pending.strip().splitlines()):
        raise ValueError(f"incomplete SQL statement in migration: {pending.strip()[:80]!r}")
    return statements
