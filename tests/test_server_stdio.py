"""The server as a user's MCP client meets it: a real subprocess over stdio, both protocol eras."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from conftest import GEM_FLUX, server_environment
from gem_flux_mcp.data.biochem import BiochemIndex
from mcp_client import PROTOCOL_MODES, stdio_client, structured

TOOLS = {"get_compound_name", "search_compounds", "get_reaction_name", "search_reactions"}
ANNOTATION_KEYS = ("title", "read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint")
ENVELOPE_KEYS = {"success", "error_type", "error_code", "jsonrpc_error_code", "message", "details",
                 "suggestions", "valid_next_steps", "example_call", "tool_name", "timestamp"}

BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("get_compound_name", {"compound_id": "glucose"}, "INVALID_ID_FORMAT"),
    ("get_compound_name", {"compound_id": "cpd1"}, "INVALID_ID_FORMAT"),
    ("get_compound_name", {"compound_id": ""}, "EMPTY_ID"),
    ("get_compound_name", {"compound_id": "cpd99999"}, "COMPOUND_NOT_FOUND"),
    ("get_compound_name", {"compound_id": 27}, "INVALID_ARGUMENTS"),
    ("get_compound_name", {}, "INVALID_ARGUMENTS"),
    ("get_reaction_name", {"reaction_id": "rxn0014"}, "INVALID_ID_FORMAT"),
    ("get_reaction_name", {"reaction_id": "rxn99999"}, "REACTION_NOT_FOUND"),
    ("get_reaction_name", {"reaction_id": ["rxn00148"]}, "INVALID_ARGUMENTS"),
    ("search_compounds", {"query": ""}, "EMPTY_QUERY"),
    ("search_compounds", {"query": "   "}, "EMPTY_QUERY"),
    ("search_compounds", {"query": "g" * 10_000}, "QUERY_TOO_LONG"),
    ("search_compounds", {"query": "glucose", "limit": 0}, "INVALID_LIMIT"),
    ("search_compounds", {"query": "glucose", "limit": 10_000}, "INVALID_LIMIT"),
    ("search_compounds", {"query": "glucose", "limit": "many"}, "INVALID_ARGUMENTS"),
    ("search_compounds", {"query": None}, "INVALID_ARGUMENTS"),
    ("search_reactions", {"query": "kinase", "limit": -1}, "INVALID_LIMIT"),
    ("search_reactions", {"query": {"text": "kinase"}}, "INVALID_ARGUMENTS"),
    ("search_reactions", {"query": "kinase", "unexpected": 1}, "INVALID_ARGUMENTS"),
]


@pytest.fixture(scope="module", params=PROTOCOL_MODES)
async def client(request: pytest.FixtureRequest, data_dir: Path, cache_dir: Path, biochem: BiochemIndex,
                 tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Client]:
    """One stdio server and connection per protocol era for the tests that only read: listing,
    look-ups and refused calls, in one session as a user's client makes them (~3.5 s of CPU saved
    per server not started)."""
    env = server_environment(data_dir, cache_dir, tmp_path_factory.mktemp("stdio"))
    async with stdio_client(env, request.param) as connected:
        yield connected


@pytest.mark.anyio
async def test_tools_are_listed_with_annotations_and_schemas(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) >= TOOLS
    for tool in tools.values():
        assert tool.description and len(tool.description) > 40
        assert tool.annotations is not None
        for key in ANNOTATION_KEYS:
            assert getattr(tool.annotations, key) is not None, (tool.name, key)
        assert tool.output_schema and tool.output_schema.get("type") == "object"
        assert tool.input_schema.get("type") == "object"
    for name in TOOLS:
        assert tools[name].annotations.read_only_hint is True
        assert tools[name].annotations.open_world_hint is False


@pytest.mark.anyio
async def test_lookups_over_mcp(client: Client) -> None:
    compound = structured(await client.call_tool("get_compound_name", {"compound_id": "cpd00027"}))
    assert compound["name"] == "D-Glucose" and compound["formula"] == "C6H12O6"
    found = structured(await client.call_tool("search_compounds", {"query": "glucose", "limit": 3}))
    assert "cpd00027" in [r["id"] for r in found["results"]]
    assert found["num_results"] == 3 and found["truncated"] is True and found["next_steps"]
    reaction = structured(await client.call_tool("get_reaction_name", {"reaction_id": "rxn00148"}))
    assert reaction["ec_numbers"] == ["2.7.1.40"] and reaction["direction"] == "bidirectional"
    by_ec = structured(await client.call_tool("search_reactions", {"query": "2.7.1.40", "limit": 100}))
    assert "rxn00148" in [r["id"] for r in by_ec["results"]]
    assert all("2.7.1.40" in r["ec_numbers"] for r in by_ec["results"])
    nothing = structured(await client.call_tool("search_reactions", {"query": "zzqqnotareaction"}))
    assert nothing["num_results"] == 0 and nothing["suggestions"]


@pytest.mark.anyio
async def test_bad_inputs_return_the_envelope_and_the_server_keeps_serving(client: Client) -> None:
    for tool, args, code in BAD_CALLS:
        result = await client.call_tool(tool, args)
        assert result.is_error, (tool, args)
        envelope = structured(result)
        assert set(envelope) == ENVELOPE_KEYS, envelope
        assert envelope["error_code"] == code, (tool, args, envelope)
        assert envelope["success"] is False and envelope["tool_name"] == tool
        assert envelope["error_type"] == "validation_error" or code.endswith("NOT_FOUND")
        assert envelope["message"] and envelope["suggestions"]
        assert envelope["timestamp"].endswith("Z")
        # the text content carries the same envelope for text-only clients
        assert json.loads(result.content[0].text)["error_code"] == code  # type: ignore[union-attr]
    ok = structured(await client.call_tool("get_compound_name", {"compound_id": "cpd00001"}))
    assert ok["name"] == "H2O"


@pytest.mark.slow  # a real stdio server under concurrent calls (~4 s)
@pytest.mark.anyio
async def test_concurrent_calls_on_one_connection(server_env: dict[str, str]) -> None:
    queries = ["glucose", "pyruvate", "atp", "nadh", "acetyl coa", "2.7.1.1", "kinase", "R00200"] * 4
    results: dict[int, dict[str, Any]] = {}
    async with stdio_client(server_env, "legacy") as client:
        async def one(i: int, q: str) -> None:
            tool = "search_reactions" if q[0].isdigit() or q.startswith(("R0", "kin")) else "search_compounds"
            results[i] = structured(await client.call_tool(tool, {"query": q, "limit": 5}))

        async with anyio.create_task_group() as group:
            for i, q in enumerate(queries):
                group.start_soon(one, i, q)
    assert len(results) == len(queries)
    assert all(results[i]["query"] == q.lower() for i, q in enumerate(queries))


def _run_server(env: dict[str, str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([GEM_FLUX, "serve"], input=b"", env=env, capture_output=True, timeout=120)


def test_stdout_carries_only_protocol_messages(server_env: dict[str, str]) -> None:
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "search_compounds", "arguments": {"query": 42}}},
    ]
    proc = subprocess.Popen([GEM_FLUX, "serve"], env=server_env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdin and proc.stdout and proc.stderr
    try:
        for message in messages:
            proc.stdin.write((json.dumps(message) + "\n").encode())
        proc.stdin.flush()
        # stdin stays open until every reply is in, as a real client keeps it
        replies = [json.loads(proc.stdout.readline()) for _ in range(3)]
    finally:
        proc.stdin.close()
        rest = proc.stdout.read()
        stderr = proc.stderr.read()
        proc.wait(timeout=30)
    assert rest.strip() == b"", rest
    assert all(r["jsonrpc"] == "2.0" for r in replies)
    assert [r["id"] for r in replies] == [1, 2, 3]
    assert replies[0]["result"]["serverInfo"]["name"] == "gem-flux"
    assert replies[2]["result"]["isError"] is True
    assert "structuredContent" not in replies[2]["result"]  # errors: the envelope as text only
    assert json.loads(replies[2]["result"]["content"][0]["text"])["error_code"] == "INVALID_ARGUMENTS"
    assert b"update" not in stderr.lower(), stderr  # no update check or notice


def test_missing_data_exits_1_with_one_clear_line(server_env: dict[str, str], tmp_path: Path) -> None:
    env = {**server_env, "GEMFLUX_DATA_DIR": str(tmp_path / "nowhere")}
    done = _run_server(env)
    assert done.returncode == 1
    errors = [line for line in done.stderr.decode().splitlines() if "ERROR" in line]
    assert len(errors) == 1 and "nowhere" in errors[0] and "gem-flux data fetch" in errors[0]
    assert done.stdout == b""


@pytest.mark.parametrize("damage", ["truncate", "drop_column"])
def test_corrupt_data_exits_1(server_env: dict[str, str], data_dir: Path, tmp_path: Path, damage: str) -> None:
    broken = tmp_path / "data"
    (broken / "modelseed").mkdir(parents=True)
    shutil.copy(data_dir / "modelseed" / "reactions.tsv", broken / "modelseed" / "reactions.tsv")
    lines = (data_dir / "modelseed" / "compounds.tsv").read_text(encoding="utf-8").splitlines(keepends=True)
    if damage == "truncate":
        text = "".join(lines[:2000]) + lines[2000][: len(lines[2000]) // 2]
    else:
        header = lines[0].split("\t")
        keep = [i for i, h in enumerate(header) if h != "name"]
        text = "".join("\t".join(line.rstrip("\n").split("\t")[i] for i in keep) + "\n" for line in lines[:50])
    (broken / "modelseed" / "compounds.tsv").write_text(text, encoding="utf-8")
    env = {**server_env, "GEMFLUX_DATA_DIR": str(broken), "GEMFLUX_CACHE_DIR": str(tmp_path / "cache")}
    done = _run_server(env)
    assert done.returncode == 1
    errors = [line for line in done.stderr.decode().splitlines() if "ERROR" in line]
    assert len(errors) == 1, done.stderr
    assert "compounds.tsv" in errors[0]
    assert "Traceback" not in done.stderr.decode()
    assert not list((tmp_path / "cache").glob("biochem-*.sqlite")), "no index may be left from corrupt data"
