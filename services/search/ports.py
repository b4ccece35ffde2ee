"""The search service's ports. Adapters in adapters/ implement them; bootstrap.py picks one per URL.

Every method is synchronous and thread-safe: the engine calls them from a thread pool. A write returns
only once a read would see it (read-your-writes), on every backend.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

import numpy as np

from kit.domain import Chunk
from services.search.domain.model import (
    FileCounts,
    PendingEmbedding,
    RepoProfile,
    ScoredId,
    SearchFilters,
    SymbolMatch,
    Vector,
    VectorEntry,
)


class KeywordIndex(Protocol):
    """Full-text index over chunks; also the store of record for chunk content (GetChunks)."""

    backend: str

    def replace_file(self, repo: str, path: str, chunks: Sequence[Chunk]) -> int:
        """Make `chunks` the complete content of the file (others of that file vanish); returns the count."""
        ...

    def delete_files(self, repo: str, paths: Sequence[str]) -> int:
        """Remove every chunk of the files; returns chunks removed."""
        ...

    def delete_repo(self, repo: str) -> int: ...

    def search(self, repo: str, words: Sequence[str], filters: SearchFilters, limit: int) -> list[ScoredId]:
        """Chunks matching any of `words` (plain lowercase words, never query syntax), best first."""
        ...

    def document_share(self, repo: str, word: str, filters: SearchFilters) -> float:
        """The share (0..1) of the repo's chunks passing `filters` that match `word` (a plain word as
        `search` takes it); 0 for an empty repo. May be cached for minutes: ranking uses it as a rate."""
        ...

    def get_chunks(self, repo: str, ids: Sequence[str], with_content: bool = True) -> list[Chunk]:
        """The chunks that exist among `ids`, in any order; `content` empty unless `with_content`."""
        ...

    def symbol_candidates(self, repo: str, name: str, match: SymbolMatch, limit: int) -> list[Chunk]:
        """A superset of the definitions `name` matches; domain.symbols decides and orders.

        EXACT: name or qualified_name equal (case may differ). PREFIX: name starts with `name`,
        case-insensitively. FUZZY: name has an identifier word starting with one of
        `domain.symbols.query_word_prefixes(name)`.
        """
        ...

    def file_chunks(self, repo: str, path: str) -> list[Chunk]:
        """Every chunk of one file, ordered by start line."""
        ...

    def file_lines(self, repo: str, paths: Sequence[str]) -> dict[str, int]:
        """Path → the last line its chunks cover, for the given paths that are indexed."""
        ...

    def repos(self) -> list[str]:
        """Every repository with at least one chunk, sorted."""
        ...

    def profile(self, repo: str, max_files: int, max_symbols: int) -> RepoProfile:
        """Indexed files (by path) and up to `max_symbols` definitions spread over files, content omitted."""
        ...

    def counts(self, repo: str) -> FileCounts:
        """Files and chunks of a repo ("" for all repos)."""
        ...

    def close(self) -> None: ...


class VectorIndex(Protocol):
    """Nearest-neighbour index over chunk vectors (cosine), with the fields filters need."""

    backend: str

    def replace_file(self, repo: str, path: str, entries: Sequence[VectorEntry]) -> None:
        """Vectors of the file become exactly `entries`."""
        ...

    def upsert(self, entries: Sequence[VectorEntry]) -> None: ...

    def delete_ids(self, repo: str, chunk_ids: Iterable[str]) -> None: ...

    def delete_files(self, repo: str, paths: Iterable[str]) -> None: ...

    def delete_repo(self, repo: str) -> None: ...

    def search(self, repo: str, vector: Vector, filters: SearchFilters, limit: int) -> list[ScoredId]:
        """Most similar chunks first; score is the cosine similarity."""
        ...

    def count(self, repo: str) -> int:
        """Vectors of a repo ("" for all repos)."""
        ...

    def close(self) -> None: ...


class Embedder(Protocol):
    """Text → unit vectors. `name` identifies the model: cached vectors are keyed by it."""

    name: str
    dimension: int

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Float32 array (len(texts), dimension), each row L2-normalised."""
        ...

    def close(self) -> None: ...


class EmbeddingStore(Protocol):
    """The embedding cache (by text hash) and the backlog of chunks still to embed."""

    def cached(self, keys: Sequence[str]) -> dict[str, Vector]: ...

    def put_cached(self, items: Sequence[tuple[str, Vector]]) -> None: ...

    def replace_pending(self, repo: str, path: str, pending: Sequence[tuple[str, PendingEmbedding]]) -> None:
        """The file's backlog becomes exactly `pending` ((text key, item) pairs)."""
        ...

    def next_pending(self, limit: int) -> list[tuple[str, PendingEmbedding]]: ...

    def complete(self, done: Sequence[tuple[str, PendingEmbedding]]) -> list[tuple[str, PendingEmbedding]]:
        """Remove the items still pending with the same key; returns those (the others changed meanwhile)."""
        ...

    def fail(self, items: Sequence[tuple[str, PendingEmbedding]], error: str) -> None: ...

    def delete_files(self, repo: str, paths: Sequence[str]) -> None: ...

    def delete_repo(self, repo: str) -> None: ...

    def backlog(self, repo: str) -> int: ...

    def vectors_model(self) -> str | None:
        """The embedder (name and dimension) the stored vectors came from; None before the first record."""
        ...

    def set_vectors_model(self, model: str) -> None: ...

    def close(self) -> None: ...


class FeedbackStore(Protocol):
    """Useful / not-useful votes on chunks, which nudge their ranking."""

    def record(self, repo: str, chunk_id: str, useful: bool, query: str) -> int:
        """Store one vote; returns the chunk's net useful votes after it."""
        ...

    def votes(self, repo: str, chunk_ids: Sequence[str]) -> dict[str, int]:
        """Net votes of the chunks that have any."""
        ...

    def delete_repo(self, repo: str) -> None: ...

    def close(self) -> None: ...
