"""The two sinks (search and graph) as one: every change goes to both, retried while a sink is unavailable.

A file's new state is sent to both sinks at once and counts only when both acknowledged (DESIGN.md §4)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import TypeVar

import structlog

from kit.domain import Chunk
from services.indexer.domain.model import DownstreamUnavailable
from services.indexer.engine.config import EngineConfig
from services.indexer.ports import GraphSink, SearchSink, SinkUnavailable

log = structlog.get_logger("indexer")

T = TypeVar("T")


class Downstream:
    def __init__(
        self,
        search: SearchSink,
        graph: GraphSink,
        config: EngineConfig,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.search = search
        self.graph = graph
        self.sleep = sleep
        self._config = config

    async def replace_file(
        self,
        repo: str,
        path: str,
        file_hash: str,
        chunks: tuple[Chunk, ...],
        call_sites: tuple,
        imports: tuple,
    ) -> None:
        symbols = tuple(chunk.symbol() for chunk in chunks)
        results = await asyncio.gather(
            self.with_retry(
                "search.upsert_file", lambda: self.search.upsert_file(repo, path, file_hash, chunks)
            ),
            self.with_retry(
                "graph.replace_file_graph",
                lambda: self.graph.replace_file_graph(repo, path, file_hash, symbols, call_sites, imports),
            ),
            return_exceptions=True,
        )
        raise_first(results)  # both calls ran to the end; report the first failure

    async def delete_files(self, repo: str, batch: list[str]) -> BaseException | None:
        """Delete the paths from both sinks; the first failure, or None when both acknowledged."""
        results = await asyncio.gather(
            self.with_retry("search.delete_files", partial(self.search.delete_files, repo, batch)),
            self.with_retry("graph.delete_files", partial(self.graph.delete_files, repo, batch)),
            return_exceptions=True,
        )
        return next((r for r in results if isinstance(r, BaseException)), None)

    async def delete_repo(self, name: str) -> None:
        results = await asyncio.gather(
            self.with_retry("search.delete_repo", partial(self.search.delete_repo, name)),
            self.with_retry("graph.delete_repo", partial(self.graph.delete_repo, name)),
            return_exceptions=True,
        )
        raise_first(results)

    async def with_retry(self, what: str, call: Callable[[], Awaitable[T]]) -> T:
        """Retry SinkUnavailable with exponential backoff and jitter; other errors fail at once."""
        delay = self._config.retry_initial_seconds
        attempts = max(1, self._config.send_attempts)
        for attempt in range(1, attempts + 1):
            try:
                return await call()
            except SinkUnavailable as exc:
                if attempt == attempts:
                    raise DownstreamUnavailable(
                        f"{what} unavailable after {attempts} attempts: {exc}"
                    ) from exc
                log.debug("index.retry", call=what, attempt=attempt, delay=round(delay, 2), error=str(exc))
                await self.sleep(delay * random.uniform(0.8, 1.2))
                delay = min(delay * 2, self._config.retry_max_seconds)
        raise AssertionError("unreachable")


def raise_first(results: Sequence[object]) -> None:
    for result in results:
        if isinstance(result, BaseException):
            raise result
