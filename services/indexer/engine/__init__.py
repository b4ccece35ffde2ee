"""IndexerEngine: registers repos, runs indexing, reports status, and (optionally) watches registered repos.

A thin façade for the servicer over one class per use case:

- `registry.RepoRegistry`     register (working trees, git URLs), list, get, remove; pull managed clones
- `run.IndexRuns`             index runs and index_paths: scan → plan → `pipeline.FilePipeline` → delete
- `status.RepoStatusReader`   counts, HEAD, branch, dirty files

Every part depends on the ports (services/indexer/ports.py) only; bootstrap.py wires the adapters
(`indexer_engine(...)`: git, the file tree on disk, the watcher).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from pathlib import Path

from services.indexer.domain.model import IndexPathsResult, IndexProgress, RepoRecord, RepoStatus
from services.indexer.domain.scanner import TreeScanner
from services.indexer.engine.config import (
    EngineConfig,
    ImportResolver,
    default_import_resolver,
    has_known_language,
)
from services.indexer.engine.downstream import Downstream
from services.indexer.engine.pipeline import FilePipeline
from services.indexer.engine.registry import RepoRegistry
from services.indexer.engine.run import IndexRuns
from services.indexer.engine.state import RepoLocks
from services.indexer.engine.status import RepoStatusReader
from services.indexer.ports import FileTree, GitRepos, GraphSink, Manifest, RepoWatch, SearchSink
from services.indexer.worker import ParseFn, default_parse

__all__ = ["EngineConfig", "ImportResolver", "IndexerEngine", "WatcherFactory"]

# (index_paths, reindex, make_scanner, debounce_ms) → a started watcher (services/indexer/watch.py)
WatcherFactory = Callable[..., RepoWatch]


class IndexerEngine:
    def __init__(
        self,
        manifest: Manifest,
        search: SearchSink,
        graph: GraphSink,
        *,
        git: GitRepos,
        open_tree: Callable[[Path], FileTree],
        watcher: WatcherFactory | None = None,
        config: EngineConfig | None = None,
        executor_factory: Callable[[], Executor] | None = None,
        parse: ParseFn = default_parse,
        accept: Callable[[str], bool] | None = None,
        resolve_imports: ImportResolver | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        watch_debounce_ms: int = 300,
    ) -> None:
        self.manifest = manifest
        self.search = search
        self.graph = graph
        self.config = config or EngineConfig()
        self._open_tree = open_tree
        self._accept = accept or has_known_language
        self._make_watcher = watcher
        self._watch_debounce_ms = watch_debounce_ms
        self._watcher: RepoWatch | None = None
        locks = RepoLocks()
        self._locks = locks
        self._downstream = Downstream(search, graph, self.config, sleep)
        self._pipeline = FilePipeline(
            manifest,
            self._downstream,
            self.config,
            executor_factory=executor_factory or (lambda: ThreadPoolExecutor(2, "indexer-parse")),
            parse=parse,
            resolve_imports=resolve_imports or default_import_resolver,
            open_tree=open_tree,
        )
        self._registry = RepoRegistry(manifest, self._downstream, git, locks, self.config)
        self._runs = IndexRuns(
            manifest, self._registry, self._pipeline, git, locks, self._scanner, self._accept, self.config
        )
        self._status = RepoStatusReader(manifest, self._registry, git, locks, self._scanner, self.config)

    # Tests swap these after construction (a fake clock for retries, a parser that fails on purpose).
    @property
    def _sleep(self) -> Callable[[float], Awaitable[None]]:
        return self._downstream.sleep

    @_sleep.setter
    def _sleep(self, value: Callable[[float], Awaitable[None]]) -> None:
        self._downstream.sleep = value

    @property
    def _parse(self) -> ParseFn:
        return self._pipeline.parse

    @_parse.setter
    def _parse(self, value: ParseFn) -> None:
        self._pipeline.parse = value

    # -- repositories --------------------------------------------------------------------------------

    def is_managed(self, record: RepoRecord) -> bool:
        return self._registry.is_managed(record)

    async def register_git_repo(self, url: str, name: str = "") -> RepoRecord:
        return await self._registry.register_git_repo(url, name)

    async def register_repo(self, path: str, name: str = "", *, same_remote: bool = False) -> RepoRecord:
        return await self._registry.register_repo(path, name, same_remote=same_remote)

    async def sync_repo(self, name: str) -> tuple[bool, IndexProgress]:
        return await self._registry.sync_repo(name, self.run_index)

    async def pull_forever(self) -> None:
        await self._registry.pull_forever(self.sync_repo)

    async def list_repos(self) -> list[RepoRecord]:
        return await self._registry.list_repos()

    async def get_repo(self, name: str) -> RepoRecord:
        return await self._registry.get_repo(name)

    async def remove_repo(self, name: str) -> bool:
        return await self._registry.remove_repo(name)

    # -- indexing ------------------------------------------------------------------------------------

    def index_repo(self, name: str, full: bool = False) -> AsyncGenerator[IndexProgress, None]:
        return self._runs.index_repo(name, full)

    async def run_index(self, name: str, full: bool = False) -> IndexProgress:
        return await self._runs.run_index(name, full)

    async def index_paths(self, name: str, paths: Sequence[str]) -> IndexPathsResult:
        return await self._runs.index_paths(name, paths)

    # -- status --------------------------------------------------------------------------------------

    async def status(self, name: str) -> RepoStatus:
        return await self._status.status(name)

    def is_running(self, name: str) -> bool:
        return self._locks.is_running(name)

    # -- watching ------------------------------------------------------------------------------------

    async def start_watching(self) -> None:
        """Watch every registered repo; saved files are re-indexed after a short debounce."""
        if self._watcher is not None or self._make_watcher is None:
            return
        self._watcher = self._make_watcher(
            index_paths=self.index_paths,
            reindex=self.run_index,
            make_scanner=self._scanner,
            debounce_ms=self._watch_debounce_ms,
        )
        self._registry.watcher = self._watcher
        for repo in await self.list_repos():
            await self._watcher.watch(repo.name, Path(repo.path))

    async def stop_watching(self) -> None:
        watcher, self._watcher = self._watcher, None
        self._registry.watcher = None
        if watcher is not None:
            await watcher.close()

    @property
    def watching(self) -> frozenset[str]:
        return frozenset(self._watcher.watched) if self._watcher is not None else frozenset()

    # -- lifecycle -----------------------------------------------------------------------------------

    async def warm_up(self) -> None:
        """Start the parse pool and import the parser now rather than on the first file."""
        from services.indexer.worker import warm_up

        executor = self._pipeline.executor()
        for future in [asyncio.wrap_future(executor.submit(warm_up)) for _ in range(4)]:
            await future

    async def close(self) -> None:
        await self.stop_watching()
        self._pipeline.shutdown()

    def _scanner(self, root: Path, accept: Callable[[str], bool] | None = None) -> TreeScanner:
        return TreeScanner(
            self._open_tree(root),
            max_file_bytes=self.config.max_file_bytes,
            extra_ignores=self.config.extra_ignores,
            accept=accept or self._accept,
        )
