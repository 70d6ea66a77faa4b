"""The checks every paged answer makes of its `offset` and `limit` (one error code and shape for
every tool)."""

from __future__ import annotations

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ValidationError


def check_limit(limit: object, maximum: int, name: str = "limit") -> int:
    """A whole number from 1 to `maximum`, else INVALID_LIMIT."""
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= maximum:
        raise ValidationError(ErrorCode.INVALID_LIMIT, f"{name} must be an integer from 1 to {maximum}; got {limit!r}.",
                              details={"provided": repr(limit)[:20], "min": 1, "max": maximum})
    return limit


def check_offset(offset: object, total: int | None = None, name: str = "offset") -> int:
    """An offset into `total` entries (or any offset >= 0 when the total is not known yet), else
    INVALID_OFFSET."""
    last = max((total or 0) - 1, 0)
    if isinstance(offset, bool) or not isinstance(offset, int) or offset < 0 or (total is not None and offset > last):
        raise ValidationError(
            ErrorCode.INVALID_OFFSET,
            f"{name} must be an integer from 0 to {last}." if total is not None else f"{name} must be an integer >= 0.",
            details={"provided": repr(offset)[:20], **({"total": total} if total is not None else {})})
    return offset
