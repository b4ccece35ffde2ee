"""Repository identity: a normalised git remote names a repo the same on every laptop. Pure."""

from __future__ import annotations

import re
from pathlib import PurePath

_SCP_LIKE = re.compile(r"^(?:[^@/]+@)?(?P<host>[^:/]+):(?P<path>(?!//).+)$")  # git@github.com:org/repo.git
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://(?:[^@/]+@)?(?P<host>[^/:]+)(?::\d+)?/(?P<path>.+)$", re.IGNORECASE)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,199}$")


def normalise_remote(url: str) -> str:
    """`git@github.com:Org/Repo.git`, `https://user@github.com/Org/Repo` → `github.com/Org/Repo`.

    Host is lowercased; path case is kept (it matters on some hosts); credentials, port, `.git` and
    trailing slashes are dropped. Local paths and `file://` URLs give "" (no shareable identity).
    """
    url = url.strip()
    if not url or url.startswith(("/", ".", "file:")):
        return ""
    match = _URL.match(url) or _SCP_LIKE.match(url)
    if not match:
        return ""
    host = match.group("host").lower()
    path = match.group("path").strip("/").removesuffix(".git").strip("/")
    return f"{host}/{path}" if path else ""


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
