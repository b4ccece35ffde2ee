"""Watch mode: file-system events → debounced, batched re-indexing of the changed paths.

One `awatch` per repository. Events are grouped until the tree has been quiet for `debounce_ms`
(at most `max_batch_ms`), ignored paths are dropped by the repo's scanner rules, and the rest go to
one `index_paths` call. Events arriving while that call runs are collected into the next batch, so a
branch switch or `git pull` becomes a few large calls instead of thousands of small ones. A change to
an ignore file (.gitignore, .reporecallignore) triggers an incremental run of the whole repo instead,
since it can add or remove files anywhere.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import structlog
import watchfiles

from services.indexer.domain.scanner import TreeScanner

log = structlog.get_logger("indexer.watch")

IndexPathsFn = Callable[[str, Sequence[str]], Awaitable[object]]
ReindexFn = Callable[[str], Awaitable[object]]


@dataclass
class _RepoWatch:
    name: str
    root: Path
    scanner: TreeScanner
    stop: asyncio.Event = field(default_factory=asyncio.Event)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    pending: set[str] = field(default_factory=set)
    rescan: bool = False
    tasks: list[asyncio.Task[None]] = field(default_factory=list)


class RepoWatcher:
    """Watches repositories and calls `index_paths(repo, paths)` (or `reindex(repo)`) for what changed."""

    def __init__(
        self,
        *,
        index_paths: IndexPathsFn,
        reindex: ReindexFn,
        make_scanner: Callable[[Path], TreeScanner],
        debounce_ms: int = 300,
        max_batch_ms: int = 2000,
        force_polling: bool | None = None,
    ) -> None:
        self._index_paths = index_paths
        self._reindex = reindex
        self._make_scanner = make_scanner
        self._debounce_ms = debounce_ms
        self._max_batch_ms = max(max_batch_ms, debounce_ms)
        self._force_polling = force_polling
        self._repos: dict[str, _RepoWatch] = {}

    @property
    def watched(self) -> list[str]:
        return sorted(self._repos)

    async def watch(self, name: str, root: Path) -> None:
        """Start watching `root` for repo `name` (restarting if it was watched at another path).

        The file-system watcher follows symlinks to folders, so a tree holding one that leaves the repo
        (`link -> /`) is not watched at all: index runs and status still work, and the log says why.
        """
        current = self._repos.get(name)
        if current is not None:
            if current.root == root.resolve():
                return
            await self.unwatch(name)
        escape = await asyncio.to_thread(find_escaping_folder_link, root.resolve())
        if escape is not None:
            log.warning(
                "watch.refused",
                repo=name,
                root=str(root),
                reason=f"{escape} is a symlink to a folder outside the repository; remove it to watch",
            )
            return
        repo = _RepoWatch(name, root.resolve(), self._make_scanner(root))
        ready = asyncio.Event()
        repo.tasks = [
            asyncio.create_task(self._watch_loop(repo, ready), name=f"watch:{name}"),
            asyncio.create_task(self._index_loop(repo), name=f"watch-index:{name}"),
        ]
        self._repos[name] = repo
        # Return once the watcher is set up, so a change made right after `watch` is seen.
        waiter = asyncio.create_task(ready.wait())
        await asyncio.wait({waiter, repo.tasks[0]}, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        log.info("watch.started", repo=name, root=str(repo.root))

    async def unwatch(self, name: str) -> None:
        repo = self._repos.pop(name, None)
        if repo is None:
            return
        repo.stop.set()
        for task in repo.tasks:
            task.cancel()
        await asyncio.gather(*repo.tasks, return_exceptions=True)
        log.info("watch.stopped", repo=name)

    async def close(self) -> None:
        for name in list(self._repos):
            await self.unwatch(name)

    # -- internals -----------------------------------------------------------------------------------

    async def _watch_loop(self, repo: _RepoWatch, ready: asyncio.Event) -> None:
        changes_iter = watchfiles.awatch(
            repo.root,
            watch_filter=watchfiles.DefaultFilter(),
            debounce=self._max_batch_ms,
            step=self._debounce_ms,
            stop_event=repo.stop,
            force_polling=self._force_polling,
            yield_on_timeout=True,
            rust_timeout=200,  # lets the first (empty) yield mark the watcher ready promptly
        )
        try:
            async for changes in changes_iter:
                ready.set()
                if changes:
                    self._collect(repo, [path for _, path in changes])
        except Exception as exc:  # e.g. the folder was removed, or inotify limits were reached
            log.warning("watch.failed", repo=repo.name, root=str(repo.root), error=repr(exc))
        finally:
            ready.set()

    def _collect(self, repo: _RepoWatch, abs_paths: list[str]) -> None:
        root = str(repo.root)
        for abs_path in abs_paths:
            rel = os.path.relpath(abs_path, root)
            if rel.startswith("..") or os.path.isabs(rel) or rel == ".":
                continue
            rel = Path(rel).as_posix()
            if os.path.islink(abs_path) and _leaves(abs_path, root):
                # A new symlink out of the tree: the watcher would now follow it. Stop watching this repo.
                log.warning("watch.stopped_escape", repo=repo.name, path=rel)
                repo.stop.set()
                return
            if repo.scanner.rules_changed(rel):
                repo.rescan = True
                continue
            if repo.scanner.is_ignored(rel):
                continue
            repo.pending.add(rel)
        if repo.pending or repo.rescan:
            repo.wake.set()

    async def _index_loop(self, repo: _RepoWatch) -> None:
        while True:
            await repo.wake.wait()
            repo.wake.clear()
            paths, repo.pending = sorted(repo.pending), set()
            rescan, repo.rescan = repo.rescan, False
            try:
                if rescan:
                    repo.scanner.reload()
                    log.info("watch.rescan", repo=repo.name)
                    await self._reindex(repo.name)
                elif paths:
                    log.info("watch.batch", repo=repo.name, paths=len(paths))
                    await self._index_paths(repo.name, paths)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the paths are not lost: they stay dirty and the next run takes them
                log.warning("watch.index_failed", repo=repo.name, paths=len(paths), error=repr(exc))


def _leaves(abs_path: str, root: str) -> bool:
    target = os.path.realpath(abs_path)
    return os.path.isdir(target) and not (target == root or target.startswith(root.rstrip("/") + "/"))


def find_escaping_folder_link(root: Path, limit: int = 1_000_000) -> str | None:
    """The first symlink under `root` (ignored folders included: the watcher sees them too) that leads to
    a folder outside it, or None. Iterative, does not follow symlinks; stops after `limit` entries."""
    base = str(root)
    stack = [base]
    seen = 0
    while stack and seen < limit:
        folder = stack.pop()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    seen += 1
                    if entry.is_symlink():
                        if _leaves(entry.path, base):
                            return os.path.relpath(entry.path, base)
                    elif entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
        except OSError:
            continue
    return None
