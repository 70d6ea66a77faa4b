"""What `gem-flux data fetch` reports: progress events while it runs, and per file what it did
(downloaded, already present, skipped, failed), with the verification pass that ends every fetch."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Literal

from gem_flux_mcp.data.bundle.check import CheckReport, FileStatus
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DataError

ProgressKind = Literal["start", "progress", "retry", "done", "skipped", "failed"]


@dataclass(frozen=True)
class ProgressEvent:
    kind: ProgressKind
    path: str  # bundle-relative file name
    bytes_done: int
    bytes_total: int | None  # the manifest size: a hint (an upstream version may differ)
    index: int  # 1-based position of this file in the run
    count: int  # files in the run
    message: str = ""


ProgressCallback = Callable[[ProgressEvent], None]


class FetchAction(StrEnum):
    DOWNLOADED = "downloaded"
    PRESENT = "present"  # already in place with the right checksum
    SKIPPED = "skipped"  # no source in this mode (upstream: null)
    FAILED = "failed"


@dataclass(frozen=True)
class FileFetch:
    path: str
    required: bool
    action: FetchAction
    sha256: str | None = None
    size: int | None = None
    bytes_transferred: int = 0
    note: str = ""  # a warning (upstream version) or why the file was skipped
    error: DataError | None = None


@dataclass(frozen=True)
class FetchReport:
    dest: Path
    source: str  # the mirror URL, or "upstream"
    files: tuple[FileFetch, ...]
    check: CheckReport  # the verification pass that ends every fetch
    notes: tuple[str, ...] = ()  # run-level warnings (e.g. the fetch record could not be written)

    @property
    def ok(self) -> bool:
        """True when every required file is in place and verified (optional ones only warn)."""
        return all(f.ok for f in self.check.files if f.required)

    def count(self, action: FetchAction) -> int:
        return sum(1 for f in self.files if f.action is action)

    def errors(self) -> list[DataError]:
        """One error per required file that is not usable, with the download's own reason."""
        fetched = {f.path: f for f in self.files}
        errors: list[DataError] = []
        for check in self.check.files:
            if check.ok or not check.required:
                continue
            result = fetched.get(check.path)
            if result is not None and result.error is not None:
                errors.append(result.error)
            elif result is not None and result.action is FetchAction.SKIPPED:
                errors.append(DataError(
                    ErrorCode.DATA_FILE_MISSING,
                    f"{check.path}: {result.note}",
                    details={"path": check.path},
                    suggestions=["Fetch from a mirror of the bundle with --base-url."],
                ))
            else:
                error = check.error()
                if error is not None:
                    errors.append(error)
        return errors

    def warnings(self) -> list[str]:
        checks = {c.path: c for c in self.check.files}
        warnings = list(self.notes)
        reported: set[str] = set()
        for f in self.files:
            check = checks.get(f.path)
            label = f.path if f.required else f"{f.path} (optional)"
            noted = f.action is FetchAction.DOWNLOADED and bool(f.note)
            if noted or (f.action is FetchAction.SKIPPED and not f.required):
                warnings.append(f"{label}: {f.note}")
            elif f.action is FetchAction.FAILED and f.error is not None:
                if not f.required or (check is not None and check.ok):
                    warnings.append(f"{label}: {f.error.message}")
            else:
                continue
            reported.add(f.path)
        for check in self.check.files:
            if check.path in reported:
                continue
            if check.status is FileStatus.UPSTREAM_VERSION:
                warnings.append(f"{check.path}: {check.message}")
            elif not check.ok and not check.required:
                warnings.append(f"{check.path} (optional): {check.message}")
        return warnings

    def raise_for_status(self) -> None:
        errors = self.errors()
        if errors:
            raise DataError(
                errors[0].code,
                f"data fetch into {self.dest} failed: " + "; ".join(e.message for e in errors),
                details={"dest": str(self.dest), "source": self.source,
                         "files": [{"code": e.code, "message": e.message} for e in errors]},
                suggestions=["Run `gem-flux data fetch` again: verified files are kept."],
            )
