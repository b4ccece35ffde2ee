"""The index status behind the staleness line: refreshed in the background, one refresh per repo at a time."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from gateway.context import ContextQuery, ContextService
from gateway.ports import IndexStatus
from gateway.repos import RepoInfo
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

    backends.fail = True
    assert [service.index_status.staleness(repo, query.head_commit) for _ in range(16)] == [None] * 16
    backends.release.set()
    await refreshed(service, "shop")
    assert backends.calls == 1  # sixteen hooks while the indexer was slow: one RepoStatus, not sixteen

    backends.fail, backends.release = False, asyncio.Event()
    assert [service.index_status.staleness(repo, query.head_commit) for _ in range(16)] == [None] * 16
    backends.release.set()
    await refreshed(service, "shop")
    assert backends.calls == 2  # the failed refresh did not stop the next one
    staleness = service.index_status.staleness(repo, query.head_commit)
    assert staleness is not None and staleness.indexed_commit == "a" * 40
    assert backends.calls == 2  # fresh: served from the cache
