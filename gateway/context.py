"""Context assembly service: sanitise → route → fan out to search/graph/memory → fuse → budgeted block.

Stage 1 runs concurrently: hybrid search, seed resolution (FindSymbols), memory recall and, for the
architecture route, communities. Stage 2 needs the seed: a call tree (flow/bug) or direct callers and
callees (lookup), then the content of chunks that only graph or FindSymbols named. Every backend call
has its own deadline; a failed or slow backend is recorded as degraded and the block is built from what
arrived. The pure steps live in gateway/domain.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
import structlog

from gateway import metrics
from gateway.backends import Backends, Unavailable
from gateway.domain.accounting import FileSize, token_savings
from gateway.domain.assembly import (
    AssembledContext,
    GraphFacts,
    MemoryItem,
    Staleness,
    SymbolRef,
    assemble_context,
    empty_context,
)
from gateway.domain.fusion import (
    CommunitySummary,
    HubSummary,
    Neighbour,
    architecture_overview,
    fuse_candidates,
    mentions_tests,
    missing_content_ids,
    to_code_candidates,
)
from gateway.domain.routing import Route, RouteName, classify, resolve_follow_up
from gateway.domain.sanitize import sanitize_prompt
from gateway.repos import RepoDirectory, RepoInfo
from kit.convert import chunk_from_pb, symbol_from_pb
from kit.domain import Chunk, Symbol
from reporecall.graph.v1 import graph_pb2
from reporecall.indexer.v1 import indexer_pb2
from reporecall.memory.v1 import memory_pb2
from reporecall.search.v1 import search_pb2

log = structlog.get_logger("context")
T = TypeVar("T")

MEMORY_CLASS_NAMES = {1: "rule", 2: "fact", 3: "episode", 4: "working"}


@dataclass(frozen=True)
class RetrievalPolicy:
    """How much the hook asks each backend for, and what it remembers between prompts."""

    # Hybrid search hits per prompt, and code chunks fetched when fusion ranks an id not yet fetched.
    search_limit: int = 20
    fetch_missing_limit: int = 20
    # Definitions looked up per seed name.
    symbol_candidates: int = 3
    # Call tree around the seed: levels up/down for flow and bug prompts, else for lookups; fan-out.
    flow_depth: int = 2
    lookup_depth: int = 1
    call_tree_branch: int = 6
    # Memories: at most this many, within 1/memory_budget_divisor of the token budget.
    memory_limit: int = 6
    memory_budget_divisor: int = 4
    # Communities summarised for architecture prompts.
    communities_limit: int = 8
    # Sessions whose last route is remembered for follow-ups.
    session_memory: int = 2048
    # Seconds an index status (commit, dirty files) is reused on the hook path.
    status_ttl: float = 15.0


DEFAULT_POLICY = RetrievalPolicy()


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
    note: str = ""


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
    signals: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Gathered:
    search: list[Chunk] = field(default_factory=list)
    search_scores: dict[str, dict[str, Any]] = field(default_factory=dict)
    seeds: list[Symbol] = field(default_factory=list)
    callers: list[Neighbour] = field(default_factory=list)
    callees: list[Neighbour] = field(default_factory=list)
    facts: list[GraphFacts] = field(default_factory=list)
    hubs: list[Symbol] = field(default_factory=list)
    overview: str = ""
    memories: list[MemoryItem] = field(default_factory=list)
    chunks: dict[str, Chunk] = field(default_factory=dict)


class ContextService:
    def __init__(
        self,
        backends: Backends,
        repos: RepoDirectory,
        default_budget: int,
        backend_deadline: float,
        policy: RetrievalPolicy = DEFAULT_POLICY,
    ):
        self.policy = policy
        self.backends = backends
        self.repos = repos
        self.default_budget = default_budget
        self.deadline = backend_deadline
        self._sessions: OrderedDict[str, Route] = OrderedDict()
        self._status: dict[str, tuple[float, Staleness]] = {}
        self._branches: dict[str, str] = {}
        self._refreshing: set[str] = set()
        self._status_failing: set[str] = set()
        self._background: set[asyncio.Task[Any]] = set()
        self._file_sizes: OrderedDict[tuple[str, str], FileSize] = OrderedDict()
        # repo → route → {"replies", "injected", "spared"} since this gateway started (Prometheus keeps history).
        self.savings: dict[str, dict[str, dict[str, int]]] = {}

    # -- the one entry point ------------------------------------------------------------------------

    async def build(self, query: ContextQuery) -> ContextResult:
        started = time.perf_counter()
        result = ContextResult()
        sanitized = sanitize_prompt(query.prompt)
        route = resolve_follow_up(classify(sanitized.text), self._sessions.get(query.session_id))
        result.route, result.seeds = str(route.name), list(route.seeds)
        if route.name == RouteName.SKIP:
            return self._finish(result, empty_context(route), started)
        self._remember(query.session_id, route)
        try:
            repo = await self.repos.resolve(query.repo or None, query.cwd or None)
        except Unavailable as exc:
            result.partial, result.degraded = True, [exc.service]
            return self._finish(result, empty_context(route, partial=True), started)
        if repo is None:
            if query.repo or query.cwd:  # a misconfigured client must be visible: name what it sent
                log.warning(
                    "context.unknown_repo",
                    repo=query.repo[:200],
                    cwd=query.cwd[:500],
                    fix="register it (reporecall index PATH) or fix X-Reporecall-Repo / the working directory",
                )
            return self._finish(result, empty_context(route), started)
        result.repo = repo.name
        budget = query.budget_tokens or self.default_budget
        text = sanitized.text
        staleness = self._staleness(repo, query)
        if not query.branch and self._branches.get(repo.name):
            query = dataclasses.replace(query, branch=self._branches[repo.name])
        gathered = _Gathered()
        degraded: list[str] = []
        await self._stage_one(repo, route, text, query, budget, gathered, degraded)
        if not gathered.seeds:  # no named seed: stage two may infer one from the search results
            await self._stage_two(repo, route, gathered, degraded)
        fused = fuse_candidates(
            route,
            search=gathered.search,
            seeds=gathered.seeds,
            callers=gathered.callers,
            callees=gathered.callees,
            hubs=gathered.hubs,
            active_files=query.active_files,
            prefer_tests=mentions_tests(text),
        )
        await self._fetch_missing(
            repo, missing_content_ids(fused, limit=self.policy.fetch_missing_limit), gathered, degraded
        )
        assembled = assemble_context(
            route,
            to_code_candidates(fused, gathered.chunks),
            budget_tokens=budget,
            facts=gathered.facts,
            memories=gathered.memories,
            staleness=staleness,
            overview=gathered.overview,
            degraded=sorted(set(degraded)),
            repo=repo.name,
            repo_root=repo.path,
        )
        result.degraded = sorted(set(degraded))
        result.partial = bool(result.degraded)
        result.signals = {
            "search": gathered.search_scores,
            "seeds": [s.qualified_name for s in gathered.seeds],
        }
        self._observe(repo, query, route, assembled)
        self._spawn(self._account(repo, str(route.name), assembled))
        return self._finish(result, assembled, started)

    # -- stages -------------------------------------------------------------------------------------

    async def _stage_one(
        self,
        repo: RepoInfo,
        route: Route,
        text: str,
        query: ContextQuery,
        budget: int,
        gathered: _Gathered,
        degraded: list[str],
    ) -> None:
        async def seeds_then_call_tree() -> None:
            # A named seed's call tree does not wait for search (the slowest call): it starts once found.
            await self._resolve_seeds(repo, route.symbol_seeds[:3], gathered, degraded)
            if gathered.seeds:
                await self._stage_two(repo, route, gathered, degraded)

        jobs: list[Awaitable[None]] = [
            self._search(repo, text, gathered, degraded),
            seeds_then_call_tree(),
            self._recall(repo, text, query, budget, gathered, degraded),
        ]
        if route.name == RouteName.ARCHITECTURE:
            jobs.append(self._communities(repo, gathered, degraded))
        await asyncio.gather(*jobs)

    async def _stage_two(
        self, repo: RepoInfo, route: Route, gathered: _Gathered, degraded: list[str]
    ) -> None:
        seed = gathered.seeds[0] if gathered.seeds else None
        inferred = False
        if seed is None and route.name in (RouteName.FLOW, RouteName.BUG) and gathered.search:
            top = gathered.search[0]
            seed = top.symbol() if top.kind.value in ("function", "method", "class") else None
            inferred = True
        if seed is None:
            return
        depth = (
            self.policy.flow_depth
            if route.name in (RouteName.FLOW, RouteName.BUG)
            else self.policy.lookup_depth
        )
        request = graph_pb2.CallTreeRequest(
            repo=repo.name,
            seed=graph_pb2.SymbolRef(id=seed.id),
            up=depth,
            down=depth,
            branch=self.policy.call_tree_branch,
        )
        tree = await self._call("graph", self.backends.graph.CallTree, request, degraded)
        if tree is None:
            return
        symbols = {n.symbol.id: (symbol_from_pb(n.symbol), n.depth) for n in tree.nodes}
        callers: list[SymbolRef] = []
        callees: list[SymbolRef] = []
        for edge in tree.edges:
            if edge.callee_id == seed.id and edge.caller_id in symbols:
                caller = symbols[edge.caller_id][0]
                callers.append(SymbolRef(caller.qualified_name, caller.path, edge.line, caller.kind.value))
            elif edge.caller_id == seed.id and edge.callee_id in symbols:
                callee = symbols[edge.callee_id][0]
                callees.append(
                    SymbolRef(callee.qualified_name, callee.path, callee.start_line, callee.kind.value)
                )
        alternatives = [symbol_from_pb(s) for s in tree.alternatives]
        definitions = tuple(
            SymbolRef(s.qualified_name, s.path, s.start_line, s.kind.value) for s in [seed, *alternatives[:3]]
        )
        gathered.facts.append(
            GraphFacts(
                seed=seed.qualified_name,
                definitions=definitions,
                callers=tuple(_unique(callers)),
                callees=tuple(_unique(callees)),
            )
        )
        if inferred:
            return  # a guessed seed earns facts (names and lines) but not its neighbours' code
        for symbol, depth in symbols.values():
            if symbol.id == seed.id:
                continue
            target = gathered.callers if depth < 0 else gathered.callees
            target.append(Neighbour(symbol, abs(depth)))

    # -- backend calls ------------------------------------------------------------------------------

    async def _call(
        self, service: str, fn: Callable[..., Awaitable[T]], request: Any, degraded: list[str]
    ) -> T | None:
        try:
            return await asyncio.wait_for(
                self.backends.call(service, fn, request, self.deadline), self.deadline + 0.05
            )
        except (Unavailable, TimeoutError) as exc:
            degraded.append(service)
            log.warning("backend.degraded", backend=service, reason=str(exc) or "deadline")
        except grpc.aio.AioRpcError as exc:
            log.info("backend.rejected", backend=service, code=exc.code().name, detail=exc.details())
        return None

    async def _search(self, repo: RepoInfo, text: str, gathered: _Gathered, degraded: list[str]) -> None:
        reply = await self._call(
            "search",
            self.backends.search.Search,
            search_pb2.SearchRequest(query=text, repo=repo.name, limit=self.policy.search_limit),
            degraded,
        )
        if reply is None:
            return
        for hit in reply.hits:
            chunk = chunk_from_pb(hit.chunk)
            gathered.search.append(chunk)
            gathered.chunks[chunk.id] = chunk
            signals = hit.signals
            gathered.search_scores[chunk.id] = {
                "score": round(hit.score, 5),
                "keyword_rank": signals.keyword_rank,
                "vector_rank": signals.vector_rank,
                "fused": round(signals.fused, 5),
                "adjustment": round(signals.adjustment, 3),
            }

    async def _resolve_seeds(
        self, repo: RepoInfo, names: tuple[str, ...], gathered: _Gathered, degraded: list[str]
    ) -> None:
        async def one(name: str) -> list[Chunk]:
            reply = await self._call(
                "search",
                self.backends.search.FindSymbols,
                search_pb2.FindSymbolsRequest(
                    repo=repo.name,
                    name=name,
                    match=search_pb2.SYMBOL_MATCH_EXACT,
                    limit=self.policy.symbol_candidates,
                ),
                degraded,
            )
            return [chunk_from_pb(c) for c in reply.symbols] if reply else []

        for found in await asyncio.gather(*(one(name) for name in names)):
            for chunk in found:
                if chunk.kind.value in ("module", "file"):
                    continue  # seeds are definitions; a file-level match is not one
                gathered.seeds.append(chunk.symbol())

    async def _recall(
        self,
        repo: RepoInfo,
        text: str,
        query: ContextQuery,
        budget: int,
        gathered: _Gathered,
        degraded: list[str],
    ) -> None:
        request = memory_pb2.RecallRequest(
            repo=repo.name,
            query=text[:2000],
            branch=query.branch,
            user=query.user,
            budget_tokens=max(1, budget // self.policy.memory_budget_divisor),
            limit=self.policy.memory_limit,
            repo_path=repo.path if not repo.managed else "",
        )
        reply = await self._call("memory", self.backends.memory.Recall, request, degraded)
        for recalled in reply.memories if reply else []:
            memory = recalled.memory
            gathered.memories.append(
                MemoryItem(
                    memory.id,
                    memory.name,
                    MEMORY_CLASS_NAMES.get(getattr(memory, "class"), "fact"),
                    memory.body,
                    recalled.score,
                )
            )

    async def _communities(self, repo: RepoInfo, gathered: _Gathered, degraded: list[str]) -> None:
        reply = await self._call(
            "graph",
            self.backends.graph.Communities,
            graph_pb2.CommunitiesRequest(repo=repo.name, limit=self.policy.communities_limit),
            degraded,
        )
        if reply is None:
            return
        labels = {c.id: c.label for c in reply.communities}
        summaries = [
            CommunitySummary(
                c.label, c.size, tuple(c.dominant_paths), tuple(s.qualified_name for s in c.top_symbols)
            )
            for c in reply.communities
        ]
        hubs = [
            HubSummary(
                h.symbol.qualified_name,
                h.symbol.path,
                h.symbol.start_line,
                h.in_degree,
                h.out_degree,
                labels.get(h.community, ""),
            )
            for h in reply.hubs
        ]
        gathered.overview = architecture_overview(summaries, hubs, repo_root=repo.path)
        gathered.hubs = [symbol_from_pb(h.symbol) for h in reply.hubs[:6]]

    async def _fetch_missing(
        self, repo: RepoInfo, ids: list[str], gathered: _Gathered, degraded: list[str]
    ) -> None:
        ids = [i for i in ids if i not in gathered.chunks]
        if not ids:
            return
        reply = await self._call(
            "search",
            self.backends.search.GetChunks,
            search_pb2.GetChunksRequest(repo=repo.name, ids=ids),
            degraded,
        )
        for message in reply.chunks if reply else []:
            chunk = chunk_from_pb(message)
            gathered.chunks[chunk.id] = chunk

    # -- staleness, observation, bookkeeping -------------------------------------------------------

    def _staleness(self, repo: RepoInfo, query: ContextQuery) -> Staleness | None:
        """The last known index status (refreshed in the background, never awaited on the hook path)."""
        cached = self._status.get(repo.name)
        expired = cached is None or time.monotonic() - cached[0] > self.policy.status_ttl
        if expired and repo.name not in self._refreshing:  # one refresh in flight per repo, not one per hook
            self._refreshing.add(repo.name)
            self._spawn(self._refresh_status(repo))
        if cached is None:
            return None
        status = cached[1]
        head = query.head_commit or status.head_commit
        return Staleness(status.indexed_commit, head, status.dirty_files)

    async def _refresh_status(self, repo: RepoInfo) -> None:
        try:
            reply = await self.backends.call(
                "indexer",
                self.backends.indexer.RepoStatus,
                indexer_pb2.RepoStatusRequest(repo=repo.name),
                5.0,
            )
            self._status[repo.name] = (
                time.monotonic(),
                Staleness(reply.indexed_commit, reply.head_commit, tuple(reply.dirty_files[:20])),
            )
            self._branches[repo.name] = reply.branch
        except Exception as exc:  # staleness is a nicety: the next hook after this one tries again
            if repo.name not in self._status_failing:  # once per outage, not once per hook
                self._status_failing.add(repo.name)
                log.info("index_status.unavailable", repo=repo.name, error=str(exc) or type(exc).__name__)
        else:
            self._status_failing.discard(repo.name)
        finally:
            self._refreshing.discard(repo.name)

    def _observe(
        self, repo: RepoInfo, query: ContextQuery, route: Route, assembled: AssembledContext
    ) -> None:
        if not query.session_id:
            return
        request = memory_pb2.ObserveRequest(
            repo=repo.name,
            session_id=query.session_id,
            branch=query.branch,
            user=query.user,
            prompt=query.prompt[:2000],
            route=str(route.name),
            hit_paths=sorted({i.path for i in assembled.items if i.section == "code"})[:20],
        )
        self._spawn(self.backends.call("memory", self.backends.memory.Observe, request, 2.0))

    async def _account(self, repo: RepoInfo, route: str, assembled: AssembledContext) -> None:
        """Tokens injected vs. tokens of the file reads the block spared (DESIGN: token accounting).

        A file's read cost comes from its line count (one batched call for the files not seen before);
        tokenizing whole files here would cost more CPU than the rest of the reply."""
        paths = sorted({i.path for i in assembled.items if i.section == "code"})
        missing = [p for p in paths if (repo.name, p) not in self._file_sizes][:1000]
        if missing:
            reply = await self.backends.call(
                "search",
                self.backends.search.FileLines,
                search_pb2.FileLinesRequest(repo=repo.name, paths=missing),
                2.0,
            )
            for path in missing:  # a path the index does not know is remembered as size 0 (not asked again)
                self._file_sizes[(repo.name, path)] = FileSize(path, lines=reply.lines.get(path, 0))
            while len(self._file_sizes) > 20_000:
                self._file_sizes.popitem(last=False)
        sizes = [self._file_sizes[(repo.name, p)] for p in paths if (repo.name, p) in self._file_sizes]
        savings = token_savings(assembled.tokens, assembled.items, sizes)
        metrics.TOKENS_INJECTED.labels(repo.name, route).inc(savings.injected_tokens)
        metrics.TOKENS_SPARED.labels(repo.name, route).inc(savings.spared_tokens)
        totals = self.savings.setdefault(repo.name, {}).setdefault(
            route, {"replies": 0, "injected": 0, "spared": 0}
        )
        totals["replies"] += 1
        totals["injected"] += savings.injected_tokens
        totals["spared"] += savings.spared_tokens

    def spawn(self, work: Awaitable[Any]) -> None:
        """Run `work` in the background; its failure is logged by the callee, never raised here."""
        self._spawn(work)

    def _spawn(self, work: Awaitable[Any]) -> None:
        async def quietly() -> None:
            with contextlib.suppress(Exception):
                await work

        task = asyncio.ensure_future(quietly())
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _remember(self, session_id: str, route: Route) -> None:
        if not session_id:
            return
        self._sessions[session_id] = route
        self._sessions.move_to_end(session_id)
        while len(self._sessions) > self.policy.session_memory:
            self._sessions.popitem(last=False)

    @staticmethod
    def _finish(result: ContextResult, assembled: AssembledContext, started: float) -> ContextResult:
        result.text, result.tokens, result.chars = assembled.text, assembled.tokens, assembled.chars
        result.partial = result.partial or assembled.partial
        result.items = [_item(i) for i in assembled.items if i.section == "code"]
        result.cut = [_item(i) for i in assembled.cut]
        result.elapsed_ms = round((time.perf_counter() - started) * 1000, 2)
        return result


def _item(item: Any) -> ContextItem:
    return ContextItem(
        item.path,
        item.symbol,
        item.start_line,
        item.end_line,
        item.kind,
        round(item.score, 5),
        item.tokens,
        item.reason,
        item.chunk_id,
        getattr(item, "note", ""),
    )


def _unique(refs: list[SymbolRef]) -> list[SymbolRef]:
    seen: dict[tuple[str, str, int], SymbolRef] = {}
    for ref in refs:
        seen.setdefault((ref.name, ref.path, ref.line), ref)
    return list(seen.values())
