"""The index status behind the staleness line: refreshed in the background, one refresh per repo at a time."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from gateway.context import ContextQuery, ContextService
from gateway.domain.assembly import Staleness
from gateway.ports import IndexStatus
from gateway.repos import RepoDirectory, RepoInfo
from gateway.tests.fakes import FakeBackends
from gateway.tests.test_gateway_pipeline import shop
from kit.testing import eventually


class SlowIndexer:
    def __init__(self) -> None:
        self.calls = 0
        self.release = asyncio.Event()
        self.fail = False

    async def repo_status(self, repo: str, timeout: float) -> IndexStatus:
        assert repo == "shop"
        self.calls += 1
        await self.release.wait()
        if self.fail:
            raise ConnectionError("indexer down")
        return IndexStatus(indexed_commit="a" * 40, head_commit="b" * 40, branch="main")


async def refreshed(service: ContextService, repo: str) -> None:
    """Until the background refresh of `repo` has ended (a poll with a deadline, not a fixed sleep)."""
    await eventually(
        lambda: not service.index_status.refreshing(repo), 5, f"the status refresh of {repo}", 0.005
    )


async def test_concurrent_hooks_share_one_status_refresh_and_a_failure_is_retried_later() -> None:
    backends = SlowIndexer()
    ports: Any = SimpleNamespace(indexer=backends, search=None, graph=None, memory=None)
    service = ContextService(ports, repos=None, default_budget=1000, backend_deadline=0.2)  # type: ignore[arg-type]
    repo, query = RepoInfo("shop", "/src/shop", ""), ContextQuery(prompt="where is checkout")

    def hook() -> object:  # what each hook does with the cache: read it, then ask for a refresh
        staleness = service.index_status.staleness(repo, query.head_commit)
        service.index_status.refresh_if_stale(repo.name)
        return staleness

    backends.fail = True
    assert [hook() for _ in range(16)] == [None] * 16
    backends.release.set()
    await refreshed(service, "shop")
    assert backends.calls == 1  # sixteen hooks while the indexer was slow: one RepoStatus, not sixteen

    backends.fail, backends.release = False, asyncio.Event()
    assert [hook() for _ in range(16)] == [None] * 16
    backends.release.set()
    await refreshed(service, "shop")
    assert backends.calls == 2  # the failed refresh did not stop the next one
    staleness = hook()
    assert isinstance(staleness, Staleness) and staleness.indexed_commit == "a" * 40
    assert backends.calls == 2  # fresh: served from the cache


async def test_a_hook_asks_for_the_index_status_only_once_its_reply_is_built() -> None:
    # The refresh makes the indexer walk the repo's tree: it must not compete with the hook itself.
    backends = FakeBackends(shop())
    ctx = ContextService(backends, RepoDirectory(backends.indexer), 2500, 0.05)
    await asyncio.wait_for(ctx.build(ContextQuery(prompt="who calls charge_card?", repo="shop")), 10)
    await eventually(lambda: ("indexer", "repo_status") in backends.calls, 5, "the status refresh")
    first_status = backends.calls.index(("indexer", "repo_status"))
    assert {("search", "search"), ("memory", "recall")} <= set(backends.calls[:first_status])
