"""The packaged manifest of the reference data bundle: every file with its size, sha256 and how to
rebuild it from upstream."""


from __future__ import annotations

import functools
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DataError

CHUNK_SIZE = 1 << 20
FETCH_RECORD_NAME = ".gemflux-fetch.json"
UPSTREAM_SOURCE = "upstream"

RECORD_FORMAT = 1
# Statuses that say "try again later" rather than "this URL is wrong".
RETRY_STATUSES = frozenset({408, 425, 429})
MAX_BACKOFF_S = 30.0
_SHA256_HEX = frozenset("0123456789abcdef")


# --------------------------------------------------------------------------------------------
# Manifest
# --------------------------------------------------------------------------------------------


def _manifest_error(message: str) -> DataError:
    return DataError(
        ErrorCode.DATA_MANIFEST_INVALID,
        f"invalid data manifest: {message}",
        suggestions=["Reinstall gem-flux-mcp; the packaged manifest.json is damaged."],
    )


def _str_field(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise _manifest_error(f"{where}: '{key}' must be a non-empty string")
    return value


def _bundle_path(path: str) -> str:
    """A manifest path must stay inside the data folder, whatever the manifest says."""
    parts = path.split("/")
    if path.startswith("/") or "\\" in path or any(p in ("", ".", "..") for p in parts):
        raise _manifest_error(f"unsafe file path {path!r}")
    return path


@dataclass(frozen=True)
class UpstreamFile:
    """One raw file in a GitHub repository at a fixed commit."""

    repo: str
    commit: str
    path: str

    @classmethod
    def from_dict(cls, data: Any, where: str) -> UpstreamFile:
        if not isinstance(data, Mapping):
            raise _manifest_error(f"{where}: upstream source must be an object")
        return cls(
            repo=_str_field(data, "repo", where),
            commit=_str_field(data, "commit", where),
            path=_str_field(data, "path", where),
        )

    def url(self, raw_url: str) -> str:
        quote = functools.partial(urllib.parse.quote, safe="/")
        return raw_url.format(
            repo=quote(self.repo), commit=quote(self.commit), path=quote(self.path)
        )


@dataclass(frozen=True)
class UpstreamRecipe:
    """How to rebuild a bundle file upstream: one file, or numbered parts joined in order."""

    parts: tuple[UpstreamFile, ...]
    keep_one_header: bool = False

    @classmethod
    def from_dict(cls, data: Any, where: str) -> UpstreamRecipe | None:
        if data is None:
            return None
        if not isinstance(data, Mapping):
            raise _manifest_error(f"{where}: 'upstream' must be an object or null")
        if "concatenate" not in data:
            return cls(parts=(UpstreamFile.from_dict(data, where),))
        raw_parts = data["concatenate"]
        if not isinstance(raw_parts, list) or not raw_parts:
            raise _manifest_error(f"{where}: 'concatenate' must be a non-empty list")
        return cls(
            parts=tuple(UpstreamFile.from_dict(p, where) for p in raw_parts),
            keep_one_header=bool(data.get("keep_one_header", False)),
        )


@dataclass(frozen=True)
class ManifestEntry:
    path: str
    size: int
    sha256: str
    required: bool
    upstream: UpstreamRecipe | None
    # Upstream now serves a newer version, so an upstream download cannot match `sha256`.
    upstream_differs: bool = False

    @classmethod
    def from_dict(cls, path: str, data: Any) -> ManifestEntry:
        if not isinstance(data, Mapping):
            raise _manifest_error(f"{path}: entry must be an object")
        size = data.get("size")
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise _manifest_error(f"{path}: 'size' must be a non-negative integer")
        sha = data.get("sha256")
        if not isinstance(sha, str) or len(sha) != 64 or not set(sha) <= _SHA256_HEX:
            raise _manifest_error(f"{path}: 'sha256' must be 64 lowercase hex digits")
        required = data.get("required")
        if not isinstance(required, bool):
            raise _manifest_error(f"{path}: 'required' must be true or false")
        return cls(
            path=_bundle_path(path),
            size=size,
            sha256=sha,
            required=required,
            upstream=UpstreamRecipe.from_dict(data.get("upstream"), path),
            upstream_differs=bool(data.get("upstream_differs", False)),
        )


@dataclass(frozen=True)
class Manifest:
    bundle_version: str
    raw_url: str
    files: Mapping[str, ManifestEntry]

    @classmethod
    def from_dict(cls, data: Any) -> Manifest:
        if not isinstance(data, Mapping):
            raise _manifest_error("top level must be an object")
        files = data.get("files")
        if not isinstance(files, Mapping) or not files:
            raise _manifest_error("'files' must be a non-empty object")
        return cls(
            bundle_version=_str_field(data, "bundle_version", "manifest"),
            raw_url=_str_field(data, "raw_url", "manifest"),
            files={path: ManifestEntry.from_dict(path, entry) for path, entry in files.items()},
        )


def load_manifest() -> Manifest:
    """The manifest packaged with gem-flux (``gem_flux_mcp/data/manifest.json``)."""
    resource = resources.files("gem_flux_mcp.data").joinpath("manifest.json")
    try:
        data = json.loads(resource.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise _manifest_error(str(exc)) from exc
    return Manifest.from_dict(data)
