"""Reads a working tree's HEAD commit and origin URL from its .git files (no git binary needed).

Handles linked worktrees and submodules (`.git` is a file naming the real git dir), refs stored loose
or in `packed-refs`, and detached HEAD. Falls back to `git rev-parse` for anything unusual.
"""

from __future__ import annotations

import configparser
import re
import subprocess
from pathlib import Path

_SHA = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")


def git_dir(root: Path) -> Path | None:
    dot_git = root / ".git"
    if dot_git.is_dir():
        return dot_git
    if dot_git.is_file():
        text = dot_git.read_text(encoding="utf-8", errors="replace").strip()
        if text.startswith("gitdir:"):
            target = Path(text.removeprefix("gitdir:").strip())
            return target if target.is_absolute() else (root / target).resolve()
    return None


def _common_dir(gdir: Path) -> Path:
    common = gdir / "commondir"
    if common.is_file():
        target = Path(common.read_text(encoding="utf-8").strip())
        return target if target.is_absolute() else (gdir / target).resolve()
    return gdir


def _resolve_ref(gdir: Path, ref: str) -> str:
    for base in (gdir, _common_dir(gdir)):
        loose = base / ref
        if loose.is_file():
            value = loose.read_text(encoding="utf-8").strip()
            if _SHA.match(value):
                return value
        packed = base / "packed-refs"
        if packed.is_file():
            for line in packed.read_text(encoding="utf-8").splitlines():
                sha, _, name = line.partition(" ")
                if name.strip() == ref and _SHA.match(sha):
                    return sha
    return ""


def read_head(root: Path) -> str:
    """The commit HEAD points at, "" outside git or on an unborn branch."""
    gdir = git_dir(root)
    if gdir is None:
        return ""
    try:
        head = (gdir / "HEAD").read_text(encoding="utf-8").strip()
        if _SHA.match(head):
            return head
        if head.startswith("ref:"):
            found = _resolve_ref(gdir, head.removeprefix("ref:").strip())
            if found:
                return found
            # The reftable format keeps refs in binary tables: let git read them.
            return _git_rev_parse(root) if (_common_dir(gdir) / "reftable").is_dir() else ""
    except OSError:
        pass
    return _git_rev_parse(root)


def read_branch(root: Path) -> str:
    """The branch HEAD names ("main"), "" when detached or outside git."""
    gdir = git_dir(root)
    if gdir is None:
        return ""
    try:
        head = (gdir / "HEAD").read_text(encoding="utf-8").strip()
    except OSError:
        return ""
    return head.removeprefix("ref:").strip().removeprefix("refs/heads/") if head.startswith("ref:") else ""


def read_origin_url(root: Path) -> str:
    """The URL of remote "origin" (else the first remote) as configured, "" when none."""
    gdir = git_dir(root)
    if gdir is None:
        return ""
    parser = configparser.RawConfigParser(strict=False)
    try:
        parser.read(_common_dir(gdir) / "config", encoding="utf-8")
    except (configparser.Error, OSError):
        return ""
    remotes = [s for s in parser.sections() if s.startswith('remote "')]
    remotes.sort(key=lambda s: s != 'remote "origin"')
    for section in remotes:
        url = parser.get(section, "url", fallback="").strip()
        if url:
            return url
    return ""


def _git_rev_parse(root: Path) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--verify", "-q", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    value = done.stdout.strip()
    return value if _SHA.match(value) else ""


class GitError(Exception):
    """A git command failed; the message is git's own last line."""


_GIT_URL = re.compile(r"^(?:(?:https?|ssh|git|file)://\S+|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:\S+)$")
_GIT_ENV = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "/bin/false", "LC_ALL": "C"}


def validate_git_url(url: str) -> str | None:
    """A problem with `url` as something to clone, or None. Options (`-…`) and local paths are refused."""
    if not _GIT_URL.match(url) or url.startswith("-"):
        return f"git_url {url!r} must be an https://, ssh://, git://, file:// or user@host:path URL"
    return None


def _git(args: list[str], cwd: Path | None = None, timeout: float = 600) -> str:
    import os

    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **_GIT_ENV},
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"git {args[0]}: {exc}") from None
    if done.returncode != 0:
        lines = (done.stderr or done.stdout).strip().splitlines()
        raise GitError(f"git {args[0]} failed: {lines[-1] if lines else done.returncode}")
    return done.stdout


def clone(url: str, dest: Path) -> None:
    """Clone `url` into `dest` (which must not exist); a failed clone leaves nothing behind."""
    import shutil

    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        _git(["clone", "--quiet", "--", url, str(partial)])
        partial.rename(dest)
    finally:
        shutil.rmtree(partial, ignore_errors=True)


def pull(root: Path) -> None:
    """Fast-forward the checked-out branch from its upstream."""
    _git(["pull", "--quiet", "--ff-only"], cwd=root)
