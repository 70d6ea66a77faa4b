"""The record of MCP sessions and tool calls (what the dashboard shows), written off the request path.

Tool calls only put an event on a queue (microseconds); one writer thread turns events into
rows in batches. Sessions:
- a connection-scoped session (2025-era `initialize`, `Mcp-Session-Id`, or one stdio connection)
  is keyed by its transport session id and lasts until the transport closes or it idles out;
- 2026-07-28 requests are stateless: consecutive calls from the same client identity and
  workspace, with no gap longer than the idle timeout, form one session.
Recording never raises into a tool call: a failure is logged and the call goes on.

Several servers may record into one database (PostgreSQL, or one SQLite file on one machine).
Each registers itself in `server_processes` with a heartbeat and owns the sessions it opens; a
server that starts, and every server's idle sweep, closes only the sessions of servers that are
gone: one on this machine whose process has exited, or any whose heartbeat is older than
`SERVER_STALE_S` (a crashed server elsewhere).
"""

from __future__ import annotations

import logging
import math
import os
import queue
import socket
import threading
import time
import uuid
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from gem_flux_mcp.store.activity_queries import ServerProcess
from gem_flux_mcp.store.argument_caps import capped_arguments
from gem_flux_mcp.store.db import Database
from gem_flux_mcp.store.rows import CallRow, SessionRow, utc_now

log = logging.getLogger(__name__)

DEFAULT_IDLE_TIMEOUT_S = 1800.0
DEFAULT_MAX_SESSIONS = 100
DEFAULT_MAX_RESPONSE_CHARS = 4_000
DEFAULT_MAX_ARGUMENT_CHARS = 2_000
MAX_ERROR_MESSAGE_CHARS = 300  # the full message is in the recorded response
DEFAULT_MAX_CALLS_PER_SESSION = 2_000  # older calls of a longer session are dropped (counts stay true)
CHARS_PER_TOKEN = 4  # the usual rule of thumb for English/JSON text with GPT/Claude tokenizers
HEARTBEAT_S = 30.0  # how often a recording server says it is alive
SERVER_STALE_S = 180.0  # a server silent for this long is taken for gone, and its sessions closed
# the writer waits this long after a call's event before writing, so the calls of that moment go
# in one transaction (one client's calls in a row were one transaction each: ~10 % of the
# server's samples in a py-spy profile, benchmarks/HISTORY.md); a flush is answered at once
GATHER_S = 0.05


