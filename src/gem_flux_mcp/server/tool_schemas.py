"""Each tool's input schema, found once, for the MCP SDK's check of `Mcp-Param-*` headers.

On every `tools/call` over Streamable HTTP in the 2026-07-28 protocol era, the SDK validates the
request's `Mcp-Param-*` headers against the called tool's input schema. Unless the low-level
server is given `get_tool_input_schema`, it finds that schema by running a whole `tools/list`
through the server (FastMCP's middleware, every tool's schema dereferenced) per call: ~35 ms of
a look-up's ~40 ms (benchmarks/call_overhead.py). FastMCP does not set the hook; this module
does. The tool set is fixed once the app is built, so the schemas, dereferenced exactly as
`tools/list` publishes them (FastMCP's own `dereference_refs`), are computed once each.

`tools/list` itself dereferences every tool's schemas again on each request (FastMCP's
`DereferenceRefsMiddleware`): ~25-70 ms of the event loop, and every MCP client asks once per
session, so 30 clients connecting at once queue for a second or more (benchmarks/load.py).
`DereferencedOnce` is that middleware with each tool's result kept: the same schemas, published
the same way, computed once per tool object.

FastMCP's `dereference_refs` imports `jsonref`, which imports `requests` (~0.15 s of the first
`tools/list` after a start). Our schemas refer only to their own `$defs` (Pydantic's
`#/$defs/Name`): `dereference` takes FastMCP's steps, with its own helpers, and inlines those
references itself as `jsonref` does; any other schema goes to `dereference_refs`.
`tests/test_tool_schemas.py` checks that every tool's schemas come out the same both ways."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import mcp_types as mt
from fastmcp.server.middleware.dereference import DereferenceRefsMiddleware, _has_ref
from fastmcp.server.middleware.middleware import CallNext, MiddlewareContext
from fastmcp.utilities import json_schema as fastmcp_json_schema
from fastmcp.utilities.json_schema import dereference_refs

if TYPE_CHECKING:
    from fastmcp import FastMCP
    from fastmcp.tools.base import Tool


_DEFINITION_REF = re.compile(r"#/\$defs/([A-Za-z0-9_.-]+)")


class _NotOnlyDefinitions(Exception):
    """A reference other than to one of the schema's own `$defs`, or a cycle: left to jsonref."""


def inline_definitions(schema: Mapping[str, Any]) -> dict[str, Any]:
    """`schema` with every `{"$ref": "#/$defs/Name", ...}` replaced by that definition, itself
    inlined (siblings of `$ref` dropped, as `jsonref.replace_refs(proxies=False)` does; FastMCP
    merges them back afterwards). A definition is inlined once and the copy shared wherever it
    is referred to, as jsonref does. Raises `_NotOnlyDefinitions` for any other reference."""
    definitions = schema.get("$defs", {})
    done: dict[str, Any] = {}
    active: set[str] = set()

    def walk(node: Any) -> Any:
        if isinstance(node, dict):
            if "$ref" not in node:
                return {key: walk(value) for key, value in node.items()}
            ref = node["$ref"]
            found = _DEFINITION_REF.fullmatch(ref) if isinstance(ref, str) else None
            if found is None or found.group(1) not in definitions or ref in active:
                raise _NotOnlyDefinitions(ref)
            if ref not in done:
                active.add(ref)
                done[ref] = walk(definitions[found.group(1)])
                active.discard(ref)
            return done[ref]
        if isinstance(node, list):
            return [walk(value) for value in node]
        return node

    result = walk(schema)
    assert isinstance(result, dict)
    return result


def dereference(schema: dict[str, Any]) -> dict[str, Any]:
    """FastMCP's `dereference_refs(schema)`, without jsonref when every reference is to the
    schema's own `$defs`: the same checks of size and depth, siblings of `$ref` merged back,
    `$defs` dropped, discriminators stripped. Anything else is FastMCP's to do."""
    fjs = fastmcp_json_schema
    try:
        if not fjs._within_inline_limits(schema, follow_refs=True):
            return dereference_refs(schema)
        inlined = inline_definitions(schema)
    except _NotOnlyDefinitions:
        return dereference_refs(schema)
    merged = fjs._merge_ref_siblings(schema, inlined, schema)
    assert isinstance(merged, dict)
    merged = {key: value for key, value in merged.items() if key != "$defs"}
    if not fjs._within_inline_limits(merged, follow_refs=False):
        return dereference_refs(schema)
    stripped: dict[str, Any] = fjs._strip_discriminator(merged)
    return stripped if fjs._text_within_limit(stripped) else dereference_refs(schema)


def dereference_tool(tool: Tool) -> Tool:
    """FastMCP's `_dereference_tool` (a copy of the tool with dereferenced schemas), with `dereference`."""
    updates: dict[str, object] = {}
    if "$defs" in tool.parameters or _has_ref(tool.parameters):
        updates["parameters"] = dereference(tool.parameters)
    if tool.output_schema is not None and ("$defs" in tool.output_schema or _has_ref(tool.output_schema)):
        updates["output_schema"] = dereference(tool.output_schema)
    return tool.model_copy(update=updates) if updates else tool


class ToolInputSchemas:
    """name -> input schema as `tools/list` shows it; None for a tool it does not know (the SDK
    then skips the header check and the call's own dispatch answers for the unknown tool). The
    tools are found at start-up; each schema is dereferenced when it is first asked for (the 35
    of them at once took ~50-100 ms of every start, before the first `tools/list`)."""

    def __init__(self) -> None:
        self._raw: dict[str, dict[str, Any]] = {}
        self._schemas: dict[str, Mapping[str, Any]] = {}

    async def load(self, mcp: FastMCP) -> None:
        tools = await mcp.list_tools(run_middleware=False)
        self._raw = {tool.name: tool.parameters for tool in tools}
        self._schemas = {}

    def __call__(self, name: str) -> Mapping[str, Any] | None:
        schema = self._schemas.get(name)
        if schema is None and name in self._raw:
            schema = self._schemas[name] = dereference(self._raw[name])
        return schema


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
            done = (tool, dereference_tool(tool))
            self._done[tool.name] = done
        return done[1]
