"""A third-party MCP client: the official MCP Inspector in CLI mode (npm), against our server."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

import pytest

from conftest import GEM_FLUX

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"


def _run_inspector(env: dict[str, str], *args: str) -> tuple[int, dict[str, Any], str]:
    """Exit code, the first JSON document the Inspector printed, and its stderr."""
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("npx (Node.js) is not installed")
    names = ("GEMFLUX_DATA_DIR", "GEMFLUX_CACHE_DIR", "GEMFLUX_STATE_DIR", "GEMFLUX_ALLOWED_ROOTS")
    forwarded = [arg for k in names for arg in ("-e", f"{k}={env[k]}")]
    done = subprocess.run(
        [npx, "-y", INSPECTOR, "--cli", GEM_FLUX, "serve", *forwarded, *args],
        env=env, capture_output=True, text=True, timeout=600,
    )
    start = done.stdout.find("{")
    if start < 0:  # the Inspector printed no result (e.g. it rejected the server's answer)
        return done.returncode, {}, done.stderr
    document, _ = json.JSONDecoder().raw_decode(done.stdout[start:])
    return done.returncode, dict(document), done.stderr


def _inspector(env: dict[str, str], *args: str) -> dict[str, Any]:
    code, document, stderr = _run_inspector(env, *args)
    assert code == 0, stderr[-2000:]
    return document


@pytest.mark.slow
def test_inspector_lists_tools_with_annotations_and_reads_a_compound(server_env: dict[str, str]) -> None:
    listed = _inspector(server_env, "--method", "tools/list")
    tools = {t["name"]: t for t in listed["tools"]}  # type: ignore[attr-defined]
    assert tools["search_compounds"]["annotations"]["readOnlyHint"] is True
    assert "outputSchema" in tools["get_compound_name"]
    called = _inspector(server_env, "--method", "tools/call", "--tool-name", "get_compound_name",
                        "--tool-arg", "compound_id=cpd00027")
    assert called["structuredContent"]["name"] == "D-Glucose"  # type: ignore[index]


ERRORS = [  # (tool, arguments, error code): one of each kind a client meets
    ("get_compound_name", ["compound_id=cpd99999"], "COMPOUND_NOT_FOUND"),
    ("get_model", ["model_id=nope.draft"], "MODEL_NOT_FOUND"),
    ("run_fba", ["model_id=nope.draft", "media_id=glucose_minimal_aerobic", "flux_threshold=-1"],
     "INVALID_FLUX_THRESHOLD"),
    ("export_model", ["model_id=nope.draft", "file_path={state}/gemflux.sqlite"], "PATH_PROTECTED"),
    ("build_media", ['compounds=["cpd_bad"]'], "INVALID_COMPOUND_IDS"),
    ("delete_media", ["media_id=nope"], "MEDIA_NOT_FOUND"),
    ("search_compounds", ["query=glucose", "limit=abc"], "INVALID_ARGUMENTS"),
]


@pytest.mark.slow
def test_inspector_reads_every_kind_of_error(server_env: dict[str, str]) -> None:
    """The TypeScript SDK validates structured content against the output schema; errors carry
    the envelope as text only, so the Inspector shows each one instead of rejecting it."""
    unreadable = []
    for tool, arguments, expected in ERRORS:
        args = [a.format(state=server_env["GEMFLUX_STATE_DIR"]) for a in arguments]
        code, result, stderr = _run_inspector(server_env, "--method", "tools/call", "--tool-name", tool,
                                              *[x for a in args for x in ("--tool-arg", a)])
        if result.get("isError") is not True or "structuredContent" in result:
            unreadable.append((tool, code, result, stderr[-500:]))
            continue
        envelope = json.loads(result["content"][0]["text"])
        assert envelope["error_code"] == expected and envelope["tool_name"] == tool, envelope
        assert envelope["message"] and envelope["suggestions"] is not None
    assert unreadable == [], unreadable
