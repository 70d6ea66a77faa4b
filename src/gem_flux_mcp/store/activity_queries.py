"""The SQL of the activity record: MCP sessions and their tool calls (written by activity.py,
read by the dashboard). Part of `Database` (db.py)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from gem_flux_mcp.store.row_mapping import call_row, pack_text, session_row
from gem_flux_mcp.store.rows import CallRow, SessionRow
from gem_flux_mcp.store.sqlite_access import SqliteAccess

_SESSION_COLUMNS = (
    "id, workspace, transport, transport_session_id, client_name, client_version, protocol_version, status, "
    "start_time, end_time, last_activity, tool_call_count, total_tokens"
)
_CALL_COLUMNS = (
    "id, session_id, workspace, seq, client_name, client_version, tool_name, arguments_json, response_json, "
    "response_size, response_truncated, is_error, error_code, error_message, duration_ms, timestamp, request_id, "
    "annotations_json, tokens"
)


class ActivityQueries(SqliteAccess):
    """Sessions and tool calls: inserted in batches with their counters, pruned, read back for the dashboard."""

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
        """Counts computed from the calls themselves, not the session's counters (what the dashboard's
        session page and `/api/sessions/<id>` show)."""
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
