"""The predefined media shipped with the reference data: one `<data>/media/*.json` file per medium, with
its `name` (the media id), `description` and `compounds` ({cpd id: {"bounds": [lower, upper]}})."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DataError

# Predefined media have no creation time of their own; the reference lists this fixed date.
PREDEFINED_CREATED_AT = "2025-10-27T00:00:00.000000Z"
_CPD = re.compile(r"^cpd\d{5}$")


@dataclass(frozen=True)
class PredefinedMedium:
    media_id: str
    description: str
    compounds: dict[str, tuple[float, float]]


def load_media_library(data_dir: Path) -> dict[str, PredefinedMedium]:
    """Every `media/*.json` file, keyed by its `name` (which is its media id)."""
    folder = data_dir / "media"
    library: dict[str, PredefinedMedium] = {}
    if not folder.is_dir():
        return library
    for path in sorted(folder.glob("*.json")):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            name = str(raw.get("name") or path.stem)
            compounds: dict[str, tuple[float, float]] = {}
            for cpd, entry in raw["compounds"].items():
                lower, upper = (float(v) for v in entry["bounds"])
                if not _CPD.match(cpd) or lower > upper:
                    raise ValueError(f"bad entry for {cpd}")
                compounds[cpd] = (lower, upper)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise DataError(
                ErrorCode.MEDIA_FILE_INVALID,
                f"predefined medium {path.name} is not valid: {exc}",
                details={"path": str(path)},
            ) from exc
        library[name] = PredefinedMedium(name, str(raw.get("description", "")), compounds)
    return library
