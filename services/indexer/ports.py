"""What the indexer engine needs from the outside world: two downstream sinks and its manifest.

Sinks have replace semantics per file: sending the same file twice, or a file's new state after a
partial earlier send, leaves exactly that state downstream. That is what makes a crash at any point
converge on the next run. A sink raises `SinkUnavailable` for failures worth retrying (the service is
down or overloaded) and any other exception for a refusal that a retry will not fix.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from kit.domain import CallSite, Chunk, Import, Symbol
from services.indexer.domain.model import FileCounts, FileRecord, RepoRecord


class SinkUnavailable(Exception):
    """The downstream service did not answer (down, overloaded, deadline exceeded); retry later."""


class ManifestUnwritable(Exception):
    """The manifest store refused a read or write (disk full, read-only or failing disk).

    Nothing was recorded, so the next run sends every affected file again."""


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

    def mark_run_finished(self, name: str, at: datetime, indexed_commit: str) -> None: ...

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
