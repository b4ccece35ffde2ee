"""Stopping the suite from its signal handler (cli/cmd_suite.py `on_signal`): the handler runs on the main
thread, which may be inside `Supervisor.supervise`'s `_stop.wait` holding that Event's lock, so what it
calls must take no lock (a suite ignored SIGTERM once in four CI runs when it set the Event there)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from cli.supervisor import Supervisor


def test_a_stop_request_takes_no_lock_and_ends_supervise(tmp_path: Path) -> None:
    supervisor = Supervisor(data_dir=tmp_path)
    asked = threading.Event()
    with supervisor._stop._cond:  # type: ignore[attr-defined]  # held, as by the interrupted main thread
        threading.Thread(target=lambda: (supervisor.request_stop(), asked.set()), daemon=True).start()
        assert asked.wait(5), "request_stop waited for the Event's lock"
    started = time.monotonic()
    supervisor.supervise()  # returns at its next tick
    assert time.monotonic() - started < 5
