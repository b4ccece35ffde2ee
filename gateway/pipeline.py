"""The hook as named steps: gather evidence → relevance gate → expand the call graph → fetch missing code
→ assemble. The gate skips a prompt the router read as off-topic when the evidence already gathered
names nothing it talks about.

Each step takes what it needs and returns a value; a backend that failed or was too slow is named in the
value's `degraded` set (the block is built from what arrived, marked partial). Every call has its own
deadline (`Deadlines.backend`). The pure decisions (routing, fusion, budgets) live in gateway/domain.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field, replace
from itertools import chain
from typing import Any, TypeVar

import structlog

from gateway.call_graph import call_graph_facts, expansion_seed
from gateway.domain.assembly import (
    AssembledContext,
    GraphFacts,
    MemoryItem,
    Staleness,
    assemble_context,
    empty_context,
)
from gateway.domain.fusion import (
    Neighbour,
    architecture_overview,
    fuse_candidates,
    hubs_in_area,
    missing_content_ids,
    to_code_candidates,
)
from gateway.domain.routing import Route, RouteName
from gateway.domain.routing.relevance import (
    EVIDENCE_HITS,
    MODEL_CERTAIN,
    GateVerdict,
    gate,
    unknown_names,
    with_model_cue,
)
from gateway.domain.routing.seeds import lookup_limit, specific_definitions
from gateway.ports import (
    Backends,
    Communities,
    RecallQuery,
    Rejected,
    RepoInfo,
    SearchHit,
    SearchResults,
    Unavailable,
)
from kit.domain import Chunk, Symbol
from kit.text import asks_for_tests

log = structlog.get_logger("context")
WORKING = "working"
T = TypeVar("T")

_DEFINITION_KINDS = ("function", "method", "class")


@dataclass(frozen=True)
class RetrievalPolicy:
    """How much the hook asks each backend for, and what it remembers between prompts."""

    # Hybrid search hits per prompt, and code chunks fetched when fusion ranks an id not yet fetched.
    search_limit: int = 20
    fetch_missing_limit: int = 20
    # Definitions looked up per seed name, and seed names looked up per prompt.
    symbol_candidates: int = 3
    seed_names: int = 3
    # Call tree around the seed: levels up/down for flow and bug prompts, else for lookups; fan-out.
    flow_depth: int = 2
    lookup_depth: int = 1
    call_tree_branch: int = 6
    # Memories: at most this many, within 1/memory_budget_divisor of the token budget.
    memory_limit: int = 6
    memory_budget_divisor: int = 4
    # Communities summarised for architecture prompts, and hubs whose code may be shown.
    communities_limit: int = 8
    hub_candidates: int = 6
    # Hubs the overview lists when none is in the area search found.
    overview_hubs_outside_area: int = 3
    # Sessions whose last route is remembered for follow-ups.
    session_memory: int = 2048
    # Seconds an index status (commit, dirty files) is reused on the hook path.
    status_ttl: float = 15.0


DEFAULT_POLICY = RetrievalPolicy()


@dataclass(frozen=True)
class Request:
    """One hook's input to the pipeline (already routed, repo resolved, budget chosen)."""

    repo: RepoInfo
    route: Route
    text: str
    budget: int
    active_files: tuple[str, ...] = ()
    branch: str = ""
    user: str = ""


@dataclass(frozen=True)
class Neighbourhood:
    """What the call graph says around a seed: facts for the block, neighbours whose code may follow."""

    facts: GraphFacts
    callers: tuple[Neighbour, ...] = ()
    callees: tuple[Neighbour, ...] = ()


@dataclass(frozen=True)
class Evidence:
    search: tuple[SearchHit, ...] = ()
    seeds: tuple[Symbol, ...] = ()
    graph: Neighbourhood | None = None
    memories: tuple[MemoryItem, ...] = ()
    communities: Communities | None = None
    degraded: frozenset[str] = frozenset()
    off_topic_reading: float | None = None  # search's model: how likely the prompt is not about code
    search_partial: bool = False  # search's vectors were incomplete (`SearchResults.partial`)


