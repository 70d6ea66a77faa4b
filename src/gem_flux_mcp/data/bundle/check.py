"""`gem-flux data check`: every bundle file verified against the manifest (size, sha256)."""


from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from gem_flux_mcp.data.bundle.manifest import UPSTREAM_SOURCE, Manifest, ManifestEntry, load_manifest
from gem_flux_mcp.data.bundle.record import RecordedFile, read_fetch_record
from gem_flux_mcp.data.fingerprint import sha256_file
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DataError

# --------------------------------------------------------------------------------------------
# Check
# --------------------------------------------------------------------------------------------


class FileStatus(StrEnum):
    OK = "ok"
    UPSTREAM_VERSION = "upstream_version"  # newer upstream file, vouched for by the fetch record
    NOT_PRESENT = "not_present"  # optional, absent, and not asked for: not checked
    MISSING = "missing"
    SIZE_MISMATCH = "size_mismatch"
    CHECKSUM_MISMATCH = "checksum_mismatch"


_GOOD_STATUSES = frozenset({FileStatus.OK, FileStatus.UPSTREAM_VERSION, FileStatus.NOT_PRESENT})


@dataclass(frozen=True)
class FileCheck:
    path: str
    status: FileStatus
    required: bool
    expected_size: int
    expected_sha256: str
    actual_size: int | None = None
    actual_sha256: str | None = None
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.status in _GOOD_STATUSES

    def error(self) -> DataError | None:
        """The error a user sees for this file, or None when it is fine."""
        if self.ok:
            return None
        missing = self.status is FileStatus.MISSING
        code = ErrorCode.DATA_FILE_MISSING if missing else ErrorCode.DATA_CHECKSUM_MISMATCH
        return DataError(
            code,
            f"{self.path}: {self.message}",
            details={
                "path": self.path,
                "status": str(self.status),
                "required": self.required,
                "expected_size": self.expected_size,
                "actual_size": self.actual_size,
                "expected_sha256": self.expected_sha256,
                "actual_sha256": self.actual_sha256,
            },
            suggestions=["Run `gem-flux data fetch` to download the reference data again."],
        )


@dataclass(frozen=True)
class CheckReport:
    data_dir: Path
    files: tuple[FileCheck, ...]

    @property
    def ok(self) -> bool:
        return all(f.ok for f in self.files)

    @property
    def failures(self) -> list[FileCheck]:
        return [f for f in self.files if not f.ok]

    @property
    def warnings(self) -> list[FileCheck]:
        return [f for f in self.files if f.status is FileStatus.UPSTREAM_VERSION]

    def raise_for_status(self) -> None:
        """Raise a DataError naming every failed file (its code is the first failure's)."""
        failures = self.failures
        if not failures:
            return
        errors = [e for e in (f.error() for f in failures) if e is not None]
        raise DataError(
            errors[0].code,
            f"reference data in {self.data_dir} is not usable: "
            + "; ".join(e.message for e in errors),
            details={"data_dir": str(self.data_dir), "files": [e.details for e in errors]},
            suggestions=[
                "Run `gem-flux data fetch` to download the reference data, "
                "or set GEMFLUX_DATA_DIR to a folder that has it."
            ],
        )


def check_file(
    data_dir: Path, entry: ManifestEntry, recorded: RecordedFile | None, include_optional: bool
) -> FileCheck:
    target = data_dir / entry.path
    base = FileCheck(entry.path, FileStatus.OK, entry.required, entry.size, entry.sha256)
    if not target.is_file():
        if not entry.required and not include_optional:
            return _with(base, FileStatus.NOT_PRESENT, message="optional, not present")
        return _with(base, FileStatus.MISSING, message=f"missing ({target})")

    # Versions this file may legitimately be: the reference one, and for a file known to differ
    # upstream, the upstream version this folder's own fetch record vouches for.
    versions = [(entry.size, entry.sha256, FileStatus.OK)]
    if (
        entry.upstream_differs
        and recorded is not None
        and recorded.origin == UPSTREAM_SOURCE
        and recorded.sha256 != entry.sha256
    ):
        versions.append((recorded.size, recorded.sha256, FileStatus.UPSTREAM_VERSION))

    size = target.stat().st_size
    # Size first: it is free and catches truncated files without reading 50 MB.
    candidates = [v for v in versions if v[0] == size]
    if not candidates:
        return _with(
            base, FileStatus.SIZE_MISMATCH, actual_size=size,
            message=f"size {size} bytes, expected {entry.size}",
        )
    sha = sha256_file(target)
    for _, version_sha, status in candidates:
        if sha == version_sha:
            message = ""
            if status is FileStatus.UPSTREAM_VERSION:
                message = (
                    "newer upstream version (fetch record), not the reference version; "
                    "results may differ from the reference bundle"
                )
            return _with(base, status, actual_size=size, actual_sha256=sha, message=message)
    return _with(
        base, FileStatus.CHECKSUM_MISMATCH, actual_size=size, actual_sha256=sha,
        message=f"sha256 {sha}, expected {entry.sha256} (file modified or corrupt)",
    )


def _with(base: FileCheck, status: FileStatus, **changes: Any) -> FileCheck:
    return dataclasses.replace(base, status=status, **changes)


def check_bundle(
    data_dir: str | os.PathLike[str],
    include_optional: bool = False,
    *,
    manifest: Manifest | None = None,
) -> CheckReport:
    """Verify a data folder against the manifest (size, then sha256).

    Required files must be present. Optional files are checked when present, and reported
    missing only with `include_optional`.
    """
    man = manifest if manifest is not None else load_manifest()
    folder = Path(data_dir)
    record = read_fetch_record(folder)
    recorded = record.files if record is not None else {}
    checks = tuple(
        check_file(folder, entry, recorded.get(entry.path), include_optional)
        for entry in man.files.values()
    )
    return CheckReport(data_dir=folder, files=checks)
