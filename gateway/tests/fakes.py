"""In-memory fakes of the gateway's backend ports (gateway.ports): a small indexed repo in dicts.

`FakeBackends.down` names services that answer Unavailable, `slow` those that never answer (the
pipeline's deadline must cut them); every call is recorded in `calls` as (service, method).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from gateway.domain.assembly import MemoryItem
from gateway.ports import (
    JSON,
    CallEdge,
    CallTree,
    Communities,
    IndexStatus,
    NewMemory,
    Observation,
    RecallQuery,
    RepoInfo,
    RepoProfile,
    SearchHit,
    SearchResults,
    Unavailable,
)
from kit.domain import Chunk, ChunkKind, Import, Symbol


def make_chunk(
    name: str,
    path: str = "src/shop.py",
    line: int = 1,
    kind: ChunkKind = ChunkKind.FUNCTION,
    body: str = "",
    repo: str = "shop",
) -> Chunk:
    content = body or f"def {name}():\n    return {name!r}\n"
    return Chunk(
        id=f"{repo}:{path}:{name}",
        repo=repo,
        path=path,
        language="python",
        kind=kind,
        name=name,
        qualified_name=name,
        start_line=line,
        end_line=line + content.count("\n"),
        content=content,
        content_hash=name,
    )


@dataclass
class World:
    """What the fake services know."""

    repos: list[RepoInfo] = field(default_factory=list)
    chunks: dict[str, Chunk] = field(default_factory=dict)
    # query word → chunk ids, best first (search is a word lookup here).
    search_index: dict[str, list[str]] = field(default_factory=dict)
    # caller id → [(callee id, line)]
    calls: dict[str, list[tuple[str, int]]] = field(default_factory=dict)
    memories: list[MemoryItem] = field(default_factory=list)
    communities: Communities = field(default_factory=Communities)
    status: IndexStatus = field(default_factory=IndexStatus)
    # query → how likely search's model reads it as off-topic (none for any other query)
    off_topic: dict[str, float] = field(default_factory=dict)
    # chunk id → its cosine to any query (a vector hit); none: keyword hits only
    similarity: dict[str, float] = field(default_factory=dict)
    partial: bool = False  # search reports its vectors incomplete (backfilling)

    def add(self, *chunks: Chunk) -> None:
        for chunk in chunks:
            self.chunks[chunk.id] = chunk

    def by_name(self, name: str) -> Chunk:
        return next(c for c in self.chunks.values() if c.name == name)


class _Fake:
    def __init__(self, service: str, owner: FakeBackends) -> None:
        self.service, self.owner = service, owner

    async def _enter(self, method: str) -> None:
        self.owner.calls.append((self.service, method))
        if self.service in self.owner.down:
            raise Unavailable(self.service, "UNAVAILABLE")
        if self.service in self.owner.slow:
            await asyncio.Event().wait()  # never answers: only a deadline ends this call


class FakeSearch(_Fake):
    async def search(self, repo: str, query: str, limit: int, timeout: float) -> SearchResults:
        await self._enter("search")
        world, ids = self.owner.world, []
        for word in query.lower().replace("?", " ").split():
            ids += [i for i in world.search_index.get(word, []) if i not in ids]
        hits = [
            SearchHit(
                world.chunks[i],
                1.0 / (rank + 1),
                rank + 1,
                vector_rank=rank + 1 if i in world.similarity else 0,
                vector_score=world.similarity.get(i, 0.0),
            )
            for rank, i in enumerate(ids[:limit])
        ]
        return SearchResults(hits, world.off_topic.get(query), partial=world.partial)

    async def find_symbols(self, repo: str, name: str, limit: int, timeout: float) -> list[Chunk]:
        await self._enter("find_symbols")
        return [c for c in self.owner.world.chunks.values() if c.name == name][:limit]

    async def get_chunks(self, repo: str, ids: Sequence[str], timeout: float) -> list[Chunk]:
        await self._enter("get_chunks")
        self.owner.fetched.extend(ids)
        return [self.owner.world.chunks[i] for i in ids if i in self.owner.world.chunks]

    async def file_chunks(self, repo: str, path: str, timeout: float) -> list[Chunk]:
        await self._enter("file_chunks")
        return sorted(
            (c for c in self.owner.world.chunks.values() if c.path == path), key=lambda c: c.start_line
        )

    async def file_lines(self, repo: str, paths: Sequence[str], timeout: float) -> dict[str, int]:
        await self._enter("file_lines")
        lines: dict[str, int] = {}
        for chunk in self.owner.world.chunks.values():
            if chunk.path in paths:
                lines[chunk.path] = max(lines.get(chunk.path, 0), chunk.end_line)
        return lines

    async def repo_profile(self, repo: str, timeout: float) -> RepoProfile:
        await self._enter("repo_profile")
        return RepoProfile()

    async def search_json(self, *args: Any) -> JSON:
        await self._enter("search_json")
        return {}

    async def find_symbols_json(self, *args: Any) -> JSON:
        await self._enter("find_symbols_json")
        return {}

    async def feedback_json(self, *args: Any) -> JSON:
        await self._enter("feedback_json")
        return {}

    async def stats_json(self, *args: Any) -> JSON:
        await self._enter("stats_json")
        return {}


class FakeGraph(_Fake):
    async def call_tree(
        self, repo: str, seed_id: str, up: int, down: int, branch: int, timeout: float
    ) -> CallTree:
        await self._enter("call_tree")
        world = self.owner.world
        nodes: dict[str, tuple[Symbol, int]] = {seed_id: (world.chunks[seed_id].symbol(), 0)}
        edges: list[CallEdge] = []
        frontier = [seed_id]
        for level in range(1, down + 1):  # callees
            frontier = self._step(frontier, nodes, edges, level, branch, callers=False)
        frontier = [seed_id]
        for level in range(1, up + 1):  # callers
            frontier = self._step(frontier, nodes, edges, -level, branch, callers=True)
        return CallTree(tuple(nodes.values()), tuple(edges))

    def _step(
        self,
        frontier: list[str],
        nodes: dict[str, tuple[Symbol, int]],
        edges: list[CallEdge],
        depth: int,
        branch: int,
        callers: bool,
    ) -> list[str]:
        world, found = self.owner.world, []
        for node in frontier:
            if callers:
                pairs = [
                    (c, line) for c, out in world.calls.items() for callee, line in out if callee == node
                ]
            else:
                pairs = world.calls.get(node, [])
            for other, line in pairs[:branch]:
                edges.append(CallEdge(other, node, line) if callers else CallEdge(node, other, line))
                if other not in nodes:
                    nodes[other] = (world.chunks[other].symbol(), depth)
                    found.append(other)
        return found

    async def communities(self, repo: str, limit: int, timeout: float) -> Communities:
        await self._enter("communities")
        return self.owner.world.communities

    async def imports(self, repo: str, path: str, timeout: float) -> list[Import]:
        await self._enter("imports")
        return []

    async def importers(self, repo: str, path: str, timeout: float) -> list[Import]:
        await self._enter("importers")
        return []

    async def graph_json(self, call: str, repo: str, arguments: JSON, timeout: float) -> JSON:
        await self._enter(call)
        return {"call": call, **arguments}


class FakeMemory(_Fake):
    async def recall(self, query: RecallQuery, timeout: float) -> list[MemoryItem]:
        await self._enter("recall")
        self.owner.recalls.append(query)
        return self.owner.world.memories[: query.limit]

    async def observe(self, observation: Observation, timeout: float) -> None:
        await self._enter("observe")
        self.owner.observed.append(observation)

    async def recall_json(self, query: RecallQuery, timeout: float) -> JSON:
        await self._enter("recall_json")
        return {}

    async def store_json(self, memory: NewMemory, admin: bool, timeout: float) -> JSON:
        await self._enter("store_json")
        return {}

    async def forget_json(self, *args: Any) -> JSON:
        await self._enter("forget_json")
        return {}

    async def list_json(self, *args: Any) -> JSON:
        await self._enter("list_json")
        return {}

    async def compact_json(self, *args: Any) -> JSON:
        await self._enter("compact_json")
        return {}

    async def delete_repo(self, repo: str, timeout: float) -> int:
        await self._enter("delete_repo")
        return 0


class FakeIndexer(_Fake):
    async def list_repos(self, timeout: float) -> list[RepoInfo]:
        await self._enter("list_repos")
        return list(self.owner.world.repos)

    async def repo_status(self, repo: str, timeout: float) -> IndexStatus:
        await self._enter("repo_status")
        return self.owner.world.status

    async def list_repos_json(self, timeout: float) -> JSON:
        await self._enter("list_repos_json")
        return {"repos": [{"name": r.name, "path": r.path} for r in self.owner.world.repos]}

    async def repo_status_json(self, repo: str, timeout: float) -> JSON:
        await self._enter("repo_status_json")
        return {}

    async def index_paths_json(self, *args: Any) -> JSON:
        await self._enter("index_paths_json")
        return {}

    async def register_json(self, *args: Any) -> JSON:
        await self._enter("register_json")
        return {}

    async def remove_repo(self, repo: str, timeout: float) -> bool:
        await self._enter("remove_repo")
        return False

    async def sync_json(self, *args: Any) -> JSON:
        await self._enter("sync_json")
        return {}

    def index_repo(self, repo: str, full: bool) -> AsyncIterator[JSON]:
        async def progress() -> AsyncIterator[JSON]:
            await self._enter("index_repo")
            yield {"repo": repo}

        return progress()


class FakeBackends:
    """gateway.ports.Backends in memory."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.down: set[str] = set()
        self.slow: set[str] = set()
        self.calls: list[tuple[str, str]] = []
        self.fetched: list[str] = []
        self.recalls: list[RecallQuery] = []
        self.observed: list[Observation] = []
        self.search = FakeSearch("search", self)
        self.graph = FakeGraph("graph", self)
        self.memory = FakeMemory("memory", self)
        self.indexer = FakeIndexer("indexer", self)

    def called(self, service: str, method: str) -> int:
        return self.calls.count((service, method))

    async def health(self) -> dict[str, dict[str, str]]:
        return {
            name: {"status": "DOWN" if name in self.down else "SERVING"} for name in ("indexer", "search")
        }

    async def close(self) -> None:
        return None
