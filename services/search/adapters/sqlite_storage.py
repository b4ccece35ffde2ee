"""What the SQLite adapters share: one transaction helper that turns storage failures into domain errors.

A full disk (or a size limit) and a read-only or locked database are the caller's to know about, with
the cause: the servicer answers them RESOURCE_EXHAUSTED / UNAVAILABLE instead of a bare INTERNAL.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from services.search.domain.model import StoreFull, StoreUnavailable


def storage_error(exc: sqlite3.Error, store: str, path: Path) -> Exception:
    message = str(exc)
    lowered = message.lower()
    if "full" in lowered or getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL:
        return StoreFull(f"{store} at {path}: disk is full ({message})")
    if "readonly" in lowered or "read-only" in lowered or "locked" in lowered or "disk i/o" in lowered:
        return StoreUnavailable(f"{store} at {path}: {message}")
    return exc


@contextmanager
def write_transaction(db: sqlite3.Connection, store: str, path: Path) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE … COMMIT on an autocommit connection; rolls back and translates on failure."""
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.Error as exc:
        raise storage_error(exc, store, path) from exc
    try:
        yield db
        db.execute("COMMIT")
    except sqlite3.Error as exc:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise storage_error(exc, store, path) from exc
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
