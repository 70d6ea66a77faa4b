"""The fetch record (`.gemflux-fetch.json`) a fetch leaves in the data folder: which files are
knowingly the newer upstream version."""


from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gem_flux_mcp.data.bundle.manifest import FETCH_RECORD_NAME, RECORD_FORMAT
from gem_flux_mcp.fsutil import atomic_write_text

# --------------------------------------------------------------------------------------------
# Fetch record (.gemflux-fetch.json)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RecordedFile:
    """What a fetch put in place: its checksum and where it came from."""

    sha256: str
    size: int
    origin: str  # "mirror", "upstream" or "existing" (found already in place)
    urls: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"sha256": self.sha256, "size": self.size, "origin": self.origin,
                "urls": list(self.urls)}

    @classmethod
    def from_json(cls, data: Any) -> RecordedFile | None:
        if not isinstance(data, Mapping):
            return None
        sha, size, origin = data.get("sha256"), data.get("size"), data.get("origin")
        urls = data.get("urls", [])
        if not (isinstance(sha, str) and isinstance(size, int) and isinstance(origin, str)):
            return None
        if not isinstance(urls, list):
            urls = []
        return cls(sha256=sha, size=size, origin=origin, urls=tuple(str(u) for u in urls))


@dataclass(frozen=True)
class FetchRecord:
    source: str  # the mirror URL, or "upstream"
    fetched_at: str
    bundle_version: str
    files: Mapping[str, RecordedFile]

    def to_json(self) -> dict[str, Any]:
        return {
            "format": RECORD_FORMAT,
            "source": self.source,
            "fetched_at": self.fetched_at,
            "bundle_version": self.bundle_version,
            "files": {path: rec.to_json() for path, rec in sorted(self.files.items())},
        }


def read_fetch_record(data_dir: str | os.PathLike[str]) -> FetchRecord | None:
    """The fetch record of a data folder, or None when absent or unreadable.

    A damaged record must not break `check`: it only loses the upstream-version allowance.
    """
    try:
        data = json.loads((Path(data_dir) / FETCH_RECORD_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, Mapping) or not isinstance(data.get("files"), Mapping):
        return None
    files: dict[str, RecordedFile] = {}
    for path, raw in data["files"].items():
        rec = RecordedFile.from_json(raw)
        if rec is not None:
            files[str(path)] = rec
    return FetchRecord(
        source=str(data.get("source", "")),
        fetched_at=str(data.get("fetched_at", "")),
        bundle_version=str(data.get("bundle_version", "")),
        files=files,
    )


def write_record(dest: Path, record: FetchRecord) -> None:
    """Write the record atomically so a crash never leaves half a JSON file."""
    atomic_write_text(dest / FETCH_RECORD_NAME, json.dumps(record.to_json(), indent=1) + "\n")
