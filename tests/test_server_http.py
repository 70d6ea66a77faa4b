"""Streamable HTTP transport: both protocol eras, sessions, and the Origin guard."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from conftest import server_environment, start_http_server, stop_server
from gem_flux_mcp.data.biochem import BiochemIndex
from mcp_client import PROTOCOL_MODES, http_client, structured

INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "raw-http", "version": "0"}},
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def server_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("http-server")


@pytest.fixture(scope="module")
def http_server(data_dir: Path, cache_dir: Path, biochem: BiochemIndex, server_folder: Path) -> Iterator[str]:
    """One server for this file: its tests only read (look-ups, sessions, headers), so they share
    it, as clients share a lab's server; each start costs ~3.5 s of CPU."""
    env = server_environment(data_dir, cache_dir, server_folder)
    proc, url = start_http_server(env, server_folder / "http-server.log")
    try:
        yield url
    finally:
        stop_server(proc)


def _json_body(response: httpx.Response) -> dict[str, Any]:
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in response.text.splitlines() if line.startswith("data:")]
        return dict(json.loads(data[-1]))
    return dict(response.json())


@pytest.mark.anyio
@pytest.mark.parametrize("mode", PROTOCOL_MODES)
async def test_both_protocol_eras_over_http(http_server: str, mode: str) -> None:
    async with http_client(http_server, mode) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert "search_compounds" in names
        record = structured(await client.call_tool("get_compound_name", {"compound_id": "cpd00027"}))
        assert record["name"] == "D-Glucose"
        bad = await client.call_tool("search_compounds", {"query": "glucose", "limit": 0})
        assert bad.is_error and structured(bad)["error_code"] == "INVALID_LIMIT"


def test_legacy_initialize_issues_a_session_id(http_server: str) -> None:
    with httpx.Client(timeout=30) as http:
        response = http.post(f"{http_server}/mcp", json=INIT, headers=HEADERS)
        assert response.status_code == 200
        assert response.headers.get("mcp-session-id")
        assert _json_body(response)["result"]["serverInfo"]["name"] == "gem-flux"


def test_foreign_origin_is_rejected(http_server: str) -> None:
    with httpx.Client(timeout=30) as http:
        foreign = http.post(f"{http_server}/mcp", json=INIT,
                            headers={**HEADERS, "Origin": "http://evil.example"})
        assert foreign.status_code == 403
        local = http.post(f"{http_server}/mcp", json=INIT,
                          headers={**HEADERS, "Origin": http_server})
        assert local.status_code == 200
        rebinding = http.post(f"{http_server}/mcp", json=INIT,
                              headers={**HEADERS, "Host": "evil.example"})
        assert rebinding.status_code in {400, 403, 421}


def test_binds_to_loopback_by_default(http_server: str, server_folder: Path) -> None:
    log = (server_folder / "http-server.log").read_text()
    assert "127.0.0.1" in log and "0.0.0.0" not in log


@pytest.mark.anyio
async def test_the_header_check_finds_each_tools_schema_as_tools_list_shows_it(http_server: str) -> None:
    """The SDK checks a 2026-07-28 call's Mcp-Param headers against the tool's input schema. The
    app hands it each schema, found once at start-up (server/tool_schemas.py), instead of letting
    it run a whole tools/list per call: the schemas must be the ones clients are shown."""
    from fastmcp import Client as InMemoryClient

    from gem_flux_mcp.server.app import create_app

    app = create_app()
    lookup = app._mcp_server.get_tool_input_schema
    assert lookup is not None and lookup("get_compound_name") is None  # filled by the app's lifespan
    async with InMemoryClient(app):
        assert lookup("get_compound_name") is not None
    async with http_client(http_server, "2026-07-28") as client:
        listed = (await client.list_tools()).tools
    assert len(listed) >= 25
    for tool in listed:
        assert lookup(tool.name) == tool.input_schema, tool.name
    assert lookup("no_such_tool") is None
