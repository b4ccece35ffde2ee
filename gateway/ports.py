"""The gateway's ports: what it needs from the four services, in domain types (no protobuf, no gRPC).

The production adapter is gateway.adapters.grpc_backends.GrpcBackends (stubs, breakers, deadlines and
every proto ⇄ domain translation); gateway/tests/fakes.py implements the same ports in memory.

Errors a port raises: `Unavailable` when the service is down, slow or its breaker is open (the hook
degrades), `Rejected` when the service answered that the request is wrong (the hook skips that piece).
The JSON API's pass-through calls (`SearchBackend.search_json` …) return JSON-ready dicts: those replies
go to clients as they are.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from gateway.domain.assembly import MemoryItem
from gateway.domain.fusion import CommunitySummary, HubSummary
from kit.domain import Chunk, Import, Symbol

JSON = dict[str, Any]


class Unavailable(Exception):
    """A backend call failed, timed out, or its breaker is open."""

    def __init__(self, service: str, reason: str) -> None:
        self.service, self.reason = service, reason
        super().__init__(f"{service}: {reason}")


class Rejected(Exception):
    """The service answered: the request was wrong or not supported (`code` is the gRPC code name)."""

    def __init__(self, service: str, code: str, detail: str) -> None:
        self.service, self.code, self.detail = service, code, detail
        super().__init__(f"{service}: {code}: {detail}")


@dataclass(frozen=True)
class RepoInfo:
    name: str
    path: str
    remote: str
    managed: bool = False  # cloned by the server: no laptop's Claude Code folder belongs to it


@dataclass(frozen=True)
class SearchHit:
    chunk: Chunk
    score: float
    keyword_rank: int = 0
    vector_rank: int = 0
    fused: float = 0.0
    adjustment: float = 0.0
    vector_score: float = 0.0  # cosine similarity of the prompt and the chunk (0 when vectors did not answer)


@dataclass(frozen=True)
class SearchResults:
    hits: list[SearchHit]
    # How likely the prompt is not about a codebase at all (0..1, the search service's model over its
    # query vector); None when it has none for its embedder or computed no vector.
    off_topic: float | None = None
    # The vector side was incomplete (the repo's vectors still backfilling, the vector store failed or is
    # absent): the hits' similarities are not the repo's best, so they are no evidence a prompt is unlike it.
    partial: bool = False


@dataclass(frozen=True)
class CallEdge:
    caller_id: str
    callee_id: str
    line: int
    ambiguous: bool = False  # the callee is one of several the call may reach: a neighbour, never a fact


@dataclass(frozen=True)
class CallTree:
    """Symbols around a seed with their signed depth (negative: callers), the edges between them, and
    the other definitions the seed's name may mean."""

    nodes: tuple[tuple[Symbol, int], ...] = ()
    edges: tuple[CallEdge, ...] = ()
    alternatives: tuple[Symbol, ...] = ()


@dataclass(frozen=True)
class Communities:
    summaries: tuple[CommunitySummary, ...] = ()
    hubs: tuple[HubSummary, ...] = ()
    hub_symbols: tuple[Symbol, ...] = ()


@dataclass(frozen=True)
class IndexStatus:
    indexed_commit: str = ""
    head_commit: str = ""
    branch: str = ""
    dirty_files: tuple[str, ...] = ()


@dataclass(frozen=True)
class RepoFile:
    path: str
    language: str
    is_test: bool


@dataclass(frozen=True)
class RepoProfile:
    files: tuple[RepoFile, ...] = ()
    symbols: tuple[Chunk, ...] = ()


@dataclass(frozen=True)
class RecallQuery:
    repo: str
    query: str
    branch: str = ""
    user: str = ""
    budget_tokens: int = 1
    limit: int = 10
    repo_path: str = ""


@dataclass(frozen=True)
class Observation:
    repo: str
    session_id: str
    branch: str
    user: str
    prompt: str
    route: str
    hit_paths: tuple[str, ...] = ()


@dataclass(frozen=True)
class NewMemory:
    repo: str
    name: str
    body: str
    description: str = ""
    memory_class: str = "fact"
    scope: str = "project"
    type: str = "project"
    user: str = ""
    branch: str = ""
    source: str = "team"
    related_files: tuple[str, ...] = field(default_factory=tuple)


