"""Long jobs (model builds, gapfilling) in separate, long-lived worker processes.

Why processes: GLPK and much of COBRApy/ModelSEEDpy hold the interpreter lock for seconds, which
would stall every other tool call in a thread. A worker keeps ModelSEEDpy and the parsed
templates loaded between jobs; workers start on first use (up to GEMFLUX_WORKERS at once), one a
few seconds after the server starts (`start_spare`; GEMFLUX_WORKER_AT_START=0: not), and stop
when idle.

Cancellation really stops the work: each worker leads its own process group (with the aligner it
starts), and the whole group is killed; a fresh worker is started for the next job. If the server
dies, even by kill -9, a worker notices within PARENT_WATCH_S and kills its group.
Workers never write to stdout, which belongs to the MCP protocol under stdio. A job may be given
a memory limit (GEMFLUX_JOB_MEMORY_MB, job_memory.py): one over it ends JOB_OUT_OF_MEMORY.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from gem_flux_mcp import errors, gc_policy
from gem_flux_mcp.config import Settings
from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.procutil import pid_alive
from gem_flux_mcp.server import job_memory
from gem_flux_mcp.server.job_board import JobBoard
from gem_flux_mcp.services import gapfill_ahead
from gem_flux_mcp.services.job_base import Job, warm_up

log = logging.getLogger(__name__)

ENV_WORKERS = "GEMFLUX_WORKERS"
JOBS_DIR = "jobs"
PARENT_WATCH_S = 0.2  # how soon a worker notices its server is gone
# Workers run at a lower CPU priority than the server (as `nice` runs a command): a gapfill
# takes the CPU the server leaves idle, and look-ups do not queue behind it on a busy machine
# (benchmarks/load.py: 1-client look-up p50 4.4x -> 2.0x bare FastMCP's with a gapfill running).
WORKER_NICENESS = 10
# a worker idle this long after a job collects its garbage (~0.3 s); a job sent sooner (a gapfill
# right after its build) is not kept waiting for that
WORKER_TIDY_AFTER_S = 1.0

ProgressCallback = Callable[[str, float, str], Awaitable[None]]


def mcp_progress(ctx: Any) -> ProgressCallback:
    """A job's progress (stage, fraction 0-1, message) as MCP progress notifications on `ctx`."""

    async def report(stage: str, fraction: float, message: str) -> None:
        await ctx.report_progress(round(fraction * 100, 1), 100, f"{stage}: {message}")

    return report


@dataclass(eq=False)  # compared and hashed by identity
class _Worker:
    process: multiprocessing.process.BaseProcess
    conn: Connection
    last_used: float


@dataclass(eq=False)
class _Ticket:
    """A job waiting for a worker; `granted` is set when it may start."""

    workspace: str
    granted: asyncio.Future[None]
    moved: asyncio.Event  # set when the queue ahead of it changed


def default_worker_count() -> int:
    """GEMFLUX_WORKERS, else one fewer than the cores (one is left for the server), at least 1."""
    raw = os.environ.get(ENV_WORKERS, "").strip()
    if raw:
        try:
            return max(1, int(raw))
        except ValueError:
            log.warning("ignoring %s=%r: not a whole number", ENV_WORKERS, raw)
    return max(1, (os.cpu_count() or 1) - 1)


