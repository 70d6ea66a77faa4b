"""Security and reliability, tried as an attacker and a careless assistant would: the store's own
files out of reach, errors readable, labs kept apart, client-controlled sizes bounded."""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest
from cobra.io import save_json_model
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from conftest import GEM_FLUX, start_http_server, stop_server
from gem_flux_mcp.modeling.inputs import read_fasta_file
from gem_flux_mcp.store.argument_caps import TRUNCATED_MARK
from gem_flux_mcp.store.row_mapping import unpack_text
from mcp_client import call, stdio_client, structured
from models import TEXTBOOK_MEDIUM, textbook

pytestmark = pytest.mark.anyio

TOKEN_A = "token-alpha-0123456789"
TOKEN_B = "token-bravo-0123456789"


def _textbook_media_args() -> dict[str, Any]:
    medium = dict(textbook().medium)
    bounds = {cpd: [-medium[ex], 1000.0] for ex, cpd in TEXTBOOK_MEDIUM.items()}
    return {"compounds": list(bounds), "custom_bounds": bounds, "media_name": "textbook_medium"}


@pytest.mark.slow
async def test_no_state_or_cache_file_can_be_read_or_written(server_env: dict[str, str], tmp_path: Path) -> None:
    """The state folder lies inside the allowed root here (as it does by default for many users)."""
    save_json_model(textbook(), str(tmp_path / "textbook.json"))
    state, cache = Path(server_env["GEMFLUX_STATE_DIR"]), Path(server_env["GEMFLUX_CACHE_DIR"])
    env = {**server_env, "GEMFLUX_ALLOWED_ROOTS": f"{tmp_path}{os.pathsep}{cache}"}
    (tmp_path / "link-to-db").symlink_to(state / "gemflux.sqlite")
    async with stdio_client(env, "legacy") as client:
        model = await call(client, "import_model", {"file_path": "textbook.json", "model_name": "tb"})
        await call(client, "build_media", _textbook_media_args())
        await call(client, "run_fba", {"model_id": model["model_id"], "media_id": "textbook_medium",
                                       "objective": "Biomass_Ecoli_core"})
        targets = sorted(p for folder in (state, cache) for p in folder.rglob("*") if p.is_file())
        names = {p.name for p in targets}
        assert "gemflux.sqlite" in names  # (the models are in it)
        attempts = [str(p) for p in targets] + [str(p.relative_to(tmp_path)) for p in targets
                                               if tmp_path in p.parents]
        attempts += ["link-to-db", str(state), "state/../state/gemflux.sqlite"]
        for target in attempts:
            for fmt in ("json", "sbml"):
                body = await call(client, "export_model", {"model_id": model["model_id"], "file_path": target,
                                                           "format": fmt}, error="PATH_PROTECTED")
                assert "state" in body["message"] or "cache" in body["message"]
            await call(client, "import_model", {"file_path": target}, error="PATH_PROTECTED")
            await call(client, "build_model", {"fasta_file_path": target}, error="PATH_PROTECTED")
        # an export beside the state folder works, readable by others (not 0600)
        done = await call(client, "export_model", {"model_id": model["model_id"], "file_path": "out/tb.json"})
        assert (tmp_path / "out" / "tb.json").stat().st_mode & 0o777 == 0o644, done
    # the state survives: the database is intact and the model is still there after a restart
    with sqlite3.connect(state / "gemflux.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    async with stdio_client(env, "2026-07-28") as client:
        listed = await call(client, "list_models", {})
        assert [m["model_id"] for m in listed["models"]] == [model["model_id"]]


async def test_limits_on_client_controlled_values(server_env: dict[str, str], tmp_path: Path) -> None:
    save_json_model(textbook(), str(tmp_path / "textbook.json"))
    async with stdio_client(server_env, "legacy") as client:
        model = (await call(client, "import_model", {"file_path": "textbook.json", "model_name": "tb"}))["model_id"]
        await call(client, "build_media", _textbook_media_args())
        fba = {"model_id": model, "media_id": "textbook_medium", "objective": "Biomass_Ecoli_core"}
        await call(client, "run_fba", {**fba, "flux_threshold": "1e999"}, error="INVALID_FLUX_THRESHOLD")
        await call(client, "run_fba", {**fba, "flux_threshold": 5000}, error="INVALID_FLUX_THRESHOLD")
        body = await call(client, "revise_model", {"model_id": model, "reason": "x" * 1_000_000,
                                                   "knockout_genes": ["b0008"]}, error="INVALID_ARGUMENTS")
        assert body["details"]["errors"][0]["argument"] == "reason"
        assert len(json.dumps(body)) < 2000  # the refusal does not echo the text
        await call(client, "revise_model", {"model_id": model, "reason": "x" * 5000, "knockout_genes": ["b0008"]},
                   error="REASON_TOO_LONG")
        await call(client, "revise_model", {"model_id": model, "reason": "open",
                                            "reaction_bounds": {"PGI": ["-1e999", 1000]}}, error="INVALID_REACTION")
        await call(client, "revise_model", {"model_id": model, "reason": "a\x00b", "knockout_genes": ["b0008"]},
                   error="INVALID_ARGUMENTS")
        await call(client, "search_compounds", {"query": "a\x00b"}, error="INVALID_ARGUMENTS")
        await call(client, "build_media", {"compounds": ["cpd00027"], "media_name": "m\x00"},
                   error="INVALID_ARGUMENTS")
        body = await call(client, "export_model", {"model_id": model, "file_path": "a" * 300 + ".json"},
                          error="INVALID_FILE_PATH")
        assert str(tmp_path) not in json.dumps(body)
        # a high flux_threshold trims the listing, not the biology
        trimmed = await call(client, "run_fba", {**fba, "flux_threshold": 100})
        assert trimmed["uptake_fluxes"] == []
        assert trimmed["interpretation"]["metabolism_type"] == "Aerobic respiration"
        assert trimmed["interpretation"]["carbon_sources"] == ["D-Glucose"]
        history = await call(client, "revise_model", {"model_id": model, "reason": "y" * 2000,
                                                      "knockout_genes": ["b0008"]})
        detail = await call(client, "get_model", {"model_id": history["model_id"], "include_revisions": True})
        assert len(json.dumps(detail)) < 20_000


@pytest.mark.slow  # real server processes (~5 s)
def test_nan_and_infinity_in_raw_json_are_refused(server_env: dict[str, str], tmp_path: Path) -> None:
    """NaN/Infinity are not JSON, but Python's parser (and so the server's) accepts them."""
    save_json_model(textbook(), str(tmp_path / "textbook.json"))
    def request(rid: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {"jsonrpc": "2.0", "id": rid, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}

    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        request(2, "import_model", {"file_path": "textbook.json", "model_name": "tb"}),
    ]
    lines = [json.dumps(m) for m in messages]
    for i, value in enumerate(("NaN", "Infinity", "-Infinity")):
        for rid, tool, arguments in (
            (10 + i, "run_fba", {"model_id": "tb.draft", "media_id": "glucose_minimal_aerobic", "flux_threshold": "V"}),
            (20 + i, "build_media", {"compounds": ["cpd00027"], "default_uptake": "V"}),
            (30 + i, "revise_model", {"model_id": "tb.draft", "reason": "open", "reaction_bounds": {"PGI": ["V", 1]}}),
        ):
            lines.append(json.dumps(request(rid, tool, arguments)).replace('"V"', value))
    proc = subprocess.Popen([GEM_FLUX, "serve"], env=server_env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdin and proc.stdout
    try:
        proc.stdin.write(("\n".join(lines) + "\n").encode())
        proc.stdin.flush()
        # stdin stays open until every reply is in, as a real client keeps it
        replies = {r["id"]: r for r in (json.loads(proc.stdout.readline()) for _ in range(len(lines) - 1))}
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    assert not replies[2]["result"].get("isError"), replies[2]
    for rid in (10, 11, 12, 20, 21, 22, 30, 31, 32):
        result = replies[rid]["result"]
        assert result["isError"] is True and "structuredContent" not in result
        envelope = json.loads(result["content"][0]["text"])
        assert envelope["error_code"] == "INVALID_ARGUMENTS", envelope
        assert "finite" in json.dumps(envelope["details"])


@pytest.mark.slow
async def test_two_labs_have_their_own_files_and_no_server_paths(server_env: dict[str, str],
                                                                tmp_path: Path) -> None:
    env = {**server_env, "GEMFLUX_TOKENS": f"{TOKEN_A}=lab_a,{TOKEN_B}=lab_b"}
    (tmp_path / "lab_a").mkdir()
    save_json_model(textbook(), str(tmp_path / "lab_a" / "textbook.json"))
    log_path = tmp_path / "server.log"
    proc, url = start_http_server(env, log_path)

    def as_lab(token: str) -> Client:
        http = httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
        return Client(streamable_http_client(f"{url}/mcp", http_client=http), mode="legacy")  # type: ignore[arg-type]

    try:
        async with as_lab(TOKEN_A) as lab_a:
            model = await call(lab_a, "import_model", {"file_path": "textbook.json", "model_name": "a"})
            exported = await call(lab_a, "export_model", {"model_id": model["model_id"], "file_path": "a.json"})
            assert exported["file_path"] == "a.json"  # relative to the lab's own folder
            assert (tmp_path / "lab_a" / "a.json").is_file()
        async with as_lab(TOKEN_B) as lab_b:
            bodies = [
                await call(lab_b, "import_model", {"file_path": "../lab_a/a.json"}, error="PATH_NOT_ALLOWED"),
                await call(lab_b, "import_model", {"file_path": str(tmp_path / "lab_a" / "a.json")},
                           error="PATH_NOT_ALLOWED"),
                await call(lab_b, "import_model", {"file_path": "a.json"}, error="FILE_NOT_FOUND"),
                await call(lab_b, "export_model", {"model_id": "nope.draft", "file_path": "x.json"},
                           error="MODEL_NOT_FOUND"),
                await call(lab_b, "export_model", {"model_id": "nope.draft",
                                                   "file_path": server_env["GEMFLUX_STATE_DIR"] + "/gemflux.sqlite"},
                           error="PATH_PROTECTED"),
                await call(lab_b, "build_model", {"fasta_file_path": "/etc/passwd"}, error="PATH_NOT_ALLOWED"),
            ]
            for body in bodies:
                text = json.dumps(body)
                for folder in (str(tmp_path), server_env["GEMFLUX_STATE_DIR"], server_env["GEMFLUX_CACHE_DIR"],
                               server_env["GEMFLUX_DATA_DIR"]):
                    assert folder not in text, text
        async with httpx.AsyncClient(timeout=30) as http:
            page = await http.get(f"{url}/", params={"token": TOKEN_A})
            assert page.status_code == 200
            assert "frame-ancestors 'none'" in page.headers.get("content-security-policy", "")
            assert page.headers.get("x-frame-options") == "DENY"
            sessions = (await http.get(f"{url}/api/sessions", params={"token": TOKEN_A})).json()["sessions"]
            other = await http.get(f"{url}/sessions/{sessions[0]['id']}", params={"token": TOKEN_B})
            assert other.status_code == 404
            # a JSON-RPC request with an object id gets an answer, not silence
            bad = await http.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": {"x": 1}, "method": "tools/list"},
                                  headers={"Authorization": f"Bearer {TOKEN_A}",
                                           "Accept": "application/json, text/event-stream"})
            assert bad.status_code == 400 and bad.json()["error"]["code"] == -32600
    finally:
        stop_server(proc)
    log_text = log_path.read_text()
    assert "GET /" in log_text  # the access log is on
    assert TOKEN_A not in log_text and TOKEN_B not in log_text


@pytest.mark.slow
async def test_recording_stays_bounded_under_fuzzed_calls(server_env: dict[str, str], tmp_path: Path) -> None:
    """1,000 malformed or oversized calls grow the state folder by well under 2 MB."""
    import random

    rng = random.Random(12)
    state = Path(server_env["GEMFLUX_STATE_DIR"])

    def size() -> int:
        return sum(p.stat().st_size for p in state.rglob("*") if p.is_file())

    def junk(depth: int = 0) -> Any:
        kind = rng.randrange(7 if depth < 2 else 4)
        if kind == 0:
            return "x" * rng.choice([0, 5, 500, 9_000, 50_000])
        if kind == 1:
            return rng.choice([0, -1, 1e308, 3.5, True, None])
        if kind == 2:
            # rng.choices draws the characters in one call (a call per character was a third of the test)
            return "".join(rng.choices("ab\u00e9\u4e2d{}[]\"'\\", k=rng.randrange(1, 300)))
        if kind == 3:
            return "cpd" + str(rng.randrange(100000))
        if kind == 4:
            return [junk(depth + 1) for _ in range(rng.choice([1, 10, 300]))]
        return {f"k{i}" * rng.randrange(1, 30): junk(depth + 1) for i in range(rng.choice([1, 5, 50]))}

    tools = ["get_compound_name", "search_compounds", "get_reaction_name", "search_reactions", "build_media",
             "delete_media", "get_model", "run_fba", "revise_model", "export_model", "import_model",
             "delete_model", "list_models", "gapfill_model"]
    arguments = {"get_compound_name": ["compound_id"], "search_compounds": ["query", "limit"],
                 "get_reaction_name": ["reaction_id"], "search_reactions": ["query", "limit"],
                 "build_media": ["compounds", "default_uptake", "custom_bounds", "media_name"],
                 "delete_media": ["media_id"], "get_model": ["model_id", "limit"],
                 "run_fba": ["model_id", "media_id", "flux_threshold"],
                 "revise_model": ["model_id", "reason", "reaction_bounds"], "export_model": ["model_id", "file_path"],
                 "import_model": ["file_path", "model_name"], "delete_model": ["model_id"],
                 "list_models": ["filter_state"], "gapfill_model": ["model_id", "media_id", "target_growth_rate"]}
    async with stdio_client(server_env, "legacy") as client:
        await call(client, "list_models", {})
    before = size()  # measured at rest (server stopped, write-ahead log folded into the database)
    async with stdio_client(server_env, "legacy") as client:
        for _ in range(1000):
            tool = rng.choice(tools)
            args = {name: junk() for name in arguments[tool] if rng.random() < 0.8}
            result = await client.call_tool(tool, args)
            structured(result)  # a success, or an envelope
    grown = size() - before
    assert grown < 2_000_000, (f"state folder grew {grown} bytes for 1,000 fuzzed calls: "
                               f"{[(p.name, p.stat().st_size) for p in state.rglob('*') if p.is_file()]}")
    with sqlite3.connect(state / "gemflux.sqlite") as db:
        recorded = [unpack_text(r[0]) or "" for r in db.execute("SELECT arguments_json FROM tool_calls")]
        print(f"state folder grew {grown} bytes for 1,000 fuzzed calls")
    assert len(recorded) == 1001  # every call is on record, with its arguments capped and marked
    assert max(len(a) for a in recorded) <= 2_000
    assert any(TRUNCATED_MARK in a for a in recorded)


def test_compressed_and_bom_fasta_files_are_read(tmp_path: Path) -> None:
    text = ">g1 glucose-6-phosphate isomerase\nMKNINPTQTAAWQALQKHFDEMKDVTIADLFAKDGDRFSKFSATFDDQMLVDYSKNRITEETLAKLQDLAKECDLAGAIKSMFSGEKINRTENRAVLHVALRNRSNTPILVDGKDVMPEVNAVLEKMKTFSEAIISGEWKGYTGKAITDVVNIGIGGSDLGPYMVTEALRPYKNHLNMHFVSNVDGTHIAEVLKKVNPETTLFLVASKTFTTQETMTNAHSARDWFLKAAGDEKHVAKHFAALSTNAKAVGEFGIDTANMFEFWDWVGGRYSLWSAIGLSIVLSIGFDNFVELLSGAHAMDKHFSTTPAEKNLPVLLALIGIWYNNFFGAETEAILPYDQYMHRFAAYFQQGNMESNGKYVDRNGNVVDYQTGPIIWGEPGTNGQHAFYQLIHQGTKMVPCDFIAPAITHNPLSDHHQKLLSNFFAQTEALAFGKSREVVEQEYRDQGKDPATLDYVVPFKVFEGNRPTNSILLREITPFSLGALIALYEHKIFTQGVILNIFTFDQWGVELGKQLANRILPELKDDKEISSHDSSTNGLINRYKAWRG\n"  # noqa: E501
    (tmp_path / "a.faa.gz").write_bytes(gzip.compress(text.encode()))
    (tmp_path / "b.faa").write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    for name in ("a.faa.gz", "b.faa"):
        proteins = read_fasta_file(tmp_path / name)
        assert [p.id for p in proteins] == ["g1"] and proteins[0].description == "glucose-6-phosphate isomerase"
        assert proteins[0].sequence.startswith("MKNINPTQ") and proteins[0].sequence.endswith("AWRG")
