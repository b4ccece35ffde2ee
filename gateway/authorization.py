"""Who may do what: the gateway's one authorization decision, made from the authenticated principal.

Every surface (HTTP API, hooks, MCP tools, the push webhook, the gateway's gRPC port) authenticates its
caller into a `Principal` and hands it to `gateway.operations`; each operation names the `Permission` it
needs (`@requires`), and `authorize` decides here, from `GRANTS`, nowhere else. The `user` a service acts
for is `acting_user(principal)`: it comes from the token, never from a field the client sent.

Roles (deploy/README.md, "Authorization"):
- admin: an admin token (`reporecall token issue USER --admin`) — everything, repo topology included.
- local: the token `reporecall up` generated for the single user of a one-machine install — as admin.
- member: any other token — reads every registered repository and the team's memories, indexes the
  registered repositories, stores and forgets its own memories; reads only its own personal memories.
- webhook: a push webhook whose body carries a valid HMAC signature — may only sync the pushed repo.
- service: a caller of the gateway's gRPC port (authenticated by the suite's service credentials) —
  reads code and team memories, never anyone's personal ones.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Concatenate, ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")
S = TypeVar("S")


class Role(StrEnum):
    ADMIN = "admin"
    LOCAL = "local"
    MEMBER = "member"
    WEBHOOK = "webhook"
    SERVICE = "service"


class Permission(StrEnum):
    READ_CODE = "read code, the graph, context or index status"
    READ_MEMORY = "read memories"
    WRITE_MEMORY = "store or forget memories"
    FEEDBACK = "give ranking feedback"
    INDEX = "index a registered repository"
    SYNC_REPO = "sync a repository from its remote"
    MANAGE_REPOS = "register, re-point or remove a repository"
    COMPACT_MEMORY = "compact a repository's memories"


_EVERYONE_WITH_A_TOKEN = frozenset(
    {
        Permission.READ_CODE,
        Permission.READ_MEMORY,
        Permission.WRITE_MEMORY,
        Permission.FEEDBACK,
        Permission.INDEX,
        # The memory service compacts only what the caller may change (their own, their team notes).
        Permission.COMPACT_MEMORY,
    }
)
GRANTS: dict[Role, frozenset[Permission]] = {
    Role.ADMIN: frozenset(Permission),
    Role.LOCAL: frozenset(Permission),
    Role.MEMBER: _EVERYONE_WITH_A_TOKEN,
    Role.WEBHOOK: frozenset({Permission.SYNC_REPO}),
    Role.SERVICE: frozenset({Permission.READ_CODE, Permission.READ_MEMORY}),
}

# What a refused caller should do instead, by permission.
_ADMIN_FIX = "ask an admin, or use an admin token (reporecall token issue USER --admin, on the server)"
_FIX = {
    Permission.MANAGE_REPOS: _ADMIN_FIX,
    Permission.SYNC_REPO: _ADMIN_FIX,
}


@dataclass(frozen=True)
class Principal:
    """An authenticated caller. `key` identifies its credential (the matched token's hash) for rate limits."""

    user: str
    role: Role = Role.MEMBER
    key: str = ""

    @property
    def admin(self) -> bool:
        return Permission.MANAGE_REPOS in GRANTS[self.role]


WEBHOOK = Principal("webhook", Role.WEBHOOK, "webhook")
SERVICE = Principal("", Role.SERVICE, "service")


class Forbidden(Exception):
    """The principal may not do this. The message names what was refused and how to get it allowed."""

    def __init__(self, principal: Principal, permission: Permission) -> None:
        self.principal, self.permission = principal, permission
        fix = _FIX.get(permission, "no token of this kind may")
        super().__init__(f"a {principal.role.value} token may not {permission.value}; {fix}")


def allowed(principal: Principal, permission: Permission) -> bool:
    return permission in GRANTS[principal.role]


def authorize(principal: Principal, permission: Permission) -> None:
    if not allowed(principal, permission):
        raise Forbidden(principal, permission)


def acting_user(principal: Principal) -> str:
    """The user services act for: the token's user; none for the webhook and service callers."""
    return principal.user if principal.role in (Role.ADMIN, Role.LOCAL, Role.MEMBER) else ""


def requires(
    permission: Permission,
) -> Callable[
    [Callable[Concatenate[S, Principal, P], Awaitable[R]]],
    Callable[Concatenate[S, Principal, P], Awaitable[R]],
]:
    """Marks an operation with the permission it needs and checks it before the operation runs."""

    def decorate(
        fn: Callable[Concatenate[S, Principal, P], Awaitable[R]],
    ) -> Callable[Concatenate[S, Principal, P], Awaitable[R]]:
        @functools.wraps(fn)
        async def guarded(self: S, who: Principal, /, *args: P.args, **kwargs: P.kwargs) -> R:
            if not isinstance(who, Principal):
                raise TypeError(f"{fn.__name__}: the first argument must be the authenticated Principal")
            authorize(who, permission)
            return await fn(self, who, *args, **kwargs)

        guarded.required_permission = permission  # type: ignore[attr-defined]
        return guarded

    return decorate
