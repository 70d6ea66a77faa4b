"""Each tool's input schema, found once, for the MCP SDK's check of `Mcp-Param-*` headers.

On every `tools/call` over Streamable HTTP in the 2026-07-28 protocol era, the SDK validates the
request's `Mcp-Param-*` headers against the called tool's input schema. Unless the low-level
server is given `get_tool_input_schema`, it finds that schema by running a whole `tools/list`
through the server (FastMCP's middleware, every tool's schema dereferenced) per call: ~35 ms of
a look-up's ~40 ms (benchmarks/call_overhead.py). FastMCP does not set the hook; this module
does. The tool set is fixed once the app is built, so the schemas, dereferenced exactly as
`tools/list` publishes them (FastMCP's own `dereference_refs`), are computed at start-up.

`tools/list` itself dereferences every tool's schemas again on each request (FastMCP's
`DereferenceRefsMiddleware`): ~25-70 ms of the event loop, and every MCP client asks once per
session, so 30 clients connecting at once queue for a second or more (benchmarks/load.py).
`DereferencedOnce` is that middleware with each tool's result kept: the same schemas, published
the same way, computed once per tool object."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import mcp_types as mt
from fastmcp.server.middleware.dereference import DereferenceRefsMiddleware, _dereference_tool
from fastmcp.server.middleware.middleware import CallNext, MiddlewareContext
from fastmcp.utilities.json_schema import dereference_refs

if TYPE_CHECKING:
    from fastmcp import FastMCP
    from fastmcp.tools.base import Tool


class ToolInputSchemas:
    """name -> input schema as `tools/list` shows it; None for a tool it does not know (the SDK
    then skips the header check and the call's own dispatch answers for the unknown tool)."""

    def __init__(self) -> None:
        self._schemas: dict[str, Mapping[str, Any]] = {}

    async def load(self, mcp: FastMCP) -> None:
        tools = await mcp.list_tools(run_middleware=False)
        self._schemas = {tool.name: dereference_refs(tool.parameters) for tool in tools}

    def __call__(self, name: str) -> Mapping[str, Any] | None:
        return self._schemas.get(name)


def install(mcp: FastMCP) -> ToolInputSchemas:
    """Give the app's low-level server the look-up; fill it with `await schemas.load(mcp)` once
    every tool is registered (the app's lifespan does)."""
    schemas = ToolInputSchemas()
    mcp._mcp_server.get_tool_input_schema = schemas  # the SDK's hook; FastMCP has no setting for it
    return schemas


class DereferencedOnce(DereferenceRefsMiddleware):
    """FastMCP's `DereferenceRefsMiddleware` (resource templates as it does them), with each
    tool's dereferenced copy kept for as long as the tool object it was made from is the one
    listed (a tool registered anew is a new object, so it is dereferenced anew)."""

    def __init__(self) -> None:
        self._done: dict[str, tuple[Tool, Tool]] = {}  # name -> (tool as listed, its dereferenced copy)

    async def on_list_tools(self, context: MiddlewareContext[mt.ListToolsRequest],
                            call_next: CallNext[mt.ListToolsRequest, Sequence[Tool]]) -> Sequence[Tool]:
        return [self._dereferenced(tool) for tool in await call_next(context)]

    def _dereferenced(self, tool: Tool) -> Tool:
        done = self._done.get(tool.name)
        if done is None or done[0] is not tool:
            done = (tool, _dereference_tool(tool))
            self._done[tool.name] = done
        return done[1]
