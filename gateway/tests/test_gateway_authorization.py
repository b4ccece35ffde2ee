"""The authorization table and its enforcement: every operation names a permission and checks it first."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from gateway.authorization import (
    GRANTS,
    SERVICE,
    WEBHOOK,
    Forbidden,
    Permission,
    Principal,
    Role,
    acting_user,
    authorize,
)
from gateway.operations import Operations

NOT_OPERATIONS = {"repo", "find_repo", "build"}  # repo-name resolution and the constructor


def _operations() -> list[str]:
    return [
        name
        for name, fn in inspect.getmembers(Operations, inspect.iscoroutinefunction)
        if not name.startswith("_") and name not in NOT_OPERATIONS
    ]


def test_every_public_operation_names_the_permission_it_needs() -> None:
    missing = [
        name for name in _operations() if not hasattr(getattr(Operations, name), "required_permission")
    ]
    assert _operations() and missing == []


async def test_an_operation_refuses_before_touching_any_backend() -> None:
    class Exploding:
        def __getattr__(self, name: str) -> Any:
            raise AssertionError(f"a refused call reached the backends ({name})")

    ops = Operations(Exploding(), Exploding(), Exploding(), Exploding())  # type: ignore[arg-type]
    nobody = Principal("mallory", Role.WEBHOOK)  # may only sync
    for name in _operations():
        if getattr(Operations, name).required_permission is Permission.SYNC_REPO:
            continue
        with pytest.raises(Forbidden):
            await getattr(ops, name)(nobody, None)


async def test_the_principal_must_be_a_principal_not_a_user_name() -> None:
    ops = Operations(None, None, None, None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Principal"):
        await ops.list_repos("alice")  # type: ignore[arg-type]


def test_roles_grant_what_the_runbook_says() -> None:
    member = Principal("alice", Role.MEMBER)
    for permission in (Permission.MANAGE_REPOS, Permission.SYNC_REPO):
        with pytest.raises(Forbidden, match="--admin"):
            authorize(member, permission)
    for role in (Role.ADMIN, Role.LOCAL):
        assert GRANTS[role] == frozenset(Permission) and Principal("x", role).admin
    assert not member.admin
    assert Permission.COMPACT_MEMORY in GRANTS[Role.MEMBER]  # the memory service limits it to their own
    assert GRANTS[Role.WEBHOOK] == {Permission.SYNC_REPO}
    assert Permission.WRITE_MEMORY not in GRANTS[Role.SERVICE]


def test_services_act_for_the_token_user_and_for_nobody_otherwise() -> None:
    assert acting_user(Principal("alice", Role.MEMBER)) == "alice"
    assert acting_user(Principal("root", Role.ADMIN)) == "root"
    assert acting_user(WEBHOOK) == "" and acting_user(SERVICE) == ""


def test_the_json_api_operation_table_names_each_operations_own_arguments() -> None:
    import inspect
    from types import SimpleNamespace

    from gateway.entrypoints.http import PUBLIC_OPERATIONS, _operation_table

    ops = Operations(SimpleNamespace(), SimpleNamespace(), SimpleNamespace(), SimpleNamespace())  # type: ignore[arg-type]
    table = _operation_table(ops)
    assert set(table) == PUBLIC_OPERATIONS
    for name, (operation, arguments) in table.items():
        assert arguments == set(inspect.signature(operation).parameters) - {"who", "repo"}, name
