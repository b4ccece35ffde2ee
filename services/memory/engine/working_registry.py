"""Session → its working memories per repo, kept in step by observe so a prompt never lists the folder.

Not thread-safe on its own: every change happens under the repo folder's lock."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from services.memory.domain.ids import parse_working_id
from services.memory.domain.lifecycle import WorkingEntry
from services.memory.ports import MemoryFolder


class WorkingRegistry:
    def __init__(self, clock: Callable[[], datetime]) -> None:
        self._clock = clock
        self._sessions: dict[str, dict[str, list[WorkingEntry]]] = {}
        self._listed: dict[str, datetime] = {}

    def knows(self, repo: str) -> bool:
        return repo in self._sessions

    def listed_at(self, repo: str) -> datetime | None:
        return self._listed.get(repo)

    def sessions(
        self, repo: str, folder: MemoryFolder, *, relist: bool = False
    ) -> dict[str, list[WorkingEntry]]:
        """Session → its working memories, listed from the folder on first use and at every rescan."""
        registry = self._sessions.get(repo)
        if registry is None or relist:
            registry = {}
            for memory_id in folder.memory_ids(prefix="working-"):
                if (parsed := parse_working_id(memory_id)) is not None:
                    registry.setdefault(parsed[0], []).append(WorkingEntry(memory_id, *parsed))
            self._sessions[repo] = registry
            self._listed[repo] = self._clock()
        return registry

    def drop(self, repo: str, memory_ids: list[str]) -> None:
        """Take working memories deleted outside observe (forget, a hand edit) out of the registry."""
        registry = self._sessions.get(repo)
        for memory_id in memory_ids:
            parsed = parse_working_id(memory_id)
            if registry is None or parsed is None or parsed[0] not in registry:
                continue
            kept = [e for e in registry[parsed[0]] if e.memory_id != memory_id]
            if kept:
                registry[parsed[0]] = kept
            else:
                del registry[parsed[0]]

    def forget_repo(self, repo: str) -> None:
        self._sessions.pop(repo, None)
