"""Every MCP session and tool call on record, through one middleware (README, "State, sessions and the
dashboard").

The middleware measures each call, then hands the recorder an event; the write happens on the
recorder's thread. Whatever goes wrong here is logged and never fails the call.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from fastmcp.server.middleware import Middleware, MiddlewareContext
from mcp.types import TextContent
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from gem_flux_mcp.server.envelope import error_payload
from gem_flux_mcp.store.activity import ActivityRecorder, CallEvent, ClientIdentity
from gem_flux_mcp.store.rows import utc_now

log = logging.getLogger(__name__)

WorkspaceResolver = Callable[[], str]


def _transport_name(ctx: Any) -> str:
    transport = getattr(ctx, "transport", None) if ctx is not None else None
    return "stdio" if transport == "stdio" else "http"


def identity_of(ctx: Any, workspace: str, client_info: Any = None) -> ClientIdentity:
    """Who is calling: client name/version, protocol era and, for 2025-era connections, the
    transport session id that keys the session."""
    rc = getattr(ctx, "request_context", None)
    protocol = getattr(rc, "protocol_version", None) if rc is not None else None
    session = getattr(rc, "session", None) if rc is not None else None
    if client_info is None and session is not None:
        params = getattr(session, "client_params", None)
        client_info = getattr(params, "client_info", None)
        protocol = protocol or getattr(params, "protocol_version", None)
    modern = protocol in MODERN_PROTOCOL_VERSIONS
    transport_session_id = None
    if not modern:
        try:
            transport_session_id = str(ctx.session_id)
        except (RuntimeError, AttributeError):
            transport_session_id = None
    return ClientIdentity(
        workspace=workspace,
        transport=_transport_name(ctx),
        transport_session_id=transport_session_id,
        client_name=getattr(client_info, "name", None),
        client_version=getattr(client_info, "version", None),
        protocol_version=protocol,
    )


def _response_text(result: Any) -> tuple[str, bool, str | None, str | None]:
    structured = getattr(result, "structured_content", None)
    is_error = bool(getattr(result, "is_error", False))
    if structured is not None:
        text = json.dumps(structured, ensure_ascii=False, separators=(",", ":"), default=str)
    else:
        blocks = getattr(result, "content", None) or []
        text = "\n".join(b.text for b in blocks if isinstance(b, TextContent))
    envelope = error_payload(result) or {}
    return text, is_error, envelope.get("error_code"), envelope.get("message")


class RecordingMiddleware(Middleware):
    def __init__(self, recorder: Callable[[], ActivityRecorder | None], workspace: WorkspaceResolver) -> None:
        self._recorder = recorder
        self._workspace = workspace
        self._annotation_cache: dict[str, dict[str, Any] | None] = {}

    async def _annotations(self, context: MiddlewareContext[Any], name: str) -> dict[str, Any] | None:
        """Snapshot of the tool's annotations (tools are registered once, so cached by name)."""
        if name not in self._annotation_cache:
            snapshot = None
            try:
                tool = await context.fastmcp_context.fastmcp.get_tool(name)  # type: ignore[union-attr]
                if tool is not None and tool.annotations is not None:
                    snapshot = tool.annotations.model_dump(by_alias=True, exclude_none=True, mode="json")
            except Exception:
                log.debug("no annotations for %s", name, exc_info=True)
            self._annotation_cache[name] = snapshot
        return self._annotation_cache[name]

    async def on_initialize(self, context: MiddlewareContext[Any], call_next: Any) -> Any:
        result = await call_next(context)
        try:
            recorder = self._recorder()
            if recorder is not None:
                params = getattr(context.message, "params", None)
                identity = identity_of(context.fastmcp_context, self._workspace(),
                                       getattr(params, "client_info", None))
                if identity.transport_session_id is not None:
                    recorder.session_started(identity)
        except Exception:
            log.exception("could not record a session start")
        return result

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: Any) -> Any:
        started = time.perf_counter()
        timestamp = utc_now()
        try:
            result = await call_next(context)
        except Exception as exc:
            duration_ms = (time.perf_counter() - started) * 1000
            await self._record(context, timestamp, duration_ms, None, exc)
            raise
        duration_ms = (time.perf_counter() - started) * 1000
        await self._record(context, timestamp, duration_ms, result, None)
        return result

    async def _record(self, context: MiddlewareContext[Any], timestamp: str, duration_ms: float, result: Any,
                      exc: BaseException | None) -> None:
        try:
            recorder = self._recorder()
            if recorder is None:
                return
            ctx = context.fastmcp_context
            name = str(getattr(context.message, "name", ""))
            code: str | None
            message: str | None
            if exc is not None:
                text, is_error, code, message = "", True, type(exc).__name__, str(exc)[:500]
            else:
                text, is_error, code, message = _response_text(result)
            try:
                request_id: str | None = str(ctx.request_id) if ctx is not None else None
            except RuntimeError:
                request_id = None
            recorder.record(CallEvent(
                identity=identity_of(ctx, self._workspace()),
                tool_name=name,
                arguments=getattr(context.message, "arguments", None) or {},
                response_text=text,
                is_error=is_error,
                error_code=code,
                error_message=message,
                duration_ms=duration_ms,
                timestamp=timestamp,
                request_id=request_id,
                annotations=await self._annotations(context, name),
            ))
        except Exception:
            log.exception("could not record a tool call")


class SessionCloseMiddleware:
    """ASGI middleware: a 2025-era client ends its HTTP session with DELETE + Mcp-Session-Id;
    that closes the session record."""

    def __init__(self, app: Any, recorder: Callable[[], ActivityRecorder | None]) -> None:
        self.app = app
        self.recorder = recorder

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)
        if scope.get("type") == "http" and scope.get("method") == "DELETE":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            session_id = headers.get("mcp-session-id")
            recorder = self.recorder()
            if session_id and recorder is not None:
                recorder.transport_closed(session_id)
