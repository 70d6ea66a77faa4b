"""Recovery hints in MCP terms, added at the boundary: lower layers (data, modeling, store) raise
an error with a code and structured details and never name a tool; this table says, per code,
what a client should try next (suggestions, the tools to call, an example call), filled in from
the error's details. The way httpx maps transport exceptions in one place.

An error keeps what its raise site said (domain advice such as "did you mean ..."); the hint's
suggestions are added after it, and its next steps and example call fill what was left empty.
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import GemFluxError

Example = Callable[[Mapping[str, Any]], dict[str, Any] | None]


@dataclass(frozen=True)
class Hint:
    suggestions: tuple[str, ...] = ()  # may name details as {field}; a line whose field is missing is left out
    next_steps: tuple[str, ...] = ()
    example: Example | None = None


def _call(tool: str, **arguments: Any) -> Example:
    """An example call whose arguments may name details as '{field}'."""

    def build(details: Mapping[str, Any]) -> dict[str, Any] | None:
        filled = {k: _fill(v, details) if isinstance(v, str) else v for k, v in arguments.items()}
        return None if any(v is None for v in filled.values()) else {"tool": tool, "arguments": filled}

    return build


HINTS: dict[ErrorCode, Hint] = {
    ErrorCode.MODEL_NOT_FOUND: Hint(
        ("Call list_models to see the model ids of this workspace.",
         "Model ids are case-sensitive and include the state suffix, e.g. 'E_coli.draft.gf'."),
        ("list_models", "build_model", "import_model"), _call("list_models")),
    ErrorCode.MEDIA_NOT_FOUND: Hint(
        ("Call list_media to see the media of this workspace (predefined media included).",),
        ("list_media", "build_media"), _call("list_media")),
    ErrorCode.MODEL_ID_EXISTS: Hint(
        ("Or delete the existing model first with delete_model(model_id='{model_id}').",),
        ("list_models", "delete_model")),
    ErrorCode.MODEL_FILE_CORRUPT: Hint(
        ("The model cannot be loaded. Delete it with delete_model and rebuild or re-import it.",),
        ("delete_model", "build_model", "import_model"), _call("delete_model", model_id="{model_id}")),
    ErrorCode.DUPLICATE_NAME: Hint(
        ("Or delete the existing model first with delete_model(model_id='{existing_model_id}').",
         "Or delete the existing medium first with delete_media(media_id='{existing_media_id}')."),
        ("list_models", "list_media")),
    ErrorCode.INVALID_MODEL_NAME: Hint(
        (), (), _call("build_model", model_name="E_coli_K12")),
    ErrorCode.INVALID_MODEL_ID: Hint(("Call list_models to see valid model ids.",), ("list_models",)),
    ErrorCode.COMPOUND_NOT_FOUND: Hint(
        ("Check the id, or search by name with search_compounds.",),
        ("search_compounds",), _call("search_compounds", query="glucose")),
    ErrorCode.REACTION_NOT_FOUND: Hint(
        ("Check the id, or search by name or EC number with search_reactions.",),
        ("search_reactions",), _call("search_reactions", query="pyruvate kinase")),
}


def add_hints(error: GemFluxError) -> GemFluxError:
    """Add the hint's suggestions after the error's own; fill empty next steps and example call."""
    hint = HINTS.get(error.code)
    if hint is None:
        return error
    added = [text for line in hint.suggestions if (text := _fill(line, error.details)) is not None]
    error.suggestions = list(dict.fromkeys([*error.suggestions, *added]))
    if not error.valid_next_steps:
        error.valid_next_steps = list(hint.next_steps)
    if error.example_call is None and hint.example is not None:
        error.example_call = hint.example(error.details)
    return error


def _fill(template: str, details: Mapping[str, Any]) -> str | None:
    """`template` with its {fields} from `details`, or None when one of them is missing."""
    fields = [name for _, name, _, _ in string.Formatter().parse(template) if name]
    if any(details.get(name) in (None, "") for name in fields):
        return None
    return template.format(**{name: _show(details[name]) for name in fields})


def _show(value: Any) -> str:
    return ", ".join(repr(v) for v in value) if isinstance(value, list | tuple) else str(value)