@dataclass(frozen=True)
class Outcome:
    """The pipeline's result: the block, and what it was built from."""

    assembled: AssembledContext
    evidence: Evidence
    degraded: tuple[str, ...] = ()
    signals: dict[str, Any] = field(default_factory=dict)


class Attempt:
    """Runs backend calls under one deadline each; a failure becomes `None` plus a degraded name."""

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline

    async def __call__(self, service: str, work: Awaitable[T]) -> tuple[T | None, frozenset[str]]:
        try:
            return await asyncio.wait_for(work, self.deadline + 0.05), frozenset()
        except (Unavailable, TimeoutError) as exc:
            log.warning("backend.degraded", backend=service, reason=str(exc) or "deadline")
            return None, frozenset({service})
        except Rejected as exc:
            log.info("backend.rejected", backend=service, code=exc.code, detail=exc.detail)
            return None, frozenset()


class Pipeline:
    def __init__(self, backends: Backends, deadline: float, policy: RetrievalPolicy = DEFAULT_POLICY) -> None:
        self.backends, self.policy, self.deadline = backends, policy, deadline
        self.attempt = Attempt(deadline)

    async def run(self, request: Request, staleness: Staleness | None) -> Outcome:
        evidence = await self.gather_evidence(request)
        verdict = self.relevance_gate(request, evidence, staleness)
        gate_signals = {"gate": verdict.reason, "gate_matched": list(verdict.matched)} if verdict else {}
        if verdict is not None and verdict.skip:
            return Outcome(empty_context(RouteName.SKIP), evidence, (), gate_signals)
        if evidence.graph is None and not evidence.seeds:  # no named seed: infer one from search
            graph, missed = await self.expand_call_graph(request, _inferred_seed(request, evidence), True)
            evidence = replace(evidence, graph=graph, degraded=evidence.degraded | missed)
        overview, hubs = self.architecture_view(request, evidence)
        fused = fuse_candidates(
            request.route,
            search=[h.chunk for h in evidence.search],
            seeds=evidence.seeds,
            callers=evidence.graph.callers if evidence.graph else (),
            callees=evidence.graph.callees if evidence.graph else (),
            hubs=hubs,
            active_files=request.active_files,
            prefer_tests=asks_for_tests(request.text),
        )
        known = {h.chunk.id: h.chunk for h in evidence.search}
        wanted = missing_content_ids(fused, limit=self.policy.fetch_missing_limit)
        fetched, fetch_degraded = await self.fetch_missing_code(request.repo, wanted, known)
        degraded = tuple(sorted(evidence.degraded | fetch_degraded))
        assembled = assemble_context(
            request.route,
            to_code_candidates(fused, {**known, **fetched}, {h.chunk.id: h.score for h in evidence.search}),
            budget_tokens=request.budget,
            facts=[evidence.graph.facts] if evidence.graph else [],
            memories=evidence.memories,
            staleness=staleness,
            overview=overview,
            degraded=degraded,
            repo=request.repo.name,
            repo_root=request.repo.path,
            query=request.text,
        )
        signals = {
            "search": {h.chunk.id: _signals(h) for h in evidence.search},
            "seeds": [s.qualified_name for s in evidence.seeds],
            **gate_signals,
        }
        return Outcome(assembled, evidence, degraded, signals)

    # -- step 1: gather evidence ----------------------------------------------------------------------

    async def gather_evidence(self, request: Request) -> Evidence:
        """Search, named seeds (then their call graph, without waiting for search), memories and, for
        architecture prompts, communities — concurrently."""

        async def seeds_then_graph() -> tuple[tuple[Symbol, ...], Neighbourhood | None, frozenset[str]]:
            seeds, degraded = await self.resolve_seeds(request.repo, request.route.symbol_seeds)
            if not seeds:
                return seeds, None, degraded
            graph, more = await self.expand_call_graph(request, expansion_seed(seeds), False)
            return seeds, graph, degraded | more

        architecture = request.route.name == RouteName.ARCHITECTURE
        search, named, memories, communities = await asyncio.gather(
            self.search(request),
            seeds_then_graph(),
            self.recall(request),
            self.communities(request.repo) if architecture else _nothing(),
        )
        found, communities_degraded = communities
        return Evidence(
            search=tuple(search[0].hits) if search[0] else (),
            off_topic_reading=search[0].off_topic if search[0] else None,
            search_partial=bool(search[0] and search[0].partial),
            seeds=named[0],
            graph=named[1],
            memories=memories[0],
            communities=found,
            degraded=search[1] | named[2] | memories[1] | communities_degraded,
        )

    async def search(self, request: Request) -> tuple[SearchResults | None, frozenset[str]]:
        repo, limit = request.repo.name, self.policy.search_limit
        return await self.attempt(
            "search", self.backends.search.search(repo, request.text, limit, self.deadline)
        )

    async def resolve_seeds(
        self, repo: RepoInfo, names: Sequence[str]
    ) -> tuple[tuple[Symbol, ...], frozenset[str]]:
        """The definitions of the prompt's names that are specific in this repo (few definitions share
        them, see `specific_definitions`); a common name stays a search term only."""
        asked = names[: self.policy.seed_names]
        limit = lookup_limit(self.policy.symbol_candidates)  # room to count them past module/file chunks
        found = await asyncio.gather(
            *(
                self.attempt("search", self.backends.search.find_symbols(repo.name, n, limit, self.deadline))
                for n in asked
            )
        )
        seeds = seed_definitions(self.policy, asked, [chunks or () for chunks, _ in found])
        return seeds, frozenset().union(*(degraded for _, degraded in found))

    async def recall(self, request: Request) -> tuple[tuple[MemoryItem, ...], frozenset[str]]:
        query = RecallQuery(
            repo=request.repo.name,
            query=request.text[:2000],
            branch=request.branch,
            user=request.user,
            budget_tokens=max(1, request.budget // self.policy.memory_budget_divisor),
            limit=self.policy.memory_limit,
            repo_path=request.repo.path if not request.repo.managed else "",
        )
        memories, degraded = await self.attempt("memory", self.backends.memory.recall(query, self.deadline))
        return tuple(memories or ()), degraded

    async def communities(self, repo: RepoInfo) -> tuple[Communities | None, frozenset[str]]:
        """The repo's communities and hubs (for the overview, and hubs whose code may be shown)."""
        return await self.attempt(
            "graph", self.backends.graph.communities(repo.name, self.policy.communities_limit, self.deadline)
        )

    def architecture_view(self, request: Request, evidence: Evidence) -> tuple[str, tuple[Symbol, ...]]:
        """The overview text and the hubs whose code may be shown (fusion keeps those of the area search
        found). The overview lists the hubs of that area, since the repo's most connected symbols say
        nothing about this prompt — or, when none is in it, the few most connected ones."""
        found = evidence.communities
        if found is None:
            return "", ()
        search = [h.chunk for h in evidence.search]
        listed = hubs_in_area(found.hubs, search) or found.hubs[: self.policy.overview_hubs_outside_area]
        overview = architecture_overview(found.summaries, listed, repo_root=request.repo.path)
        return overview, found.hub_symbols[: self.policy.hub_candidates]

    def relevance_gate(
        self, request: Request, evidence: Evidence, staleness: Staleness | None = None
    ) -> GateVerdict | None:
        """For a prompt the router read as off-topic: does any search hit or recalled memory it already
        brought back (no extra call) name what the prompt talks about? `None` for every other prompt.

        An empty search is evidence only when the cached index status (`staleness`, no extra call)
        shows a finished index: a repo still indexing its first commit, or of unknown status, finds
        nothing for every prompt."""
        hits = evidence.search[:EVIDENCE_HITS]
        reading = evidence.off_topic_reading
        unknown: frozenset[str] = frozenset()
        if reading is not None and reading >= MODEL_CERTAIN:  # only a certain reading asks (`with_model_cue`)
            found = chain(
                ((h.chunk.qualified_name or h.chunk.name, h.chunk.path, h.chunk.content) for h in hits),
                ((s.qualified_name or s.name, s.path, "") for s in evidence.seeds),
            )
            unknown = unknown_names(request.route, found)
        route = with_model_cue(request.route, request.text, reading, unknown)
        if not route.off_topic:
            return None
        named = [h for h in hits if not h.chunk.is_test]  # a test's names and strings are fixture data
        names = [n for h in named for n in (h.chunk.qualified_name or h.chunk.name, h.chunk.path)]
        indexed = staleness is not None and bool(staleness.indexed_commit)
        searched = "search" not in evidence.degraded and (bool(hits) or indexed)
        # What people wrote about this repo (rules, facts, episodes); a working memory only lists where
        # recent prompts led, and its path words would vouch for any later prompt that shares one.
        memories = [f"{m.name}\n{m.body}" for m in evidence.memories if m.memory_class != WORKING]
        # No similarity while the repo's vectors are incomplete: the chunk most like the prompt may have none yet.
        similar = [] if evidence.search_partial else [h.vector_score for h in named if h.vector_rank]
        texts = [h.chunk.content for h in named]
        return gate(
            route, request.text, names, searched, texts, memories, similar, evidence.off_topic_reading
        )

    # -- step 2: expand the call graph ---------------------------------------------------------------

    async def expand_call_graph(
        self, request: Request, seed: Symbol | None, inferred: bool
    ) -> tuple[Neighbourhood | None, frozenset[str]]:
        """The seed's call tree as facts and neighbours. A guessed (`inferred`) seed earns facts (names
        and lines) but not its neighbours' code."""
        if seed is None:
            return None, frozenset()
        depth = (
            self.policy.flow_depth
            if request.route.name in (RouteName.FLOW, RouteName.BUG)
            else self.policy.lookup_depth
        )
        call = self.backends.graph.call_tree(
            request.repo.name, seed.id, depth, depth, self.policy.call_tree_branch, self.deadline
        )
        tree, degraded = await self.attempt("graph", call)
        if tree is None:
            return None, degraded
        facts = call_graph_facts(seed, tree)
        if inferred:
            return Neighbourhood(facts), degraded
        around = [(s, d) for s, d in {s.id: (s, d) for s, d in tree.nodes}.values() if s.id != seed.id]
        callers = tuple(Neighbour(s, -d) for s, d in around if d < 0)
        callees = tuple(Neighbour(s, d) for s, d in around if d >= 0)
        return Neighbourhood(facts, callers, callees), degraded

    # -- step 3: fetch missing code ------------------------------------------------------------------

    async def fetch_missing_code(
        self, repo: RepoInfo, ids: Sequence[str], known: dict[str, Chunk]
    ) -> tuple[dict[str, Chunk], frozenset[str]]:
        """The text of the ranked chunks only graph or FindSymbols named."""
        ids = [i for i in ids if i not in known]
        if not ids:
            return {}, frozenset()
        chunks, degraded = await self.attempt(
            "search", self.backends.search.get_chunks(repo.name, ids, self.deadline)
        )
        return {c.id: c for c in chunks or ()}, degraded


def seed_definitions(
    policy: RetrievalPolicy, names: Sequence[str], answers: Sequence[Sequence[Chunk]]
) -> tuple[Symbol, ...]:
    """The seeds among FindSymbols' answers (asked for `lookup_limit(policy.symbol_candidates)` each) to
    the prompt's first `policy.seed_names` names: the definitions of the names specific in this repo."""
    limit = lookup_limit(policy.symbol_candidates)
    return tuple(
        chunk.symbol()
        for name, chunks in zip(names, answers, strict=True)
        for chunk in specific_definitions(name, chunks, asked=limit)[: policy.symbol_candidates]
    )


def _inferred_seed(request: Request, evidence: Evidence) -> Symbol | None:
    """For flow and bug prompts without a named seed: the top search hit, when it is a definition."""
    if request.route.name not in (RouteName.FLOW, RouteName.BUG) or not evidence.search:
        return None
    top = evidence.search[0].chunk
    return top.symbol() if top.kind.value in _DEFINITION_KINDS else None


async def _nothing() -> tuple[Communities | None, frozenset[str]]:
    return None, frozenset()


def _signals(hit: SearchHit) -> dict[str, Any]:
    return {
        "score": round(hit.score, 5),
        "keyword_rank": hit.keyword_rank,
        "vector_rank": hit.vector_rank,
        "fused": round(hit.fused, 5),
        "adjustment": round(hit.adjustment, 3),
        "vector_score": round(hit.vector_score, 4),
    }
