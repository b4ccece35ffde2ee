"""The index status behind the staleness line: refreshed in the background, one refresh per repo at a time."""

from __future__ import annotations

import asyncio
import time
from types import SimpleNamespace
from typing import Any

from gateway.context import ContextQuery, ContextService
from gateway.repos import RepoInfo
from reporecall.indexer.v1 import indexer_pb2


class SlowIndexer:
    def __init__(self) -> None:
        self.calls = 0
        self.release = asyncio.Event()
        self.fail = False
        self.indexer = SimpleNamespace(RepoStatus="RepoStatus")

    async def call(self, service: str, fn: Any, request: Any, timeout: float) -> Any:
        assert (service, fn) == ("indexer", "RepoStatus")
        self.calls += 1
        await self.release.wait()
        if self.fail:
            raise ConnectionError("indexer down")
        return indexer_pb2.RepoStatusResponse(indexed_commit="a" * 40, head_commit="b" * 40, branch="main")


async def refreshed(service: ContextService, repo: str) -> None:
    """Until the background refresh of `repo` has ended (a poll with a deadline, not a fixed sleep)."""
    deadline = time.monotonic() + 5
    while repo in service._refreshing:
        assert time.monotonic() < deadline, f"the status refresh of {repo} did not end"
        await asyncio.sleep(0.005)


async def test_concurrent_hooks_share_one_status_refresh_and_a_failure_is_retried_later() -> None:
    backends = SlowIndexer()
    service = ContextService(backends, repos=None, default_budget=1000, backend_deadline=0.2)  # type: ignore[arg-type]
    repo, query = RepoInfo("shop", "/src/shop", ""), ContextQuery(prompt="where is checkout")

    backends.fail = True
    assert [service._staleness(repo, query) for _ in range(16)] == [None] * 16
    backends.release.set()
    await refreshed(service, "shop")
    assert backends.calls == 1  # sixteen hooks while the indexer was slow: one RepoStatus, not sixteen

    backends.fail, backends.release = False, asyncio.Event()
    assert [service._staleness(repo, query) for _ in range(16)] == [None] * 16
    backends.release.set()
    await refreshed(service, "shop")
    assert backends.calls == 2  # the failed refresh did not stop the next one
    staleness = service._staleness(repo, query)
    assert staleness is not None and staleness.indexed_commit == "a" * 40
    assert backends.calls == 2  # fresh: served from the cache
