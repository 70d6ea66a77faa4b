"""HTTP downloads of bundle files: retried with backoff on transient failures, resumed with Range
requests, parts joined for files rebuilt from upstream, and verified before they take their final
name."""

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
from pathlib import Path
from typing import IO

from gem_flux_mcp import __version__
from gem_flux_mcp.data.bundle.fetch_report import ProgressCallback, ProgressEvent, ProgressKind
from gem_flux_mcp.data.bundle.manifest import CHUNK_SIZE, MAX_BACKOFF_S, RETRY_STATUSES, ManifestEntry
from gem_flux_mcp.data.fingerprint import sha256_file
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DataError
from gem_flux_mcp.fsutil import fsync_dir


class TransientError(Exception):
    """Worth another attempt: network error, timeout, 5xx, connection closed early."""


class HTTPStatusError(Exception):
    """A definitive HTTP answer (404, 403, 416, ...): retrying will not help."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(f"HTTP {status} {reason}")
        self.status = status


@dataclass
class FileProgress:
    """One file of a run: its bytes so far, reported to the progress callback."""

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
class DownloadJob:
    """Where one file comes from: a mirror URL, or the upstream parts to join in order."""

    origin: str  # "mirror" or "upstream"
    urls: tuple[str, ...]
    drop_headers: bool  # drop the first line of every part after the first
    accept_any_sha: bool  # upstream_differs: nothing to hold the upstream file to


@dataclass
class Downloader:
    """Runs DownloadJobs: `retries` attempts per request, pauses from `backoff` s doubling."""

    retries: int
    timeout: float
    backoff: float
    _opener: urllib.request.OpenerDirector = field(
        default_factory=urllib.request.build_opener, repr=False
    )

    def fetch(self, job: DownloadJob, entry: ManifestEntry, target: Path, fp: FileProgress
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

    def _with_retries(self, url: str, fp: FileProgress, attempt_once: Callable[[], None]
                      ) -> None:
        attempt = 1
        while True:
            try:
                attempt_once()
                return
            except HTTPStatusError as exc:
                raise DataError(
                    ErrorCode.DATA_DOWNLOAD_FAILED, f"{fp.path}: {exc} from {url}",
                    details={"path": fp.path, "url": url, "http_status": exc.status},
                ) from exc
            except TransientError as exc:
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
                raise TransientError(f"HTTP {exc.code} {exc.reason}") from exc
            raise HTTPStatusError(exc.code, str(exc.reason)) from exc
        except (OSError, http.client.HTTPException) as exc:  # URLError, timeouts, resets
            reason = exc.reason if isinstance(exc, urllib.error.URLError) else exc
            raise TransientError(f"request failed: {reason}") from exc
        return response

    def _get_resumable(self, url: str, part: Path, fp: FileProgress) -> None:
        """One attempt at a single file, continuing a partial `.part` with a Range request."""
        offset = part.stat().st_size if part.exists() else 0
        try:
            response = self._open(url, {"Range": f"bytes={offset}-"} if offset else {})
        except HTTPStatusError as exc:
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
                    raise TransientError(f"server resumed at byte {start}, not at {offset}")
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
            raise TransientError(
                f"connection closed after {offset + received} of {offset + length} bytes"
            )

    def _get_concatenated(self, job: DownloadJob, part: Path, fp: FileProgress) -> None:
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
                     fp: FileProgress) -> None:
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
            raise TransientError(f"connection closed after {received} of {length} bytes")

    @staticmethod
    def _copy(response: http.client.HTTPResponse, fh: IO[bytes], fp: FileProgress, *,
              base: int, total: int | None, drop_first_line: bool) -> int:
        """Stream the body into `fh`; return the bytes received (what Content-Length counts)."""
        received = written = 0
        skipping = drop_first_line
        while True:
            try:
                chunk = response.read(CHUNK_SIZE)
            except (OSError, http.client.HTTPException) as exc:
                raise TransientError(f"transfer interrupted: {exc!r}") from exc
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


def check_url(url: str, what: str) -> None:
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ValueError(f"{what} must be an http(s) URL, got {url!r}")
