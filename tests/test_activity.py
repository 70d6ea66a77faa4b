"""The record of MCP sessions and tool calls: library rules, and real clients over HTTP.

The library tests also run on PostgreSQL (test_store_postgres.py imports them and gives them its
own `db_location`)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
import sqlalchemy as sa

from gem_flux_mcp import CONTRACT_VERSION
from gem_flux_mcp.store.activity import SERVER_STALE_S, ActivityRecorder, CallEvent, ClientIdentity, estimate_tokens
from gem_flux_mcp.store.activity_queries import ServerProcess
from gem_flux_mcp.store.db import DB_FILE_NAME, Database
from gem_flux_mcp.store.rows import SessionRow, utc_now
from mcp_client import http_client, stdio_client, structured


def _identity(conn: str | None, name: str = "client") -> ClientIdentity:
    return ClientIdentity(workspace="local", transport="http", transport_session_id=conn, client_name=name,
                          client_version="1", protocol_version="2025-11-25" if conn else "2026-07-28")


def _event(identity: ClientIdentity, tool: str = "list_media", error: bool = False) -> CallEvent:
    return CallEvent(identity=identity, tool_name=tool, arguments={"x": 1}, response_text="y" * 40,
                     is_error=error, error_code="BAD" if error else None, error_message="bad" if error else None,
                     duration_ms=1.5, timestamp=utc_now(), request_id="1", annotations={"readOnlyHint": True})


@pytest.fixture()
def db_location(tmp_path: Path) -> Path | str:
    """Where this test's database is: a SQLite file here, a PostgreSQL URL in test_store_postgres.py."""
    return tmp_path / DB_FILE_NAME


@pytest.fixture()
def db(db_location: Path | str) -> Database:
    return Database(db_location)


def test_retention_keeps_the_newest_100_sessions_with_their_calls(db: Database) -> None:
    recorder = ActivityRecorder(db, max_sessions=100)
    for n in range(105):
        recorder.record(_event(_identity(f"conn-{n}")))
    recorder.flush()
    sessions = db.recent_sessions(None, 500)
    assert len(sessions) == 100
    kept = {s.transport_session_id for s in sessions}
    assert kept == {f"conn-{n}" for n in range(5, 105)}
    assert db.count_calls() == 100, "pruned sessions take their calls with them"
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


_CRASHING_SERVER = """
import sys, time
from pathlib import Path
from gem_flux_mcp.store.activity import ActivityRecorder, CallEvent, ClientIdentity
from gem_flux_mcp.store.db import Database
from gem_flux_mcp.store.rows import utc_now

location = sys.argv[1] if "://" in sys.argv[1] else Path(sys.argv[1])
recorder = ActivityRecorder(Database(location))
identity = ClientIdentity("local", "http", "conn-a", "client", "1", "2025-11-25")
recorder.record(CallEvent(identity, "list_media", {}, "[]", False, None, None, 1.0, utc_now(), "1", None))
recorder.flush()
print("recorded", flush=True)
time.sleep(600)
"""


def test_a_restart_closes_sessions_left_active_by_a_crash(db_location: Path | str) -> None:
    """A server process records a session and is killed; a server that starts (or sweeps) then
    closes that session, but never the session of a server that is still running."""
    proc = subprocess.Popen([sys.executable, "-c", _CRASHING_SERVER, str(db_location)], stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"recorded"
    db = Database(db_location)
    running = ActivityRecorder(db)
    try:
        assert running.recover() == 0  # its server is alive: its session stays open
        assert db.recent_sessions(None, 10)[0].status == "active"
        proc.kill()  # the server dies without closing its sessions
        proc.wait()
        assert running.recover() == 1
        row = db.recent_sessions(None, 10)[0]
        assert row.status == "closed" and row.end_time is not None and row.tool_call_count == 1
        assert len(db.server_processes()) <= 1  # the dead one is forgotten
    finally:
        proc.kill()
        proc.stdout.close()
        running.stop()


def test_sessions_of_a_server_elsewhere_close_only_when_its_heartbeat_stops(db: Database) -> None:
    long_ago = "2000-01-01T00:00:00.000000Z"
    for server_id, beat in (("alive", utc_now()), ("silent", long_ago)):
        db.heartbeat_server(ServerProcess(server_id, "another-machine", 1, beat, beat))
        db.insert_session(SessionRow(f"s-{server_id}", "local", "http", None, None, None, None, "active",
                                     utc_now(), None, utc_now(), 0, 0), 100, server_id)
    db.insert_session(SessionRow("s-old-release", "local", "stdio", None, None, None, None, "active",
                                 utc_now(), None, utc_now(), 0, 0), 100)  # no owner: written before owners
    recorder = ActivityRecorder(db)
    try:
        assert SERVER_STALE_S < 3600
        assert recorder.recover() == 2
        assert {s.id: s.status for s in db.recent_sessions(None, 10)} == {
            "s-alive": "active", "s-silent": "closed", "s-old-release": "closed"}
        assert "silent" not in {s.id for s in db.server_processes()}
    finally:
        recorder.stop()


def test_validation_rules_are_enforced_by_the_database(db: Database) -> None:
    insert = sa.text("INSERT INTO mcp_sessions (id, workspace, transport, transport_session_id, client_name, "
                     "client_version, protocol_version, status, start_time, end_time, last_activity, "
                     "tool_call_count, total_tokens) VALUES ('s1', 'local', 'http', NULL, 'c', '1', '2025-11-25', "
                     ":status, :start, :end, :start, 0, 0)")
    for status, end in (("active", utc_now()),  # active with an end time
                        ("closed", None),  # closed without one
                        ("paused", None)):
        with db.connect() as conn, pytest.raises(sa.exc.IntegrityError):
            conn.execute(insert, {"status": status, "start": utc_now(), "end": end})


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
