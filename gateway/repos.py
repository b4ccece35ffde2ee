"""Which registered repository a client means: an explicit name, or the repo whose path contains its cwd;
and whether a registration request repeats one already listed."""

from __future__ import annotations

import posixpath
import time
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath
from typing import Any

from gateway.ports import IndexerBackend, RepoInfo
from kit.remotes import normalise_remote

__all__ = ["RepoDirectory", "RepoInfo", "matching_registration"]


class RepoDirectory:
    """A short-lived cache of the indexer's repo list (refreshed on a miss, at most every `ttl` seconds)."""

    def __init__(self, indexer: IndexerBackend, ttl: float = 5.0) -> None:
        self._indexer = indexer
        self._ttl = ttl
        self._repos: dict[str, RepoInfo] = {}
        self._loaded_at = 0.0

    async def refresh(self) -> None:
        self._repos = {r.name: r for r in await self._indexer.list_repos(timeout=1.0)}
        self._loaded_at = time.monotonic()

    async def _ensure(self, force: bool = False) -> None:
        if force or time.monotonic() - self._loaded_at > self._ttl:
            await self.refresh()

    async def get(self, name: str) -> RepoInfo | None:
        await self._ensure()
        if name not in self._repos:
            await self._ensure(force=True)
        return self._repos.get(name) or next((r for r in self._repos.values() if r.remote == name), None)

    async def by_cwd(self, cwd: str) -> RepoInfo | None:
        """The registered repo whose path is `cwd` or its deepest ancestor."""
        await self._ensure()
        found = _deepest_containing(self._repos.values(), cwd)
        if found is None:
            await self._ensure(force=True)
            found = _deepest_containing(self._repos.values(), cwd)
        return found

    async def resolve(self, name: str | None, cwd: str | None) -> RepoInfo | None:
        if name:
            return await self.get(name)
        if cwd:
            return await self.by_cwd(cwd)
        return None


def _deepest_containing(repos: object, cwd: str) -> RepoInfo | None:
    target = PurePosixPath(cwd)
    best: RepoInfo | None = None
    for repo in repos:  # type: ignore[attr-defined]
        root = PurePosixPath(repo.path)
        if (target == root or root in target.parents) and (best is None or len(repo.path) > len(best.path)):
            best = repo
    return best


def matching_registration(
    listing: Iterable[Mapping[str, Any]], name: str, path: str, git_url: str
) -> dict[str, Any] | None:
    """The listed repo that already is exactly this registration (same name if given, same path or
    remote), else None."""
    remote = normalise_remote(git_url) if git_url else ""
    for repo in listing:
        if name and repo.get("name", "") != name:
            continue
        repo_path = repo.get("path", "")
        if path and not git_url and repo_path and posixpath.normpath(repo_path) == posixpath.normpath(path):
            return dict(repo)
        if remote and repo.get("managed", False) and repo.get("remote", "") == remote:
            return dict(repo)
    return None
