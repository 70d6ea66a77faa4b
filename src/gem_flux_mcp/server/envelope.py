"""The one place where exceptions become MCP tool results.

Every failure reaches the client as a tool result with `isError: true` and the error envelope
(docs/architecture.md, "How an answer is shaped") as JSON text. Errors carry no structured
content: a tool's output schema describes its success result, and clients that validate
structured content against it (the TypeScript SDK, hence the MCP Inspector) would otherwise
reject every error. The MCP spec, the Python SDK and FastMCP's client all skip output validation
for `isError` results. Under tokens, server folders are taken out of error texts (see file_area.py).
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec

from fastmcp.tools.base import ToolResult
from mcp.types import TextContent
from pydantic import BaseModel

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import GemFluxError, ServerError
from gem_flux_mcp.server.access import bind_request_workspace
from gem_flux_mcp.server.dependencies import file_area_of_this_call
from gem_flux_mcp.server.hints import add_hints

log = logging.getLogger(__name__)

P = ParamSpec("P")


def result_for(payload: dict[str, Any]) -> ToolResult:
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return ToolResult(content=[TextContent(type="text", text=text)], structured_content=payload)


def error_envelope_result(envelope: dict[str, Any]) -> ToolResult:
    text = json.dumps(envelope, ensure_ascii=False, separators=(",", ":"), default=str)
    return ToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def error_payload(result: Any) -> dict[str, Any] | None:
    """The envelope of an error result (its JSON text), or None when it is not one of ours."""
    if not getattr(result, "is_error", False):
        return None
    for block in getattr(result, "content", None) or []:
        if isinstance(block, TextContent):
            try:
                body = json.loads(block.text)
            except ValueError:
                return None
            return body if isinstance(body, dict) and "error_code" in body else None
    return None


def error_result(exc: BaseException, tool_name: str | None) -> ToolResult:
    """Map any exception to the envelope; unexpected ones are logged with their traceback."""
    if not isinstance(exc, GemFluxError):
        log.exception("unexpected error in tool %s", tool_name, exc_info=exc)
        exc = ServerError(
            ErrorCode.INTERNAL_ERROR,
            f"The server failed unexpectedly while running {tool_name}: "
            f"{type(exc).__name__}: {str(exc)[:300]}",
            details={"exception_type": type(exc).__name__},
            suggestions=["Retry once; if it fails again, report it with the arguments used."],
        )
    envelope = add_hints(exc, tool_name).envelope(tool_name)
    area = file_area_of_this_call()
    if area is not None:  # None outside a tool call (nothing to scrub against)
        envelope = area.scrub_payload(envelope)
    return error_envelope_result(envelope)


def _answer(payload: Any, result: type[BaseModel]) -> ToolResult:
    """The answer constructed as its result model (unknown or mistyped fields fail here, not in a
    client), sent as structured content and JSON text. Fields the tool left out stay out."""
    model = payload if isinstance(payload, result) else result.model_validate(payload)
    return result_for(model.model_dump(mode="json", exclude_unset=True))


def enveloped(
    tool_name: str, result: type[BaseModel],
) -> Callable[[Callable[P, Any]], Callable[P, Awaitable[ToolResult]]]:
    """Wrap a sync tool body: run it in a worker thread, construct its answer as `result`, or
    envelope its failure.

    FastMCP would run sync tools in a thread too; wrapping here keeps the error mapping in one
    place and lets the wrapper return a ToolResult with structured content.
    """

    def decorate(func: Callable[P, Any]) -> Callable[P, Awaitable[ToolResult]]:
        import anyio.to_thread

        @functools.wraps(func)
        async def wrapper(*args: P.args, **kwargs: P.kwargs) -> ToolResult:
            bind_request_workspace()  # the worker thread inherits the caller's workspace
            try:
                payload = await anyio.to_thread.run_sync(functools.partial(func, *args, **kwargs))
                return _answer(payload, result)
            except Exception as exc:
                return error_result(exc, tool_name)

        return wrapper

    return decorate


def enveloped_async(
    tool_name: str, result: type[BaseModel],
) -> Callable[[Callable[P, Awaitable[Any]]], Callable[P, Awaitable[ToolResult]]]:
    """The same for async tool bodies (long jobs that await a worker and report progress).
    Cancellation is not an error: it propagates, so the job is stopped and no result is sent."""

    def decorate(func: Callable[P, Awaitable[Any]]) -> Callable[P, Awaitable[ToolResult]]:
        @functools.wraps(func)
        async def wrapper(*args: P.args, **kwargs: P.kwargs) -> ToolResult:
            bind_request_workspace()
            try:
                payload = await func(*args, **kwargs)
                return _answer(payload, result)
            except Exception as exc:
                return error_result(exc, tool_name)

        return wrapper

    return decorate
