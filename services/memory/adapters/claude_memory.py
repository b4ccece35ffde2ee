"""Claude Code's own memory folder for a project: found by its path encoding, read and never written."""

from __future__ import annotations

import os
from pathlib import Path

from services.memory.domain.claude_paths import (
    MAX_SANITIZED_LENGTH,
    long_name_candidates,
    sanitize_project_path,
)


def owns_checkout(projects_dir: Path, repo_path: Path) -> bool:
    """Whether `repo_path` is a checkout of the user whose Claude Code folder `projects_dir` is: a folder
    owned by the user who owns `projects_dir` (the server user, when it does not exist yet).

    The server user's Claude Code memories are theirs: a repo of another user on the machine (their home,
    a shared folder they created) must never pull them into its recall."""
    try:
        owner = projects_dir.stat().st_uid if projects_dir.exists() else os.getuid()
        checkout = repo_path.resolve()
        return checkout.is_dir() and checkout.stat().st_uid == owner
    except OSError:
        return False


def find_claude_memory_dir(projects_dir: Path, repo_path: Path) -> Path | None:
    """~/.claude/projects/<sanitized repo path>/memory if it exists, else None.

    Both the path as given (made absolute) and its symlink-free form are tried, because Claude Code
    names the folder after the path it was started in. A name that would exceed 200 characters is only
    accepted when exactly one folder on disk matches (see domain/claude_paths.py).
    """
    candidates: list[str] = []
    for variant in (os.path.abspath(repo_path), os.path.realpath(repo_path)):
        variant = variant.rstrip("/\\") or variant
        if variant not in candidates:
            candidates.append(variant)
    for path in candidates:
        found = _project_dir(projects_dir, path)
        if found is not None and (found / "memory").is_dir():
            return found / "memory"
    return None


def _project_dir(projects_dir: Path, path: str) -> Path | None:
    name = sanitize_project_path(path)
    if len(name) <= MAX_SANITIZED_LENGTH:
        folder = projects_dir / name
        return folder if folder.is_dir() else None
    exact, prefix = long_name_candidates(path)
    if (projects_dir / exact).is_dir():
        return projects_dir / exact
    try:
        matches = [p for p in projects_dir.iterdir() if p.is_dir() and p.name.startswith(prefix + "-")]
    except FileNotFoundError:
        return None
    return matches[0] if len(matches) == 1 else None


class ClaudeProjects:
    """Claude Code's projects folder of the user the service runs as (the `ClaudeFolders` port)."""

    def __init__(self, projects_dir: Path) -> None:
        self.projects_dir = projects_dir

    def owns_checkout(self, repo_path: Path) -> bool:
        return owns_checkout(self.projects_dir, repo_path)

    def find(self, repo_path: Path) -> Path | None:
        return find_claude_memory_dir(self.projects_dir, repo_path)
