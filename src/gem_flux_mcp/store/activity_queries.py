"""The SQL of the activity record: MCP sessions and their tool calls (written by activity.py,
read by the dashboard), and the server processes that own the sessions. Part of `Database` (db.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gem_flux_mcp.store.row_mapping import call_row, pack_text, session_row
from gem_flux_mcp.store.rows import CallRow, SessionRow
from gem_flux_mcp.store.sql_access import SqlAccess

_SESSION_COLUMNS = (
    "id, workspace, transport, transport_session_id, client_name, client_version, protocol_version, status, "
    "start_time, end_time, last_activity, tool_call_count, total_tokens"
)
_CALL_COLUMNS = (
    "id, session_id, workspace, seq, client_name, client_version, tool_name, arguments_json, response_json, "
    "response_size, response_truncated, is_error, error_code, error_message, duration_ms, timestamp, request_id, "
    "annotations_json, tokens"
)


def _values(columns: str) -> str:
    return ", ".join(f":{c.strip()}" for c in columns.split(","))


@dataclass(frozen=True)
class ServerProcess:
    """A server process that records sessions, with its last sign of life."""

    id: str
    host: str
    pid: int
    started_at: str
    heartbeat_at: str


class ActivityQueries(SqlAccess):
    """Sessions and tool calls: inserted in batches with their counters, pruned, read back for the
    dashboard; the registry of server processes."""

    def insert_session(self, row: SessionRow, keep_newest: int, server_id: str | None = None) -> int:
        """Insert a session (owned by `server_id`) and prune to the newest `keep_newest` sessions
        of every server (their calls go with them through ON DELETE CASCADE), in one transaction.
        Returns how many were pruned."""
        with self.transaction() as conn:
            self._serialize(conn, "sessions")  # two servers pruning at once would keep one too many
            self._run(conn, f"INSERT INTO mcp_sessions ({_SESSION_COLUMNS}, server_id) "
                      f"VALUES ({_values(_SESSION_COLUMNS)}, :server_id)", {
                          "id": row.id, "workspace": row.workspace, "transport": row.transport,
                          "transport_session_id": row.transport_session_id, "client_name": row.client_name,
                          "client_version": row.client_version, "protocol_version": row.protocol_version,
                          "status": row.status, "start_time": row.start_time, "end_time": row.end_time,
                          "last_activity": row.last_activity, "tool_call_count": row.tool_call_count,
                          "total_tokens": row.total_tokens, "server_id": server_id})
            pruned = self._run(
                conn, "DELETE FROM mcp_sessions WHERE id NOT IN (SELECT id FROM mcp_sessions "
                "ORDER BY start_time DESC, id DESC LIMIT :keep)", {"keep": keep_newest}).rowcount
        return int(pruned)

    def insert_calls(self, calls: Sequence[CallRow], keep_per_session: int | None = None) -> set[str]:
        """Insert calls and bump their sessions' counters in one transaction; with
        `keep_per_session`, a session's older calls beyond that many are dropped (its counters
        still count them). Returns the ids of sessions that no longer exist (pruned meanwhile,
        possibly by another server): their calls are dropped."""
        if not calls:
            return set()
        wanted = sorted({c.session_id for c in calls})
        with self.transaction() as conn:
            self._serialize(conn, "sessions")  # no session is pruned between the check and the insert
            known = {str(r[0]) for r in self._run(conn, "SELECT id FROM mcp_sessions WHERE id IN :ids",
                                                  {"ids": wanted}, expanding=("ids",))}
            kept = [c for c in calls if c.session_id in known]
            if kept:
                self._run(conn, f"INSERT INTO tool_calls ({_CALL_COLUMNS}) VALUES ({_values(_CALL_COLUMNS)})", [
                    {"id": c.id, "session_id": c.session_id, "workspace": c.workspace, "seq": c.seq,
                     "client_name": c.client_name, "client_version": c.client_version, "tool_name": c.tool_name,
                     "arguments_json": pack_text(json.dumps(c.arguments, default=str)),
                     "response_json": pack_text(c.response), "response_size": c.response_size,
                     "response_truncated": int(c.response_truncated), "is_error": int(c.is_error),
                     "error_code": c.error_code, "error_message": c.error_message, "duration_ms": c.duration_ms,
                     "timestamp": c.timestamp, "request_id": c.request_id,
                     "annotations_json": None if c.annotations is None else json.dumps(c.annotations),
                     "tokens": c.tokens}
                    for c in kept])
            totals: dict[str, tuple[int, int, str]] = {}
            for c in kept:
                count, tokens, last = totals.get(c.session_id, (0, 0, c.timestamp))
                totals[c.session_id] = (count + 1, tokens + c.tokens, max(last, c.timestamp))
            if totals:
                self._run(
                    conn, "UPDATE mcp_sessions SET tool_call_count = tool_call_count + :n, "
                    "total_tokens = total_tokens + :tokens, "
                    "last_activity = CASE WHEN last_activity > :last THEN last_activity ELSE :last END WHERE id = :id",
                    [{"n": n, "tokens": t, "last": last, "id": sid} for sid, (n, t, last) in totals.items()])
                if keep_per_session is not None:
                    self._run(
                        conn, "DELETE FROM tool_calls WHERE session_id = :id AND seq <= (SELECT MAX(seq) "
                        "FROM tool_calls WHERE session_id = :id) - :keep",
                        [{"id": sid, "keep": keep_per_session} for sid in totals])
        return set(wanted) - known

    def touch_session(self, session_id: str, when: str) -> None:
        with self.transaction() as conn:
            self._run(conn, "UPDATE mcp_sessions SET last_activity = :t WHERE id = :id AND last_activity < :t",
                      {"t": when, "id": session_id})

    def close_sessions(self, ids: Sequence[str], end_time: str) -> int:
        if not ids:
            return 0
        with self.transaction() as conn:
            return int(self._run(
                conn, "UPDATE mcp_sessions SET status = 'closed', end_time = :t WHERE status = 'active' "
                "AND id IN :ids", {"t": end_time, "ids": list(ids)}, expanding=("ids",)).rowcount)

    def active_sessions(self) -> list[SessionRow]:
        return [session_row(r) for r in self._read(
            f"SELECT {_SESSION_COLUMNS} FROM mcp_sessions WHERE status = 'active' ORDER BY start_time")]

    def active_session_owners(self) -> list[tuple[str, str | None]]:
        """(session id, owning server id or None) of every active session."""
        return [(str(r["id"]), r["server_id"]) for r in self._read(
            "SELECT id, server_id FROM mcp_sessions WHERE status = 'active' ORDER BY start_time")]

    def recent_sessions(self, workspace: str | None, limit: int, offset: int = 0) -> list[SessionRow]:
        where, params = ("WHERE workspace = :ws", {"ws": workspace}) if workspace is not None else ("", {})
        return [session_row(r) for r in self._read(
            f"SELECT {_SESSION_COLUMNS} FROM mcp_sessions {where} ORDER BY start_time DESC, id DESC "
            "LIMIT :n OFFSET :skip", {**params, "n": limit, "skip": offset})]

    def get_session(self, session_id: str) -> SessionRow | None:
        rows = self._read(f"SELECT {_SESSION_COLUMNS} FROM mcp_sessions WHERE id = :id", {"id": session_id})
        return session_row(rows[0]) if rows else None

    def session_aggregates(self, session_id: str) -> dict[str, Any]:
        """Counts computed from the calls themselves, not the session's counters (what the dashboard's
        session page and `/api/sessions/<id>` show)."""
        row = self._read(
            "SELECT COUNT(*) AS calls, COALESCE(SUM(tokens), 0) AS tokens, COALESCE(SUM(is_error), 0) AS errors, "
            "COALESCE(AVG(duration_ms), 0) AS mean_ms FROM tool_calls WHERE session_id = :id", {"id": session_id})[0]
        by_tool = self._read(
            "SELECT tool_name, COUNT(*) AS n FROM tool_calls WHERE session_id = :id GROUP BY tool_name "
            "ORDER BY n DESC, tool_name", {"id": session_id})
        return {"tool_calls": int(row["calls"]), "tokens": int(row["tokens"]), "errors": int(row["errors"]),
                "mean_duration_ms": round(float(row["mean_ms"]), 3),
                "calls_by_tool": {str(r["tool_name"]): int(r["n"]) for r in by_tool}}

    def calls_by_session(self, session_id: str, limit: int, offset: int = 0, tool: str | None = None,
                         errors_only: bool = False) -> list[CallRow]:
        statement = f"SELECT {_CALL_COLUMNS} FROM tool_calls WHERE session_id = :id"
        params: dict[str, Any] = {"id": session_id, "n": limit, "skip": offset}
        if tool:
            statement += " AND tool_name = :tool"
            params["tool"] = tool
        if errors_only:
            statement += " AND is_error = 1"
        statement += " ORDER BY seq LIMIT :n OFFSET :skip"
        return [call_row(r) for r in self._read(statement, params)]

    def count_sessions(self) -> int:
        return int(self._read("SELECT COUNT(*) AS n FROM mcp_sessions")[0]["n"])

    def count_calls(self) -> int:
        return int(self._read("SELECT COUNT(*) AS n FROM tool_calls")[0]["n"])

    # server processes

    def heartbeat_server(self, server: ServerProcess) -> None:
        """Register the server, or record that it is alive (its `heartbeat_at`)."""
        with self.transaction() as conn:
            self._run(conn, "INSERT INTO server_processes (id, host, pid, started_at, heartbeat_at) "
                      "VALUES (:id, :host, :pid, :started, :beat) "
                      "ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at",
                      {"id": server.id, "host": server.host, "pid": server.pid, "started": server.started_at,
                       "beat": server.heartbeat_at})

    def server_processes(self) -> list[ServerProcess]:
        return [ServerProcess(str(r["id"]), str(r["host"]), int(r["pid"]), str(r["started_at"]),
                              str(r["heartbeat_at"]))
                for r in self._read("SELECT id, host, pid, started_at, heartbeat_at FROM server_processes "
                                    "ORDER BY started_at")]

    def forget_servers(self, ids: Sequence[str]) -> None:
        if ids:
            with self.transaction() as conn:
                self._run(conn, "DELETE FROM server_processes WHERE id IN :ids", {"ids": list(ids)},
                          expanding=("ids",))
