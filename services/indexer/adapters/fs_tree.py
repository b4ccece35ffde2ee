"""A working tree on disk as the scanner's `FileTree`: listing, stat, reading capped regular files, and
confining client paths to the root (symlinks resolved). All of the scanner's file-system I/O is here.

Reads never follow a path out of the tree and never block or blow up on a FIFO, a device or a huge
file: files are opened non-blocking and checked on the open descriptor.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path

import structlog

from services.indexer.domain.ignore_rules import MAX_IGNORE_FILE_BYTES
from services.indexer.domain.scanner import (
    DEFAULT_MAX_FILE_BYTES,
    EntryKind,
    PathOutsideRepo,
    TreeEntry,
    TreeScanner,
)

_TOO_LONG = "path too long for the operating system"


def read_regular_file(path: Path | str, limit: int, *, follow_symlinks: bool = True) -> bytes | None:
    """The bytes of `path` when it is a regular file of at most `limit` bytes, else None.

    Opened non-blocking (a FIFO must not hang the caller) and checked on the open descriptor, so a file
    swapped for a FIFO, a device (/dev/zero) or something huge after a stat is still refused; the read
    itself stops at `limit` + 1 bytes. Without `follow_symlinks`, a symlink is refused too.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except (OSError, ValueError):
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        chunks: list[bytes] = []
        remaining = limit + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        data = b"".join(chunks)
        return None if len(data) > limit else data
    except OSError:
        return None
    finally:
        os.close(fd)


def confine(root: Path, user_path: str) -> str:
    """The repo-relative POSIX form of `user_path` (relative to `root`, or absolute inside it).

    Raises PathOutsideRepo for anything that would leave the root, symlinks included: the check is made
    on the resolved path, so `link-to-etc/passwd` is refused as firmly as `../../etc/passwd`.
    """
    if not user_path or "\x00" in user_path:
        raise PathOutsideRepo(f"path {user_path!r} is empty or contains NUL")
    root = root.resolve()
    candidate = Path(user_path)
    if not candidate.is_absolute():
        candidate = root / candidate
    lexical = Path(os.path.normpath(candidate))
    if not _is_within(lexical, root):
        raise PathOutsideRepo(f"path {user_path!r} is outside the repository root {root}")
    # A missing file cannot be resolved further than its deepest existing parent; that is enough.
    resolved = lexical.resolve()
    if not _is_within(resolved, root):
        raise PathOutsideRepo(f"path {user_path!r} leads outside the repository root {root} via a symlink")
    rel = lexical.relative_to(root).as_posix()
    return "" if rel == "." else rel


