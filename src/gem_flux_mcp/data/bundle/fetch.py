"""`gem-flux data fetch`: download the bundle from upstream or a mirror, verified, resumable, retried.

This module plans where each file comes from and runs the fetch; the downloads themselves are in
download.py, what a fetch reports in fetch_report.py.
"""


from __future__ import annotations

import os
import urllib.parse
from pathlib import Path

from gem_flux_mcp.data.bundle.check import FileStatus, check_bundle, check_file
from gem_flux_mcp.data.bundle.download import Downloader, DownloadJob, FileProgress, check_url
from gem_flux_mcp.data.bundle.fetch_report import (
    FetchAction,
    FetchReport,
    FileFetch,
    ProgressCallback,
    ProgressEvent,
    ProgressKind,
)
from gem_flux_mcp.data.bundle.manifest import (
    FETCH_RECORD_NAME,
    UPSTREAM_SOURCE,
    Manifest,
    ManifestEntry,
    load_manifest,
)
from gem_flux_mcp.data.bundle.record import FetchRecord, RecordedFile, read_fetch_record, write_record
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import DataError, utc_timestamp

__all__ = ["FetchAction", "FetchReport", "FileFetch", "ProgressCallback", "ProgressEvent", "ProgressKind",
           "fetch_bundle"]


def _plan(entry: ManifestEntry, manifest: Manifest, mirror: str | None) -> DownloadJob | None:
    """Where a file comes from in this mode, or None when it has no source here."""
    if mirror is not None:
        url = f"{mirror}/{urllib.parse.quote(entry.path, safe='/')}"
        return DownloadJob("mirror", (url,), drop_headers=False, accept_any_sha=False)
    if entry.upstream is None:
        return None
    urls = tuple(p.url(manifest.raw_url) for p in entry.upstream.parts)
    for url in urls:
        check_url(url, "upstream raw_url")
    return DownloadJob(UPSTREAM_SOURCE, urls, drop_headers=entry.upstream.keep_one_header,
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
        check_url(mirror, "base_url")
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
    downloader = Downloader(retries=retries, timeout=timeout, backoff=backoff)
    selected = [e for e in man.files.values() if e.required or include_optional]
    results: list[FileFetch] = []
    for index, entry in enumerate(selected, start=1):
        fp = FileProgress(progress, entry.path, index, len(selected), entry.size)
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
    downloader: Downloader,
    fp: FileProgress,
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
