"""A third-party MCP client: the official MCP Inspector in CLI mode (npm), against our server."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from conftest import GEM_FLUX

INSPECTOR = "@modelcontextprotocol/inspector@2.12.0"


def _inspector(env: dict[str, str], *args: str) -> dict[str, object]:
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("npx (Node.js) is not installed")
    names = ("GEMFLUX_DATA_DIR", "GEMFLUX_CACHE_DIR", "GEMFLUX_STATE_DIR")
    forwarded = [arg for k in names for arg in ("-e", f"{k}={env[k]}")]
    done = subprocess.run(
        [npx, "-y", INSPECTOR, "--cli", GEM_FLUX, "serve", *forwarded, *args],
        env=env, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    start = done.stdout.index("{")
    return dict(json.loads(done.stdout[start:]))


@pytest.mark.slow
def test_inspector_lists_tools_with_annotations_and_reads_a_compound(server_env: dict[str, str]) -> None:
    listed = _inspector(server_env, "--method", "tools/list")
    tools = {t["name"]: t for t in listed["tools"]}  # type: ignore[attr-defined]
    assert tools["search_compounds"]["annotations"]["readOnlyHint"] is True
    assert "outputSchema" in tools["get_compound_name"]
    called = _inspector(server_env, "--method", "tools/call", "--tool-name", "get_compound_name",
                        "--tool-arg", "compound_id=cpd00027")
    assert called["structuredContent"]["name"] == "D-Glucose"  # type: ignore[index]
