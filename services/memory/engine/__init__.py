"""MemoryEngine: the memory service's use cases over the memory folders (truth) and the index (cache).

Synchronous and thread-safe. One façade for the servicer over one class per use case:

- `writes.MemoryWrites`   store (and supersede), forget, archive, promote, compact, delete a repo
- `recall.MemoryRecall`   recall under a token budget, list, get
- `working.WorkingMemory` observe: working notes per session, pruned by the caps
- `sync.FolderSync`       the index kept in step with the files; problems; the usage file

Every part depends on the ports (services/memory/ports.py) only; bootstrap.py wires the adapters.

Sources per namespace (a repo, or "" for global memories):
- the team folder under the memory root, writable;
- on a local install, Claude Code's memory folder for the repo, read-only (ids prefixed `claude.`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import structlog

from services.memory.domain.errors import Problem
from services.memory.domain.model import Memory, MemoryClass, Scope
from services.memory.domain.validation import check_repo
from services.memory.engine.config import (
    WORKING_RESCAN_SECONDS,
    CompactResult,
    EngineConfig,
    Observation,
    Recalled,
    RecallQuery,
    RecallResult,
    utc_now,
)
from services.memory.engine.drafts import MemoryDraft
from services.memory.engine.recall import MemoryRecall
from services.memory.engine.sync import FolderSync
from services.memory.engine.working import WorkingMemory
from services.memory.engine.working_registry import WorkingRegistry
from services.memory.engine.writes import MemoryWrites
from services.memory.ports import ClaudeFolders, FolderWatcher, MemoryFiles, MemoryIndex, WatcherFactory
from services.memory.usage import PendingUsage

__all__ = [
    "WORKING_RESCAN_SECONDS",
    "CompactResult",
    "EngineConfig",
    "MemoryDraft",
    "MemoryEngine",
    "Observation",
    "RecallQuery",
    "RecallResult",
    "Recalled",
]

log = structlog.get_logger("memory.engine")


class MemoryEngine:
    def __init__(
        self,
        files: MemoryFiles,
        index: MemoryIndex,
        *,
        config: EngineConfig | None = None,
        clock: Callable[[], datetime] = utc_now,
        claude: ClaudeFolders | None = None,
        watcher: WatcherFactory | None = None,
    ) -> None:
        self._root = files
        self._index = index
        self._config = config or EngineConfig()
        self._claude = claude
        self._make_watcher = watcher
        self._watcher: FolderWatcher | None = None
        self._closed = False
        self._usage = PendingUsage()
        registry = WorkingRegistry(clock)
        self._sync = FolderSync(files, index, self._usage, registry)
        self._writes = MemoryWrites(files, index, self._sync, registry, self._config, clock)
        self._recall = MemoryRecall(index, self._usage, self._config, clock)
        self._working = WorkingMemory(files, index, self._sync, registry, self._usage, self._config, clock)

    # ------------------------------------------------------------------ lifecycle of the engine
    def open(self) -> list[Problem]:
        """Bring the index in step with every folder; the problems found (also kept in `problems`)."""
        self.sync_all()
        return self.problems

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.stop_watching()
        self.flush_usage()
        self._index.close()

    def start_watching(self, resync_seconds: float = 60.0) -> None:
        if self._watcher is None and self._make_watcher is not None:
            self._watcher = self._make_watcher(
                self._sync.watched_paths, self._sync.on_paths_changed, self._on_idle, resync_seconds
            )
            self._watcher.start()

    def stop_watching(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None

    @property
    def _pending_usage(self) -> dict[str, Counter[str]]:
        """Unflushed recall counts per namespace (tests look at them)."""
        return self._usage.counts

    @property
    def problems(self) -> list[Problem]:
        return self._sync.problems

    def attach_claude_memory(self, repo: str, repo_path: Path) -> Path | None:
        """Read Claude Code's memory folder of the repo checked out at `repo_path`, if there is one.

        Only on a local install (the engine got a projects folder) and only for a checkout owned by the user
        whose Claude Code folder it is (claude_memory.owns_checkout)."""
        check_repo(repo)
        if self._claude is None or not repo:
            return None
        if not self._claude.owns_checkout(repo_path):
            log.info(
                "memory.claude_folder_refused", repo=repo, reason="checkout not the projects folder owner's"
            )
            return None
        folder = self._claude.find(repo_path)
        if folder is None:
            log.info("memory.claude_folder_not_found", repo=repo, path=str(repo_path))
            return None
        self._sync.attach_claude_dir(repo, folder)
        self.sync_namespace(repo)
        if self._watcher is not None:
            self._watcher.refresh()
        return folder

    # ------------------------------------------------------------------ writes
    def store(self, draft: MemoryDraft, *, admin: bool = False) -> Memory:
        return self._writes.store(draft, admin=admin)

    def forget(self, repo: str, memory_id: str, *, user: str = "", admin: bool = False) -> bool:
        return self._writes.forget(repo, memory_id, user=user, admin=admin)

    def compact(
        self, repo: str, episode_max_age: timedelta | None = None, *, user: str = "", admin: bool = False
    ) -> CompactResult:
        return self._writes.compact(repo, episode_max_age, user=user, admin=admin)

    def promote(
        self,
        repo: str,
        memory_id: str,
        *,
        user: str = "",
        memory_class: MemoryClass = MemoryClass.FACT,
        name: str = "",
        scope: Scope | None = None,
        admin: bool = False,
    ) -> Memory:
        return self._writes.promote(
            repo, memory_id, user=user, memory_class=memory_class, name=name, scope=scope, admin=admin
        )

    def archive(
        self, repo: str, memory_id: str, *, user: str = "", reason: str = "", admin: bool = False
    ) -> Memory:
        return self._writes.archive(repo, memory_id, user=user, reason=reason, admin=admin)

    def delete_repo(self, repo: str) -> int:
        return self._writes.delete_repo(repo)

    # ------------------------------------------------------------------ recall
    def recall(self, query: RecallQuery) -> RecallResult:
        return self._recall.recall(query)

    def list_memories(
        self, repo: str, *, user: str = "", branch: str = "", include_inactive: bool = False, limit: int = 100
    ) -> list[Memory]:
        return self._recall.list_memories(
            repo, user=user, branch=branch, include_inactive=include_inactive, limit=limit
        )

    def get(self, repo: str, memory_id: str, *, user: str = "", branch: str = "") -> Memory:
        return self._recall.get(repo, memory_id, user=user, branch=branch)

    # ------------------------------------------------------------------ working memory
    def observe(self, observation: Observation) -> int:
        return self._working.observe(observation)

    # ------------------------------------------------------------------ index upkeep
    def sync_all(self) -> None:
        self._sync.sync_all()

    def sync_namespace(self, ns: str, *, force: bool = False) -> None:
        self._sync.sync_namespace(ns, force=force)

    def rebuild_index(self) -> None:
        self._sync.rebuild_index()

    def flush_usage(self) -> None:
        self._sync.flush_usage()

    def _on_paths_changed(self, paths: set[Path]) -> None:
        self._sync.on_paths_changed(paths)

    def _on_idle(self) -> None:
        self.sync_all()
        self.flush_usage()
