"""A child of `reporecall up` dies with it, even when the supervisor is killed with SIGKILL.

Linux delivers PR_SET_PDEATHSIG's signal when the parent exits; SIGTERM makes the service drain and stop like
any other shutdown. If the parent is already gone when we get here (it died before the call), stop at once.
Elsewhere (no prctl), a watcher thread polls the parent pid.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading

_PR_SET_PDEATHSIG = 1


def die_with_parent(parent_pid: int) -> None:
    """Arrange SIGTERM for this process when `parent_pid` exits; no-op for 0 (not started by `up`)."""
    if parent_pid <= 0:
        return
    armed = False
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            armed = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0
    if os.getppid() != parent_pid:
        os.kill(os.getpid(), signal.SIGTERM)
        return
    if not armed:
        threading.Thread(target=_watch, args=(parent_pid,), name="parent-watch", daemon=True).start()


def _watch(parent_pid: int) -> None:
    stop = threading.Event()
    while not stop.wait(1.0):
        if os.getppid() != parent_pid:
            os.kill(os.getpid(), signal.SIGTERM)
            return