class JobRunner:
    """Runs long jobs in up to `max_workers` worker processes at once. Waiting jobs are served
    round-robin across workspaces (one lab's queue of gapfills does not hold up another's build),
    first come first served within a workspace; a waiting job is told its position.

    Each job has its own temporary folder `<cache>/jobs/<server pid>-<n>/` (the aligner's files go
    there), removed when the job ends however it ends; folders left by a server that died are
    removed when the next one starts.
    """

    def __init__(self, settings: Settings, idle_timeout_s: float = 600.0, max_workers: int | None = None) -> None:
        self.settings = settings
        self.idle_timeout_s = idle_timeout_s
        self.max_workers = max_workers or default_worker_count()
        self.jobs_dir = settings.cache_dir / JOBS_DIR
        self._idle: list[_Worker] = []  # started, between jobs (they keep templates loaded)
        self._busy: set[_Worker] = set()
        self._running = 0  # granted tickets (a worker is taken right after the grant)
        self._waiting: dict[str, deque[_Ticket]] = {}
        self._turns: deque[str] = deque()  # workspaces with waiting jobs, in serving order
        self._guard = threading.Lock()  # worker lists are also touched by the cleanup timer thread
        self._job_seq = itertools.count(1)
        self.board = JobBoard()  # what the dashboard shows of the jobs
        sweep_job_dirs(self.jobs_dir)

    # -- scheduling (event loop thread) ------------------------------------------------------------

    async def run(self, job: Job, on_progress: ProgressCallback, timeout_s: float | None = None,
                  workspace: str = "local") -> Any:
        """Run `job` in a worker process (its `run(settings, progress)`); returns what that returns."""
        board_id = self.board.add(workspace, job)

        async def tracked(stage: str, fraction: float, message: str) -> None:
            self.board.progress(board_id, stage, fraction, message)
            await on_progress(stage, fraction, message)

        try:
            await self._wait_for_turn(workspace, tracked)
        except BaseException:
            self.board.finish(board_id, "cancelled")
            raise
        self.board.progress(board_id, "start", 0.0, "sent to a worker")
        job_dir = self.jobs_dir / f"{os.getpid()}-{next(self._job_seq)}"
        worker: _Worker | None = None
        ended, code = "cancelled", None
        try:
            job_dir.mkdir(parents=True, exist_ok=True)
            worker = self._take_worker()
            try:
                worker.conn.send((job, str(job_dir)))
            except OSError:  # it died before the job reached it
                self._kill(worker)
                raise self._died(worker.process.exitcode, job.kind) from None
            result = await asyncio.wait_for(self._receive(worker, tracked, job.kind), timeout_s)
            ended = "done"
            return result
        except TimeoutError:
            ended, code = "failed", str(_timeout_code(job.kind))
            if worker is not None:
                self._kill(worker)
            raise errors.TimeoutError_(
                _timeout_code(job.kind),
                f"The {job.kind} job did not finish within {timeout_s:g} s and was stopped.",
                details={"timeout_s": timeout_s},
                suggestions=["Retry with a smaller input, or a longer time limit where the tool offers one."],
            ) from None
        except BaseException as exc:  # the job failed, was cancelled by the client, or the server stops
            if isinstance(exc, errors.GemFluxError):
                ended, code = "failed", str(exc.code)
            if worker is not None:
                self._kill(worker)
            raise
        finally:
            self.board.finish(board_id, ended, code)
            if worker is not None:
                self._return_worker(worker)
            shutil.rmtree(job_dir, ignore_errors=True)
            self._running -= 1
            self._grant()

    async def _wait_for_turn(self, workspace: str, on_progress: ProgressCallback) -> None:
        ticket = _Ticket(workspace, asyncio.get_running_loop().create_future(), asyncio.Event())
        if workspace not in self._waiting:
            self._waiting[workspace] = deque()
            self._turns.append(workspace)
        self._waiting[workspace].append(ticket)
        self._grant()
        reported = 0
        try:
            while not ticket.granted.done():
                ticket.moved.clear()
                position = self.position(ticket)
                if position != reported:
                    reported = position
                    await on_progress("queued", 0.0, f"position {position}, waiting for one of "
                                                     f"{self.max_workers} worker(s)")
                moved: asyncio.Future[Any] = asyncio.ensure_future(ticket.moved.wait())
                waiters: set[asyncio.Future[Any]] = {ticket.granted, moved}
                try:
                    await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    moved.cancel()
        except BaseException:
            if ticket.granted.done():  # granted in the meantime: give the slot back
                self._running -= 1
                self._grant()
            else:
                self._drop(ticket)
            raise

    def _grant(self) -> None:
        while self._running < self.max_workers and self._turns:
            workspace = self._turns.popleft()
            queue = self._waiting[workspace]
            ticket = queue.popleft()
            if queue:
                self._turns.append(workspace)  # its next job waits for the other workspaces' turns
            else:
                del self._waiting[workspace]
            self._running += 1
            ticket.granted.set_result(None)
            self._nudge()

    def _nudge(self) -> None:
        for queue in self._waiting.values():
            for ticket in queue:
                ticket.moved.set()

    def _drop(self, ticket: _Ticket) -> None:
        queue = self._waiting.get(ticket.workspace)
        if queue is not None and ticket in queue:
            queue.remove(ticket)
            if not queue:
                del self._waiting[ticket.workspace]
                self._turns.remove(ticket.workspace)
            self._nudge()

    def position(self, ticket: _Ticket) -> int:
        """1 = the next job to start, in the round-robin order the queue will be served."""
        queues = {ws: list(q) for ws, q in self._waiting.items()}
        turns = deque(self._turns)
        n = 0
        while turns:
            workspace = turns.popleft()
            n += 1
            if queues[workspace].pop(0) is ticket:
                return n
            if queues[workspace]:
                turns.append(workspace)
        return n

    @property
    def waiting(self) -> int:
        return sum(len(q) for q in self._waiting.values())

    # -- worker processes ----------------------------------------------------------------------------

    def _died(self, exit_code: int | None, kind: str) -> errors.GemFluxError:
        """The error of a job whose worker died: JOB_OUT_OF_MEMORY when, under a memory limit, a
        signal ended it (job_memory.py), else WORKER_DIED."""
        limit = self.settings.job_memory_mb
        if job_memory.died_of_memory(exit_code, limit):
            return job_memory.out_of_memory(kind, limit, str(job_memory.signal_name(exit_code)))
        return errors.ServerError(
            ErrorCode.WORKER_DIED, "The worker process stopped unexpectedly (out of memory?).",
            details={"exit_code": exit_code, "signal": job_memory.signal_name(exit_code)},
            suggestions=["Retry; if it happens again, try a smaller input."],
        )

    async def _receive(self, worker: _Worker, on_progress: ProgressCallback, job_kind: str) -> Any:
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
                        raise self._died(worker.process.exitcode, job_kind) from None
                    if kind == "progress":
                        await on_progress(*rest)
                    elif kind == "done":
                        return rest[0]
                    else:
                        raise _rebuild_error(rest[0])
        finally:
            loop.remove_reader(fd)

    def _take_worker(self) -> _Worker:
        """An idle worker, else a new one. When that leaves none idle and there is room for more,
        a spare starts warming up (imports, templates) so the next job does not wait for it."""
        with self._guard:
            worker = None
            while self._idle and worker is None:
                candidate = self._idle.pop()
                if candidate.process.is_alive():
                    worker = candidate
                else:
                    candidate.conn.close()
            worker = worker or self._spawn()
            self._busy.add(worker)
            if not self._idle and len(self._busy) < self.max_workers:
                self._idle.append(self._spawn())
            return worker

    def start_spare(self) -> bool:
        """Start one worker before any job asks for it, unless one is running already; True if
        started. It warms up at once (imports, templates, the homology reference: ~5 s at nice
        10, ~0.5 GB), so the first build or gapfill does not wait for a cold worker (a fresh
        server's first E. coli build: 34 s cold, benchmarks/build_and_gapfill.py); unused, it
        stops after the idle timeout like any worker."""
        with self._guard:
            if self._idle or self._busy:
                return False
            self._idle.append(self._spawn())
            return True

    def _spawn(self) -> _Worker:
        context = multiprocessing.get_context("spawn")
        parent_conn, child_conn = context.Pipe()
        process = context.Process(
            target=worker_main, args=(child_conn, self.settings, os.getpid()), name="gemflux-worker", daemon=True
        )
        process.start()
        child_conn.close()
        return _Worker(process, parent_conn, time.monotonic())

    def _return_worker(self, worker: _Worker) -> None:
        with self._guard:
            self._busy.discard(worker)
            worker.last_used = time.monotonic()
            if worker.process.is_alive() and not worker.conn.closed:
                self._idle.append(worker)

    def _kill(self, worker: _Worker) -> None:
        pid = worker.process.pid
        if pid is not None and worker.process.is_alive():
            try:
                os.killpg(pid, signal.SIGKILL)  # the worker and the aligner it started
            except (ProcessLookupError, PermissionError):
                worker.process.kill()
        worker.process.join(5)
        worker.conn.close()

    def stop_idle(self, now: float | None = None) -> int:
        """Stop workers idle past the timeout (each holds the templates in memory); returns how many."""
        now = now if now is not None else time.monotonic()
        with self._guard:
            stale = [w for w in self._idle if now - w.last_used >= self.idle_timeout_s]
            self._idle = [w for w in self._idle if w not in stale]
        for worker in stale:
            self._kill(worker)
        return len(stale)

    def shutdown(self) -> None:
        with self._guard:
            workers = [*self._idle, *self._busy]
            self._idle.clear()
        for worker in workers:
            self._kill(worker)


