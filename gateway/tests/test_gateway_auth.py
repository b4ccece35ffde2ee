"""Team auth: hashed per-user tokens, revocation, constant-time comparison, per-token rate limits."""

from __future__ import annotations

import hmac
from pathlib import Path

import httpx
import pytest

from gateway.adapters.grpc_backends import GrpcBackends as Backends
from gateway.auth import RateLimiter, TokenAuthenticator, TokenStore, hash_token
from gateway.context import ContextService
from gateway.entrypoints.http import build_http_app
from gateway.operations import Operations
from gateway.repos import RepoDirectory
from gateway.settings import GatewaySettings


@pytest.fixture
def store(tmp_path: Path) -> TokenStore:
    return TokenStore(tmp_path / "tokens.db")


def test_tokens_are_stored_hashed_and_revocable(store: TokenStore) -> None:
    token = store.issue("alice")
    raw = (store.path).read_bytes() + (
        store.path.with_name("tokens.db-wal").read_bytes()
        if store.path.with_name("tokens.db-wal").exists()
        else b""
    )
    assert token.encode() not in raw and hash_token(token).encode() in raw
    auth = TokenAuthenticator(store=store, reload_seconds=0)
    assert auth.authenticate(f"Bearer {token}").user == "alice"  # type: ignore[union-attr]
    assert store.revoke(user="alice") == 1
    assert auth.authenticate(f"Bearer {token}") is None


def test_missing_malformed_and_wrong_tokens_are_refused(store: TokenStore) -> None:
    store.issue("alice")
    auth = TokenAuthenticator(store=store, reload_seconds=0)
    for header in (None, "", "Basic abc", "Bearer", "Bearer rr_wrong", "bearer  "):
        assert auth.authenticate(header) is None


def test_comparison_visits_every_token_whatever_matches(
    store: TokenStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    tokens = [store.issue(f"user{i}") for i in range(5)]
    auth = TokenAuthenticator(local_token="local-secret", store=store, reload_seconds=0)
    calls: list[int] = []
    real = hmac.compare_digest

    def counting(a: bytes, b: bytes) -> bool:
        calls.append(1)
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", counting)
    counts = []
    for header in (f"Bearer {tokens[0]}", f"Bearer {tokens[-1]}", "Bearer nobody", "Bearer local-secret"):
        calls.clear()
        auth.authenticate(header)
        counts.append(len(calls))
    assert counts == [6, 6, 6, 6]


def test_rate_limiter_is_per_client() -> None:
    limiter = RateLimiter(rate=1.0, burst=3)
    assert [limiter.allow("a")[0] for _ in range(4)] == [True, True, True, False]
    assert limiter.allow("b")[0] is True
    allowed, retry_after = limiter.allow("a")
    assert not allowed and 0 < retry_after <= 1


@pytest.fixture
async def app(tmp_path: Path, store: TokenStore):  # async: grpc.aio channels need the running loop
    settings = GatewaySettings(data_dir=tmp_path, rate_limit_per_second=0.5, rate_limit_burst=2)
    backends = Backends("127.0.0.1:1", "127.0.0.1:1", "127.0.0.1:1", "127.0.0.1:1")
    repos = RepoDirectory(backends.indexer)
    service = ContextService(backends, repos, 1000, 0.2)
    auth = TokenAuthenticator(store=store, reload_seconds=0)
    return build_http_app(settings, Operations.build(backends, repos, service), auth)


async def test_http_refuses_bad_tokens_and_limits_one_client_without_affecting_others(app, store) -> None:
    alice, bob = store.issue("alice"), store.issue("bob")
    revoked = store.issue("carol")
    store.revoke(user="carol")
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://gw") as client:
        assert (await client.get("/healthz")).status_code == 200
        for i, headers in enumerate(
            ({}, {"Authorization": "Bearer nope"}, {"Authorization": f"Bearer {revoked}"})
        ):
            # each from its own address: failed authentications are limited per address (burst 2 here)
            other = httpx.ASGITransport(app=app, client=(f"10.0.0.{i}", 1000))
            async with httpx.AsyncClient(transport=other, base_url="http://gw") as stranger:
                reply = await stranger.post("/hooks/prompt-context", json={"prompt": "hi"}, headers=headers)
            assert reply.status_code == 401, headers
        statuses = [
            (
                await client.post(
                    "/hooks/prompt-context",
                    json={"prompt": "x", "cwd": "/x"},
                    headers={"Authorization": f"Bearer {alice}"},
                )
            ).status_code
            for _ in range(3)
        ]
        assert statuses[:2] == [200, 200] and statuses[2] == 429
        reply = await client.post(
            "/hooks/prompt-context",
            json={"prompt": "x", "cwd": "/x"},
            headers={"Authorization": f"Bearer {bob}"},
        )
        assert reply.status_code == 200


async def test_oversized_body_is_refused_with_413(tmp_path: Path, store: TokenStore) -> None:
    settings = GatewaySettings(data_dir=tmp_path, max_body_bytes=1000)
    backends = Backends("127.0.0.1:1", "127.0.0.1:1", "127.0.0.1:1", "127.0.0.1:1")
    repos = RepoDirectory(backends.indexer)
    app = build_http_app(
        settings,
        Operations.build(backends, repos, ContextService(backends, repos, 1000, 0.2)),
        TokenAuthenticator(store=store, reload_seconds=0),
    )
    token = store.issue("alice")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw") as client:
        reply = await client.post(
            "/api/context",
            content=b"x" * 5000,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
    assert reply.status_code == 413


async def test_only_admin_tokens_remove_repositories(tmp_path: Path, store: TokenStore) -> None:
    settings = GatewaySettings(data_dir=tmp_path)
    backends = Backends("127.0.0.1:1", "127.0.0.1:1", "127.0.0.1:1", "127.0.0.1:1")
    repos = RepoDirectory(backends.indexer)
    auth = TokenAuthenticator(local_token="local-secret", store=store, reload_seconds=0)
    app = build_http_app(
        settings, Operations.build(backends, repos, ContextService(backends, repos, 1000, 0.2)), auth
    )
    alice, root = store.issue("alice"), store.issue("root", admin=True)
    assert [(r.user, r.admin) for r in store.records()] == [("alice", False), ("root", True)]
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://gw") as client:
        reply = await client.delete("/api/repos/shop", headers={"Authorization": f"Bearer {alice}"})
        assert reply.status_code == 403 and "--admin" in reply.json()["error"]
        for token in (root, "local-secret"):  # an admin token, and the local token of `reporecall up`
            reply = await client.delete("/api/repos/shop", headers={"Authorization": f"Bearer {token}"})
            assert reply.status_code != 403  # allowed (the indexer is unreachable here: 503)


def test_a_token_store_from_before_admin_tokens_is_upgraded_in_place(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "tokens.db"
    with sqlite3.connect(path) as db:
        db.execute(
            "CREATE TABLE tokens (id INTEGER PRIMARY KEY, user TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, "
            "hint TEXT NOT NULL, created REAL NOT NULL, revoked REAL)"
        )
        db.execute(
            "INSERT INTO tokens (user, hash, hint, created) VALUES ('bob', ?, 'abcd', 1.0)",
            (hash_token("rr_old"),),
        )
    upgraded = TokenStore(path)
    assert [(r.user, r.admin) for r in upgraded.records()] == [("bob", False)]
    principal = TokenAuthenticator(store=upgraded, reload_seconds=0).authenticate("Bearer rr_old")
    assert principal is not None and (principal.user, principal.admin) == ("bob", False)
