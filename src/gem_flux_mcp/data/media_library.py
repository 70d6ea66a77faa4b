"""The predefined media: the library shipped with the package (`gem_flux_mcp/data/media/*.json`,
written by `scripts/make_media_library.py`, each medium with its `source`) and the media of the
reference data folder (`<data>/media/*.json`).

A medium file has its `name` (the media id), `description`, optionally `source` and `category`,
and `compounds` ({cpd id: {"bounds": [lower, upper], ...}}). When the data folder and the package
define the same id, the data folder's medium wins (it is the one a deployment chose).
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Literal

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DataError

log = logging.getLogger(__name__)

# Predefined media have no creation time of their own; the reference lists this fixed date.
PREDEFINED_CREATED_AT = "2025-10-27T00:00:00.000000Z"
PACKAGE_FOLDER = "media"  # inside the gem_flux_mcp.data package
DATA_FOLDER_CATEGORY = "reference data folder"
_CPD = re.compile(r"^cpd\d{5}$")

Origin = Literal["data", "package"]


@dataclass(frozen=True)
class PredefinedMedium:
    media_id: str
    description: str
    compounds: dict[str, tuple[float, float]]
    source: str = ""
    category: str = DATA_FOLDER_CATEGORY
    origin: Origin = "data"


def load_media_library(data_dir: Path) -> dict[str, PredefinedMedium]:
    """Every predefined medium keyed by its `name` (its media id): the data folder's media first
    (sorted by file name), then the package library's; on an id in both, the data folder's."""
    folder = data_dir / "media"
    library = _read_all(sorted(folder.glob("*.json")), "data") if folder.is_dir() else {}
    for media_id, medium in package_media().items():
        if media_id in library:
            log.info("predefined medium %s of the data folder replaces the package library's", media_id)
        else:
            library[media_id] = medium
    return library


@functools.cache
def package_media() -> dict[str, PredefinedMedium]:
    """The library shipped with the package, read once per process (do not modify the answer)."""
    folder = resources.files("gem_flux_mcp.data").joinpath(PACKAGE_FOLDER)
    if not folder.is_dir():
        return {}
    return _read_all(sorted((p for p in folder.iterdir() if p.name.endswith(".json")), key=lambda p: p.name),
                     "package")


def _read_all(paths: Iterable[Path | Traversable], origin: Origin) -> dict[str, PredefinedMedium]:
    library: dict[str, PredefinedMedium] = {}
    for path in paths:
        medium = _read(path, origin)
        library[medium.media_id] = medium
    return library


def _read(path: Path | Traversable, origin: Origin) -> PredefinedMedium:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        name = str(raw.get("name") or Path(path.name).stem)
        compounds: dict[str, tuple[float, float]] = {}
        for cpd, entry in raw["compounds"].items():
            lower, upper = (float(v) for v in entry["bounds"])
            if not _CPD.match(cpd) or lower > upper:
                raise ValueError(f"bad entry for {cpd}")
            compounds[cpd] = (lower, upper)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise DataError(
            ErrorCode.MEDIA_FILE_INVALID,
            f"predefined medium {path.name} is not valid: {exc}",
            details={"path": str(path)},
        ) from exc
    category = str(raw.get("category") or DATA_FOLDER_CATEGORY)
    source = str(raw.get("source") or (f"reference data folder, media/{path.name}" if origin == "data" else ""))
    return PredefinedMedium(name, str(raw.get("description", "")), compounds, source, category, origin)
