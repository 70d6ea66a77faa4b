"""The record of MCP sessions and tool calls: library rules, and real clients over HTTP."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from gem_flux_mcp import CONTRACT_VERSION
from gem_flux_mcp.store.activity import ActivityRecorder, CallEvent, ClientIdentity, estimate_tokens
from gem_flux_mcp.store.db import DB_FILE_NAME, Database
from gem_flux_mcp.store.rows import utc_now
from mcp_client import http_client, stdio_client, structured


def _identity(conn: str | None, name: str = "client") -> ClientIdentity:
    return ClientIdentity(workspace="local", transport="http", transport_session_id=conn, client_name=name,
                          client_version="1", protocol_version="2025-11-25" if conn else "2026-07-28")


def _event(identity: ClientIdentity, tool: str = "list_media", error: bool = False) -> CallEvent:
    return CallEvent(identity=identity, tool_name=tool, arguments={"x": 1}, response_text="y" * 40,
                     is_error=error, error_code="BAD" if error else None, error_message="bad" if error else None,
                     duration_ms=1.5, timestamp=utc_now(), request_id="1", annotations={"readOnlyHint": True})


@pytest.fixture()
def db(tmp_path: Path) -> Database:
    return Database(tmp_path / DB_FILE_NAME)


def test_retention_keeps_the_newest_100_sessions_with_their_calls(db: Database) -> None:
    recorder = ActivityRecorder(db, max_sessions=100)
    for n in range(105):
        recorder.record(_event(_identity(f"conn-{n}")))
    recorder.flush()
    sessions = db.recent_sessions(None, 500)
    assert len(sessions) == 100
    kept = {s.transport_session_id for s in sessions}
    assert kept == {f"conn-{n}" for n in range(5, 105)}
    calls = db.connection().execute("SELECT COUNT(*) FROM tool_calls").fetchone()[0]
    assert calls == 100, "pruned sessions take their calls with them"
    recorder.stop()


def test_idle_sessions_close_and_stateless_clients_start_a_new_session_after_the_gap(db: Database) -> None:
    recorder = ActivityRecorder(db, idle_timeout_s=0.3)
    conn, stateless = _identity("conn-1"), _identity(None, "modern")
    recorder.record(_event(conn))
    recorder.record(_event(stateless))
    recorder.record(_event(stateless))
    recorder.flush()
    assert [s.tool_call_count for s in db.recent_sessions(None, 10)] == [2, 1]
    time.sleep(0.5)
    recorder.close_idle()
    statuses = {s.transport_session_id: (s.status, s.end_time) for s in db.recent_sessions(None, 10)}
    assert all(status == "closed" and end for status, end in statuses.values())
    recorder.record(_event(stateless))
    recorder.flush()
    modern = [s for s in db.recent_sessions(None, 10) if s.client_name == "modern"]
    assert len(modern) == 2 and modern[0].status == "active" and modern[0].tool_call_count == 1
    recorder.stop()
    assert all(s.status == "closed" for s in db.recent_sessions(None, 10))


def test_a_restart_closes_sessions_left_active_by_a_crash(tmp_path: Path) -> None:
    first = Database(tmp_path / DB_FILE_NAME)
    crashed = ActivityRecorder(first)
    crashed.record(_event(_identity("conn-a")))
    crashed.flush()
    assert first.recent_sessions(None, 10)[0].status == "active"
    # no stop(): the process "dies"; a new one opens the same file
    second = Database(tmp_path / DB_FILE_NAME)
    assert ActivityRecorder(second).recover() == 1
    row = second.recent_sessions(None, 10)[0]
    assert row.status == "closed" and row.end_time is not None and row.tool_call_count == 1


def test_validation_rules_are_enforced_by_the_database(db: Database) -> None:
    conn = db.connection()
    base = ("s1", "local", "http", None, "c", "1", "2025-11-25")
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO mcp_sessions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                     (*base, "active", utc_now(), utc_now(), utc_now(), 0, 0))  # active with an end time
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO mcp_sessions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                     (*base, "closed", utc_now(), None, utc_now(), 0, 0))  # closed without one
    with pytest.raises(sqlite3.IntegrityError):
        conn.execute("INSERT INTO mcp_sessions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                     (*base, "paused", utc_now(), None, utc_now(), 0, 0))


def test_long_responses_are_truncated_with_the_full_size_noted(db: Database) -> None:
    recorder = ActivityRecorder(db, max_response_chars=100)
    event = _event(_identity("conn-1"))
    recorder.record(CallEvent(**{**event.__dict__, "response_text": "z" * 1000}))
    recorder.flush()
    call = db.calls_by_session(db.recent_sessions(None, 1)[0].id, 10)[0]
    assert call.response_truncated and call.response_size == 1000 and len(call.response or "") == 100
    assert call.tokens == estimate_tokens("z" * 1000) == 250
    recorder.stop()


def test_recording_never_raises_into_the_caller(db: Database) -> None:
    recorder = ActivityRecorder(db)
    db.close()  # every write now fails inside the writer thread
    recorder.record(_event(_identity("conn-1")))
    assert recorder.flush()
    recorder.stop()


@pytest.mark.anyio
async def test_two_concurrent_clients_are_recorded_exactly(http_server: str) -> None:
    plans: dict[str, list[tuple[str, dict[str, Any]]]] = {
        "alpha": [("search_compounds", {"query": "glucose"}), ("get_compound_name", {"compound_id": "bad"}),
                  ("list_media", {}), ("search_reactions", {"query": "2.7.1.1"})],
        "beta": [("list_models", {}), ("get_reaction_name", {"reaction_id": "rxn00148"}),
                 ("search_compounds", {"query": ""})],
    }

    async def run(name: str, mode: str) -> None:
        async with http_client(http_server, mode, name=name) as client:
            for tool, args in plans[name]:
                await client.call_tool(tool, args)

    async with anyio.create_task_group() as group:
        group.start_soon(run, "alpha", "legacy")
        group.start_soon(run, "beta", "2026-07-28")
    async with httpx.AsyncClient(base_url=http_server, timeout=30) as http:
        assert (await http.get("/api/tools")).json()["contract_version"] == CONTRACT_VERSION
        assert f"tool contract {CONTRACT_VERSION}" in (await http.get("/")).text
        sessions = (await http.get("/api/sessions")).json()["sessions"]
        by_name = {s["client_name"]: s for s in sessions}
        assert set(by_name) == {"alpha", "beta"}
        assert by_name["alpha"]["status"] == "closed"  # the legacy client ended its session (DELETE)
        assert by_name["alpha"]["end_time"] and by_name["alpha"]["protocol_version"] != "2026-07-28"
        assert by_name["beta"]["protocol_version"] == "2026-07-28"
        for name, plan in plans.items():
            session = by_name[name]
            assert session["tool_call_count"] == len(plan)
            calls = (await http.get(f"/api/sessions/{session['id']}/calls")).json()["calls"]
            assert [c["tool_name"] for c in calls] == [tool for tool, _ in plan]
            assert [c["arguments"] for c in calls] == [args for _, args in plan]
            assert [c["seq"] for c in calls] == list(range(1, len(plan) + 1))
            assert all(c["client_name"] == name and c["annotations"]["readOnlyHint"] for c in calls)
            assert sum(c["tokens"] for c in calls) == session["total_tokens"] > 0
        alpha_calls = (await http.get(f"/api/sessions/{by_name['alpha']['id']}/calls", params={"errors": 1})).json()
        assert [(c["tool_name"], c["error_code"]) for c in alpha_calls["calls"]] == [
            ("get_compound_name", "INVALID_ID_FORMAT")]
        detail = (await http.get(f"/api/sessions/{by_name['beta']['id']}")).json()
        assert detail["aggregates"]["tool_calls"] == 3 and detail["aggregates"]["errors"] == 1


@pytest.mark.anyio
async def test_a_stdio_session_closes_with_its_connection(server_env: dict[str, str]) -> None:
    async with stdio_client(server_env, "legacy", name="stdio-client") as client:
        structured(await client.call_tool("list_media", {}))
    db = Database(Path(server_env["GEMFLUX_STATE_DIR"]) / DB_FILE_NAME)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        rows = db.recent_sessions(None, 10)
        if rows and rows[0].status == "closed":
            break
        await anyio.sleep(0.2)
    assert [(r.client_name, r.status, r.tool_call_count, r.transport) for r in rows] == [
        ("stdio-client", "closed", 1, "stdio")]
