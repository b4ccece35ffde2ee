"""Repository identity: a normalised git remote names a repo the same on every laptop and server. Pure."""

from __future__ import annotations

import re

_SCP_LIKE = re.compile(r"^(?:[^@/]+@)?(?P<host>[^:/]+):(?P<path>(?!//).+)$")  # git@github.com:org/repo.git
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://(?:[^@/]+@)?(?P<host>[^/:]+)(?::\d+)?/(?P<path>.+)$", re.IGNORECASE)


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
