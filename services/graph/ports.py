"""The graph service's one port: a store of raw per-file facts (symbols, call sites, imports).

Stores keep facts exactly as the indexer sent them; call resolution, traversal and ranking live in domain/
and run the same over every backend. Every method is scoped to a repository and safe to call from several
threads. Backends: adapters/sqlite_graph_store.py (embedded default), adapters/neo4j_graph_store.py.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from kit.domain import CallSite, Import, Symbol

from .domain.model import FileGraph, RepoFacts, StoreCounts


class GraphStore(Protocol):
    def replace_file(
        self,
        repo: str,
        path: str,
        file_hash: str,
        symbols: Sequence[Symbol],
        call_sites: Sequence[CallSite],
        imports: Sequence[Import],
    ) -> None:
        """Atomically replace everything stored for one file. Callers validate the input first.

        Raises InvalidArgument when a symbol id is already stored for another file of the repo.
        """
        ...

    def delete_files(self, repo: str, paths: Collection[str]) -> int:
        """Remove the files' symbols, call sites and imports; returns the symbols removed."""
        ...

    def delete_repo(self, repo: str) -> int:
        """Remove everything stored for a repository; returns the symbols removed."""
        ...

    def file_graph(self, repo: str, path: str) -> FileGraph | None:
        """Everything stored for one file, in the order it was given; None when the file is unknown."""
        ...

    def symbols_by_id(self, repo: str, ids: Collection[str]) -> dict[str, Symbol]: ...

    def symbols_by_name(self, repo: str, names: Collection[str]) -> list[Symbol]:
        """Definitions whose short name is one of `names`."""
        ...

    def symbols_by_qualified_name(self, repo: str, qualified_names: Collection[str]) -> list[Symbol]: ...

    def call_sites_from(self, repo: str, caller_ids: Collection[str]) -> list[CallSite]: ...

    def call_sites_to(self, repo: str, callee_names: Collection[str]) -> list[CallSite]:
        """Call sites whose callee name is one of `callee_names`."""
        ...

    def imports_of(self, repo: str, paths: Collection[str]) -> list[Import]:
        """Imports made by the given files, ordered by file, line, target."""
        ...

    def importers_of(self, repo: str, paths: Collection[str]) -> list[Import]:
        """Imports in any file that resolve to one of `paths`, ordered by importing file, line."""
        ...

    def facts(self, repo: str) -> RepoFacts:
        """Every symbol, call site and import of a repository."""
        ...

    def counts(self, repo: str) -> StoreCounts:
        """Counts for one repository, or for all when `repo` is empty."""
        ...

    def repos(self) -> list[str]:
        """Repositories with anything stored."""
        ...

    def generation(self, repo: str) -> int:
        """A number that changes whenever the repository's facts change (any writer, any replica)."""
        ...

    def close(self) -> None: ...
