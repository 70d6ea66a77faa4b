"""`tools/list` answered from one prepared answer per protocol version and tool set.

Every MCP client lists the tools once per session, and the answer is the same for all of them:
the 35 tools publish ~170 KB of schemas. Making it costs ~30 ms of server CPU each time (FastMCP
lists the tools, runs its middleware and converts each to the SDK's type, ~13 ms; the SDK then
validates the result against the protocol version's schema and dumps it, 12-18 ms), so a lab's
100 assistants connecting at once paid ~3 s of CPU for 100 copies of one answer (what a session
costs the server: benchmarks/call_overhead.py --sessions).

`PreparedToolList` is middleware of the SDK's low-level server (`Server.middleware`, which runs
before the SDK's own checks and may answer without `call_next`, owning its answer). The first
`tools/list` of each protocol version goes through everything (the SDK's checks, FastMCP's
middleware and handler, the SDK's validation and wire shaping); its wire answer is kept with the
tool objects the app listed. A later request for the same version, on a connection past the
handshake, asking for the first page, gets a copy of that answer for as long as the app lists the
very same tool objects (a tool registered or replaced is a new object, and the answer is made
anew). The app shows every session the same tools: it sets no per-session visibility."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from mcp_types import methods as protocol_methods

if TYPE_CHECKING:
    from fastmcp import FastMCP
    from fastmcp.tools.base import Tool
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext

METHOD = "tools/list"


class PreparedToolList:
    """The SDK middleware described above; `install` puts one on an app."""

    def __init__(self, mcp: FastMCP) -> None:
        self._mcp = mcp
        self._answers: dict[str, tuple[tuple[Tool, ...], dict[str, Any]]] = {}  # version -> (tools, wire answer)

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method != METHOD or not _first_page(ctx.params) or not _past_handshake(ctx) \
                or not _valid(ctx.protocol_version, ctx.params):
            return await call_next(ctx)
        tools = tuple(await self._mcp.list_tools(run_middleware=False))
        kept = self._answers.get(ctx.protocol_version)
        if kept is not None and _same(kept[0], tools):
            return dict(kept[1])
        answer = await call_next(ctx)
        if isinstance(answer, dict):  # the wire answer the SDK shaped
            self._answers[ctx.protocol_version] = (tools, answer)
            return dict(answer)
        return answer


def install(mcp: FastMCP) -> PreparedToolList:
    prepared = PreparedToolList(mcp)
    mcp._mcp_server.middleware.append(prepared)  # after the SDK's OpenTelemetry span, which still sees it
    return prepared


def _first_page(params: Mapping[str, Any] | None) -> bool:
    return params is None or params.get("cursor") is None


def _past_handshake(ctx: ServerRequestContext[Any, Any]) -> bool:
    """The connection may list tools (the SDK's own gate, read off the session's connection;
    False when this SDK version does not show it, and the request goes through)."""
    connection = getattr(ctx.session, "_connection", None)
    return bool(getattr(connection, "initialize_accepted", False))


def _valid(version: str, params: Mapping[str, Any] | None) -> bool:
    """The request passes the SDK's check of the method's params for `version`."""
    try:
        protocol_methods.validate_client_request(METHOD, version, params)
    except (KeyError, ValueError):  # unknown version or method, bad params (a ValidationError): the SDK answers
        return False
    return True


def _same(kept: Sequence[Tool], listed: Sequence[Tool]) -> bool:
    return len(kept) == len(listed) and all(a is b for a, b in zip(kept, listed, strict=True))
