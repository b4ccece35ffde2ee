"""Ports of the memory service. The memory files are the truth; the index is a rebuildable cache of them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from services.memory.domain.model import Memory
from services.memory.domain.ranking import Candidate
from services.memory.domain.scope import MemoryFilter


@dataclass(frozen=True, slots=True)
class IndexedMemory:
    memory: Memory  # status is the effective one (superseded when another memory lists it)
    path: str
    tokens: int


class MemoryIndex(Protocol):
    """Full-text index over memory files, kept in step file by file."""

    def file_states(self, ns: str) -> dict[str, tuple[int, int]]:
        """path → (mtime_ns, size) of every file seen in namespace `ns`, indexed or skipped."""
        ...

    def put(self, ns: str, path: str, mtime_ns: int, size: int, memory: Memory | None, tokens: int) -> None:
        """Record a file; `memory` None records a skipped file (invalid or tombstoned) and drops its row."""
        ...

    def remove_files(self, ns: str, paths: list[str]) -> None: ...

    def namespaces(self) -> set[str]:
        """Namespaces with files in the index."""
        ...

    def tombstones(self, ns: str) -> set[str]:
        """Tombstone keys of `ns` (domain/ownership.py `content_key`: fingerprint, + owner if personal)."""
        ...

    def set_tombstones(self, ns: str, keys: set[str]) -> None: ...

    def get(self, ns: str, memory_id: str) -> IndexedMemory | None: ...

    def with_fingerprint(self, ns: str, fingerprint: str) -> list[IndexedMemory]:
        """Indexed memories of namespace `ns` whose content has this fingerprint."""
        ...

    def search(self, flt: MemoryFilter, terms: list[str], limit: int) -> list[Candidate]:
        """Visible memories matching any term (all visible ones, newest first, when there are no terms)."""
        ...

    def list_memories(self, flt: MemoryFilter, limit: int) -> list[Memory]:
        """Visible memories, most recently updated first."""
        ...

    def usage(self, ns: str) -> dict[str, tuple[int, float]]: ...

    def set_usage(self, ns: str, usage: dict[str, tuple[int, float]], mtime_ns: int) -> None: ...

    def usage_mtime_ns(self, ns: str) -> int: ...

    def drop_namespace(self, ns: str) -> None: ...

    def clear(self) -> None: ...

    def close(self) -> None: ...
