"""Full result tables written as TSV files for the user (answers carry a page; files carry all)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import LibraryError
from gem_flux_mcp.fsutil import atomic_write_text

USER_FILE_MODE = 0o644  # written for people to read, like an exported model


def write_tsv(path: Path, columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Write atomically (`path` is already resolved and allowed for writing). Lists become
    comma-separated cells, None an empty cell."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter="\t", lineterminator="\n")
    writer.writerow(columns)
    count = 0
    for row in rows:
        writer.writerow([_cell(row.get(c)) for c in columns])
        count += 1
    try:
        atomic_write_text(path, buffer.getvalue(), USER_FILE_MODE)
    except OSError as exc:
        raise LibraryError(ErrorCode.DATA_WRITE_FAILED, f"Could not write the table: {exc.strerror or exc}.",
                           details={"path": str(path)}) from exc
    return {"path": str(path), "rows": count, "columns": list(columns)}


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ",".join(map(str, value))
    return str(value)
