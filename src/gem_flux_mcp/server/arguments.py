"""Tool arguments checked before any tool runs: sizes, NUL bytes, non-finite numbers, and
FastMCP's own argument-validation failures turned into the error envelope.

Every limit a client controls is here (and in the README's settings table), so one malformed or
hostile call cannot grow the record, the store or an answer without bound.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from fastmcp.exceptions import NotFoundError as FastMCPNotFound
from fastmcp.exceptions import ValidationError as FastMCPValidationError
from fastmcp.server.middleware import Middleware, MiddlewareContext
from pydantic import ValidationError as PydanticValidationError

from gem_flux_mcp.data.biochem import check_search_limit
from gem_flux_mcp.data.templates import check_build_template
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import GemFluxError, ValidationError
from gem_flux_mcp.modeling.fermentation import check_min_ratio
from gem_flux_mcp.modeling.inputs import check_gene_calling, check_translation_table
from gem_flux_mcp.modeling.media import check_compounds_list, check_default_uptake
from gem_flux_mcp.modeling.variability import check_fraction
from gem_flux_mcp.server.envelope import error_result
from gem_flux_mcp.services import media as media_service
from gem_flux_mcp.services import phenotypes
from gem_flux_mcp.services.essentiality import check_threshold
from gem_flux_mcp.services.fba import check_flux_threshold
from gem_flux_mcp.services.gapfill import check_gapfill_mode, check_target_growth_rate
from gem_flux_mcp.services.models import check_gapfill_offset, check_limit
from gem_flux_mcp.services.revisions import check_reason

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


# The one table from a tool argument whose constraints the input schema publishes (ranges, enums,
# lengths: FastMCP refuses values outside them before the tool runs) to the check that gives the
# same refusal its own error code and recovery hints, as when the service itself refuses it.
ARGUMENT_CHECKS: dict[tuple[str, str], Callable[[Any], object]] = {
    ("search_compounds", "limit"): check_search_limit,
    ("search_reactions", "limit"): check_search_limit,
    ("build_media", "compounds"): check_compounds_list,
    ("build_media", "default_uptake"): check_default_uptake,
    ("list_media", "name"): media_service.check_name_filter,
    ("list_media", "compound"): media_service.check_compound_filter,
    ("get_model", "limit"): check_limit,
    ("get_model", "gapfill_reactions_offset"): check_gapfill_offset,
    ("run_fba", "flux_threshold"): check_flux_threshold,
    ("revise_model", "reason"): check_reason,
    ("build_model", "template"): check_build_template,
    ("build_model", "gene_calling"): check_gene_calling,
    ("build_model", "translation_table"): check_translation_table,
    ("build_models_batch", "gene_calling"): check_gene_calling,
    ("build_models_batch", "translation_table"): check_translation_table,
    ("gapfill_model", "target_growth_rate"): check_target_growth_rate,
    ("gapfill_model", "gapfill_mode"): check_gapfill_mode,
    ("predict_gene_essentiality", "threshold"): check_threshold,
    ("predict_growth_phenotypes", "growth_threshold"): phenotypes.check_growth_threshold,
    ("predict_growth_phenotypes", "uptake_rate"): phenotypes.check_uptake_rate,
    ("predict_growth_phenotypes", "panel"): phenotypes.check_panel,
    ("predict_fermentation_products", "min_ratio"): check_min_ratio,
    ("run_fva", "fraction_of_optimum"): check_fraction,
}


# pydantic error types of a published constraint (range, enum, length), as opposed to a wrong type
CONSTRAINT_ERRORS = frozenset({"greater_than", "greater_than_equal", "less_than", "less_than_equal", "literal_error",
                               "enum", "string_too_long", "string_too_short", "too_short", "too_long",
                               "finite_number"})


def mapped_error(tool_name: str | None, exc: BaseException) -> GemFluxError | None:
    """The error of the argument's own check (ARGUMENT_CHECKS) for the first refused argument
    that has one, or None (the caller answers INVALID_ARGUMENTS)."""
    cause = exc if isinstance(exc, PydanticValidationError) else exc.__cause__
    if not isinstance(cause, PydanticValidationError):
        return None
    for err in cause.errors():
        location = [p for p in err.get("loc", ()) if p != "call"]
        check = ARGUMENT_CHECKS.get((str(tool_name), str(location[0]))) if location else None
        if check is None or "input" not in err or err.get("type") not in CONSTRAINT_ERRORS:
            continue  # wrong types, missing or unknown arguments stay INVALID_ARGUMENTS
        value = err["input"] if len(location) == 1 else None
        try:
            check(value)
        except GemFluxError as refused:
            return refused
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
            refused = mapped_error(tool_name, exc)
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
