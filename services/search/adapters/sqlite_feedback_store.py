"""Feedback votes in SQLite beside the service's other data (per service instance, any backend)."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path

from services.search.adapters.sqlite_storage import write_transaction

_MAX_PARAMS = 500
_SCHEMA = """
CREATE TABLE IF NOT EXISTS votes (
    repo TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    score INTEGER NOT NULL,
    PRIMARY KEY (repo, chunk_id)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (
    at REAL NOT NULL,
    repo TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    useful INTEGER NOT NULL,
    query TEXT NOT NULL
);
"""


class SqliteFeedbackStore:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._path = path
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(_SCHEMA)
        self._lock = threading.Lock()

    def record(self, repo: str, chunk_id: str, useful: bool, query: str) -> int:
        delta = 1 if useful else -1
        with self._lock, write_transaction(self._db, "feedback store", self._path) as db:
            db.execute(
                "INSERT INTO votes VALUES (?, ?, ?)"
                " ON CONFLICT (repo, chunk_id) DO UPDATE SET score = score + ?",
                (repo, chunk_id, delta, delta),
            )
            db.execute(
                "INSERT INTO events VALUES (?, ?, ?, ?, ?)", (time.time(), repo, chunk_id, int(useful), query)
            )
            (score,) = db.execute(
                "SELECT score FROM votes WHERE repo = ? AND chunk_id = ?", (repo, chunk_id)
            ).fetchone()
        return int(score)

    def votes(self, repo: str, chunk_ids: Sequence[str]) -> dict[str, int]:
        unique = list(dict.fromkeys(chunk_ids))
        found: dict[str, int] = {}
        with self._lock:
            for lo in range(0, len(unique), _MAX_PARAMS):
                part = unique[lo : lo + _MAX_PARAMS]
                rows = self._db.execute(
                    "SELECT chunk_id, score FROM votes WHERE repo = ? AND score != 0"
                    f" AND chunk_id IN ({','.join('?' * len(part))})",
                    (repo, *part),
                )
                found.update((cid, int(score)) for cid, score in rows)
        return found

    def delete_repo(self, repo: str) -> None:
        with self._lock, write_transaction(self._db, "feedback store", self._path) as db:
            db.execute("DELETE FROM votes WHERE repo = ?", (repo,))
            db.execute("DELETE FROM events WHERE repo = ?", (repo,))

    def close(self) -> None:
        with self._lock:
            self._db.close()
