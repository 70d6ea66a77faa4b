"""Long jobs (model builds, later gapfilling) in a separate, long-lived worker process.

Why a process: GLPK and much of COBRApy/ModelSEEDpy hold the interpreter lock for seconds, which
would stall every other tool call in a thread. The worker keeps ModelSEEDpy and the parsed
templates loaded between jobs; it is started on first use and stopped when idle.

Cancellation really stops the work: the worker leads its own process group (with the aligner it
starts), and the whole group is killed. A fresh worker is started for the next job.
The worker never writes to stdout, which belongs to the MCP protocol under stdio.
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from gem_flux_mcp import errors
from gem_flux_mcp.config import Settings

ProgressCallback = Callable[[str, float, str], Awaitable[None]]


def mcp_progress(ctx: Any) -> ProgressCallback:
    """A job's progress (stage, fraction 0-1, message) as MCP progress notifications on `ctx`."""

    async def report(stage: str, fraction: float, message: str) -> None:
        await ctx.report_progress(round(fraction * 100, 1), 100, f"{stage}: {message}")

    return report


@dataclass
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    last_used: float


class JobRunner:
    """Runs one job at a time in a worker process; callers queue behind each other."""

    def __init__(self, settings: Settings, idle_timeout_s: float = 600.0) -> None:
        self.settings = settings
        self.idle_timeout_s = idle_timeout_s
        self._worker: _Worker | None = None
        self._lock = asyncio.Lock()
        self._guard = threading.Lock()  # _worker is also touched by the cleanup timer thread

    async def run(self, job: str, payload: dict[str, Any], on_progress: ProgressCallback,
                  timeout_s: float | None = None) -> Any:
        if self._lock.locked():
            await on_progress("queued", 0.0, "waiting for another long job to finish")
        async with self._lock:
            worker = self._ensure_worker()
            worker.conn.send((job, payload))
            try:
                return await asyncio.wait_for(self._receive(worker, on_progress), timeout_s)
            except TimeoutError:
                self._kill(worker)
                raise errors.TimeoutError_(
                    f"{job.upper()}_TIMEOUT", f"The {job} job did not finish within {timeout_s:g} s and was stopped.",
                    details={"timeout_s": timeout_s},
                    suggestions=["Retry with a smaller input, or a longer time limit where the tool offers one."],
                ) from None
            except BaseException:  # cancelled by the client, or the server is shutting down
                self._kill(worker)
                raise
            finally:
                worker.last_used = time.monotonic()

    async def _receive(self, worker: _Worker, on_progress: ProgressCallback) -> Any:
        loop = asyncio.get_running_loop()
        readable = asyncio.Event()
        fd = worker.conn.fileno()
        loop.add_reader(fd, readable.set)
        try:
            while True:
                await readable.wait()
                readable.clear()
                while worker.conn.poll():
                    try:
                        kind, *rest = worker.conn.recv()
                    except (EOFError, OSError):
                        self._kill(worker)
                        raise errors.ServerError(
                            "WORKER_DIED", "The worker process stopped unexpectedly (out of memory?).",
                            details={"exit_code": worker.process.exitcode},
                            suggestions=["Retry; if it happens again, try a smaller input."],
                        ) from None
                    if kind == "progress":
                        await on_progress(*rest)
                    elif kind == "done":
                        return rest[0]
                    else:
                        raise _rebuild_error(rest[0])
        finally:
            loop.remove_reader(fd)

    def _ensure_worker(self) -> _Worker:
        with self._guard:
            if self._worker is not None and self._worker.process.is_alive():
                return self._worker
            context = multiprocessing.get_context("spawn")
            parent_conn, child_conn = context.Pipe()
            process = context.Process(
                target=worker_main, args=(child_conn, self.settings, os.getpid()), name="gemflux-worker", daemon=True
            )
            process.start()
            child_conn.close()
            self._worker = _Worker(process, parent_conn, time.monotonic())
            return self._worker

    def _kill(self, worker: _Worker) -> None:
        with self._guard:
            pid = worker.process.pid
            if pid is not None and worker.process.is_alive():
                try:
                    os.killpg(pid, signal.SIGKILL)  # the worker and the aligner it started
                except (ProcessLookupError, PermissionError):
                    worker.process.kill()
            worker.process.join(5)
            worker.conn.close()
            if self._worker is worker:
                self._worker = None

    def stop_idle(self, now: float | None = None) -> bool:
        """Stop the worker if it has been idle past the timeout (frees its memory)."""
        worker = self._worker
        if worker is None or self._lock.locked():
            return False
        if (now if now is not None else time.monotonic()) - worker.last_used < self.idle_timeout_s:
            return False
        self._kill(worker)
        return True

    def shutdown(self) -> None:
        worker = self._worker
        if worker is not None:
            self._kill(worker)


def _error_payload(exc: BaseException) -> dict[str, Any]:
    if isinstance(exc, errors.GemFluxError):
        return {"class": type(exc).__name__, "code": exc.code, "message": exc.message, "details": exc.details,
                "suggestions": exc.suggestions, "valid_next_steps": exc.valid_next_steps,
                "example_call": exc.example_call}
    return {"class": "ServerError", "code": "INTERNAL_ERROR",
            "message": f"The worker failed unexpectedly: {type(exc).__name__}: {str(exc)[:300]}",
            "details": {"exception_type": type(exc).__name__, "traceback_tail": traceback.format_exc()[-1500:]},
            "suggestions": ["Retry once; if it fails again, report it with the arguments used."],
            "valid_next_steps": [], "example_call": None}


def _rebuild_error(payload: dict[str, Any]) -> errors.GemFluxError:
    cls = getattr(errors, payload["class"], errors.ServerError)
    if not (isinstance(cls, type) and issubclass(cls, errors.GemFluxError)):
        cls = errors.ServerError
    return cls(payload["code"], payload["message"], details=payload["details"], suggestions=payload["suggestions"],
               valid_next_steps=payload["valid_next_steps"], example_call=payload["example_call"])


# ------------------------------------------------------------------------- inside the worker


def worker_main(conn: Connection, settings: Settings, parent_pid: int) -> None:
    os.setsid()  # own process group: cancelling kills the worker and its aligner together
    os.dup2(2, 1)  # anything printed (ModelSEEDpy prints) goes to stderr, never into the protocol
    sys.stdout = sys.stderr
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)

    def watch_parent() -> None:
        while True:
            if os.getppid() != parent_pid:
                os._exit(0)  # the server died (even kill -9): do not linger
            time.sleep(1.0)

    threading.Thread(target=watch_parent, daemon=True, name="parent-watch").start()
    from gem_flux_mcp.server import worker_jobs

    while True:
        try:
            job, payload = conn.recv()
        except (EOFError, OSError):
            return

        def progress(stage: str, fraction: float, message: str) -> None:
            conn.send(("progress", stage, fraction, message))

        try:
            result = worker_jobs.JOBS[job](settings, payload, progress)
        except BaseException as exc:
            conn.send(("error", _error_payload(exc)))
        else:
            conn.send(("done", result))
