"""`gem-flux data fetch` and `gem-flux data check`.

All output goes to stderr: `dev.sh serve` runs these before the stdio server, where stdout
belongs to the MCP protocol.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TextIO

from gem_flux_mcp.config import Settings
from gem_flux_mcp.data import bundle
from gem_flux_mcp.errors import DataError, GemFluxError

_REDRAW_INTERVAL_S = 0.1


def _mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB" if n >= 100_000 else f"{n / 1e3:.1f} kB"


class ProgressPrinter:
    """Renders fetch progress: one redrawn line on a terminal, one line per file otherwise."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._tty = stream.isatty()
        self._width = 0  # length of the line currently drawn with \r (0: none)
        self._last_draw = 0.0

    def __call__(self, event: bundle.ProgressEvent) -> None:
        prefix = f"[{event.index}/{event.count}] {event.path}"
        if event.kind == "progress":
            now = time.monotonic()
            # Redrawing on every 1 MiB chunk floods slow terminals; ten times a second is enough.
            if self._tty and now - self._last_draw >= _REDRAW_INTERVAL_S:
                self._last_draw = now
                self._draw(f"{prefix}  {self._amount(event.bytes_done, event.bytes_total)}")
        elif event.kind == "start":
            if self._tty:
                self._draw(f"{prefix}  connecting")
        elif event.kind == "done":
            line = f"{prefix}: downloaded {_mb(event.bytes_done)}"
            self.line(f"{line} (warning: newer upstream version)" if event.message else line)
        elif event.kind == "failed":
            self.line(f"{prefix}: FAILED: {event.message}")
        else:  # retry, skipped
            self.line(f"{prefix}: {event.message}")

    @staticmethod
    def _amount(done: int, total: int | None) -> str:
        if not total:
            return _mb(done)
        percent = min(100.0, done * 100.0 / total)
        return f"{percent:5.1f}%  {done / 1e6:.1f}/{total / 1e6:.1f} MB"

    def _draw(self, text: str) -> None:
        self._stream.write("\r" + text.ljust(self._width))
        self._stream.flush()
        self._width = len(text)

    def line(self, text: str) -> None:
        """A permanent line, replacing any progress line being redrawn."""
        if self._width:
            self._stream.write("\r" + text.ljust(self._width) + "\n")
            self._width = 0
        else:
            self._stream.write(text + "\n")
        self._stream.flush()


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def fetch(args: argparse.Namespace) -> int:
    """`gem-flux data fetch`: download and verify the bundle; 0 when every required file is ok."""
    quiet = bool(args.quiet)
    dest = Settings.resolve(data_dir=args.dest).data_dir
    if args.retries < 1:
        _say("gem-flux data fetch: --retries must be at least 1")
        return 1
    if args.timeout <= 0:
        _say("gem-flux data fetch: --timeout must be positive")
        return 1
    printer = None if quiet else ProgressPrinter(sys.stderr)
    if not quiet:
        source = args.base_url or "the upstream ModelSEED repositories"
        _say(f"gem-flux data fetch: into {dest} from {source}")
    try:
        report = bundle.fetch_bundle(
            dest,
            base_url=args.base_url,
            include_optional=bool(args.include_optional),
            retries=args.retries,
            timeout=args.timeout,
            progress=printer,
        )
    except KeyboardInterrupt:
        if printer is not None:
            printer.line("")
        _say("gem-flux data fetch: interrupted; run the same command again to resume")
        return 1
    except (DataError, ValueError) as exc:
        _say(f"gem-flux data fetch: error: {exc}")
        return 1

    if not quiet:
        for warning in report.warnings():
            _say(f"warning: {warning}")
    errors = report.errors()
    for error in errors:
        _say(f"error: {error.message}")
    if errors:
        _say(f"gem-flux data fetch: {len(errors)} required file(s) not usable in {dest}; "
             "run the command again to retry (verified files are kept)")
        return 1
    if not quiet:
        done = report.count(bundle.FetchAction.DOWNLOADED)
        present = report.count(bundle.FetchAction.PRESENT)
        _say(f"gem-flux data fetch: reference data ready in {dest} "
             f"({done} downloaded, {present} already present)")
    return 0


def check(args: argparse.Namespace) -> int:
    """`gem-flux data check`: verify a data folder; 0 when it is usable."""
    quiet = bool(args.quiet)
    data_dir = Settings.resolve(data_dir=args.data_dir).data_dir
    if not data_dir.is_dir():
        if not quiet:
            problem = "is not a folder" if data_dir.exists() else "does not exist"
            _say(f"gem-flux data check: data folder {data_dir} {problem}; "
                 "run `gem-flux data fetch` or set GEMFLUX_DATA_DIR")
        return 1
    try:
        report = bundle.check_bundle(data_dir)
    except (DataError, OSError) as exc:
        if not quiet:
            _say(f"gem-flux data check: error: {exc}")
        return 1
    if quiet:
        return 0 if report.ok else 1

    width = max(len(f.path) for f in report.files)
    _say(f"{'file':<{width}}  status")
    for f in report.files:
        detail = f"  {f.message}" if f.message and not f.ok else ""
        _say(f"{f.path:<{width}}  {f.status}{detail}")
    for f in report.warnings:
        _say(f"warning: {f.path}: {f.message}")
    checked = sum(1 for f in report.files if f.status is not bundle.FileStatus.NOT_PRESENT)
    if report.ok:
        _say(f"gem-flux data check: OK, {checked} files verified in {data_dir}")
        return 0
    _say(f"gem-flux data check: FAILED, {len(report.failures)} of {checked} files not ok "
         f"in {data_dir}; run `gem-flux data fetch` to repair")
    return 1


def index(args: argparse.Namespace) -> int:
    """Build (or verify) the biochemistry index, so the first `serve` starts warm."""
    from gem_flux_mcp.data.biochem import BiochemIndex

    settings = Settings.resolve(data_dir=args.data_dir, cache_dir=args.cache_dir)
    started = time.perf_counter()
    try:
        built = BiochemIndex.open(settings.data_dir, settings.cache_dir)
    except DataError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    print(f"biochemistry index ready: {built.compound_count} compounds, {built.reaction_count} reactions "
          f"({built.path.name}, {time.perf_counter() - started:.1f} s)", file=sys.stderr)
    return _index_homology_reference(settings.cache_dir)


def _index_homology_reference(cache_dir: Path) -> int:
    """The aligner's index of the BiGG homology reference, which the first build would otherwise make."""
    from gem_flux_mcp.data.reference import Reference
    from gem_flux_mcp.modeling.annotate import prepare_reference_index

    started = time.perf_counter()
    try:
        indexed = prepare_reference_index(Reference.installed(), cache_dir)
    except GemFluxError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    if indexed is not None:
        print(f"homology reference index ready: {indexed.parent.name} ({time.perf_counter() - started:.1f} s)",
              file=sys.stderr)
    return 0
