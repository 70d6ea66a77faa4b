"""Stored models as MCP resources, so a client on another machine can fetch the files:
`gemflux://models/{model_id}/sbml` and `.../json` (resource templates), and each of the caller's
models listed by resources/list. Read with the same workspace isolation as the tools."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import anyio.to_thread
from fastmcp import FastMCP
from fastmcp.dependencies import Depends
from fastmcp.resources import Resource
from fastmcp.resources.function_resource import FunctionResource
from fastmcp.server.middleware import Middleware, MiddlewareContext

from gem_flux_mcp.errors import GemFluxError
from gem_flux_mcp.server.dependencies import current_resources, current_workspace
from gem_flux_mcp.services import models
from gem_flux_mcp.services.workspace import Workspace

MIME = {"sbml": "application/sbml+xml", "json": "application/json"}
MAX_LISTED = 1000  # resources/list names at most this many models (newest first)


def register(mcp: FastMCP) -> None:
    @mcp.resource("gemflux://models/{model_id}/sbml", name="model_sbml", mime_type=MIME["sbml"],
                  description="A stored model as SBML level 3 with FBC (validated, with identifiers.org annotations)")
    async def model_sbml(model_id: str, workspace: Workspace = Depends(current_workspace)) -> str:
        return await anyio.to_thread.run_sync(models.model_file_text, workspace, model_id, "sbml")

    @mcp.resource("gemflux://models/{model_id}/json", name="model_json", mime_type=MIME["json"],
                  description="A stored model as COBRApy JSON")
    async def model_json(model_id: str, workspace: Workspace = Depends(current_workspace)) -> str:
        return await anyio.to_thread.run_sync(models.model_file_text, workspace, model_id, "json")

    mcp.add_middleware(ListStoredModels())


class ListStoredModels(Middleware):
    """resources/list: the static resources, then the caller's stored models in both formats."""

    async def on_list_resources(self, context: MiddlewareContext[Any], call_next: Any) -> Sequence[Resource]:
        listed = list(await call_next(context))
        try:
            workspace = current_workspace(current_resources())
        except (RuntimeError, GemFluxError):  # an app without a runtime (contract snapshots)
            return listed
        rows = await anyio.to_thread.run_sync(workspace.store.list_models, workspace.workspace_id)
        for row in list(reversed(rows))[:MAX_LISTED]:
            for fmt, mime in MIME.items():
                listed.append(FunctionResource.from_function(
                    _reader(workspace, row.model_id, fmt), uri=models.model_resource_uri(row.model_id, fmt),
                    name=f"{row.model_id}.{'xml' if fmt == 'sbml' else 'json'}", mime_type=mime,
                    description=f"{row.model_id} ({row.state}, {row.num_reactions} reactions) as {fmt.upper()}"))
        return listed


def _reader(workspace: Workspace, model_id: str, fmt: str) -> Any:
    async def read() -> str:
        return await anyio.to_thread.run_sync(models.model_file_text, workspace, model_id, fmt)

    return read
