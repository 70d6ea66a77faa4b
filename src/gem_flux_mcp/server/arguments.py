"""Tool arguments checked before any tool runs: sizes, NUL bytes, non-finite numbers, and
FastMCP's own argument-validation failures turned into the error envelope.

Every limit a client controls is here (and in the README's settings table), so one malformed or
hostile call cannot grow the record, the store or an answer without bound.
"""

from __future__ import annotations

import json
import math
from typing import Any

from fastmcp.exceptions import NotFoundError as FastMCPNotFound
from fastmcp.exceptions import ValidationError as FastMCPValidationError
from fastmcp.server.middleware import Middleware, MiddlewareContext
from pydantic import ValidationError as PydanticValidationError

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import GemFluxError, ValidationError
from gem_flux_mcp.rules import RULE_ERROR, Rule
from gem_flux_mcp.server.envelope import error_result

MAX_TEXT_CHARS = 10_000  # any one string argument
MAX_ITEMS = 20_000  # entries of any one list or object argument
MAX_REPORTED_PROBLEMS = 10  # an error lists at most this many argument problems
# protein sequences come as {id: sequence}: a proteome has thousands, the longest proteins ~35 k residues
# files sent inline (build_model, import_model): a 10 Mb genome's GenBank is ~25 MB of text, far
# less gzipped and base64-encoded
MAX_INLINE_CHARS = 32_000_000
LARGE_ARGUMENTS = {"protein_sequences": (200_000, 100_000),  # argument -> (max entries, max chars per value)
                   "fasta_content": (1, MAX_INLINE_CHARS), "genome_content": (1, MAX_INLINE_CHARS),
                   "file_content": (1, MAX_INLINE_CHARS)}


def mapped_error(exc: BaseException, arguments: dict[str, Any] | None = None) -> GemFluxError | None:
    """The error of the rule (rules/) behind the first argument pydantic refused for breaking a
    published range, enum or length, or None (the caller answers INVALID_ARGUMENTS: wrong types,
    missing or unknown arguments)."""
    cause = exc if isinstance(exc, PydanticValidationError) else exc.__cause__
    if not isinstance(cause, PydanticValidationError):
        return None
    model_id = (arguments or {}).get("model_id")
    for err in cause.errors():
        rule = (err.get("ctx") or {}).get("rule") if err.get("type") == RULE_ERROR else None
        if isinstance(rule, Rule):
            return rule.error(err.get("input"), **({"model_id": model_id} if isinstance(model_id, str) else {}))
    return None


def argument_problems(arguments: dict[str, Any]) -> list[dict[str, Any]]:
    """What is wrong with the arguments' sizes and values, before the tool's own checks."""
    problems: list[dict[str, Any]] = []

    def walk(value: Any, where: str, max_items: int, max_chars: int) -> None:
        if len(problems) >= MAX_REPORTED_PROBLEMS:
            return
        if isinstance(value, str):
            if "\x00" in value:
                problems.append({"argument": where, "problem": "contains a NUL byte", "received": None})
            elif len(value) > max_chars:
                problems.append({"argument": where, "problem": f"text of {len(value)} characters; the maximum "
                                 f"is {max_chars}", "received": value[:40] + "..."})
        elif isinstance(value, float) and not math.isfinite(value):
            problems.append({"argument": where, "problem": "numbers must be finite (no NaN or Infinity)",
                             "received": str(value)})
        elif isinstance(value, list | dict):
            if len(value) > max_items:
                problems.append({"argument": where, "problem": f"{len(value)} entries; the maximum is {max_items}",
                                 "received": None})
                return
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str) and ("\x00" in key or len(key) > MAX_TEXT_CHARS):
                    problems.append({"argument": f"{where}.{key[:40]!r}", "problem": "key with a NUL byte or "
                                     f"longer than {MAX_TEXT_CHARS} characters", "received": None})
                    continue
                walk(item, f"{where}.{key}" if isinstance(value, dict) else f"{where}[{key}]",
                     max_items, max_chars)

    for name, value in arguments.items():
        max_items, max_chars = LARGE_ARGUMENTS.get(name, (MAX_ITEMS, MAX_TEXT_CHARS))
        walk(value, name, max_items, max_chars)
    return problems


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
            for err in cause.errors()[:MAX_REPORTED_PROBLEMS]
        ]
    return [{"argument": "(arguments)", "problem": str(exc)[:300], "received": None}]


def _short(value: Any) -> Any:
    if isinstance(value, str) and len(value) > 80:
        return value[:77] + "..."
    if isinstance(value, int | float | bool) or value is None or isinstance(value, str):
        return value
    return _short(json.dumps(value, default=str)) if value is not None else None


def _invalid(tool_name: str | None, problems: list[dict[str, Any]]) -> Any:
    names = ", ".join(dict.fromkeys(p["argument"] for p in problems))
    error = ValidationError(
        ErrorCode.INVALID_ARGUMENTS,
        f"Invalid arguments for {tool_name}: {names}.",
        details={"errors": problems},
        suggestions=["Check the tool's input schema (tools/list) for names, types and limits."],
        valid_next_steps=[str(tool_name)],
    )
    return error_result(error, tool_name)


class ArgumentErrorMiddleware(Middleware):
    """Refuses oversized, NUL-bearing or non-finite arguments, and turns FastMCP's
    argument-validation failures (wrong types, missing or unknown arguments) into the envelope
    instead of a bare text error."""

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: Any) -> Any:
        tool_name = getattr(context.message, "name", None)
        arguments = getattr(context.message, "arguments", None)
        if isinstance(arguments, dict):
            problems = argument_problems(arguments)
            if problems:
                return _invalid(tool_name, problems)
        try:
            return await call_next(context)
        except (FastMCPValidationError, PydanticValidationError) as exc:
            refused = mapped_error(exc, arguments if isinstance(arguments, dict) else None)
            if refused is not None:
                return error_result(refused, tool_name)
            return _invalid(tool_name, _argument_errors(exc))
        except FastMCPNotFound as exc:
            error = ValidationError(
                ErrorCode.UNKNOWN_TOOL,
                str(exc),
                details={"requested_tool": tool_name},
                suggestions=["Call tools/list to see the available tools."],
            )
            return error_result(error, tool_name)
