"""Who sees a memory. The SQLite index applies the same rules in SQL (adapters/sqlite_index.py)."""

from __future__ import annotations

from dataclasses import dataclass

from services.memory.domain.model import Memory, MemoryClass, Scope


@dataclass(frozen=True, slots=True)
class Viewer:
    """The caller: the repo it works in, its branch and its user ("" when unknown)."""

    repo: str
    branch: str = ""
    user: str = ""


def is_visible(memory: Memory, viewer: Viewer) -> bool:
    """Scope rules, whatever the status.

    - global memories are visible from every repo; others only from their own repo;
    - branch scope: only on the same branch ("" is a branch of its own: no git, detached);
    - user scope: only to that user, and never when either side has no user;
    - working memory (a session's notes) that records a user is that user's only, on top of its scope.
    """
    if memory.repo and memory.repo != viewer.repo:
        return False
    if memory.scope is Scope.BRANCH and memory.branch != viewer.branch:
        return False
    if memory.scope is Scope.USER and not (memory.user and memory.user == viewer.user):
        return False
    return not (memory.memory_class is MemoryClass.WORKING and memory.user and memory.user != viewer.user)


@dataclass(frozen=True, slots=True)
class MemoryFilter:
    """What recall and list may return: visible to `viewer`, of these classes (empty: all), active only
    unless `include_inactive`, with confidence at least `min_confidence`."""

    viewer: Viewer
    classes: frozenset[MemoryClass] = frozenset()
    include_inactive: bool = False
    min_confidence: float = 0.0