def sweep_job_dirs(jobs_dir: Path) -> int:
    """Remove job folders whose server process is gone (a crash or kill -9); returns how many."""
    removed = 0
    if not jobs_dir.is_dir():
        return 0
    for folder in jobs_dir.iterdir():
        owner = folder.name.split("-", 1)[0]
        if owner.isdigit() and int(owner) != os.getpid() and pid_alive(int(owner)):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed += 1
    if removed:
        log.info("removed %d job folder(s) left by an earlier run", removed)
    return removed


def _error_payload(exc: BaseException, kind: str = "", memory_limit_mb: int | None = None) -> dict[str, Any]:
    if job_memory.ran_out_of_memory(exc):
        exc = job_memory.out_of_memory(kind, memory_limit_mb, "MemoryError")
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


def lower_cpu_priority() -> None:
    """Niceness 10 and, on Linux, the SCHED_IDLE policy: a worker then runs on CPU time no
    ordinary process wants, and the server, woken by a request, takes the core at once instead of
    waiting out the worker's time slice (benchmarks/HISTORY.md, session 19: with a gapfill running,
    20 clients' calls 81 -> 90 calls/s, one client's look-ups p50 2.45x -> 1.96x bare FastMCP's, the
    gapfills as fast). Lowering one's own priority needs no privilege."""
    os.nice(WORKER_NICENESS)
    if hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_IDLE"):
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        except OSError as exc:  # refused by a container's seccomp policy, say: niceness alone
            log.debug("SCHED_IDLE not set for the worker: %s", exc)