def estimate_tokens(text: str) -> int:
    """Tokens a client's model will read for this text: ceil(characters / 4)."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class ClientIdentity:
    workspace: str
    transport: str  # stdio | http
    transport_session_id: str | None  # set for connection-scoped (2025-era) sessions
    client_name: str | None
    client_version: str | None
    protocol_version: str | None

    def key(self) -> tuple[str | None, ...]:
        if self.transport_session_id is not None:
            return ("conn", self.transport_session_id)
        return ("client", self.workspace, self.client_name, self.client_version)


@dataclass(frozen=True)
class CallEvent:
    identity: ClientIdentity
    tool_name: str
    arguments: Any
    response_text: str
    is_error: bool
    error_code: str | None
    error_message: str | None
    duration_ms: float
    timestamp: str
    request_id: str | None
    annotations: dict[str, Any] | None


@dataclass
class _Live:
    session_id: str
    last_seen: float  # monotonic
    seq: int = 0
    identity: ClientIdentity | None = None


@dataclass
class _Flush:
    done: threading.Event = field(default_factory=threading.Event)


class ActivityRecorder:
    def __init__(
        self,
        db: Database,
        *,
        idle_timeout_s: float = DEFAULT_IDLE_TIMEOUT_S,
        max_sessions: int = DEFAULT_MAX_SESSIONS,
        max_response_chars: int = DEFAULT_MAX_RESPONSE_CHARS,
        max_argument_chars: int = DEFAULT_MAX_ARGUMENT_CHARS,
        max_calls_per_session: int = DEFAULT_MAX_CALLS_PER_SESSION,
    ) -> None:
        self.db = db
        self.max_argument_chars = max_argument_chars
        self.max_calls_per_session = max_calls_per_session
        self.idle_timeout_s = idle_timeout_s
        self.max_sessions = max_sessions
        self.max_response_chars = max_response_chars
        self._queue: queue.Queue[Any] = queue.Queue()
        self._live: dict[tuple[str | None, ...], _Live] = {}
        self.server = ServerProcess(id=str(uuid.uuid4()), host=socket.gethostname(), pid=os.getpid(),
                                    started_at=utc_now(), heartbeat_at="")
        self._last_heartbeat = -math.inf  # monotonic
        self._thread = threading.Thread(target=self._run, name="gemflux-recorder", daemon=True)
        self._stopped = False
        self._thread.start()

    # -- called from request handlers (cheap, never raises) ---------------------------------------

    def session_started(self, identity: ClientIdentity) -> None:
        self._put(("open", identity, time.monotonic()))

    def record(self, event: CallEvent) -> None:
        self._put(("call", event, time.monotonic()))

    def transport_closed(self, transport_session_id: str) -> None:
        self._put(("close", transport_session_id))

    def _put(self, item: Any) -> None:
        if not self._stopped:
            self._queue.put_nowait(item)

    # -- maintenance ------------------------------------------------------------------------------

    def recover(self) -> int:
        """At start-up (and in every idle sweep): close the sessions left active by servers that
        are gone (crashed), never those of servers still running on this database. Returns how
        many were closed."""
        # Sessions first, then servers: a session's owner registered before opening it, so every
        # owner still running is among the servers read after.
        owners = self.db.active_session_owners()
        servers = self.db.server_processes()
        cutoff = (datetime.now(UTC) - timedelta(seconds=SERVER_STALE_S)).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        gone = [s.id for s in servers if s.id != self.server.id and (
            s.heartbeat_at < cutoff or (s.host == self.server.host and not _process_alive(s.pid)))]
        running = {s.id for s in servers} - set(gone) | {self.server.id}
        closed = self.db.close_sessions([sid for sid, owner in owners if owner not in running], utc_now())
        self.db.forget_servers(gone)
        if closed:
            log.info("closed %d session(s) left active by a server that is gone", closed)
        return closed

    def close_idle(self) -> None:
        """Close sessions idle longer than the timeout (the cleanup timer calls this); the writer
        thread does it, in order with the events queued before."""
        done = _Flush()
        self._put(("idle", done))
        done.done.wait(10)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every event queued so far is written (readers call this first)."""
        if self._stopped or not self._thread.is_alive():
            return True
        done = _Flush()
        self._put(("flush", done))
        return done.done.wait(timeout)

    def stop(self) -> None:
        """Close this process's live sessions (its transports are going away) and stop."""
        if self._stopped:
            return
        done = _Flush()
        self._queue.put_nowait(("shutdown", done))
        self._stopped = True
        done.done.wait(10)

    # -- the writer thread ------------------------------------------------------------------------

    def _run(self) -> None:
        self._heartbeat()  # registered before any session it owns is written
        while True:
            try:
                item = self._queue.get(timeout=HEARTBEAT_S)
            except queue.Empty:
                self._heartbeat()
                continue
            if item[0] in ("call", "open", "close"):
                time.sleep(GATHER_S)
            batch = [item]
            while len(batch) < 500:
                try:
                    batch.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            try:
                stop = self._handle(batch)
            except Exception:  # recording must never take the server down
                log.exception("recording %d event(s) failed", len(batch))
                stop = any(isinstance(i, tuple) and i[0] == "shutdown" for i in batch)
            finally:
                for entry in batch:
                    if isinstance(entry, tuple) and len(entry) == 2 and isinstance(entry[1], _Flush):
                        entry[1].done.set()
            if stop:
                return
            if time.monotonic() - self._last_heartbeat > HEARTBEAT_S:
                self._heartbeat()

    def _heartbeat(self) -> None:
        try:
            self.db.heartbeat_server(replace(self.server, heartbeat_at=utc_now()))
            self._last_heartbeat = time.monotonic()
        except Exception as exc:  # recording must never take the server down
            log.warning("recording the server's heartbeat failed: %s", exc)

    def _handle(self, batch: list[Any]) -> bool:
        calls: list[CallRow] = []
        stop = False
        for item in batch:
            kind = item[0]
            if kind == "open":
                self._session_for(item[1], item[2], calls)
            elif kind == "call":
                event: CallEvent = item[1]
                live = self._session_for(event.identity, item[2], calls)
                live.seq += 1
                calls.append(self._call_row(event, live))
            elif kind == "close":
                self._write(calls)
                live_conn = self._live.pop(("conn", item[1]), None)
                if live_conn is not None:
                    self.db.close_sessions([live_conn.session_id], utc_now())
            elif kind == "idle":
                self._write(calls)
                self._close_idle_now()
                self.recover()  # sessions of servers that crashed meanwhile
            elif kind == "flush":
                self._write(calls)
            elif kind == "shutdown":
                self._write(calls)
                self.db.close_sessions([live.session_id for live in self._live.values()], utc_now())
                self._live.clear()
                self.db.forget_servers([self.server.id])
                stop = True
        self._write(calls)
        return stop

    def _write(self, calls: list[CallRow]) -> None:
        if calls:
            gone = self.db.insert_calls(calls, self.max_calls_per_session)
            calls.clear()
            if gone:  # pruned (by another server): later calls of those clients start a new session
                for key in [k for k, live in self._live.items() if live.session_id in gone]:
                    del self._live[key]

    def _session_for(self, identity: ClientIdentity, seen: float, pending: list[CallRow]) -> _Live:
        key = identity.key()
        live = self._live.get(key)
        if live is not None and seen - live.last_seen > self.idle_timeout_s:
            # a stateless client came back after the idle gap: that is a new session
            self._write(pending)
            self.db.close_sessions([live.session_id], utc_now())
            live = None
        if live is None:
            self._write(pending)
            now = utc_now()
            row = SessionRow(
                id=str(uuid.uuid4()), workspace=identity.workspace, transport=identity.transport,
                transport_session_id=identity.transport_session_id, client_name=identity.client_name,
                client_version=identity.client_version, protocol_version=identity.protocol_version,
                status="active", start_time=now, end_time=None, last_activity=now,
                tool_call_count=0, total_tokens=0,
            )
            pruned = self.db.insert_session(row, self.max_sessions, self.server.id)
            if pruned:
                # forget live sessions whose rows were pruned: their late calls start a new session
                existing = {s.id for s in self.db.recent_sessions(None, self.max_sessions)}
                for stale_key in [k for k, lv in self._live.items() if lv.session_id not in existing]:
                    del self._live[stale_key]
                log.debug("pruned %d old session(s)", pruned)
            live = _Live(row.id, seen, identity=identity)
            self._live[key] = live
        live.last_seen = seen
        return live

    def _close_idle_now(self) -> None:
        now = time.monotonic()
        expired = [k for k, live in self._live.items() if now - live.last_seen > self.idle_timeout_s]
        ids = [self._live.pop(k).session_id for k in expired]
        if ids:
            self.db.close_sessions(ids, utc_now())
            log.info("closed %d idle session(s)", len(ids))

    def _call_row(self, event: CallEvent, live: _Live) -> CallRow:
        text = event.response_text
        truncated = len(text) > self.max_response_chars
        return CallRow(
            id=str(uuid.uuid4()), session_id=live.session_id, workspace=event.identity.workspace, seq=live.seq,
            client_name=event.identity.client_name, client_version=event.identity.client_version,
            tool_name=event.tool_name, arguments=capped_arguments(event.arguments, self.max_argument_chars),
            response=text[: self.max_response_chars] if truncated else text, response_size=len(text),
            response_truncated=truncated, is_error=event.is_error, error_code=event.error_code,
            error_message=(event.error_message or "")[:MAX_ERROR_MESSAGE_CHARS] or None,
            duration_ms=round(event.duration_ms, 3), timestamp=event.timestamp,
            request_id=event.request_id, annotations=event.annotations, tokens=estimate_tokens(text),
        )


def _process_alive(pid: int) -> bool:
    """Whether a process of this machine is running (signal 0 checks without sending one)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # PermissionError: someone else's process
        return True
    return True
