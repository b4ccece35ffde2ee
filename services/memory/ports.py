"""Ports of the memory service. The memory files are the truth; the index is a rebuildable cache of them.

The engine (services/memory/engine/) depends on these Protocols only; bootstrap.py wires the adapters:
`MemoryFiles`/`MemoryFolder` → adapters/memory_folder.py, `MemoryIndex` → adapters/sqlite_index.py,
`ClaudeFolders` → adapters/claude_memory.py, `WatcherFactory` → adapters/watcher.py.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from services.memory.domain.model import Memory, Source
from services.memory.domain.ranking import Candidate
from services.memory.domain.scope import MemoryFilter


@dataclass(frozen=True, slots=True)
class IndexedMemory:
    memory: Memory  # status is the effective one (superseded when another memory lists it)
    path: str
    tokens: int


@dataclass(frozen=True, slots=True)
class FileEntry:
    """A memory file as listed: its path and the stat the index compares against."""

    path: Path
    mtime_ns: int
    size: int


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


class MemoryFolder(Protocol):
    """The writable folder of one namespace: memory files, tombstones and the usage file.

    Every change happens under `lock()` (threads and processes); writes are atomic."""

    repo: str
    path: Path

    def lock(self) -> AbstractContextManager[None]: ...

    def file_for(self, memory_id: str) -> Path: ...

    def entries(self) -> list[FileEntry]: ...

    def memory_ids(self, prefix: str = "") -> list[str]:
        """Ids of the folder's memory files starting with `prefix`, from names alone (no stat)."""
        ...

    def write(self, memory_id: str, text: str) -> Path: ...

    def delete(self, memory_id: str) -> bool: ...

    def tombstones(self) -> set[str]: ...

    def add_tombstone(self, key: str, info: dict[str, Any]) -> None: ...

    def tombstone_info(self, key: str) -> dict[str, Any] | None: ...

    def remove_tombstone(self, key: str) -> bool: ...

    def read_usage(self) -> dict[str, dict[str, Any]]: ...

    def usage_mtime_ns(self) -> int: ...

    def write_usage(self, usage: dict[str, dict[str, Any]]) -> None: ...

    def remove_all(self) -> int:
        """Delete the folder with its memories, tombstones and usage; the number of memory files removed."""
        ...


class MemoryFiles(Protocol):
    """The team memory root: namespace folders, and reading any memory file (team or Claude Code's)."""

    path: Path

    def folder(self, repo: str) -> MemoryFolder: ...

    def namespaces(self) -> list[str]: ...

    def namespace_of(self, path: Path) -> str | None:
        """The namespace a path under the root belongs to, or None."""
        ...

    def read(self, path: Path, *, repo: str, source: Source, mtime_ns: int | None = None) -> Memory:
        """Parse one memory file. Raises FrontmatterError (field named), InvalidFileName or OSError."""
        ...

    def list_markdown(self, folder: Path) -> list[FileEntry]:
        """The memory files of any folder (e.g. Claude Code's), sorted by name."""
        ...

    def is_memory_file_name(self, name: str) -> bool: ...


class ClaudeFolders(Protocol):
    """Claude Code's projects folder on a local install: read-only memory folders per checkout."""

    def owns_checkout(self, repo_path: Path) -> bool:
        """Whether the checkout belongs to the user whose Claude Code folder this is."""
        ...

    def find(self, repo_path: Path) -> Path | None:
        """The checkout's Claude Code memory folder, or None."""
        ...


class FolderWatcher(Protocol):
    def start(self) -> None: ...

    def refresh(self) -> None:
        """The set of watched folders changed: read it again."""
        ...

    def stop(self) -> None: ...


class WatcherFactory(Protocol):
    def __call__(
        self,
        paths: Callable[[], list[Path]],
        on_change: Callable[[set[Path]], None],
        on_idle: Callable[[], None],
        resync_seconds: float,
    ) -> FolderWatcher: ...
