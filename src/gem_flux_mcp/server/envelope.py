"""The one place where exceptions become MCP tool results.

Every failure reaches the client as a tool result with `isError: true` and the envelope of
CONTRACTS.md §2.1 as structured content (plus the same JSON as text for clients that only read
text), so details and recovery hints are never lost.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec

from fastmcp.exceptions import NotFoundError as FastMCPNotFound
from fastmcp.exceptions import ValidationError as FastMCPValidationError
from fastmcp.server.middleware import Middleware, MiddlewareContext
from fastmcp.tools.base import ToolResult
from mcp.types import TextContent
from pydantic import ValidationError as PydanticValidationError

from gem_flux_mcp.errors import GemFluxError, ServerError, ValidationError
from gem_flux_mcp.server.access import bind_request_workspace

log = logging.getLogger(__name__)

P = ParamSpec("P")


def result_for(payload: dict[str, Any], *, is_error: bool = False) -> ToolResult:
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    return ToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=payload,
        is_error=is_error,
    )


def error_result(exc: BaseException, tool_name: str | None) -> ToolResult:
    """Map any exception to the envelope; unexpected ones are logged with their traceback."""
    if not isinstance(exc, GemFluxError):
        log.exception("unexpected error in tool %s", tool_name, exc_info=exc)
        exc = ServerError(
            "INTERNAL_ERROR",
            f"The server failed unexpectedly while running {tool_name}: "
            f"{type(exc).__name__}: {str(exc)[:300]}",
            details={"exception_type": type(exc).__name__},
            suggestions=["Retry once; if it fails again, report it with the arguments used."],
        )
    return result_for(exc.envelope(tool_name), is_error=True)


def enveloped(
    tool_name: str,
) -> Callable[[Callable[P, dict[str, Any]]], Callable[P, Awaitable[ToolResult]]]:
    """Wrap a sync tool body: run it in a worker thread, envelope its result or failure.

    FastMCP would run sync tools in a thread too; wrapping here keeps the error mapping in one
    place and lets the wrapper return a ToolResult with structured content.
    """

    def decorate(func: Callable[P, dict[str, Any]]) -> Callable[P, Awaitable[ToolResult]]:
        import anyio.to_thread

        @functools.wraps(func)
        async def wrapper(*args: P.args, **kwargs: P.kwargs) -> ToolResult:
            bind_request_workspace()  # the worker thread inherits the caller's workspace
            try:
                payload = await anyio.to_thread.run_sync(functools.partial(func, *args, **kwargs))
            except Exception as exc:
                return error_result(exc, tool_name)
            return result_for(payload)

        return wrapper

    return decorate


def enveloped_async(
    tool_name: str,
) -> Callable[[Callable[P, Awaitable[dict[str, Any]]]], Callable[P, Awaitable[ToolResult]]]:
    """The same for async tool bodies (long jobs that await a worker and report progress).
    Cancellation is not an error: it propagates, so the job is stopped and no result is sent."""

    def decorate(func: Callable[P, Awaitable[dict[str, Any]]]) -> Callable[P, Awaitable[ToolResult]]:
        @functools.wraps(func)
        async def wrapper(*args: P.args, **kwargs: P.kwargs) -> ToolResult:
            bind_request_workspace()
            try:
                payload = await func(*args, **kwargs)
            except Exception as exc:
                return error_result(exc, tool_name)
            return result_for(payload)

        return wrapper

    return decorate


def _argument_errors(exc: BaseException) -> list[dict[str, Any]]:
    cause = exc.__cause__ if not isinstance(exc, PydanticValidationError) else exc
    if isinstance(cause, PydanticValidationError):
        return [
            {
                "argument": ".".join(str(p) for p in err.get("loc", ()) if p != "call")
                or "(arguments)",
                "problem": err.get("msg", ""),
                "received": _short(err.get("input")),
            }
            for err in cause.errors()
        ]
    return [{"argument": "(arguments)", "problem": str(exc)[:300], "received": None}]


def _short(value: Any) -> Any:
    if isinstance(value, str) and len(value) > 80:
        return value[:77] + "..."
    if isinstance(value, int | float | bool) or value is None or isinstance(value, str):
        return value
    return _short(json.dumps(value, default=str)) if value is not None else None


class ArgumentErrorMiddleware(Middleware):
    """Turns FastMCP's argument-validation failures (wrong types, missing or unknown arguments)
    into the envelope instead of a bare text error."""

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: Any) -> Any:
        tool_name = getattr(context.message, "name", None)
        try:
            return await call_next(context)
        except (FastMCPValidationError, PydanticValidationError) as exc:
            problems = _argument_errors(exc)
            names = ", ".join(p["argument"] for p in problems)
            error = ValidationError(
                "INVALID_ARGUMENTS",
                f"Invalid arguments for {tool_name}: {names}.",
                details={"errors": problems},
                suggestions=["Check the tool's input schema (tools/list) for names and types."],
                valid_next_steps=[str(tool_name)],
            )
            return error_result(error, tool_name)
        except FastMCPNotFound as exc:
            error = ValidationError(
                "UNKNOWN_TOOL",
                str(exc),
                details={"requested_tool": tool_name},
                suggestions=["Call tools/list to see the available tools."],
            )
            return error_result(error, tool_name)
