"""Progress of long steps on stderr: a rich progress bar on a terminal, one line per stage
otherwise (logs, CI, pipes), so the output stays readable either way."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

ProgressCallback = Callable[[str, float, str], None]


@contextmanager
def progress_reporter(title: str, *, quiet: bool = False, started: float | None = None
                      ) -> Iterator[ProgressCallback]:
    """A callback `(stage, fraction 0-1, message)` for the library's long steps."""
    origin = time.perf_counter() if started is None else started
    console = Console(stderr=True)
    if quiet:
        yield lambda *_: None
        return
    if not console.is_terminal:
        def line(stage: str, fraction: float, message: str) -> None:
            print(f"[{time.perf_counter() - origin:6.1f} s] {stage}: {message}", file=sys.stderr, flush=True)

        yield line
        return
    columns = (TextColumn("{task.description}"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
               TimeElapsedColumn(), TextColumn("{task.fields[message]}"))
    with Progress(*columns, console=console, transient=False) as bar:
        task = bar.add_task(title, total=1.0, message="")

        def update(stage: str, fraction: float, message: str) -> None:
            bar.update(task, completed=max(0.0, min(1.0, fraction)), message=f"{stage}: {message}")

        yield update
        bar.update(task, completed=1.0)
