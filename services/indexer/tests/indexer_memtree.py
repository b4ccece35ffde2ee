"""An in-memory FileTree (services/indexer/ports.py): the scanner's decisions tested without a disk."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from services.indexer.domain.scanner import EntryKind, PathOutsideRepo, TreeEntry


@dataclass
class MemTree:
    """Files as {path: bytes}; folders implied by the paths (plus `dirs`); `escaping` paths are symlinks
    whose target leaves the root; `unreadable` folders fail to list; `venvs` carry a pyvenv.cfg marker."""

    files: dict[str, bytes]
    dirs: set[str] = field(default_factory=set)
    escaping: set[str] = field(default_factory=set)
    unreadable: set[str] = field(default_factory=set)
    root: Path = Path("/mem/repo")
    reads: list[str] = field(default_factory=list)

    def _dirs(self) -> set[str]:
        found = {""} | set(self.dirs)
        for path in self.files:
            parts = PurePosixPath(path).parts
            found.update("/".join(parts[:i]) for i in range(1, len(parts)))
        return found

    def _entry(self, rel: str) -> TreeEntry | None:
        name = PurePosixPath(rel).name
        key = (1, hash(rel) & 0xFFFF)
        if rel in self.files:
            data = self.files[rel]
            return TreeEntry(name, EntryKind.FILE, 1, len(data), key, rel in self.escaping)
        if rel in self._dirs():
            return TreeEntry(name, EntryKind.DIR, 1, 0, key, rel in self.escaping)
        return None

    def list_dir(self, rel_dir: str) -> list[TreeEntry]:
        if rel_dir in self.unreadable:
            raise PermissionError(13, "Permission denied")
        prefix = f"{rel_dir}/" if rel_dir else ""
        names = {
            p[len(prefix) :].split("/")[0] for p in self.files.keys() | self._dirs() if p.startswith(prefix)
        }
        entries = [self._entry(f"{prefix}{n}") for n in sorted(names - {""})]
        return [e for e in entries if e is not None]

    def entry(self, rel_path: str) -> TreeEntry | None:
        return self._entry(rel_path)

    def dir_key(self, rel_dir: str) -> tuple[int, int] | None:
        entry = self._entry(rel_dir) if rel_dir else TreeEntry("", EntryKind.DIR, key=(0, 0))
        return entry.key if entry is not None and entry.kind is EntryKind.DIR else None

    def is_within(self, rel_path: str) -> bool:
        return rel_path not in self.escaping

    def is_virtualenv(self, rel_dir: str) -> bool:
        return f"{rel_dir}/pyvenv.cfg" in self.files

    def is_real_dir(self, rel_path: str) -> bool:
        return rel_path in self._dirs()

    def read_ignore_file(self, rel_path: str) -> list[str]:
        self.reads.append(rel_path)
        data = self.files.get(rel_path)
        return [] if data is None else data.decode().splitlines()

    def read_head(self, rel_path: str, size: int) -> bytes | None:
        data = self.files.get(rel_path)
        return None if data is None else data[:size]

    def read_file(self, rel_path: str, limit: int) -> bytes | None:
        data = self.files.get(rel_path)
        return None if data is None or len(data) > limit else data

    def confine(self, user_path: str) -> str:
        if user_path.startswith("/") or ".." in PurePosixPath(user_path).parts:
            raise PathOutsideRepo(f"path {user_path!r} is outside the repository root {self.root}")
        return user_path
