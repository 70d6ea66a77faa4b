"""One error hierarchy for every layer.

Each error carries what the MCP envelope needs (docs/architecture.md; recovery hints are added at
the boundary by server/hints.py), so the server has exactly one place that turns an exception into
a tool result. Codes
come from one enum, `ErrorCode` (error_codes.py).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from gem_flux_mcp.error_codes import ErrorCode


class GemFluxError(Exception):
    """Base of all errors a user can see. Subclasses fix the category and JSON-RPC code."""

    error_type: ClassVar[str] = "server_error"
    jsonrpc_error_code: ClassVar[int] = -32603

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        details: dict[str, Any] | None = None,
        suggestions: list[str] | None = None,
        valid_next_steps: list[str] | None = None,
        example_call: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)  # a code built at run time is checked here
        self.message = message
        self.details = details or {}
        self.suggestions = suggestions or []
        self.valid_next_steps = valid_next_steps or []
        self.example_call = example_call

    def envelope(self, tool_name: str | None = None) -> dict[str, Any]:
        """The canonical error envelope (docs/architecture.md, "How an answer is shaped")."""
        return {
            "success": False,
            "error_type": self.error_type,
            "error_code": self.code,
            "jsonrpc_error_code": self.jsonrpc_error_code,
            "message": self.message,
            "details": self.details,
            "suggestions": self.suggestions,
            "valid_next_steps": self.valid_next_steps,
            "example_call": self.example_call,
            "tool_name": tool_name,
            "timestamp": utc_timestamp(),
        }


class ValidationError(GemFluxError):
    error_type = "validation_error"
    jsonrpc_error_code = -32000


class NotFoundError(GemFluxError):
    error_type = "not_found_error"
    jsonrpc_error_code = -32001


class InfeasibilityError(GemFluxError):
    error_type = "infeasibility_error"
    jsonrpc_error_code = -32002


class LibraryError(GemFluxError):
    error_type = "library_error"
    jsonrpc_error_code = -32003


class DatabaseError(GemFluxError):
    error_type = "database_error"
    jsonrpc_error_code = -32004


class TimeoutError_(GemFluxError):
    error_type = "timeout_error"
    jsonrpc_error_code = -32005


class ServerError(GemFluxError):
    error_type = "server_error"
    jsonrpc_error_code = -32603


class DataError(GemFluxError):
    """Reference data missing, corrupt or not matching its checksums (fatal at start-up)."""

    error_type = "database_error"
    jsonrpc_error_code = -32004


def utc_timestamp() -> str:
    """ISO-8601 UTC with a `Z` suffix, millisecond precision."""
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"
