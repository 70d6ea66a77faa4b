"""MCP clients for the tests: the official Python SDK over real stdio and HTTP (end to end), and
FastMCP's in-memory client on the app in this process (tool behaviour, fast)."""

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


class InProcessClient:
    """FastMCP's in-memory client on `create_app()` with the runtime loaded in this process: the
    same tools, middleware and envelopes as a served app, without starting a server (~0.3 s
    instead of ~1.5 s). `call_tool` answers errors as results, like the SDK client."""

    def __init__(self, client: Any, resources: Any = None) -> None:
        self._client = client
        self.resources = resources  # the runtime the app serves (its store, its job board)

    async def call_tool(self, name: str, arguments: dict[str, Any], progress_callback: Any = None) -> Any:
        return await self._client.call_tool(name, arguments, raise_on_error=False,
                                            progress_handler=progress_callback)

    async def list_tools(self) -> Any:
        return await self._client.list_tools()


@asynccontextmanager
async def in_process_client(env: dict[str, str]) -> AsyncIterator[InProcessClient]:
    """The app with a runtime for the folders `env` names (as `server_env` sets them), the
    file area from GEMFLUX_ALLOWED_ROOTS; the runtime is shut down afterwards."""
    import os

    from fastmcp import Client as FastMCPClient

    from gem_flux_mcp.config import Settings
    from gem_flux_mcp.server import runtime
    from gem_flux_mcp.server.app import create_app

    settings = Settings.resolve(env["GEMFLUX_DATA_DIR"], env["GEMFLUX_STATE_DIR"], env["GEMFLUX_CACHE_DIR"])
    saved = os.environ.get("GEMFLUX_ALLOWED_ROOTS")
    os.environ["GEMFLUX_ALLOWED_ROOTS"] = env["GEMFLUX_ALLOWED_ROOTS"]
    resources = runtime.load_resources(settings)
    try:
        async with FastMCPClient(create_app(resources)) as client:
            yield InProcessClient(client, resources)
    finally:
        resources.shutdown()
        if saved is None:
            os.environ.pop("GEMFLUX_ALLOWED_ROOTS", None)
        else:
            os.environ["GEMFLUX_ALLOWED_ROOTS"] = saved


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


async def call(client: Client | InProcessClient, tool: str, args: dict[str, Any], *,
               error: str | None = None) -> dict[str, Any]:
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
