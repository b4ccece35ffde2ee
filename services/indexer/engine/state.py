"""What the indexer's use cases share about each repo: one run at a time (a lock), and a generation
bumped whenever its manifest rows change (status caches its walk per generation)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class RepoLocks:
    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._generation: dict[str, int] = {}

    def lock(self, name: str) -> asyncio.Lock:
        return self._locks.setdefault(name, asyncio.Lock())

    def is_running(self, name: str) -> bool:
        lock = self._locks.get(name)
        return lock is not None and lock.locked()

    def bump_generation(self, name: str) -> None:
        self._generation[name] = self._generation.get(name, 0) + 1

    def generation(self, name: str) -> int:
        return self._generation.get(name, 0)


async def blocking(fn: Callable[..., T], *args: Any) -> T:
    """Run a blocking call (the manifest is SQLite) in a worker thread."""
    return await asyncio.to_thread(fn, *args)