def _is_within(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


def _kind(mode: int) -> EntryKind:
    if stat.S_ISREG(mode):
        return EntryKind.FILE
    if stat.S_ISDIR(mode):
        return EntryKind.DIR
    return EntryKind.OTHER


class FsTree:
    """The `FileTree` of a directory on disk (resolved once: every check is against the real root)."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root).resolve()
        self._root_text = str(self.root)

    def _abs(self, rel_path: str) -> Path:
        return self.root / rel_path if rel_path else self.root

    def _abs_text(self, rel_path: str) -> str:
        """`_abs` as a string, for the calls a walk makes per folder: a Path per call was ~30% of the
        CPU of a status walk (the gateway asks for one every few seconds while prompts arrive)."""
        return f"{self._root_text}/{rel_path}" if rel_path else self._root_text

    def list_dir(self, rel_dir: str) -> list[TreeEntry]:
        with os.scandir(self._abs_text(rel_dir)) as it:
            entries = sorted(it, key=lambda e: e.name)
        return [self._entry_of(entry) for entry in entries]

    def _entry_of(self, entry: os.DirEntry[str]) -> TreeEntry:
        try:
            is_link = entry.is_symlink()
            st = os.stat(entry.path) if is_link else entry.stat(follow_symlinks=False)
        except OSError as exc:  # dangling symlink, vanished file, permission denied
            problem = _TOO_LONG if exc.errno == errno.ENAMETOOLONG else ""
            return TreeEntry(entry.name, EntryKind.MISSING, problem=problem)
        escapes = is_link and not _is_within(Path(os.path.realpath(entry.path)), self.root)
        return TreeEntry(
            entry.name, _kind(st.st_mode), st.st_mtime_ns, st.st_size, (st.st_dev, st.st_ino), escapes
        )

    def entry(self, rel_path: str) -> TreeEntry | None:
        path = self.root / rel_path
        try:
            st = path.stat()
        except OSError:
            return None
        escapes = not _is_within(path.resolve(), self.root)
        return TreeEntry(
            path.name, _kind(st.st_mode), st.st_mtime_ns, st.st_size, (st.st_dev, st.st_ino), escapes
        )

    def dir_key(self, rel_dir: str) -> tuple[int, int] | None:
        start = self._abs(rel_dir)
        try:
            if not start.is_dir() or not _is_within(start.resolve(), self.root):
                return None
            st = start.stat()
        except (OSError, RuntimeError):
            return None
        return (st.st_dev, st.st_ino)

    def is_within(self, rel_path: str) -> bool:
        return _is_within(Path(os.path.realpath(self._abs(rel_path))), self.root)

    def is_virtualenv(self, rel_dir: str) -> bool:
        # Virtualenvs carry this marker whatever they are called (env/, .env311/, …).
        return os.path.isfile(os.path.join(self._abs_text(rel_dir), "pyvenv.cfg"))

    def is_real_dir(self, rel_path: str) -> bool:
        path = self._abs(rel_path)
        return path.is_dir() and not path.is_symlink()

    def read_ignore_file(self, rel_path: str) -> list[str]:
        """Lines of an ignore file: only a regular file (no symlink, FIFO or device) of a sane size."""
        path = self._abs_text(rel_path)
        data = read_regular_file(path, MAX_IGNORE_FILE_BYTES, follow_symlinks=False)
        if data is None:
            if os.path.lexists(path):
                _log_unread_ignore_file(path)
            return []
        return data.decode("utf-8", errors="replace").splitlines()

    def read_head(self, rel_path: str, size: int) -> bytes | None:
        abs_path = self.root / rel_path
        flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
        try:
            if not _is_within(abs_path.resolve(), self.root):
                return None
            fd = os.open(abs_path, flags)
        except (OSError, RuntimeError):
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                return None
            return os.read(fd, size)
        except OSError:
            return None
        finally:
            os.close(fd)

    def read_file(self, rel_path: str, limit: int) -> bytes | None:
        """A regular file inside the tree (symlinks confined to it) of at most `limit` bytes, or None."""
        try:
            confine(self.root, rel_path)
        except (PathOutsideRepo, OSError, RuntimeError):
            return None
        return read_regular_file(self.root / rel_path, limit)

    def confine(self, user_path: str) -> str:
        return confine(self.root, user_path)


class RepoScanner(TreeScanner):
    """A TreeScanner over the working tree at `root` on disk."""

    def __init__(
        self,
        root: Path | str,
        *,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        extra_ignores: Iterable[str] = (),
        accept: Callable[[str], bool] | None = None,
    ) -> None:
        super().__init__(
            FsTree(root), max_file_bytes=max_file_bytes, extra_ignores=extra_ignores, accept=accept
        )


_UNREAD_LOGGED: set[str] = set()


def _log_unread_ignore_file(path: Path | str) -> None:
    """Once per path and process: status walks re-read ignore files every few seconds."""
    if str(path) in _UNREAD_LOGGED or len(_UNREAD_LOGGED) > 10_000:
        return
    _UNREAD_LOGGED.add(str(path))
    structlog.get_logger("indexer.scanner").warning(
        "scan.ignore_file_unread",
        path=str(path),
        reason=f"not a regular file of at most {MAX_IGNORE_FILE_BYTES} bytes (symlink, FIFO, device or too large)",
    )
