"""The cross-process advisory lock on a state folder (POSIX flock on `store.lock`; the kernel
releases it when a process dies): tells a Store whether another process has the folder open."""

from __future__ import annotations

import os
import sys
from pathlib import Path


def acquire_process_lock(path: Path) -> tuple[int | None, bool]:
    """Open the lock file; returns (fd, alone) where alone = no other process holds it."""
    if sys.platform == "win32":  # no flock: assume one process per state folder
        return None, True
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return fd, False
    return fd, True


def share_process_lock(fd: int | None) -> None:
    """Hold a shared lock for the Store's lifetime (waits while another process cleans up)."""
    if fd is None or sys.platform == "win32":
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_SH)
