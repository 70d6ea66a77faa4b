"""`gem-flux data fetch` / `data check` against a local HTTP server (never the internet)."""

from __future__ import annotations

import filecmp
import hashlib
import http.server
import json
import os
import random
import shutil
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

import pytest

from gem_flux_mcp.cli.main import main
from gem_flux_mcp.data import bundle
from gem_flux_mcp.data.bundle import (
    FETCH_RECORD_NAME,
    FetchAction,
    FileStatus,
    Manifest,
    ProgressEvent,
    check_bundle,
    fetch_bundle,
    load_manifest,
)
from gem_flux_mcp.errors import DataError


def use_manifest(monkeypatch: pytest.MonkeyPatch, manifest: Manifest) -> None:
    """Make the CLI's check and fetch read `manifest` instead of the packaged one."""
    for module in (bundle.check, bundle.fetch):
        monkeypatch.setattr(module, "load_manifest", lambda: manifest)


_DATA_DIR = os.environ.get("GEMFLUX_DATA_DIR")
if not _DATA_DIR or not Path(_DATA_DIR).is_dir():
    pytest.skip(
        "GEMFLUX_DATA_DIR is not set to the reference data folder (CI sets it to the shared "
        "bundle); the fetch tests serve that folder from a local HTTP server",
        allow_module_level=True,
    )
REAL_DATA = Path(_DATA_DIR)


class _Fast(TypedDict):
    backoff: float
    timeout: float


FAST: _Fast = {"backoff": 0.01, "timeout": 5.0}  # keeps retry pauses negligible


# --------------------------------------------------------------------------------------------
# A local mirror with fault injection
# --------------------------------------------------------------------------------------------


@dataclass
class Faults:
    fail_first: dict[str, int] = field(default_factory=dict)  # path -> next N answers are 500
    truncate_first: dict[str, int] = field(default_factory=dict)  # path -> next N cut halfway
    stall_first: dict[str, float] = field(default_factory=dict)  # path -> sleep once (timeout)
    corrupt: set[str] = field(default_factory=set)  # paths always served with wrong bytes
    ignore_range: bool = False  # answer 200 with the whole file to Range requests


@dataclass
class Served:
    path: str
    range: str | None
    status: int


class MirrorServer(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, root: Path) -> None:
        super().__init__(("127.0.0.1", 0), MirrorHandler)
        self.root = root
        self.faults = Faults()
        self.log: list[Served] = []
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # clients that hang up early (timeouts, cut transfers) are part of the tests

    def requests_for(self, path: str) -> list[Served]:
        with self.lock:
            return [r for r in self.log if r.path == path]

    def take(self, counter: dict[str, int], path: str) -> bool:
        with self.lock:
            if counter.get(path, 0) > 0:
                counter[path] -= 1
                return True
            return False


class MirrorHandler(http.server.SimpleHTTPRequestHandler):
    server: MirrorServer

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def _answer(self, rel: str, status: int) -> None:
        with self.server.lock:
            self.server.log.append(Served(rel, self.headers.get("Range"), status))

    def do_GET(self) -> None:
        srv = self.server
        rel = urllib.parse.unquote(urllib.parse.urlsplit(self.path).path).lstrip("/")
        file = (srv.root / rel).resolve()
        if srv.take(srv.faults.fail_first, rel):
            self._answer(rel, 500)
            self.send_error(500, "injected failure")
            return
        if not file.is_file() or not file.is_relative_to(srv.root.resolve()):
            self._answer(rel, 404)
            self.send_error(404)
            return
        with srv.lock:
            stall = srv.faults.stall_first.pop(rel, 0.0)
        if stall:
            self._answer(rel, 0)  # logged now: the client gives up before the answer
            time.sleep(stall)
            return
        size = file.stat().st_size
        start = 0
        range_header = self.headers.get("Range")
        if range_header and not srv.faults.ignore_range:
            start = int(range_header.removeprefix("bytes=").split("-")[0])
            if start >= size:
                self._answer(rel, 416)
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self._answer(rel, 206)
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{size - 1}/{size}")
        else:
            self._answer(rel, 200)
            self.send_response(200)
        length = size - start
        self.send_header("Content-Length", str(length))
        self.end_headers()
        limit = length // 2 if srv.take(srv.faults.truncate_first, rel) else length
        with file.open("rb") as fh:
            fh.seek(start)
            sent = 0
            while sent < limit:
                chunk = fh.read(min(1 << 20, limit - sent))
                if rel in srv.faults.corrupt:
                    chunk = bytes(b ^ 0xFF for b in chunk)
                self.wfile.write(chunk)
                sent += len(chunk)
        if limit < length:
            self.close_connection = True  # a cut transfer: the client sees EOF too early


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """A proxy from the environment must not get in between the client and 127.0.0.1."""
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy",
                 "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("no_proxy", "*")


