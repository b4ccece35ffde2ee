"""The gateway's ports over gRPC: stubs, per-call deadlines, circuit breakers and every proto ⇄ domain
translation. No other gateway module imports generated code.

The breaker and refusal rules are gateway.adapters.grpc_client's.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field

import grpc
from google.protobuf.message import Message
from grpc_health.v1 import health_pb2, health_pb2_grpc

from gateway.adapters.grpc_client import (
    MEMORY_CLASS_NAMES,
    MEMORY_CLASSES,
    MEMORY_SCOPES,
    MEMORY_TYPES,
    SEARCH_MODES,
    SYMBOL_MATCHES,
    Breaker,
    ServiceClient,
    to_json,
)
from gateway.domain.assembly import MemoryItem
from gateway.domain.fusion import CommunitySummary, HubSummary
from gateway.ports import (
    JSON,
    CallEdge,
    CallTree,
    Communities,
    IndexStatus,
    NewMemory,
    Observation,
    RecallQuery,
    Rejected,
    RepoFile,
    RepoInfo,
    RepoProfile,
    SearchHit,
    SearchResults,
)
from kit.convert import chunk_from_pb, import_from_pb, symbol_from_pb
from kit.domain import Chunk, Import
from kit.grpc_client import open_channel
from reporecall.graph.v1 import graph_pb2, graph_pb2_grpc
from reporecall.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from reporecall.memory.v1 import memory_pb2, memory_pb2_grpc
from reporecall.search.v1 import search_pb2, search_pb2_grpc


def _ref(symbol: str) -> graph_pb2.SymbolRef:
    """A symbol by name (short or qualified), or by chunk id when written `id:<chunk id>`."""
    if symbol.startswith("id:"):
        return graph_pb2.SymbolRef(id=symbol[3:])
    return graph_pb2.SymbolRef(name=symbol)


class GrpcSearch(ServiceClient):
    async def search(self, repo: str, query: str, limit: int, timeout: float) -> SearchResults:
        request = search_pb2.SearchRequest(query=query, repo=repo, limit=limit)
        reply = await self.call("Search", request, timeout)
        hits = [
            SearchHit(
                chunk_from_pb(hit.chunk),
                hit.score,
                hit.signals.keyword_rank,
                hit.signals.vector_rank,
                hit.signals.fused,
                hit.signals.adjustment,
                hit.signals.vector_score,
            )
            for hit in reply.hits
        ]
        return SearchResults(
            hits, reply.off_topic if reply.HasField("off_topic") else None, partial=reply.partial
        )

    async def find_symbols(self, repo: str, name: str, limit: int, timeout: float) -> list[Chunk]:
        request = search_pb2.FindSymbolsRequest(
            repo=repo, name=name, match=search_pb2.SYMBOL_MATCH_EXACT, limit=limit
        )
        reply = await self.call("FindSymbols", request, timeout)
        return [chunk_from_pb(c) for c in reply.symbols]

    async def get_chunks(self, repo: str, ids: Sequence[str], timeout: float) -> list[Chunk]:
        reply = await self.call("GetChunks", search_pb2.GetChunksRequest(repo=repo, ids=list(ids)), timeout)
        return [chunk_from_pb(c) for c in reply.chunks]

    async def file_chunks(self, repo: str, path: str, timeout: float) -> list[Chunk]:
        reply = await self.call("FileChunks", search_pb2.FileChunksRequest(repo=repo, path=path), timeout)
        return [chunk_from_pb(c) for c in reply.chunks]

    async def file_lines(self, repo: str, paths: Sequence[str], timeout: float) -> dict[str, int]:
        reply = await self.call(
            "FileLines", search_pb2.FileLinesRequest(repo=repo, paths=list(paths)), timeout
        )
        return dict(reply.lines)

    async def repo_profile(self, repo: str, timeout: float) -> RepoProfile:
        reply = await self.call("RepoProfile", search_pb2.RepoProfileRequest(repo=repo), timeout)
        return RepoProfile(
            tuple(RepoFile(f.path, f.language, f.is_test) for f in reply.files),
            tuple(chunk_from_pb(c) for c in reply.symbols),
        )

    async def search_json(
        self,
        repo: str,
        query: str,
        limit: int,
        mode: str,
        path_prefix: str,
        language: str,
        timeout: float,
    ) -> JSON:
        request = search_pb2.SearchRequest(
            query=query,
            repo=repo,
            limit=limit,
            mode=SEARCH_MODES[mode],
            filters=search_pb2.SearchFilters(
                path_prefix=path_prefix, languages=[language] if language else []
            ),
        )
        reply = await self.call("Search", request, timeout)
        reply.ClearField("off_topic")  # the relevance gate's input, not part of the search API's answer
        return to_json(reply)

    async def find_symbols_json(self, repo: str, name: str, match: str, limit: int, timeout: float) -> JSON:
        request = search_pb2.FindSymbolsRequest(
            repo=repo, name=name, match=SYMBOL_MATCHES[match], limit=limit
        )
        return to_json(await self.call("FindSymbols", request, timeout))

    async def feedback_json(self, repo: str, chunk_id: str, useful: bool, query: str, timeout: float) -> JSON:
        request = search_pb2.FeedbackRequest(repo=repo, chunk_id=chunk_id, useful=useful, query=query)
        return to_json(await self.call("Feedback", request, timeout))

    async def stats_json(self, repo: str, timeout: float) -> JSON:
        return to_json(await self.call("Stats", search_pb2.StatsRequest(repo=repo), timeout))


# Edges naming exactly one definition; anything else (ambiguous, unspecified) is no fact.
_RESOLVED = frozenset(
    {graph_pb2.RESOLUTION_SAME_FILE, graph_pb2.RESOLUTION_IMPORTED, graph_pb2.RESOLUTION_GLOBAL_UNIQUE}
)


class GrpcGraph(ServiceClient):
    async def call_tree(
        self, repo: str, seed_id: str, up: int, down: int, branch: int, timeout: float
    ) -> CallTree:
        request = graph_pb2.CallTreeRequest(
            repo=repo, seed=graph_pb2.SymbolRef(id=seed_id), up=up, down=down, branch=branch
        )
        reply = await self.call("CallTree", request, timeout)
        return CallTree(
            tuple((symbol_from_pb(n.symbol), n.depth) for n in reply.nodes),
            tuple(
                CallEdge(e.caller_id, e.callee_id, e.line, e.resolution not in _RESOLVED) for e in reply.edges
            ),
            tuple(symbol_from_pb(s) for s in reply.alternatives),
        )

    async def communities(self, repo: str, limit: int, timeout: float) -> Communities:
        reply = await self.call("Communities", graph_pb2.CommunitiesRequest(repo=repo, limit=limit), timeout)
        labels = {c.id: c.label for c in reply.communities}
        return Communities(
            tuple(
                CommunitySummary(
                    c.label, c.size, tuple(c.dominant_paths), tuple(s.qualified_name for s in c.top_symbols)
                )
                for c in reply.communities
            ),
            tuple(
                HubSummary(
                    h.symbol.qualified_name,
                    h.symbol.path,
                    h.symbol.start_line,
                    h.in_degree,
                    h.out_degree,
                    labels.get(h.community, ""),
                )
                for h in reply.hubs
            ),
            tuple(symbol_from_pb(h.symbol) for h in reply.hubs),
        )

    async def imports(self, repo: str, path: str, timeout: float) -> list[Import]:
        reply = await self.call("Imports", graph_pb2.ImportsRequest(repo=repo, path=path), timeout)
        return [import_from_pb(i) for i in reply.imports]

    async def importers(self, repo: str, path: str, timeout: float) -> list[Import]:
        reply = await self.call("Importers", graph_pb2.ImportersRequest(repo=repo, path=path), timeout)
        return [import_from_pb(i) for i in reply.imports]

    async def graph_json(self, call: str, repo: str, arguments: JSON, timeout: float) -> JSON:
        a = arguments
        requests: dict[str, Callable[[], tuple[str, Message]]] = {
            "callers": lambda: (
                "Callers",
                graph_pb2.CallersRequest(repo=repo, symbol=_ref(a["symbol"]), depth=a["depth"], limit=50),
            ),
            "callees": lambda: (
                "Callees",
                graph_pb2.CalleesRequest(repo=repo, symbol=_ref(a["symbol"]), depth=a["depth"], limit=50),
            ),
            "call_tree": lambda: (
                "CallTree",
                graph_pb2.CallTreeRequest(
                    repo=repo, seed=_ref(a["symbol"]), up=a["up"], down=a["down"], branch=a["branch"]
                ),
            ),
            "call_path": lambda: (
                "ShortestPath",
                graph_pb2.ShortestPathRequest(
                    repo=repo, to=_ref(a["target"]), max_depth=a["max_depth"], **{"from": _ref(a["source"])}
                ),
            ),
            "imports": lambda: ("Imports", graph_pb2.ImportsRequest(repo=repo, path=a["path"])),
            "importers": lambda: ("Importers", graph_pb2.ImportersRequest(repo=repo, path=a["path"])),
            "communities": lambda: ("Communities", graph_pb2.CommunitiesRequest(repo=repo, limit=a["limit"])),
        }
        method, request = requests[call]()
        return to_json(await self.call(method, request, timeout))


def _recall_request(query: RecallQuery) -> memory_pb2.RecallRequest:
    return memory_pb2.RecallRequest(
        repo=query.repo,
        query=query.query,
        branch=query.branch,
        user=query.user,
        budget_tokens=query.budget_tokens,
        limit=query.limit,
        repo_path=query.repo_path,
    )


class GrpcMemory(ServiceClient):
    async def recall(self, query: RecallQuery, timeout: float) -> list[MemoryItem]:
        reply = await self.call("Recall", _recall_request(query), timeout)
        return [
            MemoryItem(
                r.memory.id,
                r.memory.name,
                MEMORY_CLASS_NAMES.get(r.memory.memory_class, "fact"),
                r.memory.body,
                r.score,
            )
            for r in reply.memories
        ]

    async def observe(self, observation: Observation, timeout: float) -> None:
        request = memory_pb2.ObserveRequest(
            repo=observation.repo,
            session_id=observation.session_id,
            branch=observation.branch,
            user=observation.user,
            prompt=observation.prompt,
            route=observation.route,
            hit_paths=list(observation.hit_paths),
        )
        await self.call("Observe", request, timeout)

    async def recall_json(self, query: RecallQuery, timeout: float) -> JSON:
        return to_json(await self.call("Recall", _recall_request(query), timeout))

    async def store_json(self, memory: NewMemory, admin: bool, timeout: float) -> JSON:
        message = memory_pb2.Memory(
            repo=memory.repo,
            name=memory.name,
            body=memory.body,
            description=memory.description,
            type=MEMORY_TYPES[memory.type],
            scope=MEMORY_SCOPES[memory.scope],
            user=memory.user,
            branch=memory.branch,
            source=memory.source,
            related_files=list(memory.related_files),
            memory_class=MEMORY_CLASSES[memory.memory_class],
        )
        return to_json(
            await self.call("Store", memory_pb2.StoreRequest(memory=message, admin=admin), timeout)
        )

    async def forget_json(self, repo: str, memory_id: str, user: str, admin: bool, timeout: float) -> JSON:
        request = memory_pb2.ForgetRequest(repo=repo, id=memory_id, user=user, admin=admin)
        return to_json(await self.call("Forget", request, timeout))

    async def list_json(
        self, repo: str, user: str, branch: str, limit: int, include_inactive: bool, timeout: float
    ) -> JSON:
        request = memory_pb2.ListRequest(
            repo=repo, user=user, branch=branch, limit=limit, include_inactive=include_inactive
        )
        return to_json(await self.call("List", request, timeout))

    async def compact_json(self, repo: str, user: str, admin: bool, timeout: float) -> JSON:
        request = memory_pb2.CompactRequest(repo=repo, user=user, admin=admin)
        return to_json(await self.call("Compact", request, timeout))

    async def delete_repo(self, repo: str, timeout: float) -> int:
        reply = await self.call("DeleteRepo", memory_pb2.DeleteRepoRequest(repo=repo), timeout)
        return int(reply.deleted)


class GrpcIndexer(ServiceClient):
    async def list_repos(self, timeout: float) -> list[RepoInfo]:
        reply = await self.call("ListRepos", indexer_pb2.ListReposRequest(), timeout)
        return [RepoInfo(r.name, r.path, r.remote, r.managed) for r in reply.repos]

    async def repo_status(self, repo: str, timeout: float) -> IndexStatus:
        reply = await self.call("RepoStatus", indexer_pb2.RepoStatusRequest(repo=repo), timeout)
        return IndexStatus(reply.indexed_commit, reply.head_commit, reply.branch, tuple(reply.dirty_files))

    async def list_repos_json(self, timeout: float) -> JSON:
        return to_json(await self.call("ListRepos", indexer_pb2.ListReposRequest(), timeout))

    async def repo_status_json(self, repo: str, timeout: float) -> JSON:
        return to_json(await self.call("RepoStatus", indexer_pb2.RepoStatusRequest(repo=repo), timeout))

    async def index_paths_json(self, repo: str, paths: Sequence[str], timeout: float) -> JSON:
        request = indexer_pb2.IndexPathsRequest(repo=repo, paths=list(paths))
        return to_json(await self.call("IndexPaths", request, timeout))

    async def register_json(self, name: str, path: str, git_url: str, timeout: float) -> JSON:
        request = indexer_pb2.RegisterRepoRequest(name=name, path=path, git_url=git_url)
        return to_json(await self.call("RegisterRepo", request, timeout))

    async def remove_repo(self, repo: str, timeout: float) -> bool:
        reply = await self.call("RemoveRepo", indexer_pb2.RemoveRepoRequest(repo=repo), timeout)
        return bool(reply.removed)

    async def sync_json(self, repo: str, timeout: float) -> JSON:
        return to_json(await self.call("SyncRepo", indexer_pb2.SyncRepoRequest(repo=repo), timeout))

    def index_repo(self, repo: str, full: bool) -> AsyncIterator[JSON]:
        call = self.stub.IndexRepo(indexer_pb2.IndexRepoRequest(repo=repo, full=full))

        async def progress() -> AsyncIterator[JSON]:
            try:
                async for message in call:
                    yield to_json(message)
            except grpc.aio.AioRpcError as exc:
                raise Rejected(self.service, exc.code().name, exc.details() or "") from None

        return progress()


@dataclass
class GrpcBackends:
    """The four services over gRPC (gateway.ports.Backends)."""

    indexer_addr: str
    search_addr: str
    graph_addr: str
    memory_addr: str
    # The deployment's secret, presented to every service (kit.service_auth).
    service_token: str = ""
    breakers: dict[str, Breaker] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # No transparent retries on the hook path: a retry would blow the deadline; the breaker decides.
        self._channels = {
            "indexer": open_channel(self.indexer_addr, token=self.service_token),
            "search": open_channel(self.search_addr, token=self.service_token, retries=False),
            "graph": open_channel(self.graph_addr, token=self.service_token, retries=False),
            "memory": open_channel(self.memory_addr, token=self.service_token, retries=False),
        }
        for name in self._channels:
            self.breakers.setdefault(name, Breaker())
        channels, breakers = self._channels, self.breakers
        self.search = GrpcSearch(
            "search", search_pb2_grpc.SearchServiceStub(channels["search"]), breakers["search"]
        )
        self.graph = GrpcGraph("graph", graph_pb2_grpc.GraphServiceStub(channels["graph"]), breakers["graph"])
        self.memory = GrpcMemory(
            "memory", memory_pb2_grpc.MemoryServiceStub(channels["memory"]), breakers["memory"]
        )
        self.indexer = GrpcIndexer(
            "indexer", indexer_pb2_grpc.IndexerServiceStub(channels["indexer"]), breakers["indexer"]
        )

    async def health(self) -> dict[str, dict[str, str]]:
        """Standard gRPC health of every backend, checked concurrently."""

        async def check(name: str) -> tuple[str, dict[str, str]]:
            stub = health_pb2_grpc.HealthStub(self._channels[name])
            address = getattr(self, f"{name}_addr")
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=1.0)
            except grpc.aio.AioRpcError as exc:
                return name, {"status": "DOWN", "address": address, "detail": exc.code().name}
            return name, {
                "status": health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status),
                "address": address,
            }

        return dict(await asyncio.gather(*(check(name) for name in self._channels)))

    async def close(self) -> None:
        for channel in self._channels.values():
            await channel.close()
