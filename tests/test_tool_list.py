"""`tools/list` from one prepared answer (server/tool_list.py): every session is shown exactly what
FastMCP and the SDK would make, the handler runs once per tool set, and a new tool is listed."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client, FastMCP

from gem_flux_mcp.server.app import create_app
from gem_flux_mcp.server.tool_list import PreparedToolList


def _count_handler_runs(app: FastMCP) -> list[int]:
    """Wrap FastMCP's tools/list handler on the SDK server; the list grows by one per run."""
    entry = app._mcp_server.get_request_handler("tools/list")
    assert entry is not None
    runs: list[int] = []

    async def counting(ctx: Any, params: Any) -> Any:
        runs.append(1)
        return await entry.handler(ctx, params)

    app._mcp_server.add_request_handler("tools/list", entry.params_type, counting)
    return runs


async def _listed(app: FastMCP) -> list[dict[str, Any]]:
    async with Client(app) as client:
        return [tool.model_dump(mode="json") for tool in (await client.list_tools_mcp()).tools]


@pytest.mark.anyio
async def test_sessions_get_the_answer_fastmcp_makes_and_it_is_made_once_per_tool_set() -> None:
    app = create_app()
    plain = create_app()
    plain._mcp_server.middleware = [m for m in plain._mcp_server.middleware if not isinstance(m, PreparedToolList)]
    runs = _count_handler_runs(app)

    expected = await _listed(plain)
    assert len(expected) >= 25
    for _ in range(3):  # three sessions, one after the other
        assert await _listed(app) == expected
    assert len(runs) == 1

    @app.tool
    def added_later(x: int) -> int:
        """A tool registered after the answer was prepared."""
        return x

    names = [tool["name"] for tool in await _listed(app)]
    assert "added_later" in names and len(names) == len(expected) + 1
    assert len(runs) == 2
    await _listed(app)
    assert len(runs) == 2


@pytest.mark.anyio
async def test_a_page_cursor_goes_to_fastmcp() -> None:
    """Only the first page is prepared: a request with a cursor is FastMCP's to answer."""
    app = create_app()
    runs = _count_handler_runs(app)
    async with Client(app) as client:
        first = await client.list_tools_mcp()
        assert len(runs) == 1
        await client.list_tools_mcp(cursor="0")
        assert len(runs) == 2
        assert await client.list_tools_mcp() == first
    assert len(runs) == 2