@pytest.fixture
def serve() -> Iterator[Callable[[Path], MirrorServer]]:
    servers: list[MirrorServer] = []

    def start(root: Path) -> MirrorServer:
        server = MirrorServer(root)
        threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True).start()
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _entry(data: bytes, required: bool = True, **extra: Any) -> dict[str, Any]:
    return {"size": len(data), "sha256": _sha(data), "required": required, "upstream": None,
            **extra}


BLOB = "big/blob.bin"  # 3 MiB: several chunks, so cuts and resumes land mid-file
NOTES = "small/notes.txt"
OPTIONAL = "extra/optional.bin"


@pytest.fixture
def mini(tmp_path: Path) -> tuple[Path, Manifest]:
    """A small mirror: the real media files plus generated files, with a matching manifest."""
    root = tmp_path / "mirror"
    real = load_manifest()
    files: dict[str, Any] = {}
    for path, entry in real.files.items():
        if path.startswith("media/"):
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(REAL_DATA / path, root / path)
            files[path] = {"size": entry.size, "sha256": entry.sha256, "required": True,
                           "upstream": None}
    generated = {
        BLOB: (random.Random(0).randbytes(3 * (1 << 20) + 123), True),
        NOTES: (b"id\tname\ncpd00001\tH2O\n", True),
        OPTIONAL: (b"only with --include-optional\n" * 100, False),
    }
    for path, (data, required) in generated.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
        files[path] = _entry(data, required)
    manifest = {"bundle_version": "test", "raw_url": "http://127.0.0.1:9/{repo}/{commit}/{path}",
                "files": files}
    return root, Manifest.from_dict(manifest)


def _leftovers(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.name.endswith((".part", ".tmp"))]


def _same_files(a: Path, b: Path, paths: list[str]) -> bool:
    return all(filecmp.cmp(a / p, b / p, shallow=False) for p in paths)


# --------------------------------------------------------------------------------------------
# The real bundle, through the CLI
# --------------------------------------------------------------------------------------------


def test_manifest_loads_and_matches_the_reference_folder() -> None:
    manifest = load_manifest()
    assert len(manifest.files) == 14
    assert manifest.files["modelseed/compounds.tsv"].upstream is not None
    assert manifest.files["templates/Core.json"].upstream is None
    assert check_bundle(REAL_DATA, include_optional=True).ok


