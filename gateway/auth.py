"""Bearer-token authentication and per-token rate limits.

Tokens are issued per user by `reporecall token issue USER` and stored as SHA-256 hashes in
<data-dir>/gateway/tokens.db; the plaintext is shown once. Every presented token is hashed and compared
with `hmac.compare_digest` against every active hash, so the time taken does not depend on where or
whether a match is. Revocations reach a running gateway within `reload_seconds`.

What each kind of token may do is decided in gateway.authorization (admin, member, the local token).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path

from gateway.authorization import Principal, Role
from kit.sqlite_columns import add_missing_column

TOKEN_PREFIX = "rr_"
__all__ = ["Principal", "RateLimiter", "Role", "TokenAuthenticator", "TokenStore", "hash_token"]


@dataclass(frozen=True)
class TokenRecord:
    id: int
    user: str
    created: float
    revoked: float | None
    hint: str
    admin: bool = False


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class TokenStore:
    """SQLite table of hashed tokens. Safe to use from the CLI while a gateway reads it (WAL)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        # Owner-only whoever opens it first (the CLI's `token issue` too); SQLite gives -wal/-shm its mode.
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        path.chmod(0o600)
        self.path = path
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(
                "CREATE TABLE IF NOT EXISTS tokens (id INTEGER PRIMARY KEY, user TEXT NOT NULL, "
                "hash TEXT NOT NULL UNIQUE, hint TEXT NOT NULL, created REAL NOT NULL, revoked REAL, "
                "admin INTEGER NOT NULL DEFAULT 0)"
            )
            # a token store from before admin tokens: all of them plain
            add_missing_column(db, "tokens", "admin", "INTEGER NOT NULL DEFAULT 0")

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=5)

    def issue(self, user: str, admin: bool = False) -> str:
        user = user.strip()
        if not user or len(user) > 100 or any(c in user for c in "\x00\n\r/\\"):
            raise ValueError("user: give a plain user name (1-100 characters, no slashes or newlines)")
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        with self._connect() as db:
            db.execute(
                "INSERT INTO tokens (user, hash, hint, created, admin) VALUES (?, ?, ?, ?, ?)",
                (user, hash_token(token), token[-4:], time.time(), int(admin)),
            )
        return token

    def revoke(self, token_id: int | None = None, user: str | None = None) -> int:
        with self._connect() as db:
            if token_id is not None:
                cursor = db.execute(
                    "UPDATE tokens SET revoked=? WHERE id=? AND revoked IS NULL", (time.time(), token_id)
                )
            else:
                cursor = db.execute(
                    "UPDATE tokens SET revoked=? WHERE user=? AND revoked IS NULL", (time.time(), user)
                )
            return cursor.rowcount

    def records(self) -> list[TokenRecord]:
        with self._connect() as db:
            rows = db.execute(
                "SELECT id, user, created, revoked, hint, admin FROM tokens ORDER BY id"
            ).fetchall()
        return [
            TokenRecord(id_, user, created, revoked, hint, bool(admin))
            for id_, user, created, revoked, hint, admin in rows
        ]

    def active_hashes(self) -> list[tuple[str, Principal]]:
        with self._connect() as db:
            rows = db.execute("SELECT hash, user, admin FROM tokens WHERE revoked IS NULL").fetchall()
        return [
            (digest, Principal(user, Role.ADMIN if admin else Role.MEMBER, digest))
            for digest, user, admin in rows
        ]


class TokenAuthenticator:
    """Accepts the local token (from `reporecall up`) and any active token in the store."""

    def __init__(
        self,
        local_token: str = "",
        store: TokenStore | None = None,
        local_user: str = "local",
        reload_seconds: float = 2.0,
    ) -> None:
        self._entries: list[tuple[str, Principal]] = []
        local = hash_token(local_token)
        self._local = [(local, Principal(local_user, Role.LOCAL, local))] if local_token else []
        self._store = store
        self._reload_seconds = reload_seconds
        self._loaded_at = 0.0
        self._lock = threading.Lock()

    def _current(self) -> list[tuple[str, Principal]]:
        if self._store is None:
            return self._local
        now = time.monotonic()
        if now - self._loaded_at > self._reload_seconds:
            with self._lock:
                if now - self._loaded_at > self._reload_seconds:
                    try:
                        self._entries = self._local + self._store.active_hashes()
                    except sqlite3.Error:
                        # e.g. a full disk: keep answering with the tokens loaded last time
                        if not self._entries:
                            self._entries = list(self._local)
                    self._loaded_at = now
        return self._entries

    def authenticate(self, authorization: str | None) -> Principal | None:
        """The principal of a `Bearer <token>` header (scheme case and spacing ignored), or None.

        The principal's `key` is the stored hash it matched, so every spelling of one header
        (`Bearer  tok`, `bearer tok `) is one client for the rate limiter."""
        if not authorization or authorization[:7].lower() != "bearer ":
            return None
        presented = hash_token(authorization[7:].strip()).encode()
        found: Principal | None = None
        for stored_hash, principal in self._current():
            # No early exit: every entry is compared, matching or not.
            if hmac.compare_digest(presented, stored_hash.encode()):
                found = principal
        return found


class RateLimiter:
    """Token bucket per client key: `rate` requests per second on average, bursts up to `burst`.

    The table holds at most `max_keys` clients: the least recently seen is dropped first (a dropped
    client starts again with a full bucket, which is what an idle client would have anyway)."""

    def __init__(self, rate: float, burst: int, max_keys: int = 10_000) -> None:
        self.rate, self.burst, self.max_keys = rate, burst, max_keys
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._buckets)

    def _level(self, key: str, now: float) -> float:
        tokens, stamp = self._buckets.get(key, (float(self.burst), now))
        return min(float(self.burst), tokens + (now - stamp) * self.rate)

    def allow(self, key: str) -> tuple[bool, float]:
        """Take one request from `key`'s bucket: (allowed, seconds until the next would be allowed)."""
        if self.rate <= 0:
            return True, 0.0
        now = time.monotonic()
        with self._lock:
            tokens = self._level(key, now)
            allowed = tokens >= 1
            self._buckets[key] = (tokens - 1 if allowed else tokens, now)
            self._buckets.move_to_end(key)
            while len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
            return (True, 0.0) if allowed else (False, (1 - tokens) / self.rate)


def token_store_path(data_dir: Path) -> Path:
    return data_dir / "gateway" / "tokens.db"
