"""Plain records returned by the store, and the one timestamp helper every row uses."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

MODEL_STATES = ("draft", "gapfilled")
MODEL_SOURCES = ("built", "imported", "gapfilled", "revised")

# The marker that makes an id "gapfilled": gapfilling appends `.gf`, so every
# descendant of a gapfilled model keeps it and the state can be read off the id alone.
GAPFILLED_MARKER = ".gf"


def model_state(model_id: str) -> str:
    """`gapfilled` if the id contains `.gf`, else `draft`: the state is read off the id alone."""
    return "gapfilled" if GAPFILLED_MARKER in model_id else "draft"


@dataclass(frozen=True)
class ModelRow:
    workspace: str
    model_id: str
    model_name: str | None
    state: str  # "draft" | "gapfilled", derived from the id
    source: str  # "built" | "imported" | "gapfilled" | "revised"
    template: str | None
    num_reactions: int
    num_metabolites: int
    num_genes: int
    num_exchanges: int
    compartments: list[str]
    objective: str | None
    derived_from: str | None
    created_at: str  # ISO-8601 UTC, `Z`, microseconds
    file_size: int
    file_sha256: str
    last_media_id: str | None
    extra: dict[str, Any]


@dataclass(frozen=True)
class MediaRow:
    workspace: str
    media_id: str
    media_name: str | None
    compounds: dict[str, tuple[float, float]]  # cpd id -> (lower, upper), insertion order kept
    default_uptake: float | None
    created_at: str  # empty string: the store fills in the current time
    description: str | None


@dataclass(frozen=True)
class ResultRow:
    id: int
    workspace: str
    model_id: str
    kind: str  # "fba" | "gapfill" | "revision" ...
    media_id: str | None
    created_at: str
    summary: dict[str, Any]


@dataclass(frozen=True)
class CommunityRow:
    workspace: str
    community_id: str
    community_name: str | None
    members: list[dict[str, Any]]  # model_id, abundance, file_sha256, file_size, model_created_at
    created_at: str


@dataclass(frozen=True)
class CommunityResultRow:
    id: int
    community_id: str
    kind: str  # "community_growth" | "community_knockouts" | ...
    media_id: str | None
    created_at: str
    summary: dict[str, Any]


_ts_lock = threading.Lock()
_last_ts = datetime.min.replace(tzinfo=UTC)


def utc_now() -> str:
    """ISO-8601 UTC with `Z` and microseconds, strictly increasing within this process.

    Listings sort by `created_at`; two rows written in the same microsecond (or across a
    backwards clock step) would otherwise tie or invert, so each call is at least 1 µs later
    than the previous one.
    """
    global _last_ts
    with _ts_lock:
        now = datetime.now(UTC)
        if now <= _last_ts:
            now = _last_ts + timedelta(microseconds=1)
        _last_ts = now
    return now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass(frozen=True)
class SessionRow:
    """One MCP session: active until its transport closes or it idles out."""

    id: str
    workspace: str
    transport: str
    transport_session_id: str | None
    client_name: str | None
    client_version: str | None
    protocol_version: str | None
    status: str  # "active" | "closed"
    start_time: str
    end_time: str | None
    last_activity: str
    tool_call_count: int
    total_tokens: int


@dataclass(frozen=True)
class CallRow:
    """One tool call, successful or not, with a snapshot of the tool's annotations."""

    id: str
    session_id: str
    workspace: str
    seq: int
    client_name: str | None
    client_version: str | None
    tool_name: str
    arguments: Any
    response: str | None
    response_size: int
    response_truncated: bool
    is_error: bool
    error_code: str | None
    error_message: str | None
    duration_ms: float
    timestamp: str
    request_id: str | None
    annotations: dict[str, Any] | None
    tokens: int