def test_fetch_real_bundle_from_mirror(
    serve: Callable[[Path], MirrorServer], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    server = serve(REAL_DATA)
    dest = tmp_path / "data"
    started = time.monotonic()
    rc = main(["data", "fetch", "--dest", str(dest), "--base-url", server.url + "/", "--quiet"])
    elapsed = time.monotonic() - started
    out = capsys.readouterr()
    assert rc == 0, out.err
    assert out.out == "" and out.err == ""  # --quiet; and stdout is never used
    assert elapsed < 30

    manifest = load_manifest()
    required = [p for p, e in manifest.files.items() if e.required]
    report = check_bundle(dest)
    assert report.ok
    assert {f.path for f in report.files if f.status is FileStatus.OK} == set(required)
    assert _same_files(REAL_DATA, dest, required)
    assert not (dest / "templates/Core.json").exists()  # optional: not fetched by default
    assert _leftovers(dest) == []
    record = json.loads((dest / FETCH_RECORD_NAME).read_text())
    assert record["source"] == server.url
    assert record["files"]["modelseed/reactions.tsv"]["origin"] == "mirror"
    assert record["files"]["modelseed/reactions.tsv"]["sha256"] == (
        manifest.files["modelseed/reactions.tsv"].sha256
    )

    # A second run verifies what is there and downloads nothing.
    server.log.clear()
    again = fetch_bundle(dest, base_url=server.url, **FAST)
    assert again.ok
    assert server.log == []
    assert {f.action for f in again.files} == {FetchAction.PRESENT}

    assert main(["data", "check", "--data-dir", str(dest), "--quiet"]) == 0
    assert capsys.readouterr().err == ""


# --------------------------------------------------------------------------------------------
# Fault handling, on the small mirror
# --------------------------------------------------------------------------------------------


def test_fetch_small_mirror_reports_progress_and_optional_files(
    serve: Callable[[Path], MirrorServer], mini: tuple[Path, Manifest], tmp_path: Path
) -> None:
    root, manifest = mini
    server = serve(root)
    events: list[ProgressEvent] = []
    dest = tmp_path / "dest"
    report = fetch_bundle(dest, base_url=server.url, include_optional=True, progress=events.append,
                          manifest=manifest, **FAST)
    assert report.ok and report.errors() == [] and report.warnings() == []
    assert report.count(FetchAction.DOWNLOADED) == len(manifest.files)
    assert _same_files(root, dest, list(manifest.files))
    done = [e for e in events if e.kind == "done"]
    assert [e.path for e in done] == list(manifest.files)
    assert all(e.bytes_done == manifest.files[e.path].size for e in done)
    blob_progress = [e for e in events if e.kind == "progress" and e.path == BLOB]
    assert len(blob_progress) >= 3 and blob_progress[-1].bytes_done == blob_progress[-1].bytes_total
    assert check_bundle(dest, include_optional=True, manifest=manifest).ok


def test_transient_500_is_retried(
    serve: Callable[[Path], MirrorServer], mini: tuple[Path, Manifest], tmp_path: Path
) -> None:
    root, manifest = mini
    server = serve(root)
    server.faults.fail_first[BLOB] = 2
    events: list[ProgressEvent] = []
    report = fetch_bundle(tmp_path / "d", base_url=server.url, retries=3, progress=events.append,
                          manifest=manifest, **FAST)
    assert report.ok
    assert [r.status for r in server.requests_for(BLOB)] == [500, 500, 200]
    assert len([e for e in events if e.kind == "retry" and e.path == BLOB]) == 2
    assert _same_files(root, tmp_path / "d", [BLOB])


def test_persistent_500_gives_up_cleanly(
    serve: Callable[[Path], MirrorServer], mini: tuple[Path, Manifest], tmp_path: Path
) -> None:
    root, manifest = mini
    server = serve(root)
    server.faults.fail_first[BLOB] = 10
    dest = tmp_path / "d"
    report = fetch_bundle(dest, base_url=server.url, retries=2, manifest=manifest,
                          **FAST)
    assert not report.ok
    assert len(server.requests_for(BLOB)) == 2
    [error] = report.errors()
    assert error.code == "DATA_DOWNLOAD_FAILED" and BLOB in error.message
    assert not (dest / BLOB).exists() and _leftovers(dest) == []
    assert _same_files(root, dest, [NOTES])  # the other files still arrived


def test_truncated_transfer_resumes_with_range(
    serve: Callable[[Path], MirrorServer], mini: tuple[Path, Manifest], tmp_path: Path
) -> None:
    root, manifest = mini
    server = serve(root)
    server.faults.truncate_first[BLOB] = 1
    report = fetch_bundle(tmp_path / "d", base_url=server.url, manifest=manifest,
                          **FAST)
    assert report.ok
    first, second = server.requests_for(BLOB)
    half = manifest.files[BLOB].size // 2
    assert (first.range, first.status) == (None, 200)
    assert (second.range, second.status) == (f"bytes={half}-", 206)
    assert _same_files(root, tmp_path / "d", [BLOB])
    assert _leftovers(tmp_path / "d") == []


def test_truncated_transfer_without_range_support_starts_over(
    serve: Callable[[Path], MirrorServer], mini: tuple[Path, Manifest], tmp_path: Path
) -> None:
    root, manifest = mini
    server = serve(root)
    server.faults.truncate_first[BLOB] = 1
    server.faults.ignore_range = True
    report = fetch_bundle(tmp_path / "d", base_url=server.url, manifest=manifest,
                          **FAST)
    assert report.ok
    assert [r.status for r in server.requests_for(BLOB)] == [200, 200]
    assert _same_files(root, tmp_path / "d", [BLOB])


def test_timeout_is_retried(
    serve: Callable[[Path], MirrorServer], mini: tuple[Path, Manifest], tmp_path: Path
) -> None:
    root, manifest = mini
    server = serve(root)
    server.faults.stall_first[NOTES] = 0.6
    report = fetch_bundle(tmp_path / "d", base_url=server.url, manifest=manifest, timeout=0.2,
                          backoff=0.01)
    assert report.ok
    assert len(server.requests_for(NOTES)) == 2


def test_partial_file_from_an_interrupted_run_is_resumed(
    serve: Callable[[Path], MirrorServer], mini: tuple[Path, Manifest], tmp_path: Path
) -> None:
    root, manifest = mini
    server = serve(root)
    dest = tmp_path / "d"
    (dest / "big").mkdir(parents=True)
    (dest / "big/.blob.bin.part").write_bytes((root / BLOB).read_bytes()[: 1 << 20])
    report = fetch_bundle(dest, base_url=server.url, manifest=manifest,
                          **FAST)
    assert report.ok
    assert [(r.range, r.status) for r in server.requests_for(BLOB)] == [
        (f"bytes={1 << 20}-", 206)
    ]
    assert _same_files(root, dest, [BLOB]) and _leftovers(dest) == []


def test_stale_partial_file_fails_checksum_then_downloads_cleanly(
    serve: Callable[[Path], MirrorServer], mini: tuple[Path, Manifest], tmp_path: Path
) -> None:
    root, manifest = mini
    server = serve(root)
    dest = tmp_path / "d"
    (dest / "big").mkdir(parents=True)
    (dest / "big/.blob.bin.part").write_bytes(b"\0" * 1000)  # not a prefix of the real file
    report = fetch_bundle(dest, base_url=server.url, manifest=manifest,
                          **FAST)
    assert report.ok
    assert [(r.range, r.status) for r in server.requests_for(BLOB)] == [
        ("bytes=1000-", 206), (None, 200)
    ]
    assert _same_files(root, dest, [BLOB])


def test_corrupted_file_fails_and_leaves_nothing_behind(
    serve: Callable[[Path], MirrorServer],
    mini: tuple[Path, Manifest],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root, manifest = mini
    server = serve(root)
    server.faults.corrupt.add(BLOB)
    dest = tmp_path / "d"
    report = fetch_bundle(dest, base_url=server.url, manifest=manifest,
                          **FAST)
    assert not report.ok
    assert len(server.requests_for(BLOB)) == 2  # one more try after the first mismatch
    [error] = report.errors()
    assert isinstance(error, DataError) and error.code == "DATA_CHECKSUM_MISMATCH"
    with pytest.raises(DataError, match=r"blob\.bin"):
        report.raise_for_status()
    assert not (dest / BLOB).exists()
    assert _leftovers(dest) == []
    assert _same_files(root, dest, [NOTES])

    # The CLI says so, once per failed file, and exits 1.
    use_manifest(monkeypatch, manifest)
    rc = main(["data", "fetch", "--dest", str(tmp_path / "cli"), "--base-url", server.url,
               "--quiet", "--retries", "1"])
    out = capsys.readouterr()
    assert rc == 1
    assert out.out == ""
    assert [line for line in out.err.splitlines() if line.startswith("error:")] == [
        next(line for line in out.err.splitlines() if "blob.bin" in line)
    ]
    assert "Traceback" not in out.err
    assert not (tmp_path / "cli" / BLOB).exists() and _leftovers(tmp_path / "cli") == []


def test_missing_file_on_mirror_is_a_clear_failure(
    serve: Callable[[Path], MirrorServer], mini: tuple[Path, Manifest], tmp_path: Path
) -> None:
    root, manifest = mini
    (root / NOTES).unlink()
    server = serve(root)
    report = fetch_bundle(tmp_path / "d", base_url=server.url, manifest=manifest,
                          **FAST)
    assert not report.ok
    assert len(server.requests_for(NOTES)) == 1  # a 404 is not retried
    [error] = report.errors()
    assert error.code == "DATA_DOWNLOAD_FAILED" and "404" in error.message


def test_cli_fetch_progress_on_a_non_tty(
    serve: Callable[[Path], MirrorServer],
    mini: tuple[Path, Manifest],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root, manifest = mini
    server = serve(root)
    use_manifest(monkeypatch, manifest)
    rc = main(["data", "fetch", "--dest", str(tmp_path / "d"), "--base-url", server.url])
    out = capsys.readouterr()
    assert rc == 0 and out.out == ""
    lines = out.err.splitlines()
    required = [p for p, e in manifest.files.items() if e.required]
    for path in required:
        assert sum(1 for line in lines if path in line) == 1  # one line per file
    assert "\r" not in out.err
    assert "reference data ready" in lines[-1]


# --------------------------------------------------------------------------------------------
# check
# --------------------------------------------------------------------------------------------


def test_check_detects_missing_modified_and_resized_files(
    mini: tuple[Path, Manifest], tmp_path: Path
) -> None:
    root, manifest = mini
    folder = tmp_path / "copy"
    shutil.copytree(root, folder)
    (folder / OPTIONAL).unlink()
    report = check_bundle(folder, manifest=manifest)
    assert report.ok
    assert {f.path: f.status for f in report.files}[OPTIONAL] is FileStatus.NOT_PRESENT
    assert not check_bundle(folder, include_optional=True, manifest=manifest).ok

    (folder / NOTES).unlink()
    data = bytearray((folder / BLOB).read_bytes())
    data[12345] ^= 1  # same size, different content
    (folder / BLOB).write_bytes(bytes(data))
    with (folder / "media/glucose_minimal_aerobic.json").open("ab") as fh:
        fh.write(b"\n")
    report = check_bundle(folder, manifest=manifest)
    statuses = {f.path: f.status for f in report.files}
    assert not report.ok
    assert statuses[NOTES] is FileStatus.MISSING
    assert statuses[BLOB] is FileStatus.CHECKSUM_MISMATCH
    assert statuses["media/glucose_minimal_aerobic.json"] is FileStatus.SIZE_MISMATCH
    assert statuses["media/glucose_minimal_anaerobic.json"] is FileStatus.OK
    assert {f.path for f in report.failures} == {NOTES, BLOB, "media/glucose_minimal_aerobic.json"}
    with pytest.raises(DataError) as raised:
        report.raise_for_status()
    assert all(path in raised.value.message for path in (NOTES, BLOB))
    codes = {f.path: e.code for f in report.failures if (e := f.error()) is not None}
    assert codes[NOTES] == "DATA_FILE_MISSING" and codes[BLOB] == "DATA_CHECKSUM_MISMATCH"


def test_corrupt_optional_file_fails_check(mini: tuple[Path, Manifest], tmp_path: Path) -> None:
    root, manifest = mini
    folder = tmp_path / "copy"
    shutil.copytree(root, folder)
    (folder / OPTIONAL).write_bytes(b"x")
    assert not check_bundle(folder, manifest=manifest).ok


def test_cli_check(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mini: tuple[Path, Manifest],
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["data", "check", "--data-dir", str(REAL_DATA), "--quiet"]) == 0
    assert capsys.readouterr().err == ""

    assert main(["data", "check", "--data-dir", str(tmp_path / "nowhere")]) == 1
    err = capsys.readouterr().err
    assert "does not exist" in err and "gem-flux data fetch" in err and "Traceback" not in err

    root, manifest = mini
    use_manifest(monkeypatch, manifest)
    (root / BLOB).write_bytes(b"changed")
    assert main(["data", "check", "--data-dir", str(root)]) == 1
    out = capsys.readouterr()
    assert out.out == ""
    [row] = [line for line in out.err.splitlines() if line.startswith(BLOB)]
    assert "size_mismatch" in row
    assert "FAILED" in out.err.splitlines()[-1]
    assert main(["data", "check", "--data-dir", str(root), "--quiet"]) == 1
    assert capsys.readouterr().err == ""


# --------------------------------------------------------------------------------------------
# Upstream mode (raw_url pointed at the local server)
# --------------------------------------------------------------------------------------------

REPO, COMMIT = "ModelSEED/ModelSEEDDatabase", "a0078653709cb0e37c5934aee6f52aed7154ccdc"


@pytest.fixture
def upstream(
    tmp_path: Path, serve: Callable[[Path], MirrorServer]
) -> tuple[MirrorServer, Manifest, bytes]:
    """Upstream layout {repo}/{commit}/{path}: a table split into 3 parts, each with a header."""
    root = tmp_path / "github"
    header = b"id\tname\tformula\n"
    rows = [f"cpd{i:05d}\tcompound {i}\tC{i}H{2 * i}\n".encode() for i in range(1, 3001)]
    chunks = [rows[:1000], rows[1000:2200], rows[2200:]]
    folder = root / REPO / COMMIT / "Biochemistry"
    folder.mkdir(parents=True)
    for i, chunk in enumerate(chunks):
        (folder / f"compound_{i:02d}.tsv").write_bytes(header + b"".join(chunk))
    joined = header + b"".join(rows)
    (folder / "Source_Classifiers.txt").write_bytes(b"Source ID\tSource Type\n")
    newer_template = b'{"id": "GramNegModelTemplateV6", "reactions": []}\n'
    (folder / "GramNeg.json").write_bytes(newer_template)

    server = serve(root)
    raw = {"repo": REPO, "commit": COMMIT}
    manifest = Manifest.from_dict({
        "bundle_version": "test",
        "raw_url": server.url + "/{repo}/{commit}/{path}",
        "files": {
            "modelseed/compounds.tsv": {**_entry(joined), "upstream": {
                "concatenate": [{**raw, "path": f"Biochemistry/compound_{i:02d}.tsv"}
                                for i in range(3)],
                "keep_one_header": True,
            }},
            "modelseed/aliases/Source_Classifiers.txt": {
                **_entry(b"Source ID\tSource Type\n"),
                "upstream": {**raw, "path": "Biochemistry/Source_Classifiers.txt"},
            },
            "templates/GramNegative.json": {
                **_entry(b'{"id": "reference version"}\n'), "upstream_differs": True,
                "upstream": {**raw, "path": "Biochemistry/GramNeg.json"},
            },
            "templates/Core.json": _entry(b"{}", required=False),  # mirror only
        },
    })
    return server, manifest, joined


def test_upstream_concatenation_keeps_one_header(
    upstream: tuple[MirrorServer, Manifest, bytes], tmp_path: Path
) -> None:
    server, manifest, joined = upstream
    dest = tmp_path / "d"
    report = fetch_bundle(dest, include_optional=True, manifest=manifest,
                          **FAST)
    assert report.ok, report.errors()
    assert (dest / "modelseed/compounds.tsv").read_bytes() == joined
    assert joined.count(b"id\tname") == 1
    actions = {f.path: f.action for f in report.files}
    assert actions["templates/Core.json"] is FetchAction.SKIPPED
    assert actions["templates/GramNegative.json"] is FetchAction.DOWNLOADED

    # The newer upstream template is accepted, recorded, warned about, and passes check.
    warnings = report.warnings()
    assert any("GramNegative.json" in w and "newer version" in w for w in warnings)
    assert any("Core.json" in w and "mirror" in w for w in warnings)
    record = json.loads((dest / FETCH_RECORD_NAME).read_text())
    template = record["files"]["templates/GramNegative.json"]
    assert template["origin"] == "upstream"
    assert template["sha256"] == _sha((dest / "templates/GramNegative.json").read_bytes())
    assert record["source"] == "upstream"
    check = check_bundle(dest, manifest=manifest)
    assert check.ok
    status = {f.path: f.status for f in check.files}
    assert status["templates/GramNegative.json"] is FileStatus.UPSTREAM_VERSION
    assert [f.path for f in check.warnings] == ["templates/GramNegative.json"]

    # Re-run: nothing is downloaded again, the upstream version included.
    server.log.clear()
    again = fetch_bundle(dest, manifest=manifest, **FAST)
    assert again.ok and server.log == []

    # Without the fetch record nothing vouches for the upstream version.
    (dest / FETCH_RECORD_NAME).unlink()
    check = check_bundle(dest, manifest=manifest)
    assert not check.ok
    assert [f.path for f in check.failures] == ["templates/GramNegative.json"]


def test_upstream_part_failure_is_retried_per_part(
    upstream: tuple[MirrorServer, Manifest, bytes], tmp_path: Path
) -> None:
    server, manifest, joined = upstream
    part = f"{REPO}/{COMMIT}/Biochemistry/compound_01.tsv"
    server.faults.truncate_first[part] = 1
    server.faults.fail_first[part] = 1
    report = fetch_bundle(tmp_path / "d", manifest=manifest, **FAST)
    assert report.ok, report.errors()
    assert [r.status for r in server.requests_for(part)] == [500, 200, 200]
    assert len(server.requests_for(f"{REPO}/{COMMIT}/Biochemistry/compound_00.tsv")) == 1
    assert (tmp_path / "d/modelseed/compounds.tsv").read_bytes() == joined


def test_mirror_replaces_an_upstream_version_with_the_reference(
    upstream: tuple[MirrorServer, Manifest, bytes],
    serve: Callable[[Path], MirrorServer],
    tmp_path: Path,
) -> None:
    _, manifest, _ = upstream
    dest = tmp_path / "d"
    assert fetch_bundle(dest, manifest=manifest, **FAST).ok
    mirror_root = tmp_path / "mirror"
    (mirror_root / "templates").mkdir(parents=True)
    (mirror_root / "templates/GramNegative.json").write_bytes(b'{"id": "reference version"}\n')
    mirror = serve(mirror_root)
    report = fetch_bundle(dest, base_url=mirror.url, manifest=manifest,
                          **FAST)
    assert report.ok
    assert [f.path for f in report.files if f.action is FetchAction.DOWNLOADED] == [
        "templates/GramNegative.json"
    ]
    status = {f.path: f.status for f in report.check.files}
    assert status["templates/GramNegative.json"] is FileStatus.OK
    record = json.loads((dest / FETCH_RECORD_NAME).read_text())
    assert record["files"]["templates/GramNegative.json"]["origin"] == "mirror"
    assert record["files"]["modelseed/compounds.tsv"]["origin"] == "upstream"


def test_manifest_rejects_paths_outside_the_data_folder() -> None:
    entry = _entry(b"x")
    for bad in ("../evil.txt", "/etc/passwd", "a//b", "a\\b"):
        with pytest.raises(DataError) as raised:
            Manifest.from_dict({"bundle_version": "t", "raw_url": "u", "files": {bad: entry}})
        assert raised.value.code == "DATA_MANIFEST_INVALID"


def test_bad_arguments_are_refused(tmp_path: Path, mini: tuple[Path, Manifest]) -> None:
    _, manifest = mini
    with pytest.raises(ValueError, match="http"):
        fetch_bundle(tmp_path, base_url="ftp://example.org/data", manifest=manifest)
    with pytest.raises(ValueError, match="retries"):
        fetch_bundle(tmp_path, base_url="http://127.0.0.1:9", retries=0, manifest=manifest)


def test_complete_read_only_folder_needs_no_record(
    serve: Callable[[Path], MirrorServer],
    mini: tuple[Path, Manifest],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root, manifest = mini
    server = serve(root)

    def refuse(*_: Any) -> None:
        raise PermissionError("read-only file system")

    monkeypatch.setattr(bundle.fetch, "write_record", refuse)
    # Nothing to download: the record is a nicety, so the fetch still succeeds.
    report = fetch_bundle(root, base_url=server.url, manifest=manifest, **FAST)
    assert report.ok and server.log == []
    assert any("read-only" in w for w in report.warnings())
    # Files were downloaded but their provenance cannot be recorded: that is an error.
    with pytest.raises(DataError) as raised:
        fetch_bundle(tmp_path / "d", base_url=server.url, manifest=manifest, **FAST)
    assert raised.value.code == "DATA_WRITE_FAILED"
