"""What the indexer engine needs from the outside world: two downstream sinks and its manifest.

Sinks have replace semantics per file: sending the same file twice, or a file's new state after a
partial earlier send, leaves exactly that state downstream. That is what makes a crash at any point
converge on the next run. A sink raises `SinkUnavailable` for failures worth retrying (the service is
down or overloaded) and any other exception for a refusal that a retry will not fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Protocol

from kit.domain import CallSite, Chunk, Import, Symbol
from services.indexer.domain.model import FileCounts, FileRecord, RepoRecord
from services.indexer.domain.scanner import TreeEntry


class SinkUnavailable(Exception):
    """The downstream service did not answer (down, overloaded, deadline exceeded); retry later."""


class ManifestUnwritable(Exception):
    """The manifest store refused a read or write (disk full, read-only or failing disk).

    Nothing was recorded, so the next run sends every affected file again."""


class GitError(Exception):
    """A git command failed; the message is git's own last line (for the log, never for the client)."""


class GitUrlRefused(Exception):
    """A git URL is not allowed or could not be cloned. `detail` is for the log; clients get one uniform
    message (`GIT_URL_REFUSED`) whatever the cause, so replies never tell an open port from a closed one."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class SearchSink(Protocol):
    async def upsert_file(self, repo: str, path: str, file_hash: str, chunks: Sequence[Chunk]) -> None:
        """Replace everything stored for the file with `chunks` (an empty sequence stores nothing)."""
        ...

    async def delete_files(self, repo: str, paths: Sequence[str]) -> None: ...

    async def delete_repo(self, repo: str) -> None: ...


class GraphSink(Protocol):
    async def replace_file_graph(
        self,
        repo: str,
        path: str,
        file_hash: str,
        symbols: Sequence[Symbol],
        call_sites: Sequence[CallSite],
        imports: Sequence[Import],
    ) -> None:
        """Replace the file's symbols, outgoing calls and imports."""
        ...

    async def delete_files(self, repo: str, paths: Sequence[str]) -> None: ...

    async def delete_repo(self, repo: str) -> None: ...


class Manifest(Protocol):
    """The indexer's own record of registered repos and of what downstream acknowledged per file.

    Blocking (SQLite); the engine calls it from a worker thread. Safe to call from several threads.
    """

    # -- repositories
    def add_repo(self, name: str, path: str, remote: str, *, same_remote: bool = False) -> RepoRecord:
        """Register `name` for `path`, or return it when it is already registered for the same `path`
        (with `same_remote`, for the same remote too: clones live at a path derived from the name).

        Raises RepoNameTaken when the name belongs to another path (or remote): never re-points.
        """
        ...

    def get_repo(self, name: str) -> RepoRecord | None: ...

    def list_repos(self) -> list[RepoRecord]: ...

    def remove_repo(self, name: str) -> bool:
        """Forget the repo and all its file rows; False when it was not registered."""
        ...

    def mark_run_started(self, name: str, at: datetime) -> None: ...

    def mark_run_finished(self, name: str, at: datetime, indexed_commit: str, parser: str) -> None: ...

    # -- files
    def files(self, repo: str) -> dict[str, FileRecord]: ...

    def get_files(self, repo: str, paths: Sequence[str]) -> dict[str, FileRecord]: ...

    def files_under(self, repo: str, prefix: str) -> list[str]:
        """Recorded paths equal to `prefix` or below the folder `prefix`."""
        ...

    def mark_pending(self, repo: str, paths: Sequence[str]) -> None:
        """Before sending: a crash from here on leaves the files due for a forced resend."""
        ...

    def record_files(self, repo: str, records: Sequence[FileRecord]) -> None:
        """After both sinks acknowledged (or for skipped files): store the rows as given."""
        ...

    def forget_files(self, repo: str, paths: Sequence[str]) -> None:
        """After both sinks acknowledged a deletion."""
        ...

    def counts(self, repo: str) -> FileCounts: ...

    def close(self) -> None: ...


class FileTree(Protocol):
    """A repository's files as the scanner sees them (adapters/fs_tree.py: a working tree on disk).

    Paths are repo-relative POSIX strings ("" is the root). Symlinks are followed, and every answer
    says whether the target stays inside the root."""

    root: Path

    def list_dir(self, rel_dir: str) -> list[TreeEntry]:
        """The folder's entries sorted by name; raises OSError when the folder cannot be read."""
        ...

    def entry(self, rel_path: str) -> TreeEntry | None:
        """One path, or None when it cannot be stat'ed."""
        ...

    def dir_key(self, rel_dir: str) -> tuple[int, int] | None:
        """The identity of a folder inside the root, or None when it is no such folder."""
        ...

    def is_within(self, rel_path: str) -> bool:
        """Whether the path, symlinks resolved, stays inside the root."""
        ...

    def is_virtualenv(self, rel_dir: str) -> bool: ...

    def is_real_dir(self, rel_path: str) -> bool:
        """A folder, and not a symlink to one."""
        ...

    def read_ignore_file(self, rel_path: str) -> list[str]:
        """The lines of an ignore file; [] unless it is a regular file (no symlink) of a sane size."""
        ...

    def read_head(self, rel_path: str, size: int) -> bytes | None:
        """The first `size` bytes of a regular file inside the root, or None."""
        ...

    def read_file(self, rel_path: str, limit: int) -> bytes | None:
        """A regular file inside the root of at most `limit` bytes, or None."""
        ...

    def confine(self, user_path: str) -> str:
        """The repo-relative form of a client's path; raises PathOutsideRepo when it leaves the root."""
        ...


class GitRepos(Protocol):
    """git for the registry: the URL policy, clones and pulls (raising GitError), HEAD, branch, origin.

    Blocking; the engine calls it from a worker thread."""

    def check_url(self, url: str) -> None:
        """Raise GitUrlRefused unless policy allows cloning `url` (protocols, hosts on private addresses)."""
        ...

    def clone_or_pull(self, url: str, remote: str, dest: Path) -> None:
        """Reuse the clone at `dest` when it is of `remote` (pulled), else clone `url` there afresh."""
        ...

    def pull(self, root: Path) -> None: ...

    def origin_url(self, root: Path) -> str:
        """The origin remote's URL, "" when there is none."""
        ...

    def head(self, root: Path) -> str:
        """The commit HEAD points at, "" outside git or on an unborn branch."""
        ...

    def branch(self, root: Path) -> str: ...


class RepoWatch(Protocol):
    """Watches registered working trees and re-indexes what changed (services/indexer/watch.py)."""

    @property
    def watched(self) -> list[str]: ...

    async def watch(self, name: str, root: Path) -> None: ...

    async def unwatch(self, name: str) -> None: ...

    async def close(self) -> None: ...