class SearchBackend(Protocol):
    async def search(self, repo: str, query: str, limit: int, timeout: float) -> SearchResults: ...

    async def find_symbols(self, repo: str, name: str, limit: int, timeout: float) -> list[Chunk]:
        """Exact-name definitions of `name`."""
        ...

    async def get_chunks(self, repo: str, ids: Sequence[str], timeout: float) -> list[Chunk]: ...

    async def file_chunks(self, repo: str, path: str, timeout: float) -> list[Chunk]: ...

    async def file_lines(self, repo: str, paths: Sequence[str], timeout: float) -> dict[str, int]: ...

    async def repo_profile(self, repo: str, timeout: float) -> RepoProfile: ...

    async def search_json(
        self,
        repo: str,
        query: str,
        limit: int,
        mode: str,
        path_prefix: str,
        language: str,
        timeout: float,
    ) -> JSON: ...

    async def find_symbols_json(
        self, repo: str, name: str, match: str, limit: int, timeout: float
    ) -> JSON: ...

    async def feedback_json(
        self, repo: str, chunk_id: str, useful: bool, query: str, timeout: float
    ) -> JSON: ...

    async def stats_json(self, repo: str, timeout: float) -> JSON: ...


class GraphBackend(Protocol):
    async def call_tree(
        self, repo: str, seed_id: str, up: int, down: int, branch: int, timeout: float
    ) -> CallTree: ...

    async def communities(self, repo: str, limit: int, timeout: float) -> Communities: ...

    async def imports(self, repo: str, path: str, timeout: float) -> list[Import]: ...

    async def importers(self, repo: str, path: str, timeout: float) -> list[Import]: ...

    async def graph_json(self, call: str, repo: str, arguments: JSON, timeout: float) -> JSON:
        """A navigation call's reply as JSON: callers, callees, call_tree, call_path, imports, importers,
        communities. A symbol argument is a name, or `id:<chunk id>`."""
        ...


class MemoryBackend(Protocol):
    async def recall(self, query: RecallQuery, timeout: float) -> list[MemoryItem]: ...

    async def observe(self, observation: Observation, timeout: float) -> None: ...

    async def recall_json(self, query: RecallQuery, timeout: float) -> JSON: ...

    async def store_json(self, memory: NewMemory, admin: bool, timeout: float) -> JSON:
        """`user` (in the memory) and `admin` are the authenticated principal's: the service decides from them."""
        ...

    async def forget_json(
        self, repo: str, memory_id: str, user: str, admin: bool, timeout: float
    ) -> JSON: ...

    async def list_json(
        self, repo: str, user: str, branch: str, limit: int, include_inactive: bool, timeout: float
    ) -> JSON: ...

    async def compact_json(self, repo: str, user: str, admin: bool, timeout: float) -> JSON:
        """Only the memories `user` may change take part (every team one too for an admin)."""
        ...

    async def delete_repo(self, repo: str, timeout: float) -> int:
        """Deletes every memory of `repo`; how many."""
        ...


class IndexerBackend(Protocol):
    async def list_repos(self, timeout: float) -> list[RepoInfo]: ...

    async def repo_status(self, repo: str, timeout: float) -> IndexStatus: ...

    async def list_repos_json(self, timeout: float) -> JSON: ...

    async def repo_status_json(self, repo: str, timeout: float) -> JSON: ...

    async def index_paths_json(self, repo: str, paths: Sequence[str], timeout: float) -> JSON: ...

    async def register_json(self, name: str, path: str, git_url: str, timeout: float) -> JSON: ...

    async def remove_repo(self, repo: str, timeout: float) -> bool:
        """Removes `repo` from the indexer, search and graph; whether it was registered."""
        ...

    async def sync_json(self, repo: str, timeout: float) -> JSON: ...

    def index_repo(self, repo: str, full: bool) -> AsyncIterator[JSON]:
        """An index run's progress messages as they come."""
        ...


class Backends(Protocol):
    """The four services, their health, and shutdown."""

    @property
    def search(self) -> SearchBackend: ...

    @property
    def graph(self) -> GraphBackend: ...

    @property
    def memory(self) -> MemoryBackend: ...

    @property
    def indexer(self) -> IndexerBackend: ...

    async def health(self) -> dict[str, dict[str, str]]: ...

    async def close(self) -> None: ...
