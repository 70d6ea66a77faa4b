"""Rows of the state database as the store's dataclasses, and the compression of long texts
(recorded arguments and responses)."""

from __future__ import annotations

import json
import zlib
from collections.abc import Mapping
from typing import Any

from gem_flux_mcp.store.rows import CallRow, MediaRow, ModelRow, SessionRow

Row = Mapping[Any, Any]  # a result row by column name (SQLAlchemy's RowMapping)


def model_row(r: Row) -> ModelRow:
    return ModelRow(
        workspace=str(r["workspace"]),
        model_id=str(r["model_id"]),
        model_name=r["model_name"],
        state=str(r["state"]),
        source=str(r["source"]),
        template=r["template"],
        num_reactions=int(r["num_reactions"]),
        num_metabolites=int(r["num_metabolites"]),
        num_genes=int(r["num_genes"]),
        num_exchanges=int(r["num_exchanges"]),
        compartments=list(json.loads(r["compartments_json"])),
        objective=r["objective"],
        derived_from=r["derived_from"],
        created_at=str(r["created_at"]),
        file_size=int(r["file_size"]),
        file_sha256=str(r["file_sha256"]),
        last_media_id=r["last_media_id"],
        extra=dict(json.loads(r["extra_json"])),
    )


def media_row(r: Row) -> MediaRow:
    return MediaRow(
        workspace=str(r["workspace"]),
        media_id=str(r["media_id"]),
        media_name=r["media_name"],
        compounds={str(cpd): (float(lo), float(hi)) for cpd, lo, hi in json.loads(r["compounds_json"])},
        default_uptake=None if r["default_uptake"] is None else float(r["default_uptake"]),
        created_at=str(r["created_at"]),
        description=r["description"],
    )


def session_row(r: Row) -> SessionRow:
    return SessionRow(
        id=str(r["id"]), workspace=str(r["workspace"]), transport=str(r["transport"]),
        transport_session_id=r["transport_session_id"], client_name=r["client_name"],
        client_version=r["client_version"], protocol_version=r["protocol_version"], status=str(r["status"]),
        start_time=str(r["start_time"]), end_time=r["end_time"], last_activity=str(r["last_activity"]),
        tool_call_count=int(r["tool_call_count"]), total_tokens=int(r["total_tokens"]),
    )


PRUNED_RESULT_KINDS = frozenset({"fba"})  # revisions and gapfills are history: never pruned
RESULTS_KEPT_PER_KIND = 200
PACK_MIN_CHARS = 256  # shorter texts are kept as they are


_ZLIB_LEVEL_6 = b"\x78\x9c"  # the header of every zlib stream pack_text writes


def pack_text(text: str | None) -> bytes | None:
    """Recorded arguments and responses are stored as bytes: zlib-compressed (JSON shrinks 3-5x)
    once they are long enough to gain from it, else UTF-8. The two never look alike: a zlib
    stream of level 6 starts with 0x78 0x9C, and UTF-8 text cannot (0x9C only continues a
    multi-byte character)."""
    if text is None:
        return None
    raw = text.encode("utf-8")
    return raw if len(text) < PACK_MIN_CHARS else zlib.compress(raw, 6)


def unpack_text(value: str | bytes | memoryview | None) -> str | None:
    """What pack_text packed; a str is a short text stored before the store wrote bytes only."""
    if value is None or isinstance(value, str):
        return value
    data = bytes(value)
    return zlib.decompress(data).decode("utf-8") if data[:2] == _ZLIB_LEVEL_6 else data.decode("utf-8")


def call_row(r: Row) -> CallRow:
    return CallRow(
        id=str(r["id"]), session_id=str(r["session_id"]), workspace=str(r["workspace"]), seq=int(r["seq"]),
        client_name=r["client_name"], client_version=r["client_version"], tool_name=str(r["tool_name"]),
        arguments=json.loads(unpack_text(r["arguments_json"]) or "null"), response=unpack_text(r["response_json"]),
        response_size=int(r["response_size"]), response_truncated=bool(r["response_truncated"]),
        is_error=bool(r["is_error"]), error_code=r["error_code"], error_message=r["error_message"],
        duration_ms=float(r["duration_ms"]), timestamp=str(r["timestamp"]), request_id=r["request_id"],
        annotations=None if r["annotations_json"] is None else dict(json.loads(r["annotations_json"])),
        tokens=int(r["tokens"]),
    )
