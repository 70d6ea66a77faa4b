"""A job's memory limit in its worker process (`GEMFLUX_JOB_MEMORY_MB`), and how a job that ran
out of memory is told apart and reported (`JOB_OUT_OF_MEMORY`).

The limit is on address space (`RLIMIT_AS`), set when a job starts to what the worker holds then
(its libraries and the loaded templates) plus the job's allowance, and lifted when the job ends.
Past it an allocation fails where it is made instead of the kernel's out-of-memory killer choosing
a process to end, perhaps the server:

- Python code gets a `MemoryError` (also when a library wrapped it in an error of its own): the
  worker reports `JOB_OUT_OF_MEMORY` ("ended_by": "MemoryError");
- native code (the LP solver) usually aborts, so the worker dies by a signal: under a limit, a
  worker killed by SIGABRT, SIGSEGV, SIGBUS or SIGKILL (the kernel's own killer) during a job is
  reported as `JOB_OUT_OF_MEMORY` ("ended_by": the signal), without a limit as `WORKER_DIED`.

Either way the worker is replaced (server/worker.py kills a worker whose job failed), and the
server and other jobs go on.
"""

from __future__ import annotations

import logging
import os
import resource
import signal
from collections.abc import Iterator
from contextlib import contextmanager

from gem_flux_mcp.error_codes import ErrorCode
from gem_flux_mcp.errors import ServerError

log = logging.getLogger(__name__)

MB = 1024 * 1024
# How a worker dies when native code cannot allocate (or the kernel ends it for memory).
MEMORY_SIGNALS = frozenset({signal.SIGABRT, signal.SIGSEGV, signal.SIGBUS, signal.SIGKILL})


def address_space() -> int | None:
    """This process's address space in bytes (Linux /proc), None where that is not known."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


@contextmanager
def memory_limit(limit_mb: int | None) -> Iterator[None]:
    """Inside: this process may grow by at most `limit_mb` MB of address space (None: no limit)."""
    current = address_space() if limit_mb else None
    if limit_mb is None or current is None:
        if limit_mb:
            log.warning("GEMFLUX_JOB_MEMORY_MB is not applied: this system does not report a process's memory")
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    allowed = current + limit_mb * MB
    if hard != resource.RLIM_INFINITY:
        allowed = min(allowed, hard)
    resource.setrlimit(resource.RLIMIT_AS, (allowed, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def ran_out_of_memory(exc: BaseException) -> bool:
    """True when `exc` is a MemoryError or was caused by one (a library's wrapper around it)."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, MemoryError):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def died_of_memory(exit_code: int | None, limit_mb: int | None) -> bool:
    """A worker that ended with `exit_code` (negative: the signal) during a job under a limit."""
    return limit_mb is not None and exit_code is not None and exit_code < 0 and -exit_code in MEMORY_SIGNALS


def signal_name(exit_code: int | None) -> str | None:
    if exit_code is None or exit_code >= 0:
        return None
    try:
        return signal.Signals(-exit_code).name
    except ValueError:
        return f"signal {-exit_code}"


def out_of_memory(kind: str, limit_mb: int | None, ended_by: str) -> ServerError:
    """JOB_OUT_OF_MEMORY for a job of `kind` ("gapfill", "build", ...)."""
    within = f" within its limit of {limit_mb} MB (GEMFLUX_JOB_MEMORY_MB)" if limit_mb else ""
    how = "" if ended_by == "MemoryError" else f" (its worker was killed by {ended_by})"
    return ServerError(
        ErrorCode.JOB_OUT_OF_MEMORY,
        f"The {kind} job ran out of memory{within} and was stopped{how}. The server and other jobs go on.",
        details={"job": kind, "memory_limit_mb": limit_mb, "ended_by": ended_by},
        suggestions=["Retry with a smaller input (fewer media, a smaller model or genome), or ask whoever runs the "
                     "server to raise GEMFLUX_JOB_MEMORY_MB."],
    )
