"""The repo registry: register working trees (confined to the allowed roots) and git URLs (cloned under
the clone root, by URL policy), list, look up and remove repos; keep managed clones pulled."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path

import structlog

from services.indexer.domain.model import (
    IndexProgress,
    InvalidRepoPath,
    RepoNameTaken,
    RepoNotFound,
    RepoRecord,
)
from services.indexer.domain.repos import (
    GIT_URL_REFUSED,
    derive_repo_name,
    normalise_remote,
    validate_repo_name,
)
from services.indexer.engine.config import EngineConfig
from services.indexer.engine.downstream import Downstream
from services.indexer.engine.state import RepoLocks, blocking
from services.indexer.ports import GitError, GitRepos, GitUrlRefused, Manifest, RepoWatch

log = structlog.get_logger("indexer")


class RepoRegistry:
    def __init__(
        self,
        manifest: Manifest,
        downstream: Downstream,
        git: GitRepos,
        locks: RepoLocks,
        config: EngineConfig,
    ) -> None:
        self._manifest = manifest
        self._downstream = downstream
        self._git = git
        self._locks = locks
        self._config = config
        self.watcher: RepoWatch | None = None  # set while the engine watches

    def is_managed(self, record: RepoRecord) -> bool:
        """True when the server cloned this repository and keeps it pulled."""
        root = self._config.clone_root
        return root is not None and Path(record.path).parent == root

    async def register_git_repo(self, url: str, name: str = "") -> RepoRecord:
        """Clone `url` under the clone root (or reuse the clone) and register it; named by its remote.

        Every refusal of the URL itself (not allowed, private host, clone failed) raises the same
        InvalidRepoPath(GIT_URL_REFUSED); the cause goes to the log only. A name registered for another
        path or remote raises RepoNameTaken before anything is cloned.
        """
        if self._config.clone_root is None:
            raise InvalidRepoPath("git_url: this indexer does not clone repositories (no clone root)")
        url = url.strip()
        await self.check_git_url(url)
        name = name.strip() or normalise_remote(url) or Path(url.rstrip("/")).name.removesuffix(".git")
        problem = validate_repo_name(name)
        if problem:
            raise InvalidRepoPath(problem)
        dest = self._config.clone_root / name.replace("/", "__")
        remote = normalise_remote(url)
        existing = await blocking(self._manifest.get_repo, name)
        if existing is not None and (existing.path != str(dest.resolve()) or existing.remote != remote):
            raise RepoNameTaken(name, existing.remote or existing.path)
        try:
            await asyncio.to_thread(self._git.clone_or_pull, url, remote, dest)
        except GitError as exc:
            log.warning("repo.clone_failed", url=url, repo=name, error=str(exc))
            raise InvalidRepoPath(GIT_URL_REFUSED) from None
        return await self.register_repo(str(dest), name, same_remote=True)

    async def check_git_url(self, url: str) -> None:
        try:
            await asyncio.to_thread(self._git.check_url, url)
        except GitUrlRefused as exc:
            log.warning("repo.git_url_refused", url=url[:300], reason=exc.detail)
            raise InvalidRepoPath(GIT_URL_REFUSED) from None

    async def sync_repo(
        self, name: str, run_index: Callable[[str], Awaitable[IndexProgress]]
    ) -> tuple[bool, IndexProgress]:
        """Pull a managed clone (fast-forward) and index what changed; (pulled, final progress)."""
        record = await self.get_repo(name)
        pulled = False
        if self.is_managed(record):
            try:
                # The host is checked again: where it resolves may have changed since the clone.
                await self.check_git_url(await asyncio.to_thread(self._git.origin_url, Path(record.path)))
                await asyncio.to_thread(self._git.pull, Path(record.path))
                pulled = True
            except GitError as exc:
                log.warning("repo.pull_failed", repo=name, error=str(exc))
            except InvalidRepoPath:
                log.warning("repo.pull_refused", repo=name)
        return pulled, await run_index(name)

    async def pull_forever(self, sync: Callable[[str], Awaitable[object]]) -> None:
        """Every `pull_interval_seconds`, sync each managed clone (a failure never stops the loop)."""
        interval = self._config.pull_interval_seconds
        while interval > 0:
            await asyncio.sleep(interval)
            for record in await self.list_repos():
                if self.is_managed(record):
                    with contextlib.suppress(Exception):
                        await sync(record.name)

    async def register_repo(self, path: str, name: str = "", *, same_remote: bool = False) -> RepoRecord:
        """Register the working tree at absolute `path`; name defaults to its git remote/dir.

        The same name for the same path is idempotent; a name registered for another path raises
        RepoNameTaken (never re-pointed). The path must lie under the configured roots (symlinks resolved).
        """
        if not path or "\x00" in path or not Path(path).expanduser().is_absolute():
            raise InvalidRepoPath(f"path: repository path {path!r} must be absolute (and free of NUL bytes)")
        try:
            root = Path(path).expanduser().resolve()
            is_dir = root.is_dir()
        except (OSError, RuntimeError) as exc:  # e.g. a name longer than the OS allows, a symlink loop
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise InvalidRepoPath(f"path: repository path {path!r} is unusable ({reason})") from None
        self._require_allowed_root(root)
        if not is_dir:
            raise InvalidRepoPath(f"path: repository path {str(root)!r} is not a directory")
        remote = normalise_remote(await asyncio.to_thread(self._git.origin_url, root))
        name = name.strip() or derive_repo_name(remote, str(root))
        problem = validate_repo_name(name)
        if problem:
            raise InvalidRepoPath(problem)
        record = await blocking(
            partial(self._manifest.add_repo, same_remote=same_remote), name, str(root), remote
        )
        if self.watcher is not None:
            await self.watcher.watch(record.name, Path(record.path))
        log.info("repo.registered", repo=name, path=str(root), remote=remote)
        return record

    def require_tree(self, repo: RepoRecord) -> None:
        # Without this, a missing (e.g. unmounted) working tree would look like "every file deleted".
        if not Path(repo.path).is_dir():
            raise InvalidRepoPath(
                f"repository {repo.name!r}: working tree {repo.path} is missing; restore it, or remove the "
                "repository and register it again with its new path"
            )
        # A registered folder later swapped for a symlink to /etc must not be walked.
        try:
            self._require_allowed_root(Path(repo.path).resolve())
        except InvalidRepoPath as exc:
            raise InvalidRepoPath(f"repository {repo.name!r}: {exc}") from None

    def _require_allowed_root(self, root: Path) -> None:
        """Raise InvalidRepoPath unless the resolved `root` lies under a configured root or the clone root."""
        roots = self._config.repo_roots
        if roots is None:
            return
        clone_root = self._config.clone_root.resolve() if self._config.clone_root else None
        if clone_root is not None and clone_root in root.parents:
            return
        if any(root == r or r in root.parents for r in roots):
            return
        if not roots:
            raise InvalidRepoPath(
                f"path: repository path {str(root)!r} is refused: this server allows no working trees "
                "(REPORECALL_REPO_ROOTS is empty); register a git_url instead, or have an admin set "
                "REPORECALL_REPO_ROOTS to the directories that hold repositories"
            )
        listed = ", ".join(str(r) for r in roots)
        raise InvalidRepoPath(
            f"path: repository path {str(root)!r} is outside the allowed roots ({listed}); move the "
            "repository under one of them, or have an admin widen REPORECALL_REPO_ROOTS"
        )

    async def list_repos(self) -> list[RepoRecord]:
        return await blocking(self._manifest.list_repos)

    async def get_repo(self, name: str) -> RepoRecord:
        record = await blocking(self._manifest.get_repo, name)
        if record is None:
            raise RepoNotFound(name)
        return record

    async def remove_repo(self, name: str) -> bool:
        """Delete the repo's data downstream, then forget it. False when it was not registered."""
        if await blocking(self._manifest.get_repo, name) is None:
            return False
        async with self._locks.lock(name):
            await self._downstream.delete_repo(name)
            removed = await blocking(self._manifest.remove_repo, name)
        if self.watcher is not None:
            await self.watcher.unwatch(name)
        log.info("repo.removed", repo=name)
        return removed
