"""What every tool module uses: `tool`, which registers a function as an MCP tool, annotation
presets and the common parameter types."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

from fastmcp import FastMCP
from pydantic import Field

from gem_flux_mcp.server import tool_descriptions
from gem_flux_mcp.server.envelope import enveloped, enveloped_async
from gem_flux_mcp.server.file_area import FileArea
from gem_flux_mcp.services.results import Result, output_schema

READ_ONLY = {"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True, "openWorldHint": False}
CREATES = {"readOnlyHint": False, "destructiveHint": False, "idempotentHint": False, "openWorldHint": False}
DELETES = {"readOnlyHint": False, "destructiveHint": True, "idempotentHint": True, "openWorldHint": False}

ModelId = Annotated[str, Field(description="Id of a stored model, e.g. 'E_coli.draft' (see list_models)")]
MediaId = Annotated[str, Field(description="Id of a medium, predefined (e.g. 'glucose_minimal_aerobic') or built")]
OutputPath = Annotated[str | None, Field(description="Also write the full table as TSV to this file (inside the "
                                                     "allowed folders)")]


def output_target(area: FileArea, output_path: str | None) -> Path | None:
    """Where a table is to be written: the user's path checked against the file area, or None."""
    if output_path is None:
        return None
    return area.resolve(output_path, param="output_path", must_exist=False, for_write=True)


def tool(mcp: FastMCP, name: str, result: type[Result], annotations: dict[str, Any]) -> Callable[[Any], Any]:
    """Register the decorated function as the tool `name`: its arguments validated by FastMCP
    against its signature, its answer constructed as `result` (the published output schema is
    generated from the same model), its failures turned into the error envelope."""

    def decorate(func: Callable[..., Any]) -> Any:
        wrap = enveloped_async if inspect.iscoroutinefunction(func) else enveloped
        wrapped = wrap(name, result)(func)
        # FastMCP derives an output schema from the return annotation and drops it when one is
        # given, as here: shown the signature without it, it skips that work (~5 ms a tool at start).
        wrapped.__signature__ = inspect.signature(func).replace(  # type: ignore[attr-defined]
            return_annotation=inspect.Signature.empty)
        mcp.add_tool(tool_descriptions.of(mcp).make(wrapped, name, annotations, lambda: output_schema(result)))
        return wrapped

    return decorate
