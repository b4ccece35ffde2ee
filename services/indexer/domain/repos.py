"""Repository identity: a normalised git remote names a repo the same on every laptop. Pure."""

from __future__ import annotations

import re
from pathlib import PurePath

from kit.remotes import normalise_remote

__all__ = [
    "DEFAULT_PROTOCOLS",
    "GIT_URL_REFUSED",
    "KNOWN_PROTOCOLS",
    "derive_repo_name",
    "normalise_remote",
    "validate_repo_name",
]

# Protocols git may ever be allowed to use here; "ext" (runs a command) and the like never are.
KNOWN_PROTOCOLS = frozenset({"https", "ssh", "http", "git", "file"})
DEFAULT_PROTOCOLS = frozenset({"https", "ssh"})

# The one answer to every refused git URL (not allowed, private host, clone failed): replies never tell
# an open port from a closed one; the cause goes to the log.
GIT_URL_REFUSED = (
    "git_url: the repository could not be registered. Give an https:// or ssh:// (user@host:path) URL of "
    "a repository this server can reach and read; file://, git://, local paths and hosts on loopback, "
    "link-local or private addresses are refused unless an admin allows them "
    "(REPORECALL_GIT_ALLOW_PROTOCOLS, REPORECALL_GIT_ALLOW_PRIVATE_HOSTS). The indexer log has the details."
)

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
