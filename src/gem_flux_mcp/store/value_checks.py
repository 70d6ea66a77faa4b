"""Checks of the values the store keeps besides ids: a medium's bounds, result kinds and limits,
and the dicts stored as JSON (a model's `extra`, a result's `summary`)."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError

KIND_RE = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
MAX_RESULTS_LIMIT = 1000


def checked_compounds(compounds: Mapping[str, tuple[float, float]]) -> dict[str, tuple[float, float]]:
    """A medium's {compound id: (lower, upper)}: non-empty ids, finite bounds with lower <= upper."""
    checked: dict[str, tuple[float, float]] = {}
    for cpd, bounds in compounds.items():
        if not isinstance(cpd, str) or not cpd:
            raise ValidationError(ErrorCode.INVALID_MEDIA, "Compound ids must be non-empty strings.",
                                  details={"compound": repr(cpd)})
        try:
            lower, upper = (float(bounds[0]), float(bounds[1]))
        except (TypeError, ValueError, IndexError) as exc:
            raise ValidationError(
                ErrorCode.INVALID_MEDIA, f"Bounds of {cpd} must be a pair of numbers (lower, upper).",
                details={"compound": cpd, "bounds": repr(bounds)},
            ) from exc
        if not (math.isfinite(lower) and math.isfinite(upper)) or lower > upper:
            raise ValidationError(
                ErrorCode.INVALID_MEDIA, f"Bounds of {cpd} must be finite with lower <= upper.",
                details={"compound": cpd, "lower": lower, "upper": upper},
            )
        checked[cpd] = (lower, upper)
    return checked


def check_result_kind(kind: str) -> None:
    if not KIND_RE.match(kind):
        raise ValidationError(
            ErrorCode.INVALID_RESULT_KIND, f"Result kind '{kind}' must match {KIND_RE.pattern}.",
            details={"provided": kind, "examples": ["fba", "gapfill", "revision"]},
        )


def check_results_limit(limit: int) -> None:
    if not 1 <= limit <= MAX_RESULTS_LIMIT:
        raise ValidationError(
            ErrorCode.INVALID_LIMIT, f"limit must be between 1 and {MAX_RESULTS_LIMIT}.",
            details={"provided": limit, "min": 1, "max": MAX_RESULTS_LIMIT},
        )


def to_json(value: dict[str, Any], what: str) -> str:
    """`value` as JSON text; INVALID_JSON if it is not a dict or not serializable."""
    if not isinstance(value, dict):
        raise ValidationError(ErrorCode.INVALID_JSON, f"{what} must be a dict.", details={"type": type(value).__name__})
    try:
        return json.dumps(value)
    except (TypeError, ValueError) as exc:
        raise ValidationError(
            ErrorCode.INVALID_JSON, f"{what} is not JSON-serializable: {exc}", details={"field": what}
        ) from exc
