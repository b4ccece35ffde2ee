"""Repo status: counts from the manifest, HEAD and branch from git, and the files changed on disk since
they were indexed (one walk at a time per repo, cached for a moment and per manifest generation)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import structlog

from services.indexer.domain.changes import dirty_paths
from services.indexer.domain.model import InvalidRepoPath, RepoStatus
from services.indexer.domain.scanner import ScannedFile, TreeScanner
from services.indexer.engine.config import EngineConfig
from services.indexer.engine.registry import RepoRegistry
from services.indexer.engine.state import RepoLocks, blocking
from services.indexer.ports import GitRepos, Manifest

log = structlog.get_logger("indexer")


class RepoStatusReader:
    def __init__(
        self,
        manifest: Manifest,
        registry: RepoRegistry,
        git: GitRepos,
        locks: RepoLocks,
        scanner: Callable[[Path], TreeScanner],
        config: EngineConfig,
    ) -> None:
        self._manifest = manifest
        self._registry = registry
        self._git = git
        self._locks = locks
        self._scanner = scanner
        self._config = config
        self._dirty_cache: dict[str, tuple[float, int, list[str]]] = {}
        self._dirty_locks: dict[str, asyncio.Lock] = {}

    async def status(self, name: str) -> RepoStatus:
        repo = await self._registry.get_repo(name)
        root = Path(repo.path)
        counts = await blocking(self._manifest.counts, name)
        dirty = await self._dirty_files(name, root)
        head = await asyncio.to_thread(self._git.head, root)
        branch = await asyncio.to_thread(self._git.branch, root)
        limit = self._config.dirty_limit
        return RepoStatus(
            repo=repo,
            indexed_commit=repo.indexed_commit,
            head_commit=head,
            files=counts.files,
            chunks=counts.chunks,
            pending_files=counts.pending,
            running=self._locks.is_running(name),
            dirty_files=tuple(dirty[:limit]),
            dirty_truncated=len(dirty) > limit,
            branch=branch,
        )

    async def _dirty_files(self, name: str, root: Path) -> list[str]:
        """Files changed on disk since indexed. One walk at a time per repo: callers that arrive during a
        walk wait for it and share its result (a walk of a large tree costs a few hundred ms of CPU)."""
        lock = self._dirty_locks.setdefault(name, asyncio.Lock())
        async with lock:
            generation = self._locks.generation(name)
            cached = self._dirty_cache.get(name)
            now = time.monotonic()
            if cached and cached[1] == generation and now - cached[0] < self._config.status_cache_seconds:
                return cached[2]
            recorded = await blocking(self._manifest.files, name)
            scanner = self._scanner(root)
            scanned: list[ScannedFile] = []
            if root.is_dir():
                try:
                    self._registry.require_tree(await self._registry.get_repo(name))
                    scanned = await asyncio.to_thread(_walk_list, scanner, "")
                except InvalidRepoPath as exc:
                    log.warning("status.tree_refused", repo=name, error=str(exc))
            # Skipped files (binary, generated) are dirty only when their stat changed, like any other.
            dirty = dirty_paths(scanned, recorded)
            self._dirty_cache[name] = (now, generation, dirty)
            return dirty


def _walk_list(scanner: TreeScanner, under: str) -> list[ScannedFile]:
    return list(scanner.walk(under=under))
