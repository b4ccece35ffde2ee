"""Embedding cache and backfill backlog, in one SQLite file beside the service's other data.

The cache is keyed by a hash of (model, embedded text), so unchanged code is never embedded twice,
whatever its chunk id, and a model change never reuses foreign vectors. The backlog survives restarts:
a chunk stays pending until its vector is in the vector index.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from kit.sqlite_columns import add_missing_column
from services.search.adapters.sqlite_storage import write_transaction
from services.search.domain.model import PendingEmbedding, Vector

MAX_ATTEMPTS = 3
# A chunk that failed MAX_ATTEMPTS times in a row is parked, then tried again this long after its last
# failure (an embedding server that was down for a while; a poisoned text costs one call per period).
PARKED_RETRY_SECONDS = 600.0
_MAX_PARAMS = 500

_SCHEMA = """
CREATE TABLE IF NOT EXISTS cache (key TEXT PRIMARY KEY, vector BLOB NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS pending (
    repo TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    path TEXT NOT NULL,
    language TEXT NOT NULL,
    kind TEXT NOT NULL,
    is_test INTEGER NOT NULL,
    content_hash TEXT NOT NULL,
    key TEXT NOT NULL,
    text TEXT NOT NULL,
    enqueued REAL NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT NOT NULL DEFAULT '',
    failed_at REAL NOT NULL DEFAULT 0,
    PRIMARY KEY (repo, chunk_id)
);
CREATE INDEX IF NOT EXISTS pending_by_file ON pending (repo, path);
CREATE INDEX IF NOT EXISTS pending_by_age ON pending (attempts, enqueued);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""


class SqliteEmbeddingStore:
    def __init__(
        self,
        path: Path,
        parked_retry_seconds: float = PARKED_RETRY_SECONDS,
        clock: Callable[[], float] = time.time,  # wall-clock seconds: injected by tests of the retry delay
    ) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._path = path
        self._parked_retry_seconds = parked_retry_seconds
        self._clock = clock
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        # a store from before parked items were retried
        add_missing_column(self._db, "pending", "failed_at", "REAL NOT NULL DEFAULT 0")
        self._lock = threading.RLock()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock, write_transaction(self._db, "embedding store", self._path) as db:
            yield db

    def cached(self, keys: Sequence[str]) -> dict[str, Vector]:
        unique = list(dict.fromkeys(keys))
        found: dict[str, Vector] = {}
        with self._lock:
            for lo in range(0, len(unique), _MAX_PARAMS):
                part = unique[lo : lo + _MAX_PARAMS]
                rows = self._db.execute(
                    f"SELECT key, vector FROM cache WHERE key IN ({','.join('?' * len(part))})", part
                )
                found.update((key, np.frombuffer(blob, dtype=np.float32)) for key, blob in rows)
        return found

    def vectors_model(self) -> str | None:
        with self._lock:
            row = self._db.execute("SELECT value FROM meta WHERE key = 'vectors_model'").fetchone()
        return str(row[0]) if row else None

    def set_vectors_model(self, model: str) -> None:
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES ('vectors_model', ?)", (model,))

    def put_cached(self, items: Sequence[tuple[str, Vector]]) -> None:
        with self._transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO cache VALUES (?, ?)",
                [(key, np.asarray(v, dtype=np.float32).tobytes()) for key, v in items],
            )

    def replace_pending(self, repo: str, path: str, pending: Sequence[tuple[str, PendingEmbedding]]) -> None:
        now = self._clock()
        with self._transaction() as db:
            db.execute("DELETE FROM pending WHERE repo = ? AND path = ?", (repo, path))
            db.executemany(
                "INSERT OR REPLACE INTO pending (repo, chunk_id, path, language, kind, is_test, content_hash,"
                " key, text, enqueued) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        p.repo,
                        p.chunk_id,
                        p.path,
                        p.language,
                        p.kind,
                        int(p.is_test),
                        p.content_hash,
                        key,
                        p.text,
                        now,
                    )
                    for key, p in pending
                ],
            )

    def next_pending(self, limit: int) -> list[tuple[str, PendingEmbedding]]:
        """Oldest fresh items first; parked ones (MAX_ATTEMPTS failures) only when no fresh one is left and
        their retry time has come, so a poisoned text never shares a batch with (and fails) fresh ones."""
        columns = "key, chunk_id, repo, path, language, kind, is_test, content_hash, text"
        with self._lock:
            rows = self._db.execute(
                f"SELECT {columns} FROM pending WHERE attempts < ? ORDER BY attempts, enqueued LIMIT ?",
                (MAX_ATTEMPTS, limit),
            ).fetchall()
            if not rows:
                rows = self._db.execute(
                    f"SELECT {columns} FROM pending WHERE attempts >= ? AND failed_at <= ?"
                    " ORDER BY failed_at LIMIT ?",
                    (MAX_ATTEMPTS, self._clock() - self._parked_retry_seconds, limit),
                ).fetchall()
        return [
            (key, PendingEmbedding(cid, repo, path, language, kind, bool(test), chash, text))
            for key, cid, repo, path, language, kind, test, chash, text in rows
        ]

    def complete(self, done: Sequence[tuple[str, PendingEmbedding]]) -> list[tuple[str, PendingEmbedding]]:
        still: list[tuple[str, PendingEmbedding]] = []
        with self._transaction() as db:
            for key, item in done:
                removed = db.execute(
                    "DELETE FROM pending WHERE repo = ? AND chunk_id = ? AND key = ?",
                    (item.repo, item.chunk_id, key),
                ).rowcount
                if removed:
                    still.append((key, item))
        return still

    def fail(self, items: Sequence[tuple[str, PendingEmbedding]], error: str) -> None:
        with self._transaction() as db:
            db.executemany(
                "UPDATE pending SET attempts = attempts + 1, last_error = ?, failed_at = ?"
                " WHERE repo = ? AND chunk_id = ? AND key = ?",
                [(error[:500], self._clock(), item.repo, item.chunk_id, key) for key, item in items],
            )

    def delete_files(self, repo: str, paths: Sequence[str]) -> None:
        with self._transaction() as db:
            db.executemany("DELETE FROM pending WHERE repo = ? AND path = ?", [(repo, p) for p in paths])

    def delete_repo(self, repo: str) -> None:
        with self._transaction() as db:
            db.execute("DELETE FROM pending WHERE repo = ?", (repo,))

    def backlog(self, repo: str) -> int:
        with self._lock:
            if repo:
                row = self._db.execute("SELECT COUNT(*) FROM pending WHERE repo = ?", (repo,)).fetchone()
            else:
                row = self._db.execute("SELECT COUNT(*) FROM pending").fetchone()
        return int(row[0])

    def close(self) -> None:
        with self._lock:
            self._db.close()
