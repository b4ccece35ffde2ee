"""The memory files on disk: one folder per namespace (a repo, or global), written atomically under a lock.

Layout under the memory root:

```
global/                 memories visible in every repo
repos/<quoted repo>/    one folder per repo ('%'-quoted so any repo name is one safe path segment)
  <id>.md               a memory (markdown + YAML frontmatter)
  .tombstones/<key>.json forgotten content: <fingerprint> (team) or <fingerprint>-u<user tag> (personal)
  .usage.json           recall counts, merged in by every writer
.locks/<quoted>.lock    advisory locks, outside the folders so deleting a repo never deletes a held lock
```

Permissions: memories are personal or team-private, so every folder is created 0700 and every file 0600
(owner only, whatever the umask); an existing root is tightened to 0700 when opened.

Concurrency: every change to a folder happens under `MemoryFolder.lock()`, which takes a per-folder thread
lock (shared by every engine in the process) and then an exclusive `flock` on the folder's lock file
(shared with other processes). Files are replaced atomically (temp file in the same folder, fsync,
`os.replace`, fsync of the folder), so readers never see half a file.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import threading
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import xxhash

from services.memory.domain.errors import FrontmatterError, InvalidFileName
from services.memory.domain.frontmatter import parse_memory_text
from services.memory.domain.model import GLOBAL_REPO, Memory, Source, build_memory
from services.memory.domain.validation import CLAUDE_ID_PREFIX, is_valid_id
from services.memory.ports import FileEntry

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: thread locks only
    fcntl = None  # type: ignore[assignment]

MEMORY_SUFFIX = ".md"
INDEX_FILE_NAME = "MEMORY.md"  # Claude Code's index of pointers, not a memory
TOMBSTONE_DIR = ".tombstones"
USAGE_FILE = ".usage.json"
DIR_MODE = 0o700
FILE_MODE = 0o600


def make_private_dir(path: Path) -> None:
    """`path` and any missing parents created owner-only (mkdir's mode only applies to the last part, and
    the umask narrows it further, so each created folder is chmod-ed)."""
    missing: list[Path] = []
    current = path
    while not current.exists():
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=DIR_MODE)
            os.chmod(folder, DIR_MODE)


def folder_name(repo: str) -> str:
    """A repo name as one path segment: every character but [A-Za-z0-9_-] is %-quoted, '.' included."""
    return quote(repo, safe="-_").replace(".", "%2E").replace("~", "%7E")


def repo_from_folder_name(name: str) -> str:
    return unquote(name)


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text`: temp file in the same folder, fsync, rename, fsync the folder."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    data = text.encode("utf-8")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)  # the umask can only narrow the mode; this pins it
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(path: Path) -> None:
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


class _FolderLock:
    """Thread lock + flock, re-entrant within one thread (a nested acquire does not flock again)."""

    _registry: dict[str, _FolderLock] = {}
    _registry_guard = threading.Lock()

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.RLock()
        self._depth = threading.local()

    @classmethod
    def for_path(cls, path: Path) -> _FolderLock:
        key = str(path.resolve())
        with cls._registry_guard:
            lock = cls._registry.get(key)
            if lock is None:
                lock = cls._registry[key] = cls(Path(key))
            return lock

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        with self._lock:
            depth = getattr(self._depth, "value", 0)
            self._depth.value = depth + 1
            try:
                if depth or fcntl is None:
                    yield
                    return
                make_private_dir(self.path.parent)
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, FILE_MODE)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                    yield
                finally:
                    os.close(fd)  # closing releases the flock
            finally:
                self._depth.value = depth


class MemoryFolder:
    """The writable folder of one namespace."""

    def __init__(self, root: Path, repo: str) -> None:
        self.repo = repo
        name = folder_name(repo)
        self.path = root / "global" if repo == GLOBAL_REPO else root / "repos" / name
        lock_name = "global" if repo == GLOBAL_REPO else name
        self._lock = _FolderLock.for_path(root / ".locks" / f"{lock_name}.lock")

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        with self._lock.hold():
            yield

    def file_for(self, memory_id: str) -> Path:
        return self.path / f"{memory_id}{MEMORY_SUFFIX}"

    def entries(self) -> list[FileEntry]:
        return list_markdown(self.path)

    def memory_ids(self, prefix: str = "") -> list[str]:
        """Ids of the folder's memory files starting with `prefix`, from names alone (no stat, no Path):
        observe lists the working memories on every prompt, and with many sessions `entries()` is the cost."""
        try:
            with os.scandir(self.path) as scan:
                return [
                    item.name[: -len(MEMORY_SUFFIX)]
                    for item in scan
                    if item.name.startswith(prefix)
                    and item.name.endswith(MEMORY_SUFFIX)
                    and not item.name.startswith(".")
                ]
        except (FileNotFoundError, NotADirectoryError):
            return []

    def write(self, memory_id: str, text: str) -> Path:
        make_private_dir(self.path)
        path = self.file_for(memory_id)
        write_atomic(path, text)
        return path

    def delete(self, memory_id: str) -> bool:
        try:
            os.unlink(self.file_for(memory_id))
        except FileNotFoundError:
            return False
        _fsync_dir(self.path)
        return True

    # Tombstones: one file per forgotten content key (domain/ownership.py: fingerprint, + owner if personal).
    def tombstones(self) -> set[str]:
        folder = self.path / TOMBSTONE_DIR
        try:
            return {p.name.removesuffix(".json") for p in folder.iterdir() if p.name.endswith(".json")}
        except FileNotFoundError:
            return set()

    def add_tombstone(self, key: str, info: dict[str, Any]) -> None:
        folder = self.path / TOMBSTONE_DIR
        make_private_dir(folder)
        write_atomic(folder / f"{key}.json", json.dumps(info, sort_keys=True, default=str) + "\n")

    def tombstone_info(self, key: str) -> dict[str, Any] | None:
        """What forget recorded with the tombstone (who, when), {} when unreadable, None when there is none."""
        try:
            data = json.loads((self.path / TOMBSTONE_DIR / f"{key}.json").read_text("utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def remove_tombstone(self, key: str) -> bool:
        try:
            os.unlink(self.path / TOMBSTONE_DIR / f"{key}.json")
        except FileNotFoundError:
            return False
        return True

    # Usage counts: {id: {"count": n, "last_used": iso}}.
    def read_usage(self) -> dict[str, dict[str, Any]]:
        try:
            data = json.loads((self.path / USAGE_FILE).read_text("utf-8"))
        except (FileNotFoundError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def usage_mtime_ns(self) -> int:
        try:
            return (self.path / USAGE_FILE).stat().st_mtime_ns
        except FileNotFoundError:
            return 0

    def write_usage(self, usage: dict[str, dict[str, Any]]) -> None:
        make_private_dir(self.path)
        write_atomic(self.path / USAGE_FILE, json.dumps(usage, sort_keys=True, indent=0) + "\n")

    def remove_all(self) -> int:
        """Delete the folder with its memories, tombstones and usage; the number of memory files removed."""
        removed = len(self.entries())
        shutil.rmtree(self.path, ignore_errors=True)
        return removed


class MemoryRoot:
    """The team memory root: finds and creates namespace folders."""

    def __init__(self, root: Path) -> None:
        self.path = root
        make_private_dir(root)
        os.chmod(root, DIR_MODE)  # a root made by an older version (0755) is tightened
        self._folders: dict[str, MemoryFolder] = {}
        self._guard = threading.Lock()

    def folder(self, repo: str) -> MemoryFolder:
        with self._guard:
            folder = self._folders.get(repo)
            if folder is None:
                folder = self._folders[repo] = MemoryFolder(self.path, repo)
            return folder

    def namespaces(self) -> list[str]:
        names = [GLOBAL_REPO]
        repos = self.path / "repos"
        if repos.is_dir():
            names.extend(sorted(repo_from_folder_name(p.name) for p in repos.iterdir() if p.is_dir()))
        return names

    def namespace_of(self, path: Path) -> str | None:
        """The namespace a path under the root belongs to, or None."""
        try:
            parts = path.relative_to(self.path).parts
        except ValueError:
            return None
        if parts and parts[0] == "global":
            return GLOBAL_REPO
        if len(parts) >= 2 and parts[0] == "repos":
            return repo_from_folder_name(parts[1])
        return None

    def read(self, path: Path, *, repo: str, source: Source, mtime_ns: int | None = None) -> Memory:
        return read_memory(path, repo=repo, source=source, mtime_ns=mtime_ns)

    def list_markdown(self, folder: Path) -> list[FileEntry]:
        return list_markdown(folder)

    def is_memory_file_name(self, name: str) -> bool:
        return is_memory_file_name(name)


def is_memory_file_name(name: str) -> bool:
    """*.md, not hidden, not Claude Code's MEMORY.md index."""
    return name.endswith(MEMORY_SUFFIX) and not name.startswith(".") and name != INDEX_FILE_NAME


