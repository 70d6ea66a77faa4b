"""`gem-flux data fetch`: download the bundle from upstream or a mirror, verified, resumable, retried."""


from __future__ import annotations

import functools
import http.client
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import IO, Literal

from gem_flux_mcp import __version__
from gem_flux_mcp.data.bundle.check import CheckReport, FileStatus, check_bundle, check_file
from gem_flux_mcp.data.bundle.manifest import (
    CHUNK_SIZE,
    FETCH_RECORD_NAME,
    MAX_BACKOFF_S,
    RETRY_STATUSES,
    UPSTREAM_SOURCE,
    Manifest,
    ManifestEntry,
    load_manifest,
)
from gem_flux_mcp.data.bundle.record import FetchRecord, RecordedFile, read_fetch_record, write_record
from gem_flux_mcp.data.fingerprint import sha256_file
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DataError, utc_timestamp
from gem_flux_mcp.fsutil import fsync_dir

# --------------------------------------------------------------------------------------------
# Fetch
# --------------------------------------------------------------------------------------------

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


class _TransientError(Exception):
    """Worth another attempt: network error, timeout, 5xx, connection closed early."""


class _HTTPStatusError(Exception):
    """A definitive HTTP answer (404, 403, 416, ...): retrying will not help."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(f"HTTP {status} {reason}")
        self.status = status


@dataclass
class _FileProgress:
    callback: ProgressCallback | None
    path: str
    index: int
    count: int
    total: int | None
    transferred: int = 0

    def emit(self, kind: ProgressKind, done: int, message: str = "") -> None:
        if self.callback is not None:
            self.callback(ProgressEvent(kind, self.path, done, self.total, self.index,
                                        self.count, message))


@dataclass(frozen=True)
class _Job:
    origin: str  # "mirror" or "upstream"
    urls: tuple[str, ...]
    drop_headers: bool  # drop the first line of every part after the first
    accept_any_sha: bool  # upstream_differs: nothing to hold the upstream file to


@dataclass
class _Downloader:
    retries: int
    timeout: float
    backoff: float
    _opener: urllib.request.OpenerDirector = field(
        default_factory=urllib.request.build_opener, repr=False
    )

    def fetch(self, job: _Job, entry: ManifestEntry, target: Path, fp: _FileProgress
              ) -> tuple[str, int]:
        """Download into `.<name>.part`, verify, then move into place; return (sha256, size).

        The final name only ever holds a verified file. The temp file is removed on failure but
        kept on KeyboardInterrupt, so the next run can resume it.
        """
        target.parent.mkdir(parents=True, exist_ok=True)
        part = target.with_name(f".{target.name}.part")
        try:
            for round_ in (1, 2):
                if len(job.urls) == 1:
                    url = job.urls[0]
                    self._with_retries(url, fp,
                                       functools.partial(self._get_resumable, url, part, fp))
                else:
                    self._get_concatenated(job, part, fp)
                sha = sha256_file(part)
                size = part.stat().st_size
                if job.accept_any_sha or sha == entry.sha256:
                    os.replace(part, target)
                    fsync_dir(target.parent)
                    return sha, size
                # A bad resumed prefix or a glitch on the way: one clean download more.
                part.unlink()
                if round_ == 1:
                    fp.emit("retry", fp.transferred,
                            f"checksum mismatch (sha256 {sha[:12]}…); downloading again")
            raise DataError(
                ErrorCode.DATA_CHECKSUM_MISMATCH,
                f"{entry.path}: downloaded file has sha256 {sha}, expected {entry.sha256} "
                f"(twice; source {job.urls[0] if len(job.urls) == 1 else job.origin})",
                details={"path": entry.path, "expected_sha256": entry.sha256,
                         "actual_sha256": sha, "urls": list(job.urls)},
                suggestions=["The source serves different bytes than the manifest expects; "
                             "check the mirror or try again later."],
            )
        except Exception:
            part.unlink(missing_ok=True)
            raise

    def _with_retries(self, url: str, fp: _FileProgress, attempt_once: Callable[[], None]
                      ) -> None:
        attempt = 1
        while True:
            try:
                attempt_once()
                return
            except _HTTPStatusError as exc:
                raise DataError(
                    ErrorCode.DATA_DOWNLOAD_FAILED, f"{fp.path}: {exc} from {url}",
                    details={"path": fp.path, "url": url, "http_status": exc.status},
                ) from exc
            except _TransientError as exc:
                if attempt >= self.retries:
                    raise DataError(
                        ErrorCode.DATA_DOWNLOAD_FAILED,
                        f"{fp.path}: {exc} from {url} (gave up after {attempt} attempt"
                        f"{'s' if attempt > 1 else ''})",
                        details={"path": fp.path, "url": url, "attempts": attempt},
                        suggestions=["Check the network connection and run the command again; "
                                     "verified files are kept."],
                    ) from exc
                fp.emit("retry", fp.transferred,
                        f"{exc}; retrying (attempt {attempt + 1} of {self.retries})")
                time.sleep(min(self.backoff * 2 ** (attempt - 1), MAX_BACKOFF_S))
                attempt += 1

    def _open(self, url: str, headers: Mapping[str, str]) -> http.client.HTTPResponse:
        request = urllib.request.Request(
            url, headers={"User-Agent": f"gem-flux/{__version__}", **headers}
        )
        try:
            response: http.client.HTTPResponse = self._opener.open(request, timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            exc.close()
            if exc.code >= 500 or exc.code in RETRY_STATUSES:
                raise _TransientError(f"HTTP {exc.code} {exc.reason}") from exc
            raise _HTTPStatusError(exc.code, str(exc.reason)) from exc
        except (OSError, http.client.HTTPException) as exc:  # URLError, timeouts, resets
            reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
            raise _TransientError(f"request failed: {reason}") from exc
        return response

    def _get_resumable(self, url: str, part: Path, fp: _FileProgress) -> None:
        """One attempt at a single file, continuing a partial `.part` with a Range request."""
        offset = part.stat().st_size if part.exists() else 0
        try:
            response = self._open(url, {"Range": f"bytes={offset}-"} if offset else {})
        except _HTTPStatusError as exc:
            if exc.status != 416 or not offset:
                raise
            # The partial file is not a prefix of the remote one (complete, too long or stale).
            part.unlink()
            offset = 0
            response = self._open(url, {})
        with response:
            if offset and response.status == 206:
                start = _content_range_start(response.headers.get("Content-Range"))
                if start != offset:
                    part.unlink()
                    raise _TransientError(f"server resumed at byte {start}, not at {offset}")
                mode = "ab"
            else:
                # 200: the server ignores Range; take the whole file.
                offset, mode = 0, "wb"
            length = _content_length(response)
            total = offset + length if length is not None else fp.total
            with part.open(mode) as fh:
                received = self._copy(response, fh, fp, base=offset, total=total,
                                      drop_first_line=False)
                fh.flush()
                os.fsync(fh.fileno())
        if length is not None and received < length:
            raise _TransientError(
                f"connection closed after {offset + received} of {offset + length} bytes"
            )

    def _get_concatenated(self, job: _Job, part: Path, fp: _FileProgress) -> None:
        """Join upstream parts; a failed part is retried from where it started in the file."""
        # Part boundaries of an older `.part` are unknown, so it cannot be resumed.
        part.write_bytes(b"")
        for index, url in enumerate(job.urls):
            start = part.stat().st_size
            drop = job.drop_headers and index > 0
            self._with_retries(
                url, fp, functools.partial(self._get_segment, url, part, start, drop, fp)
            )

    def _get_segment(self, url: str, part: Path, start: int, drop_first_line: bool,
                     fp: _FileProgress) -> None:
        with self._open(url, {}) as response:
            length = _content_length(response)
            with part.open("r+b") as fh:
                fh.seek(start)
                fh.truncate()
                received = self._copy(response, fh, fp, base=start, total=fp.total,
                                      drop_first_line=drop_first_line)
                fh.flush()
                os.fsync(fh.fileno())
        if length is not None and received < length:
            raise _TransientError(f"connection closed after {received} of {length} bytes")

    @staticmethod
    def _copy(response: http.client.HTTPResponse, fh: IO[bytes], fp: _FileProgress, *,
              base: int, total: int | None, drop_first_line: bool) -> int:
        """Stream the body into `fh`; return the bytes received (what Content-Length counts)."""
        received = written = 0
        skipping = drop_first_line
        while True:
            try:
                chunk = response.read(CHUNK_SIZE)
            except (OSError, http.client.HTTPException) as exc:
                raise _TransientError(f"transfer interrupted: {exc!r}") from exc
            if not chunk:
                return received
            received += len(chunk)
            fp.transferred += len(chunk)
            if skipping:
                newline = chunk.find(b"\n")
                if newline < 0:
                    continue
                chunk = chunk[newline + 1:]
                skipping = False
            fh.write(chunk)
            written += len(chunk)
            if fp.callback is not None:
                fp.callback(ProgressEvent("progress", fp.path, base + written, total,
                                          fp.index, fp.count))


def _content_length(response: http.client.HTTPResponse) -> int | None:
    value = response.headers.get("Content-Length")
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _content_range_start(value: str | None) -> int | None:
    """Start byte of `Content-Range: bytes START-END/TOTAL`."""
    if value is None:
        return None
    unit, _, spec = value.strip().partition(" ")
    start, _, _ = spec.partition("-")
    if unit.lower() != "bytes" or not start.isdigit():
        return None
    return int(start)


def _check_url(url: str, what: str) -> None:
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError(f"{what} must be an http(s) URL, got {url!r}")


def _plan(entry: ManifestEntry, manifest: Manifest, mirror: str | None) -> _Job | None:
    """Where a file comes from in this mode, or None when it has no source here."""
    if mirror is not None:
        url = f"{mirror}/{urllib.parse.quote(entry.path, safe='/')}"
        return _Job("mirror", (url,), drop_headers=False, accept_any_sha=False)
    if entry.upstream is None:
        return None
    urls = tuple(p.url(manifest.raw_url) for p in entry.upstream.parts)
    for url in urls:
        _check_url(url, "upstream raw_url")
    return _Job(UPSTREAM_SOURCE, urls, drop_headers=entry.upstream.keep_one_header,
                accept_any_sha=entry.upstream_differs)


def fetch_bundle(
    dest: str | os.PathLike[str],
    base_url: str | None = None,
    include_optional: bool = False,
    retries: int = 3,
    timeout: float = 60.0,
    progress: ProgressCallback | None = None,
    *,
    manifest: Manifest | None = None,
    backoff: float = 1.0,
) -> FetchReport:
    """Download the reference data into `dest` and verify it.

    With `base_url`, file P comes from `{base_url}/P` and must match the manifest sha256. Without
    it, files are rebuilt from the upstream repositories; files upstream has in a newer version
    are kept with a warning, and files with no upstream source are skipped.

    Files already in place with the right checksum are not downloaded again. Per-file failures
    do not raise: they are in the report (see `FetchReport.ok`, `.errors()`,
    `.raise_for_status()`). Raises DataError (DATA_WRITE_FAILED) only when `dest` cannot be
    created, or files were downloaded but the fetch record cannot be written.

    `retries` is the number of attempts per request; `backoff` the first pause between them
    (doubled each time).
    """
    if retries < 1:
        raise ValueError("retries must be at least 1")
    if timeout <= 0:
        raise ValueError("timeout must be positive")
    if backoff < 0:
        raise ValueError("backoff must not be negative")
    mirror: str | None = None
    if base_url is not None:
        mirror = base_url.rstrip("/")
        _check_url(mirror, "base_url")
    man = manifest if manifest is not None else load_manifest()
    folder = Path(dest)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DataError(
            ErrorCode.DATA_WRITE_FAILED, f"cannot create the data folder {folder}: {exc}",
            details={"dest": str(folder)},
        ) from exc

    previous = read_fetch_record(folder)
    previous_files = previous.files if previous is not None else {}
    # Keep what earlier runs recorded about files still in place; this run overrides below.
    record_files: dict[str, RecordedFile] = {
        path: rec for path, rec in previous_files.items()
        if path in man.files and (folder / path).is_file()
    }
    downloader = _Downloader(retries=retries, timeout=timeout, backoff=backoff)
    selected = [e for e in man.files.values() if e.required or include_optional]
    results: list[FileFetch] = []
    for index, entry in enumerate(selected, start=1):
        fp = _FileProgress(progress, entry.path, index, len(selected), entry.size)
        result, recorded = _fetch_entry(
            folder, entry, man, mirror, previous_files.get(entry.path), downloader, fp
        )
        results.append(result)
        if recorded is not None:
            record_files[entry.path] = recorded

    source = mirror if mirror is not None else UPSTREAM_SOURCE
    notes: list[str] = []
    downloaded = any(r.action is FetchAction.DOWNLOADED for r in results)
    # A run that changed nothing leaves the record alone, so a complete read-only folder
    # (a shared copy of the bundle) passes `fetch` as well as `check`.
    if downloaded or record_files != dict(previous_files):
        record = FetchRecord(source, utc_timestamp(), man.bundle_version, record_files)
        try:
            write_record(folder, record)
        except OSError as exc:
            message = f"cannot write {folder / FETCH_RECORD_NAME}: {exc}"
            if downloaded:
                raise DataError(ErrorCode.DATA_WRITE_FAILED, message,
                                details={"dest": str(folder)}) from exc
            notes.append(message)
    return FetchReport(
        dest=folder,
        source=source,
        files=tuple(results),
        check=check_bundle(folder, include_optional=False, manifest=man),
        notes=tuple(notes),
    )


def _fetch_entry(
    folder: Path,
    entry: ManifestEntry,
    manifest: Manifest,
    mirror: str | None,
    previous: RecordedFile | None,
    downloader: _Downloader,
    fp: _FileProgress,
) -> tuple[FileFetch, RecordedFile | None]:
    existing = check_file(folder, entry, previous, include_optional=True)
    # An upstream version is only "the right file" in upstream mode; a mirror has the reference.
    in_place = existing.status is FileStatus.OK or (
        existing.status is FileStatus.UPSTREAM_VERSION and mirror is None
    )
    if in_place and existing.actual_sha256 is not None and existing.actual_size is not None:
        fp.emit("skipped", existing.actual_size, "already present, checksum ok")
        recorded = previous
        if recorded is None or recorded.sha256 != existing.actual_sha256:
            recorded = RecordedFile(existing.actual_sha256, existing.actual_size, "existing")
        return FileFetch(entry.path, entry.required, FetchAction.PRESENT,
                         existing.actual_sha256, existing.actual_size), recorded

    job = _plan(entry, manifest, mirror)
    if job is None:
        note = "no upstream source; available only from a mirror of the bundle (--base-url)"
        fp.emit("skipped", 0, note)
        return FileFetch(entry.path, entry.required, FetchAction.SKIPPED, note=note), None

    fp.emit("start", 0)
    try:
        sha, size = downloader.fetch(job, entry, folder / entry.path, fp)
    except DataError as exc:
        fp.emit("failed", fp.transferred, exc.message)
        return FileFetch(entry.path, entry.required, FetchAction.FAILED,
                         bytes_transferred=fp.transferred, error=exc), None
    except OSError as exc:  # local trouble: disk full, permissions, a folder in the way
        error = DataError(
            ErrorCode.DATA_WRITE_FAILED, f"{entry.path}: cannot write into {folder}: {exc}",
            details={"path": entry.path},
        )
        fp.emit("failed", fp.transferred, error.message)
        return FileFetch(entry.path, entry.required, FetchAction.FAILED,
                         bytes_transferred=fp.transferred, error=error), None

    note = ""
    if sha != entry.sha256:
        note = (
            f"upstream serves a newer version (sha256 {sha}) than the reference bundle "
            f"(sha256 {entry.sha256}); kept it and noted it in {FETCH_RECORD_NAME}. "
            "Results may differ from the reference; use a mirror (--base-url) for the exact file"
        )
    fp.emit("done", size, note)
    return (
        FileFetch(entry.path, entry.required, FetchAction.DOWNLOADED, sha, size,
                  fp.transferred, note),
        RecordedFile(sha, size, job.origin, job.urls),
    )
