"""Repository identity: a normalised git remote names a repo the same on every laptop. Pure."""

from __future__ import annotations

import re
from pathlib import PurePath

from kit.remotes import normalise_remote

__all__ = ["derive_repo_name", "normalise_remote", "validate_repo_name"]

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$")


def derive_repo_name(remote: str, path: str) -> str:
    """The registered name: the normalised remote, else the folder's name."""
    return remote or PurePath(path).name


def validate_repo_name(name: str) -> str | None:
    """A problem with `name` as a repository name, or None when it is fine."""
    if not _NAME.match(name) or ".." in name.split("/"):
        return (
            f"repository name {name!r} must be 1-200 characters of letters, digits, '.', '_', '-', '/' "
            "and start with a letter or digit"
        )
    return None
