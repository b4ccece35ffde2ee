"""Which files of a repository get indexed: ignore rules, size cap, binary sniffing, symlink confinement.

`TreeScanner` decides; a `FileTree` (services/indexer/ports.py) does the file-system I/O, so every
decision is testable over an in-memory tree (adapters/fs_tree.py is the one on disk, and its
`RepoScanner` is a TreeScanner over a working tree).

`walk()` only stats files (cheap enough to run on every incremental run and for `status`); content
checks (`content_skip_reason`: binary, generated) happen where the file is read anyway. The rules
themselves live in domain/ignore_rules.py.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from services.indexer.domain.ignore_rules import (
    AGENT_CONFIG_FILES,
    BUILTIN_IGNORES,
    IGNORE_FILES,
    MAX_IGNORE_FILE_BYTES,
    NEVER_INDEXED_DIRS,
    SNIFF_BYTES,
    Rules,
    builtin_rules,
    content_skip_reason,
    is_ignore_file,
    is_ignored_by,
    is_never_indexed,
    name_problem,
    with_lines,
)

if TYPE_CHECKING:
    from pathlib import Path

    from services.indexer.ports import FileTree

__all__ = [
    "BUILTIN_IGNORES",
    "DEFAULT_MAX_FILE_BYTES",
    "IGNORE_FILES",
    "MAX_IGNORE_FILE_BYTES",
    "EntryKind",
    "PathOutsideRepo",
    "ScannedFile",
    "TreeEntry",
    "TreeScanner",
    "WalkReport",
    "content_skip_reason",
    "is_never_indexed",
    "name_problem",
]

DEFAULT_MAX_FILE_BYTES = 1024 * 1024


@dataclass(slots=True)
class WalkReport:
    """What a walk left out for a reason other than the ignore rules: counted by reason, a few examples."""

    skipped: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)  # "reason: path" (path as repr), at most 20

    def add(self, reason: str, rel_path: str) -> None:
        self.skipped[reason] += 1
        if len(self.examples) < 20:
            self.examples.append(f"{reason}: {rel_path!r}")

    @property
    def total(self) -> int:
        return sum(self.skipped.values())


@dataclass(frozen=True, slots=True)
class ScannedFile:
    """A candidate file: repo-relative POSIX path, modification time (ns) and size in bytes."""

    path: str
    mtime_ns: int
    size: int


class PathOutsideRepo(ValueError):
    """A client-supplied path is absolute outside the root, escapes it with `..`, or is not a path."""


class EntryKind(Enum):
    FILE = "file"  # a regular file
    DIR = "dir"
    OTHER = "other"  # FIFO, device, socket
    MISSING = "missing"  # could not be stat'ed (dangling symlink, vanished, permission denied)


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """One name in a folder (or one path), as a FileTree saw it; symlinks are followed."""

    name: str
    kind: EntryKind
    mtime_ns: int = 0
    size: int = 0
    key: tuple[int, int] = (0, 0)  # identity (device, inode): a folder reached twice is walked once
    escapes: bool = False  # reached through a symlink whose target lies outside the root
    problem: str = ""  # for MISSING: a reason the walk reports (e.g. a path too long), "" for none


class TreeScanner:
    """Applies one repository's ignore rules; walks it or judges single paths (for watch and index_paths)."""

    def __init__(
        self,
        tree: FileTree,
        *,
        max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
        extra_ignores: Iterable[str] = (),
        accept: Callable[[str], bool] | None = None,
    ) -> None:
        self.tree = tree
        self.max_file_bytes = max_file_bytes
        # Final say on a path that passed the ignore rules, e.g. "a language we can index".
        self._accept = accept
        self._builtin = builtin_rules(extra_ignores)
        self._rules_cache: dict[str, Rules] = {}
        self.last_walk = WalkReport()

    @property
    def root(self) -> Path:
        return self.tree.root

    # -- walking -----------------------------------------------------------------------------------

    def walk(self, *, under: str = "", sniff: bool = False) -> Iterator[ScannedFile]:
        """Every indexable file under the root (or under the folder `under`), sorted within each folder.

        With `sniff`, also reads each file's first 8 KiB and drops binary and generated ones. Ignore files
        are re-read on every walk. The walk keeps its own stack (no recursion), so any depth is fine; what
        it cannot take (odd names, unreadable folders, paths too long for the OS) is skipped and counted
        in `last_walk`.
        """
        self.reload()
        self.last_walk = WalkReport()
        under = under.strip("/")
        rules = self._rules_inside(under)
        if rules is None:
            return
        start = self.tree.dir_key(under)
        if start is None:
            return
        visited = {start}
        # Depth-first, folders in name order: the same order the recursive walk had.
        stack: list[Iterator[ScannedFile | tuple[str, Rules]]] = [
            self._dir_entries(under, rules, visited, sniff)
        ]
        while stack:
            item = next(stack[-1], None)
            if item is None:
                stack.pop()
            elif isinstance(item, ScannedFile):
                yield item
            else:
                stack.append(self._dir_entries(*item, visited, sniff, inherited=True))

    def _dir_entries(
        self,
        rel_dir: str,
        rules: Rules,
        visited: set[tuple[int, int]],
        sniff: bool,
        *,
        inherited: bool = False,
    ) -> Iterator[ScannedFile | tuple[str, Rules]]:
        """The files of one folder, and its sub-folders to walk as (relative path, the rules they inherit).

        `inherited`: `rules` are the parent folder's, so the folder's own ignore files are added once it is
        listed, and only those the listing holds are read (most folders have none: two failed opens per
        folder were a quarter of a walk's CPU)."""
        report = self.last_walk
        try:
            entries = self.tree.list_dir(rel_dir)
        except OSError as exc:
            if rel_dir:  # the root itself vanishing is not a skipped folder
                report.add(f"folder unreadable ({exc.strerror or exc})", rel_dir)
            return
        if inherited:
            present = {entry.name for entry in entries if entry.name in IGNORE_FILES}
            rules = self._folder_rules(rel_dir, rules, inside=True, present=present)
        for entry in entries:
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            problem = name_problem(entry.name)
            if problem is not None:
                report.add(problem, rel)
                continue
            if entry.name in AGENT_CONFIG_FILES:
                continue
            if entry.kind is EntryKind.MISSING:
                if entry.problem:
                    report.add(entry.problem, rel)
                continue
            if entry.escapes:
                continue
            if entry.kind is EntryKind.DIR:
                if entry.name in NEVER_INDEXED_DIRS or is_ignored_by(rules, rel, is_dir=True):
                    continue
                if self.tree.is_virtualenv(rel):
                    continue
                if entry.key in visited:  # a symlink back to an ancestor or a second way into a folder
                    continue
                visited.add(entry.key)
                yield (rel, rules)
            elif entry.kind is EntryKind.FILE:
                if entry.size > self.max_file_bytes or is_ignored_by(rules, rel, is_dir=False):
                    continue
                if self._accept is not None and not self._accept(rel):
                    continue
                if sniff and self.sniff(rel) is not None:
                    continue
                yield ScannedFile(rel, entry.mtime_ns, entry.size)

    # -- single paths ------------------------------------------------------------------------------

    def skip_reason(self, rel_path: str) -> str | None:
        """Why the file at `rel_path` (repo-relative, already confined) is not indexed, or None.

        Checks every ancestor folder too, so it agrees with `walk()` for paths reported by a watcher.
        Reasons: "missing", "not a file", "ignored", "too large", "outside repository".
        """
        parent = PurePosixPath(rel_path).parent.as_posix()
        if not rel_path or rel_path == ".":
            return "not a file"
        if is_never_indexed(rel_path):
            return "ignored"
        if name_problem(rel_path) is not None:
            return "unsupported file name"
        rules = self._rules_inside("" if parent == "." else parent)
        if rules is None or is_ignored_by(rules, rel_path, is_dir=False):
            return "ignored"
        if self._accept is not None and not self._accept(rel_path):
            return "unsupported file type"
        entry = self.tree.entry(rel_path)
        if entry is None:
            return "missing"
        if entry.escapes:
            return "outside repository"
        if entry.kind is not EntryKind.FILE:
            return "not a file"
        if entry.size > self.max_file_bytes:
            return "too large"
        return None

    def is_ignored(self, rel_path: str) -> bool:
        """True when rules (not file state) exclude `rel_path`; a missing path may still be not ignored."""
        return self.skip_reason(rel_path) in (
            "ignored",
            "unsupported file type",
            "unsupported file name",
            "outside repository",
        )

    def stat(self, rel_path: str) -> ScannedFile | None:
        """The scanned form of one file, or None when it is missing or not indexable by path rules."""
        if self.skip_reason(rel_path) is not None:
            return None
        entry = self.tree.entry(rel_path)
        if entry is None:
            return None
        return ScannedFile(rel_path, entry.mtime_ns, entry.size)

    def sniff(self, rel_path: str) -> str | None:
        """`content_skip_reason` of the file's first bytes; "missing" when it cannot be read."""
        head = self.tree.read_head(rel_path, SNIFF_BYTES)
        return "missing" if head is None else content_skip_reason(head)

    def rules_changed(self, rel_path: str) -> bool:
        """True for an ignore file; callers then forget cached rules (`reload()`) and rescan."""
        return is_ignore_file(rel_path)

    def reload(self) -> None:
        self._rules_cache.clear()

    # -- rules -------------------------------------------------------------------------------------

    def _rules_inside(self, rel_dir: str) -> Rules | None:
        """The rules in force inside folder `rel_dir`, or None when the folder itself is ignored."""
        rules = self._folder_rules("", self._base_rules())
        if not rel_dir:
            return rules
        parts = PurePosixPath(rel_dir).parts
        for depth in range(len(parts)):
            folder = "/".join(parts[: depth + 1])
            if parts[depth] in NEVER_INDEXED_DIRS or is_ignored_by(rules, folder, is_dir=True):
                return None
            if self.tree.is_virtualenv(folder):
                return None
            rules = self._folder_rules(folder, rules)
        return rules

    def _base_rules(self) -> Rules:
        # Only a real .git folder of this tree (a symlinked .git could point anywhere).
        lines = self.tree.read_ignore_file(".git/info/exclude") if self.tree.is_real_dir(".git") else []
        return with_lines("", lines, self._builtin)

    def _folder_rules(
        self, rel_dir: str, parent: Rules, *, inside: bool = False, present: Collection[str] | None = None
    ) -> Rules:
        """`inside`: the walk already confined the folder (resolving it again per folder is quadratic).
        `present`: the ignore file names the folder's listing holds (None: not listed, try each)."""
        cached = self._rules_cache.get(rel_dir)
        if cached is not None:
            return cached
        lines: list[str] = []
        # A folder reached through a symlink that leaves the tree contributes no rules from outside it.
        if inside or not rel_dir or self.tree.is_within(rel_dir):
            for name in IGNORE_FILES:
                if present is None or name in present:
                    lines.extend(self.tree.read_ignore_file(f"{rel_dir}/{name}" if rel_dir else name))
        rules = with_lines(rel_dir, lines, parent)
        self._rules_cache[rel_dir] = rules
        return rules