def list_markdown(folder: Path) -> list[FileEntry]:
    """The memory files of a folder: *.md, not hidden, not Claude Code's MEMORY.md index."""
    entries: list[FileEntry] = []
    try:
        scan = os.scandir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return entries
    with scan:
        for item in scan:
            if not is_memory_file_name(item.name):
                continue
            try:
                if not item.is_file():
                    continue
                stat = item.stat()
            except FileNotFoundError:
                continue
            entries.append(FileEntry(Path(item.path), stat.st_mtime_ns, stat.st_size))
    entries.sort(key=lambda e: e.path.name)
    return entries


def memory_id_for(path: Path, source: Source) -> str:
    """The id of a memory file: its stem; Claude Code files get a `claude.` prefix (and a tidy stem)."""
    stem = path.name.removesuffix(MEMORY_SUFFIX)
    if source is Source.CLAUDE:
        tidy = "".join(ch if ch.isascii() and (ch.isalnum() or ch in "_-") else "-" for ch in stem)[:100]
        if tidy != stem:
            tidy = f"{tidy.strip('-') or 'memory'}-{xxhash.xxh32_hexdigest(stem.encode())[:6]}"
        return CLAUDE_ID_PREFIX + tidy
    if not is_valid_id(stem):
        raise InvalidFileName(
            f"'{path.name}' is not a valid memory file name: use letters, digits, '_', '-', '.' "
            "(starting with a letter or digit), then '.md'"
        )
    if stem.startswith(CLAUDE_ID_PREFIX):
        raise InvalidFileName(f"'{path.name}': names starting with '{CLAUDE_ID_PREFIX}' are reserved")
    return stem


def read_memory(path: Path, *, repo: str, source: Source, mtime_ns: int | None = None) -> Memory:
    """Parse one memory file. Raises FrontmatterError (field named), InvalidFileName or OSError."""
    memory_id = memory_id_for(path, source)
    text = path.read_text("utf-8", errors="strict")
    if mtime_ns is None:
        mtime_ns = path.stat().st_mtime_ns
    parsed = parse_memory_text(text)
    fallback = datetime.fromtimestamp(mtime_ns / 1e9, tz=UTC).replace(microsecond=0)
    return build_memory(
        parsed.fields, memory_id=memory_id, repo=repo, body=parsed.body, source=source, fallback_time=fallback
    )


__all__ = [
    "FileEntry",
    "FrontmatterError",
    "InvalidFileName",
    "MemoryFolder",
    "MemoryRoot",
    "folder_name",
    "is_memory_file_name",
    "list_markdown",
    "memory_id_for",
    "read_memory",
    "write_atomic",
]
