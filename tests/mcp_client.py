"""Real MCP clients (the official Python SDK) for the integration tests."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.types import CallToolResult, Implementation, TextContent

from conftest import GEM_FLUX

# "legacy" = 2025-era initialize handshake with sessions; a version string = 2026-07-28 stateless.
PROTOCOL_MODES = ["legacy", "2026-07-28"]


@asynccontextmanager
async def stdio_client(env: dict[str, str], mode: str, name: str = "pytest") -> AsyncIterator[Client]:
    params = StdioServerParameters(command=GEM_FLUX, args=["serve"], env=env)
    async with Client(params, mode=mode, client_info=Implementation(name=name, version="1.0"),
                      read_timeout_seconds=120) as client:
        yield client


@asynccontextmanager
async def http_client(base_url: str, mode: str, name: str = "pytest") -> AsyncIterator[Client]:
    async with Client(f"{base_url}/mcp", mode=mode, client_info=Implementation(name=name, version="1.0"),
                      read_timeout_seconds=120) as client:
        yield client


def structured(result: CallToolResult) -> dict[str, Any]:
    """A success's structured content, or an error's envelope: errors carry it as JSON text only,
    never as structured content (clients validate structured content against the output schema)."""
    if result.is_error:
        assert result.structured_content is None, "an error must not carry structured content"
        texts = [block.text for block in result.content if isinstance(block, TextContent)]
        assert texts, result.content
        return dict(json.loads(texts[0]))
    assert result.structured_content is not None, result.content
    return dict(result.structured_content)


async def call(client: Client, tool: str, args: dict[str, Any], *, error: str | None = None) -> dict[str, Any]:
    """Call a tool; expect success, or the envelope with the given error code."""
    result = await client.call_tool(tool, args)
    body = structured(result)
    if error is None:
        assert not result.is_error, body
    else:
        assert result.is_error and body["error_code"] == error, body
    return body


async def call_while_probing(client: Client, tool: str, args: dict[str, Any],
                             progress_callback: Any = None) -> tuple[dict[str, Any], list[float]]:
    """Call a long tool (expecting success) and, while it runs, time a look-up every 0.2 s: the
    server must keep answering other calls. Returns the structured result and the latencies."""
    result: dict[str, Any] = {}
    latencies: list[float] = []

    async def long_call() -> None:
        res = await client.call_tool(tool, args, progress_callback=progress_callback)
        assert not res.is_error, structured(res)
        result.update(structured(res))

    async def probe() -> None:
        await anyio.sleep(0.5)
        while not result:
            started = time.perf_counter()
            await call(client, "get_compound_name", {"compound_id": "cpd00027"})
            latencies.append(time.perf_counter() - started)
            await anyio.sleep(0.2)

    async with anyio.create_task_group() as group:
        group.start_soon(long_call)
        group.start_soon(probe)
    return result, latencies
