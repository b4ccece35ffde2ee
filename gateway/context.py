"""The context operation behind the hook, MCP get_context, `reporecall explain` and gRPC Context:
sanitise → route → resolve the repo → the pipeline (gateway.pipeline) → one log line, accounting.

What it remembers between prompts (sessions' last routes, index status, file sizes, token savings) lives
in gateway.caches; the steps that talk to the backends live in gateway.pipeline.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable
from dataclasses import dataclass, field, replace
from typing import Any

import structlog

from gateway import metrics
from gateway.caches import BackgroundTasks, FileSizeCache, IndexStatusCache, SessionRoutes
from gateway.domain.accounting import token_savings
from gateway.domain.assembly import AssembledContext, ContextItem, empty_context
from gateway.domain.routing import Route, RouteName, classify, resolve_follow_up
from gateway.domain.sanitize import sanitize_prompt
from gateway.pipeline import DEFAULT_POLICY, Pipeline, Request, RetrievalPolicy
from gateway.ports import Backends, Observation, RepoInfo, Unavailable
from gateway.repos import RepoDirectory

log = structlog.get_logger("context")

__all__ = ["ContextItem", "ContextQuery", "ContextResult", "ContextService", "RetrievalPolicy"]


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


class Savings:
    """Tokens injected vs. tokens of file reads spared, per repo and route, since this gateway started
    (Prometheus keeps the history)."""

    def __init__(self) -> None:
        self.totals: dict[str, dict[str, dict[str, int]]] = {}

    def add(self, repo: str, route: str, injected: int, spared: int) -> None:
        metrics.TOKENS_INJECTED.labels(repo, route).inc(injected)
        metrics.TOKENS_SPARED.labels(repo, route).inc(spared)
        totals = self.totals.setdefault(repo, {}).setdefault(
            route, {"replies": 0, "injected": 0, "spared": 0}
        )
        totals["replies"] += 1
        totals["injected"] += injected
        totals["spared"] += spared


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
        self.pipeline = Pipeline(backends, backend_deadline, policy)
        self.tasks = BackgroundTasks()
        self.sessions = SessionRoutes(policy.session_memory)
        self.index_status = IndexStatusCache(backends.indexer, self.tasks, policy.status_ttl)
        self.file_sizes = FileSizeCache(backends.search)
        self._savings = Savings()

    @property
    def savings(self) -> dict[str, dict[str, dict[str, int]]]:
        """repo → route → {"replies", "injected", "spared"} since this gateway started."""
        return self._savings.totals

    async def build(self, query: ContextQuery) -> ContextResult:
        started = time.perf_counter()
        result = await self._build(query)
        if result.repo:  # once the reply is built: see IndexStatusCache
            self.index_status.refresh_if_stale(result.repo)
        result.elapsed_ms = round((time.perf_counter() - started) * 1000, 2)
        describe_in_request_log(result)
        return result

    async def _build(self, query: ContextQuery) -> ContextResult:
        sanitized = sanitize_prompt(query.prompt)
        route = resolve_follow_up(classify(sanitized.text), self.sessions.get(query.session_id))
        result = ContextResult(route=str(route.name), seeds=list(route.seeds))
        if route.name == RouteName.SKIP:
            return _finish(result, empty_context(route))
        self.sessions.remember(query.session_id, route)
        try:
            repo = await self.repos.resolve(query.repo or None, query.cwd or None)
        except Unavailable as exc:
            result.partial, result.degraded = True, [exc.service]
            return _finish(result, empty_context(route, partial=True))
        if repo is None:
            if query.repo or query.cwd:  # a misconfigured client must be visible: name what it sent
                log.warning(
                    "context.unknown_repo",
                    repo=query.repo[:200],
                    cwd=query.cwd[:500],
                    fix="register it (reporecall index PATH) or fix X-Reporecall-Repo / the working directory",
                )
            return _finish(result, empty_context(route))
        result.repo = repo.name
        staleness = self.index_status.staleness(repo, query.head_commit)
        if not query.branch and self.index_status.branch(repo.name):
            query = replace(query, branch=self.index_status.branch(repo.name))
        request = Request(
            repo=repo,
            route=route,
            text=sanitized.text,
            budget=query.budget_tokens or self.default_budget,
            active_files=query.active_files,
            branch=query.branch,
            user=query.user,
        )
        outcome = await self.pipeline.run(request, staleness)
        if outcome.assembled.route == RouteName.SKIP:  # the relevance gate: off-topic after all
            # remembered as a skip, so "more" after it is no follow-up of the cued lookup
            self.sessions.remember(query.session_id, replace(route, name=RouteName.SKIP, seeds=()))
            result.route, result.seeds, result.signals = str(RouteName.SKIP), [], outcome.signals
            return _finish(result, outcome.assembled)
        result.degraded = list(outcome.degraded)
        result.partial = bool(result.degraded)
        result.signals = outcome.signals
        self._observe(repo, query, route, outcome.assembled)
        self.tasks.spawn(self._account(repo, str(route.name), outcome.assembled))
        return _finish(result, outcome.assembled)

    def spawn(self, work: Awaitable[Any]) -> None:
        """Run `work` in the background; its failure is logged by the callee, never raised here."""
        self.tasks.spawn(work)

    def _observe(
        self, repo: RepoInfo, query: ContextQuery, route: Route, assembled: AssembledContext
    ) -> None:
        if not query.session_id:
            return
        observation = Observation(
            repo=repo.name,
            session_id=query.session_id,
            branch=query.branch,
            user=query.user,
            prompt=query.prompt[:2000],
            route=str(route.name),
            hit_paths=tuple(sorted({i.path for i in assembled.items if i.section == "code"})[:20]),
        )
        self.tasks.spawn(self.backends.memory.observe(observation, 2.0))

    async def _account(self, repo: RepoInfo, route: str, assembled: AssembledContext) -> None:
        """Tokens injected vs. tokens of the file reads the block spared (DESIGN: token accounting).

        A file's read cost comes from its line count (one batched call for the files not seen before);
        tokenizing whole files here would cost more CPU than the rest of the reply."""
        paths = sorted({i.path for i in assembled.items if i.section == "code"})
        sizes = await self.file_sizes.sizes(repo.name, paths)
        savings = token_savings(assembled.tokens, assembled.items, sizes)
        self._savings.add(repo.name, route, savings.injected_tokens, savings.spared_tokens)


def describe_in_request_log(result: ContextResult) -> None:
    """Adds the context's route, repo, tokens injected and degraded services to the request's one log
    line (the HTTP middleware's, or the gRPC interceptor's): bound to the request's log context."""
    structlog.contextvars.bind_contextvars(
        context_route=result.route, repo=result.repo, tokens_injected=result.tokens, degraded=result.degraded
    )


def _finish(result: ContextResult, assembled: AssembledContext) -> ContextResult:
    result.text, result.tokens, result.chars = assembled.text, assembled.tokens, assembled.chars
    result.partial = result.partial or assembled.partial
    result.items = [_rounded(i) for i in assembled.items if i.section == "code"]
    result.cut = [_rounded(i) for i in assembled.cut]
    return result


def _rounded(item: ContextItem) -> ContextItem:
    return replace(item, score=round(item.score, 5))
