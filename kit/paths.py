"""The repo-relative path rule every service shares: a stored or requested path names a place inside
the repository, in POSIX form, relative to its root."""

from __future__ import annotations


def is_repo_relative(path: str) -> bool:
    """True for `src/app.py`; False for an absolute path or one with a `..` segment. Emptiness, NUL and
    client-only refusals (backslashes, drive letters) are each caller's own checks."""
    return not path.startswith("/") and ".." not in path.split("/")
