"""The check every paged answer makes of its `offset` against the entries there are (one error
code and shape for every tool; the offset's own rule is rules/catalog.py's OFFSET)."""

from __future__ import annotations

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError
from gem_flux_mcp.rules import Number
from gem_flux_mcp.rules.catalog import OFFSET


def check_offset(offset: object, total: int | None = None, rule: Number = OFFSET) -> int:
    """An offset into `total` entries (or any offset >= 0 when the total is not known yet), else
    INVALID_OFFSET."""
    first: int = rule.check(offset)
    last = max((total or 0) - 1, 0)
    if total is not None and first > last:
        raise ValidationError(ErrorCode.INVALID_OFFSET, f"{rule.name} must be an integer from 0 to {last}.",
                              details={"provided": first, "total": total})
    return first
