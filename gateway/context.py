"""Context assembly service: sanitise → route → fan out to search/graph/memory → fuse → budgeted block.

Every backend call has its own deadline; a failed or slow backend is recorded as degraded and the
block is built from what arrived.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import structlog

from gateway.backends import Backends, Unavailable
from gateway.repos import RepoDirectory, RepoInfo
from kit.convert import chunk_from_pb
from kit.domain import Chunk
from kit.tokens import count_tokens
from reporecall.search.v1 import search_pb2

log = structlog.get_logger("context")

CHAR_CAP = 10_000


@dataclass(frozen=True)
class ContextQuery:
    prompt: str
    repo: str = ""
    cwd: str = ""
    budget_tokens: int = 0
    active_files: tuple[str, ...] = ()
    head_commit: str = ""
    branch: str = ""
    session_id: str = ""
    user: str = ""


@dataclass
class ContextItem:
    path: str
    symbol: str
    start_line: int
    end_line: int
    kind: str
    score: float
    tokens: int
    reason: str
    chunk_id: str


@dataclass
class ContextResult:
    text: str = ""
    route: str = "skip"
    repo: str = ""
    seeds: list[str] = field(default_factory=list)
    partial: bool = False
    degraded: list[str] = field(default_factory=list)
    tokens: int = 0
    chars: int = 0
    items: list[ContextItem] = field(default_factory=list)
    cut: list[ContextItem] = field(default_factory=list)
    elapsed_ms: float = 0.0


class ContextService:
    def __init__(
        self, backends: Backends, repos: RepoDirectory, default_budget: int, backend_deadline: float
    ):
        self.backends = backends
        self.repos = repos
        self.default_budget = default_budget
        self.backend_deadline = backend_deadline

    async def build(self, query: ContextQuery) -> ContextResult:
        started = time.perf_counter()
        result = ContextResult()
        try:
            repo = await self.repos.resolve(query.repo or None, query.cwd or None)
        except Unavailable as exc:
            result.partial, result.degraded = True, [exc.service]
            return result
        if repo is None:
            return result
        result.repo = repo.name
        budget = query.budget_tokens or self.default_budget
        hits = await self._search(repo, query.prompt, result)
        result.route = "lookup"
        _assemble(result, repo, hits, budget)
        result.elapsed_ms = (time.perf_counter() - started) * 1000
        return result

    async def _search(self, repo: RepoInfo, prompt: str, result: ContextResult) -> list[tuple[Chunk, float]]:
        request = search_pb2.SearchRequest(query=prompt, repo=repo.name, limit=10)
        try:
            reply = await asyncio.wait_for(
                self.backends.call("search", self.backends.search.Search, request, self.backend_deadline),
                self.backend_deadline + 0.05,
            )
        except (Unavailable, TimeoutError) as exc:
            result.partial = True
            result.degraded.append("search")
            log.warning("backend.degraded", backend="search", reason=str(exc))
            return []
        return [(chunk_from_pb(hit.chunk), hit.score) for hit in reply.hits]


def _assemble(result: ContextResult, repo: RepoInfo, hits: list[tuple[Chunk, float]], budget: int) -> None:
    header = f"# RepoRecall context · repo {repo.name} · route {result.route}\n"
    parts = [header]
    used = count_tokens(header)
    chars = len(header)
    for chunk, score in hits:
        block = (
            f"\n{chunk.path}:{chunk.start_line}-{chunk.end_line} {chunk.kind} {chunk.qualified_name}\n"
            f"```{chunk.language}\n{chunk.content}\n```\n"
        )
        tokens = count_tokens(block)
        item = ContextItem(
            chunk.path,
            chunk.qualified_name,
            chunk.start_line,
            chunk.end_line,
            str(chunk.kind),
            score,
            tokens,
            "search",
            chunk.id,
        )
        if used + tokens > budget or chars + len(block) > CHAR_CAP:
            result.cut.append(item)
            continue
        parts.append(block)
        used += tokens
        chars += len(block)
        result.items.append(item)
    result.text = "".join(parts) if result.items else ""
    result.tokens = used if result.items else 0
    result.chars = len(result.text)
