"""Folder sync: the index kept in step with the memory files (team folders and Claude Code's), file by file.

Owns what every use case shares about the index: the per-namespace locks, the files found invalid
(`problems`), the attached Claude Code folders, and the usage file ↔ index. Cheap for unchanged files:
a stat, compared with what the index recorded.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from pathlib import Path

import structlog

from kit.tokens import count_tokens
from services.memory.domain.errors import FrontmatterError, InvalidFileName, Problem
from services.memory.domain.ids import OWNER_SEPARATOR, parse_working_id
from services.memory.domain.model import Memory, MemoryClass, Source
from services.memory.domain.ownership import content_key
from services.memory.domain.query import context_text
from services.memory.engine.working_registry import WorkingRegistry
from services.memory.ports import FileEntry, MemoryFiles, MemoryFolder, MemoryIndex
from services.memory.usage import PendingUsage, merged_usage

log = structlog.get_logger("memory.engine")
_UNREADABLE = (FrontmatterError, InvalidFileName, UnicodeDecodeError, OSError)


class FolderSync:
    def __init__(
        self, files: MemoryFiles, index: MemoryIndex, usage: PendingUsage, working: WorkingRegistry
    ) -> None:
        self._files = files
        self._index = index
        self._usage = usage
        self._working = working
        self._state_lock = threading.Lock()
        self._ns_locks: dict[str, threading.RLock] = {}
        self._problems: dict[str, Problem] = {}
        self._claude_dirs: dict[str, Path] = {}

    # ------------------------------------------------------------------ shared state
    @property
    def problems(self) -> list[Problem]:
        with self._state_lock:
            return sorted(self._problems.values(), key=lambda p: p.path)

    def ns_lock(self, ns: str) -> threading.RLock:
        with self._state_lock:
            lock = self._ns_locks.get(ns)
            if lock is None:
                lock = self._ns_locks[ns] = threading.RLock()
            return lock

    def attach_claude_dir(self, repo: str, folder: Path) -> None:
        with self._state_lock:
            self._claude_dirs[repo] = folder

    def watched_paths(self) -> list[Path]:
        with self._state_lock:
            return [self._files.path, *self._claude_dirs.values()]

    def forget_repo(self, repo: str, folder: MemoryFolder) -> None:
        """Under the folder and namespace locks: the repo's index rows and state, after its files went."""
        with self._state_lock:
            self._claude_dirs.pop(repo, None)
            prefix = str(folder.path)
            self._problems = {k: v for k, v in self._problems.items() if not k.startswith(prefix)}
        self._usage.drop(repo)
        self._working.forget_repo(repo)
        self._index.drop_namespace(repo)

    # ------------------------------------------------------------------ reading the files
    def load_namespace(self, ns: str, folder: MemoryFolder) -> list[Memory]:
        """Every readable, non-tombstoned memory of the namespace, straight from the files."""
        tombstones = folder.tombstones()
        memories: list[Memory] = []
        for entry, source in self._source_entries(ns, folder):
            try:
                memory = self._files.read(entry.path, repo=ns, source=source, mtime_ns=entry.mtime_ns)
            except _UNREADABLE:
                continue
            if content_key(memory) not in tombstones:
                memories.append(memory)
        return memories

    def _source_entries(self, ns: str, folder: MemoryFolder) -> Iterator[tuple[FileEntry, Source]]:
        for entry in folder.entries():
            yield entry, Source.TEAM
        with self._state_lock:
            claude = self._claude_dirs.get(ns)
        if claude is not None:
            for entry in self._files.list_markdown(claude):
                yield entry, Source.CLAUDE

    def _load_into_index(self, ns: str, entry: FileEntry, source: Source, tombstones: set[str]) -> None:
        key = str(entry.path)
        try:
            memory = self._files.read(entry.path, repo=ns, source=source, mtime_ns=entry.mtime_ns)
        except FileNotFoundError:
            self._index.remove_files(ns, [key])
            return
        except _UNREADABLE as exc:
            problem = _problem(key, exc)
            with self._state_lock:
                known = self._problems.get(key)
                self._problems[key] = problem
            if known != problem:
                log.warning("memory.file_skipped", path=key, field=problem.field, problem=problem.message)
            self._index.put(ns, key, entry.mtime_ns, entry.size, None, 0)
            return
        with self._state_lock:
            self._problems.pop(key, None)
        if content_key(memory) in tombstones or _legacy_working(memory):
            self._index.put(ns, key, entry.mtime_ns, entry.size, None, 0)
            return
        self._index.put(ns, key, entry.mtime_ns, entry.size, memory, count_tokens(context_text(memory)))

    # ------------------------------------------------------------------ after the engine's own writes
    def reindex_team(
        self, ns: str, folder: MemoryFolder, memory_ids: list[str], *, force_namespace: bool = False
    ) -> None:
        """Re-read the given team files from disk into the index (deleted ones leave it)."""
        if force_namespace:
            self.sync_namespace(ns, force=True)
            return
        with self.ns_lock(ns):
            tombstones = self._index.tombstones(ns)
            for memory_id in dict.fromkeys(memory_ids):
                path = folder.file_for(memory_id)
                try:
                    stat = path.stat()
                except FileNotFoundError:
                    self._index.remove_files(ns, [str(path)])
                    continue
                self._load_into_index(
                    ns, FileEntry(path, stat.st_mtime_ns, stat.st_size), Source.TEAM, tombstones
                )

    def apply_tombstone(self, ns: str, memory: Memory, key: str, removed: Path) -> None:
        """Hide, in the index, every copy of the forgotten content that the same owner holds."""
        with self.ns_lock(ns):
            self._index.set_tombstones(ns, self._index.tombstones(ns) | {key})
            self._index.remove_files(ns, [str(removed)])
            for found in self._index.with_fingerprint(ns, memory.fingerprint):
                if content_key(found.memory) != key:
                    continue  # another user's copy, or a team copy of personal content: not this tombstone's
                with contextlib.suppress(FileNotFoundError):
                    stat = Path(found.path).stat()
                    self._index.put(ns, found.path, stat.st_mtime_ns, stat.st_size, None, 0)

    # ------------------------------------------------------------------ whole namespaces
    def sync_all(self) -> None:
        """Bring every namespace in step with its folders (cheap for unchanged files: stat only)."""
        with self._state_lock:
            claude = set(self._claude_dirs)
        # Namespaces only the index still knows (a folder deleted behind our back) are emptied too.
        namespaces = set(self._files.namespaces()) | claude | self._index.namespaces()
        for ns in sorted(namespaces):
            self.sync_namespace(ns)

    def sync_namespace(self, ns: str, *, force: bool = False) -> None:
        folder = self._files.folder(ns)
        with self.ns_lock(ns):
            tombstones = folder.tombstones()
            if tombstones != self._index.tombstones(ns):
                self._index.set_tombstones(ns, tombstones)
                force = True
            known = self._index.file_states(ns)
            seen: set[str] = set()
            for entry, source in self._source_entries(ns, folder):
                key = str(entry.path)
                seen.add(key)
                if force or known.get(key) != (entry.mtime_ns, entry.size):
                    self._load_into_index(ns, entry, source, tombstones)
            gone = [path for path in known if path not in seen]
            self._index.remove_files(ns, gone)
            with self._state_lock:
                for path in gone:
                    self._problems.pop(path, None)
            usage_mtime = folder.usage_mtime_ns()
            if usage_mtime != self._index.usage_mtime_ns(ns):
                self.load_usage(ns, folder, usage_mtime)

    def rebuild_index(self) -> None:
        """Throw the index away and rebuild it from the files alone."""
        self.flush_usage()
        self._index.clear()
        with self._state_lock:
            self._problems.clear()
        self.sync_all()

    # ------------------------------------------------------------------ changes seen by the watcher
    def on_paths_changed(self, paths: set[Path]) -> None:
        """Bring the index in step with changed paths. A team memory file is re-read only when its stat
        differs from the index (the engine's own writes are indexed already); anything else (tombstones,
        usage, a Claude Code folder, a folder event) re-syncs its whole namespace."""
        whole: set[str] = set()
        changed: dict[str, list[Path]] = {}
        with self._state_lock:
            claude = dict(self._claude_dirs)
        for path in paths:
            if path.name.endswith(".tmp") or ".locks" in path.parts:
                continue
            ns = self._files.namespace_of(path)
            if ns is None:
                ns = next((repo for repo, folder in claude.items() if path.parent == folder), None)
                if ns is not None:
                    whole.add(ns)
            elif path.parent == self._files.folder(ns).path and self._files.is_memory_file_name(path.name):
                changed.setdefault(ns, []).append(path)
            else:
                whole.add(ns)
        for ns in sorted(whole):
            self.sync_namespace(ns)
        for ns, files in sorted(changed.items()):
            if ns not in whole:
                self._sync_files(ns, files)

    def _sync_files(self, ns: str, paths: list[Path]) -> None:
        with self.ns_lock(ns):
            gone: list[str] = []
            known = self._index.file_states(ns)
            tombstones: set[str] | None = None
            for path in paths:
                try:
                    stat = path.stat()
                except FileNotFoundError:
                    if str(path) in known:
                        self._index.remove_files(ns, [str(path)])
                    with self._state_lock:
                        self._problems.pop(str(path), None)
                    gone.append(path.name.removesuffix(".md"))
                    continue
                except OSError as exc:  # unreadable for now: the periodic resync looks again
                    log.warning("memory.file_unreadable", path=str(path), error=str(exc))
                    continue
                if known.get(str(path)) == (stat.st_mtime_ns, stat.st_size):
                    continue
                if tombstones is None:
                    tombstones = self._index.tombstones(ns)
                self._load_into_index(
                    ns, FileEntry(path, stat.st_mtime_ns, stat.st_size), Source.TEAM, tombstones
                )
        if gone:  # after the namespace lock: observe takes the folder lock first, then the namespace's
            with self._files.folder(ns).lock():
                self._working.drop(ns, gone)

    # ------------------------------------------------------------------ the usage file
    def flush_usage(self) -> None:
        """Merge this engine's recall counts into each namespace's usage file."""
        for ns in self._usage.namespaces():
            folder = self._files.folder(ns)
            with folder.lock():
                self.flush_namespace_usage(ns, folder)

    def flush_namespace_usage(self, ns: str, folder: MemoryFolder, keep: set[str] | None = None) -> None:
        """Under the folder lock: file counts + our pending counts → file and index."""
        pending, last_used = self._usage.take(ns)
        if not pending and keep is None:
            return
        usage = merged_usage(
            folder.read_usage(), pending, last_used, keep=keep, exists=lambda k: folder.file_for(k).exists()
        )
        if usage or folder.usage_mtime_ns():
            folder.write_usage(usage)
        self.load_usage(ns, folder, folder.usage_mtime_ns(), usage)

    def load_usage(
        self, ns: str, folder: MemoryFolder, mtime_ns: int, usage: dict[str, dict[str, float]] | None = None
    ) -> None:
        """The index's use counts = the usage file's (this engine's unflushed counts are added at recall)."""
        data = folder.read_usage() if usage is None else usage
        totals: dict[str, tuple[int, float]] = {}
        for memory_id, entry in data.items():
            if isinstance(entry, dict):
                totals[memory_id] = (int(entry.get("count", 0)), float(entry.get("last_used", 0.0)))
        self._index.set_usage(ns, totals, mtime_ns)


def _legacy_working(memory: Memory) -> bool:
    """Working memory observe wrote before it recorded owners: it holds a prompt verbatim, so it is never
    recalled again (observe deletes it at its next full listing)."""
    parsed = parse_working_id(memory.id) if memory.memory_class is MemoryClass.WORKING else None
    return parsed is not None and OWNER_SEPARATOR not in parsed[0]


def _problem(path: str, exc: Exception) -> Problem:
    if isinstance(exc, FrontmatterError):
        return Problem(path, exc.field, exc.message)
    if isinstance(exc, InvalidFileName):
        return Problem(path, "filename", str(exc))
    if isinstance(exc, UnicodeDecodeError):
        return Problem(path, "encoding", "is not UTF-8 text")
    return Problem(path, "file", str(exc))
