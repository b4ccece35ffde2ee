"""Search's own domain types: filters, scored candidates, hits, stats. Pure data, no I/O."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import numpy.typing as npt

from kit.domain import Chunk, ChunkKind

Vector = npt.NDArray[np.float32]


class SearchMode(StrEnum):
    HYBRID = "hybrid"
    KEYWORD = "keyword"
    VECTOR = "vector"


class TestFilter(StrEnum):
    __test__ = False  # not a pytest class

    # Tests allowed, ranked below implementation unless the query asks for them.
    INCLUDE = "include"
    EXCLUDE = "exclude"
    ONLY = "only"


class SymbolMatch(StrEnum):
    EXACT = "exact"
    PREFIX = "prefix"
    FUZZY = "fuzzy"


class InvalidRequest(ValueError):
    """Input the caller must fix; the message names the field."""


class NotFound(LookupError):
    """The request names something that is not stored (a chunk id, a repo)."""


class StoreError(RuntimeError):
    """A store failed; the message names the store and the cause."""


class StoreFull(StoreError):
    """A write failed because the store's disk (or its size limit) is full."""


class StoreUnavailable(StoreError):
    """A store cannot serve right now (read-only, locked, unreachable); retrying later may work."""


@dataclass(frozen=True, slots=True)
class SearchFilters:
    """Restrictions on which chunks may be returned; an empty field allows everything."""

    languages: frozenset[str] = frozenset()
    kinds: frozenset[ChunkKind] = frozenset()
    path_prefix: str = ""
    tests: TestFilter = TestFilter.INCLUDE

    @classmethod
    def of(
        cls,
        languages: Iterable[str] = (),
        kinds: Iterable[ChunkKind] = (),
        path_prefix: str = "",
        tests: TestFilter = TestFilter.INCLUDE,
    ) -> SearchFilters:
        return cls(frozenset(languages), frozenset(kinds), path_prefix, tests)

    def accepts(self, *, path: str, language: str, kind: str, is_test: bool) -> bool:
        """The reference semantics every backend's pushed-down filter must agree with."""
        if self.languages and language not in self.languages:
            return False
        if self.kinds and kind not in self.kinds:
            return False
        if self.path_prefix and not path.startswith(self.path_prefix):
            return False
        if self.tests is TestFilter.EXCLUDE and is_test:
            return False
        return not (self.tests is TestFilter.ONLY and not is_test)

    def accepts_chunk(self, chunk: Chunk) -> bool:
        return self.accepts(path=chunk.path, language=chunk.language, kind=chunk.kind, is_test=chunk.is_test)


@dataclass(frozen=True, slots=True)
class ScoredId:
    """A candidate from one signal: a chunk id and that signal's score (higher is better)."""

    chunk_id: str
    score: float


@dataclass(frozen=True, slots=True)
class VectorEntry:
    """What the vector index stores for one chunk: its vector and the fields filters need."""

    chunk_id: str
    repo: str
    path: str
    language: str
    kind: str
    is_test: bool
    vector: Vector


@dataclass(frozen=True, slots=True)
class PendingEmbedding:
    """A chunk whose vector is still to be computed by the backfill."""

    chunk_id: str
    repo: str
    path: str
    language: str
    kind: str
    is_test: bool
    content_hash: str
    text: str

    def entry(self, vector: Vector) -> VectorEntry:
        return VectorEntry(
            self.chunk_id, self.repo, self.path, self.language, self.kind, self.is_test, vector
        )


@dataclass(frozen=True, slots=True)
class SignalScores:
    keyword_rank: int = 0
    keyword_score: float = 0.0
    vector_rank: int = 0
    vector_score: float = 0.0
    fused: float = 0.0
    adjustment: float = 1.0


@dataclass(frozen=True, slots=True)
class SearchHit:
    chunk: Chunk
    score: float
    signals: SignalScores


@dataclass(frozen=True, slots=True)
class SearchResult:
    hits: list[SearchHit]
    # A signal was asked for but unavailable (no embedder, vectors still backfilling, backend error).
    partial: bool = False
    # How likely the query is not about a codebase (domain/topicality.py); None without a model or a vector.
    off_topic: float | None = None


@dataclass(frozen=True, slots=True)
class IndexStats:
    files: int
    chunks: int
    vectors: int
    embed_backlog: int
    keyword_backend: str
    vector_backend: str
    embedder: str


@dataclass(frozen=True, slots=True)
class FileCounts:
    files: int
    chunks: int


@dataclass(slots=True)
class BackfillProgress:
    """Counters of the background embedder since start (for stats and metrics)."""

    embedded: int = 0
    cache_hits: int = 0
    failures: int = 0
    seconds: float = 0.0
    last_error: str = ""


def path_dirs(path: str) -> list[str]:
    """Directory prefixes of a path, each ending in "/": "a/b/c.py" → ["a/", "a/b/"]. Stored by server
    backends so a path-prefix filter can be an exact-match filter on a directory."""
    parts = path.split("/")[:-1]
    return ["/".join(parts[: i + 1]) + "/" for i in range(len(parts))]


def prefix_directory(prefix: str) -> str:
    """The longest directory a prefix certainly lies in ("src/sea" → "src/"); "" when none."""
    return prefix[: prefix.rfind("/") + 1]


@dataclass(frozen=True, slots=True)
class ProfileFile:
    path: str
    language: str
    is_test: bool


@dataclass(frozen=True, slots=True)
class RepoProfile:
    """Indexed files and a sample of definitions spread over them (for convention detection)."""

    files: list[ProfileFile]
    symbols: list[Chunk]
