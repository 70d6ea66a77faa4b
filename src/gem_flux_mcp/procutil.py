"""Child processes that never outlive their parent (Linux: the kernel's parent-death signal)."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
from typing import Any

_PR_SET_PDEATHSIG = 1


def _load_prctl() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True).prctl
    except (OSError, AttributeError):
        return None


# loaded at import, so a subprocess's preexec_fn only makes the system call (no dlopen after fork)
_prctl = _load_prctl()


def die_with_parent(sig: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send `sig` to this process when the thread that started it exits.

    Call it first thing in a child (or as a subprocess `preexec_fn`). Returns False where the
    platform has no such signal; callers then rely on their own parent watch.
    """
    return _prctl is not None and bool(_prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0) == 0)


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True
