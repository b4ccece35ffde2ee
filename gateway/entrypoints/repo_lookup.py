"""`GET /api/repos?remote=URL`: the registered repos whose normalised git remote is URL's.

Who may call: any authenticated token (it reads what `GET /api/repos` lists). A teammate's `reporecall init`
uses it to find the repo of a checkout at any path by its origin, so no --repo is needed.
"""

from __future__ import annotations

from typing import Any

from gateway.validation import BadInput
from kit.remotes import normalise_remote


def wanted_remote(remote: str) -> str:
    """The normalised form of a client-given remote; BadInput naming the fix when it has none."""
    wanted = normalise_remote(remote[:2048])
    if not wanted:
        raise BadInput(
            "remote",
            f"{remote[:200]!r} is not a shareable git remote; give e.g. git@github.com:org/repo.git "
            "or https://github.com/org/repo",
        )
    return wanted


def repos_with_remote(listing: dict[str, Any], wanted: str) -> dict[str, Any]:
    """`listing` (the ListRepos JSON) narrowed to the repos registered with the normalised remote `wanted`."""
    return {"remote": wanted, "repos": [r for r in listing.get("repos", []) if r.get("remote") == wanted]}