def worker_main(conn: Connection, settings: Settings, parent_pid: int) -> None:
    os.setsid()  # own process group: cancelling kills the worker and its aligner together
    lower_cpu_priority()  # interactive calls first: the server keeps its core under a long job
    os.dup2(2, 1)  # anything printed (ModelSEEDpy prints) goes to stderr, never into the protocol
    sys.stdout = sys.stderr
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)

    def watch_parent() -> None:
        while True:
            if os.getppid() != parent_pid:
                # the server died (even kill -9): take the whole group down, aligner included
                os.killpg(os.getpgid(0), signal.SIGKILL)
            time.sleep(PARENT_WATCH_S)

    threading.Thread(target=watch_parent, daemon=True, name="parent-watch").start()
    gc_policy.collect_less_often()
    # A spare worker warms up (imports, index, default template, reference; ~5 s, ~470 MB) so the next job finds it
    # ready; a worker started for a job already in the pipe runs it at once instead, and the job
    # loads only what it needs (an FVA needs no template). Under a job memory limit it always
    # warms up first: the limit counts what a job adds to the libraries and template, not them.
    if settings.job_memory_mb or not conn.poll():
        try:
            warm_up(settings)  # a job sent meanwhile waits in the pipe
        except Exception:  # a job that needs what failed here reports it properly
            logging.getLogger(__name__).warning("worker warm-up failed", exc_info=True)
        gc_policy.set_aside_what_lives_on()

    while True:
        try:
            if not conn.poll(WORKER_TIDY_AFTER_S):  # idle: the last job's garbage goes now, off any clock
                gc_policy.set_aside_what_lives_on()
            job, job_dir = conn.recv()
        except (EOFError, OSError):
            return

        def progress(stage: str, fraction: float, message: str) -> None:
            conn.send(("progress", stage, fraction, message))

        if not getattr(job, "takes_work_ahead", False):
            gapfill_ahead.cancel()  # no job shares the interpreter with work done ahead of another
        tempfile.tempdir = job_dir  # the job's temporary files (aligner databases) live in its folder
        os.environ["TMPDIR"] = job_dir
        try:
            with job_memory.memory_limit(settings.job_memory_mb):
                result = job.run(settings, progress)
        except BaseException as exc:  # the limit is lifted by now: reporting has room
            conn.send(("error", _error_payload(exc, job.kind, settings.job_memory_mb)))
        else:
            conn.send(("done", result))
            del result
        finally:
            tempfile.tempdir = None


def _timeout_code(kind: str) -> ErrorCode:
    """BUILD_TIMEOUT, GAPFILL_TIMEOUT; ANALYSIS_TIMEOUT for the analysis jobs."""
    try:
        return ErrorCode(f"{kind.upper()}_TIMEOUT")
    except ValueError:
        return ErrorCode.ANALYSIS_TIMEOUT
