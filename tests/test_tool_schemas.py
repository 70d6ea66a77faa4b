"""The schemas `tools/list` publishes are dereferenced without jsonref where they refer only to
their own `$defs` (server/tool_schemas.py): the same schemas as FastMCP's `dereference_refs`
(with jsonref) gives, for every tool."""

from __future__ import annotations

from typing import Any

import anyio
import jsonref
import pytest
from fastmcp.server.middleware.dereference import _dereference_tool
from fastmcp.utilities.json_schema import dereference_refs

from gem_flux_mcp.server import tool_schemas
from gem_flux_mcp.server.app import create_app


def _tools() -> list[Any]:
    return list(anyio.run(lambda: create_app().list_tools(run_middleware=False)))


def _schemas() -> list[tuple[str, dict[str, Any]]]:
    tools = _tools()
    found = [(f"{t.name} input", t.parameters) for t in tools]
    return found + [(f"{t.name} output", t.output_schema) for t in tools if t.output_schema is not None]


def test_definitions_are_inlined_as_jsonref_inlines_them() -> None:
    schemas = _schemas()
    assert len(schemas) >= 70
    for name, schema in schemas:
        ours = tool_schemas.inline_definitions(schema)  # raises for a reference not to $defs
        assert ours == jsonref.replace_refs(schema, proxies=False, lazy_load=False), name
    assert sum("$defs" in schema for _, schema in schemas) >= 20  # not vacuous


def test_every_tool_is_published_as_fastmcp_would() -> None:
    for tool in _tools():
        assert tool_schemas.dereference(tool.parameters) == dereference_refs(tool.parameters), tool.name
        if tool.output_schema is not None:
            assert tool_schemas.dereference(tool.output_schema) == dereference_refs(tool.output_schema), tool.name
        assert tool_schemas.dereference_tool(tool) == _dereference_tool(tool), tool.name


@pytest.mark.parametrize("schema", [
    # a reference that is not to $defs
    {"$defs": {"A": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/A"}, "b": {"$ref": "#/properties/a"}}},
    # a cycle
    {"$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}}, "$ref": "#/$defs/N"},
    # a sibling of $ref, merged back
    {"$defs": {"A": {"type": "string"}}, "properties": {"a": {"$ref": "#/$defs/A", "description": "d"}}},
])
def test_other_schemas_come_out_as_fastmcps(schema: dict[str, Any]) -> None:
    assert tool_schemas.dereference(schema) == dereference_refs(schema)
