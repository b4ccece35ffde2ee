"""Keeps the index in step with edits to memory files, from a background thread (watchfiles)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import structlog
from watchfiles import watch

log = structlog.get_logger("memory.watcher")


class MemoryWatcher:
    """Calls `on_change(paths)` with the changed paths, and `on_idle()` every `resync_seconds` — busy or not:
    under steady hook traffic the folders change every second, and the upkeep (usage flush, resync) must still
    run — or when the set of watched folders changes (`paths()` is re-read then, so folders attached later
    get watched)."""

    def __init__(
        self,
        paths: Callable[[], list[Path]],
        on_change: Callable[[set[Path]], None],
        on_idle: Callable[[], None],
        resync_seconds: float = 60.0,
    ) -> None:
        self._paths = paths
        self._on_change = on_change
        self._on_idle = on_idle
        self._resync_seconds = resync_seconds
        self._stop = threading.Event()
        self._restart = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="memory-watcher", daemon=True)
            self._thread.start()

    def refresh(self) -> None:
        """Re-read the folder list (after a folder was attached)."""
        self._restart.set()

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        while not self._stop.is_set():
            self._restart.clear()
            paths = [p for p in self._paths() if p.is_dir()]
            if not paths:
                self._stop.wait(1.0)
                continue
            # The first timeout after the watch is set up re-syncs, catching edits made while it was starting.
            last_idle = float("-inf")
            try:
                for changes in watch(
                    *paths,
                    stop_event=self._stop,
                    yield_on_timeout=True,
                    rust_timeout=1000,  # wake up every second to notice refresh() and stop()
                    debounce=200,
                    step=50,
                    raise_interrupt=False,
                    recursive=True,
                ):
                    if changes:
                        self._safely(self._on_change, {Path(path) for _, path in changes})
                    if time.monotonic() - last_idle >= self._resync_seconds:
                        last_idle = time.monotonic()
                        self._safely(self._on_idle)
                    if self._restart.is_set():
                        break
            except Exception:  # a vanished folder, an inotify limit: back off and start over
                log.warning("memory.watcher.restart", exc_info=True)
                self._stop.wait(1.0)

    @staticmethod
    def _safely(fn: Callable[..., None], *args: object) -> None:
        try:
            fn(*args)
        except Exception:
            log.exception("memory.watcher.callback_failed")
