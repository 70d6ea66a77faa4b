"""HTTP tokens: no token, no access; each token sees only its own workspace."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from cobra.io import save_json_model
from mcp.client import Client
from mcp.client.streamable_http import streamable_http_client

from conftest import start_http_server, stop_server
from mcp_client import structured
from models import textbook

TOKEN_A = "token-alpha-0123456789"
TOKEN_B = "token-bravo-0123456789"


@pytest.mark.slow
@pytest.mark.anyio
async def test_tokens_separate_workspaces(server_env: dict[str, str], tmp_path: Path) -> None:
    for lab in ("lab_a", "lab_b"):  # under tokens each workspace reads and writes its own folder
        (tmp_path / lab).mkdir()
        save_json_model(textbook(), str(tmp_path / lab / "textbook.json"))
    env = {**server_env, "GEMFLUX_TOKENS": f"{TOKEN_A}=lab_a,{TOKEN_B}=lab_b"}
    proc, url = start_http_server(env, tmp_path / "server.log")
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            denied = await http.post(f"{url}/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                                     headers={"Accept": "application/json, text/event-stream"})
            assert denied.status_code == 401
            assert (await http.get(f"{url}/api/sessions")).status_code == 401
            wrong = await http.get(f"{url}/api/sessions", headers={"Authorization": "Bearer nope-nope-nope-nope"})
            assert wrong.status_code == 401

        async def as_lab(token: str, mode: str) -> Client:
            http = httpx.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
            return Client(streamable_http_client(f"{url}/mcp", http_client=http), mode=mode)  # type: ignore[arg-type]

        async with await as_lab(TOKEN_A, "legacy") as lab_a:
            model = structured(await lab_a.call_tool("import_model", {"file_path": "textbook.json",
                                                                      "model_name": "a_model"}))
            structured(await lab_a.call_tool("build_media", {"compounds": ["cpd00027"], "media_name": "a_media"}))
            assert model["model_id"] == "a_model.draft"
        async with await as_lab(TOKEN_B, "2026-07-28") as lab_b:
            listed = structured(await lab_b.call_tool("list_models", {}))
            assert listed["total_models"] == 0, "lab B must not see lab A's models"
            media = structured(await lab_b.call_tool("list_media", {}))
            assert "a_media" not in {m["media_id"] for m in media["media"]}
            missing = await lab_b.call_tool("get_model", {"model_id": "a_model.draft"})
            assert missing.is_error and structured(missing)["error_code"] == "MODEL_NOT_FOUND"
            # the same name is free in another workspace
            own = structured(await lab_b.call_tool("import_model", {"file_path": "textbook.json",
                                                                    "model_name": "a_model"}))
            assert own["model_id"] == "a_model.draft"
        async with httpx.AsyncClient(timeout=30) as http:
            a_sessions = (await http.get(f"{url}/api/sessions",
                                         headers={"Authorization": f"Bearer {TOKEN_A}"})).json()["sessions"]
            b_sessions = (await http.get(f"{url}/api/sessions", params={"token": TOKEN_B})).json()["sessions"]
            assert len(a_sessions) == 1 and a_sessions[0]["tool_call_count"] == 2
            assert len(b_sessions) == 1 and b_sessions[0]["tool_call_count"] == 4
            other = await http.get(f"{url}/api/sessions/{a_sessions[0]['id']}",
                                   headers={"Authorization": f"Bearer {TOKEN_B}"})
            assert other.status_code == 404
            a_models = (await http.get(f"{url}/api/models", headers={"Authorization": f"Bearer {TOKEN_A}"})).json()
            assert [m["model_id"] for m in a_models["models"]] == ["a_model.draft"]
            page = await http.get(f"{url}/", params={"token": TOKEN_A})
            assert page.status_code == 200 and "gemflux_token" in page.headers.get("set-cookie", "")
    finally:
        stop_server(proc)
