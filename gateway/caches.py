"""What the hook remembers between prompts: each cache a small named helper with its own bound."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict
from collections.abc import Awaitable
from typing import Any

import structlog

from gateway.domain.accounting import FileSize
from gateway.domain.assembly import Staleness
from gateway.domain.routing import Route
from gateway.ports import IndexerBackend, RepoInfo, SearchBackend

log = structlog.get_logger("context")


class BackgroundTasks:
    """Work that must not delay a reply; its failure is logged by the callee, never raised here."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, work: Awaitable[Any]) -> None:
        async def quietly() -> None:
            with contextlib.suppress(Exception):
                await work

        task = asyncio.ensure_future(quietly())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


class SessionRoutes:
    """The last route of each recent session (for follow-up prompts); the least recent is forgotten."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._routes: OrderedDict[str, Route] = OrderedDict()

    def get(self, session_id: str) -> Route | None:
        return self._routes.get(session_id)

    def remember(self, session_id: str, route: Route) -> None:
        if not session_id:
            return
        self._routes[session_id] = route
        self._routes.move_to_end(session_id)
        while len(self._routes) > self.capacity:
            self._routes.popitem(last=False)


class IndexStatusCache:
    """The last known index status per repo (commit, branch, dirty files): refreshed in the background
    when older than `ttl`, one refresh per repo at a time, never awaited on the hook path.

    A hook reads the status first (`staleness`) and asks for a refresh only once its reply is built
    (`refresh_if_stale`): the refresh makes the indexer walk the repo's tree for dirty files (~0.4 s of
    CPU for 1,000 files), which would otherwise compete with the very hook that triggered it."""

    def __init__(self, indexer: IndexerBackend, tasks: BackgroundTasks, ttl: float) -> None:
        self.indexer, self.tasks, self.ttl = indexer, tasks, ttl
        self._status: dict[str, tuple[float, Staleness]] = {}
        self._branches: dict[str, str] = {}
        self._refreshing: set[str] = set()
        self._failing: set[str] = set()

    def refreshing(self, repo: str) -> bool:
        """A background refresh of `repo` is in flight."""
        return repo in self._refreshing

    def staleness(self, repo: RepoInfo, head_commit: str = "") -> Staleness | None:
        """The cached status (None until the first refresh has answered); never calls the indexer."""
        cached = self._status.get(repo.name)
        if cached is None:
            return None
        status = cached[1]
        return Staleness(status.indexed_commit, head_commit or status.head_commit, status.dirty_files)

    def refresh_if_stale(self, repo: str) -> None:
        """Start a background refresh when the cached status is missing or older than `ttl`."""
        cached = self._status.get(repo)
        expired = cached is None or time.monotonic() - cached[0] > self.ttl
        if expired and repo not in self._refreshing:  # one refresh in flight per repo, not one per hook
            self._refreshing.add(repo)
            self.tasks.spawn(self._refresh(repo))

    def branch(self, repo: str) -> str:
        """The branch the indexer last reported for `repo` ("" when unknown)."""
        return self._branches.get(repo, "")

    async def _refresh(self, repo: str) -> None:
        try:
            reply = await self.indexer.repo_status(repo, 5.0)
            self._status[repo] = (
                time.monotonic(),
                Staleness(reply.indexed_commit, reply.head_commit, tuple(reply.dirty_files[:20])),
            )
            self._branches[repo] = reply.branch
        except Exception as exc:  # staleness is a nicety: the next hook after this one tries again
            if repo not in self._failing:  # once per outage, not once per hook
                self._failing.add(repo)
                log.info("index_status.unavailable", repo=repo, error=str(exc) or type(exc).__name__)
        else:
            self._failing.discard(repo)
        finally:
            self._refreshing.discard(repo)


class FileSizeCache:
    """Line counts of indexed files (the cost of reading them), asked once per file, bounded."""

    def __init__(self, search: SearchBackend, capacity: int = 20_000) -> None:
        self.search, self.capacity = search, capacity
        self._sizes: OrderedDict[tuple[str, str], FileSize] = OrderedDict()

    async def sizes(self, repo: str, paths: list[str]) -> list[FileSize]:
        missing = [p for p in paths if (repo, p) not in self._sizes][:1000]
        if missing:
            lines = await self.search.file_lines(repo, missing, 2.0)
            for path in missing:  # a path the index does not know is remembered as size 0 (not asked again)
                self._sizes[(repo, path)] = FileSize(path, lines=lines.get(path, 0))
            while len(self._sizes) > self.capacity:
                self._sizes.popitem(last=False)
        return [self._sizes[(repo, p)] for p in paths if (repo, p) in self._sizes]
