"""SQLite FTS5 index of memory files (the embedded store; rebuilt from the files whenever needed).

Text is indexed as `kit.text.code_words` output with the tokenizer code search uses (porter stemming over
unicode61), so `validateUserInput`, `validate_user_input` and "validates user input" meet on the same words.
Visibility and status rules mirror `domain/scope.py`; a memory listed in another memory's `supersedes`
counts as superseded (that is how read-only Claude Code memories are retired).
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from services.memory.adapters.memory_folder import FILE_MODE, make_private_dir
from services.memory.domain.model import Memory, MemoryClass, MemoryType, Scope, Source, Status
from services.memory.domain.query import memory_index_fields
from services.memory.domain.ranking import Candidate
from services.memory.domain.scope import MemoryFilter
from services.memory.ports import IndexedMemory

SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
  path TEXT PRIMARY KEY, ns TEXT NOT NULL, mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS files_ns ON files(ns);
CREATE TABLE IF NOT EXISTS memories (
  rowid INTEGER PRIMARY KEY,
  ns TEXT NOT NULL, id TEXT NOT NULL, path TEXT NOT NULL,
  class TEXT NOT NULL, scope TEXT NOT NULL, status TEXT NOT NULL,
  branch TEXT NOT NULL, user TEXT NOT NULL, confidence REAL NOT NULL,
  fingerprint TEXT NOT NULL, updated REAL NOT NULL, tokens INTEGER NOT NULL,
  doc TEXT NOT NULL,
  UNIQUE (ns, id)
);
CREATE INDEX IF NOT EXISTS memories_path ON memories(path);
CREATE INDEX IF NOT EXISTS memories_updated ON memories(ns, updated);
CREATE INDEX IF NOT EXISTS memories_fingerprint ON memories(ns, fingerprint);
CREATE TABLE IF NOT EXISTS supersedes (
  ns TEXT NOT NULL, target_id TEXT NOT NULL, by_id TEXT NOT NULL, PRIMARY KEY (ns, target_id, by_id)
);
CREATE TABLE IF NOT EXISTS tombstones (
  ns TEXT NOT NULL, fingerprint TEXT NOT NULL, PRIMARY KEY (ns, fingerprint)
);
CREATE TABLE IF NOT EXISTS usage (
  ns TEXT NOT NULL, id TEXT NOT NULL, count INTEGER NOT NULL, last_used REAL NOT NULL, PRIMARY KEY (ns, id)
);
CREATE TABLE IF NOT EXISTS usage_files (ns TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL);
CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(
  name, description, body, related, tokenize = 'porter unicode61 remove_diacritics 2'
);
"""

_TABLES = ("memories", "files", "tombstones", "usage", "usage_files", "supersedes")
# Matching rows a recall scores at most (see _affordable_terms), and how long a word's count is reused.
ROW_BUDGET = 600
FREQUENCY_CACHE_SECONDS = 60.0
# bm25 weights for name, description, body, related files/symbols.
BM25 = "bm25(memory_fts, 4.0, 2.0, 1.0, 2.0)"

_EFFECTIVE_STATUS = """CASE WHEN EXISTS (
    SELECT 1 FROM supersedes s WHERE s.ns = m.ns AND s.target_id = m.id AND s.by_id != m.id
  ) THEN 'superseded' ELSE m.status END"""


class SqliteMemoryIndex:
    """One connection guarded by a lock: recall is a handful of small queries, so serialising is cheap."""

    def __init__(self, path: Path | str) -> None:
        if str(path) != ":memory:":
            _create_private(Path(path))
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=10.0)
        self._lock = threading.RLock()
        self._frequencies: dict[str, tuple[float, int]] = {}
        with self._lock:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA)

    # --- files ---------------------------------------------------------------------------------
    def file_states(self, ns: str) -> dict[str, tuple[int, int]]:
        with self._lock:
            rows = self._db.execute("SELECT path, mtime_ns, size FROM files WHERE ns = ?", (ns,)).fetchall()
        return {path: (mtime, size) for path, mtime, size in rows}

    def put(self, ns: str, path: str, mtime_ns: int, size: int, memory: Memory | None, tokens: int) -> None:
        with self._lock, self._transaction():
            self._db.execute(
                "INSERT INTO files(path, ns, mtime_ns, size) VALUES (?, ?, ?, ?) "
                "ON CONFLICT(path) DO UPDATE SET ns = excluded.ns, mtime_ns = excluded.mtime_ns, "
                "size = excluded.size",
                (path, ns, mtime_ns, size),
            )
            self._delete_rows("path = ?", (path,))
            if memory is None:
                return
            self._delete_rows("ns = ? AND id = ?", (ns, memory.id))
            cursor = self._db.execute(
                "INSERT INTO memories(ns, id, path, class, scope, status, branch, user, confidence, "
                "fingerprint, updated, tokens, doc) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    ns,
                    memory.id,
                    path,
                    memory.memory_class.value,
                    memory.scope.value,
                    memory.status.value,
                    memory.branch,
                    memory.user,
                    memory.confidence,
                    memory.fingerprint,
                    memory.updated.timestamp(),
                    tokens,
                    json.dumps(_to_doc(memory), default=str),
                ),
            )
            rowid = cursor.lastrowid
            self._db.execute(
                "INSERT INTO memory_fts(rowid, name, description, body, related) VALUES (?,?,?,?,?)",
                (rowid, *memory_index_fields(memory)),
            )
            self._db.executemany(
                "INSERT OR IGNORE INTO supersedes(ns, target_id, by_id) VALUES (?, ?, ?)",
                [(ns, target, memory.id) for target in memory.supersedes if target != memory.id],
            )

    def remove_files(self, ns: str, paths: list[str]) -> None:
        if not paths:
            return
        with self._lock, self._transaction():
            for path in paths:
                self._delete_rows("path = ?", (path,))
                self._db.execute("DELETE FROM files WHERE path = ?", (path,))

    def namespaces(self) -> set[str]:
        with self._lock:
            return {row[0] for row in self._db.execute("SELECT DISTINCT ns FROM files")}

    def _delete_rows(self, where: str, args: tuple[Any, ...]) -> None:
        rows = self._db.execute(f"SELECT rowid, ns, id FROM memories WHERE {where}", args).fetchall()  # noqa: S608
        for rowid, ns, memory_id in rows:
            self._db.execute("DELETE FROM memory_fts WHERE rowid = ?", (rowid,))
            self._db.execute("DELETE FROM memories WHERE rowid = ?", (rowid,))
            self._db.execute("DELETE FROM supersedes WHERE ns = ? AND by_id = ?", (ns, memory_id))

    # --- tombstones ----------------------------------------------------------------------------
    def tombstones(self, ns: str) -> set[str]:
        with self._lock:
            rows = self._db.execute("SELECT fingerprint FROM tombstones WHERE ns = ?", (ns,)).fetchall()
        return {row[0] for row in rows}

    def set_tombstones(self, ns: str, keys: set[str]) -> None:
        with self._lock, self._transaction():
            self._db.execute("DELETE FROM tombstones WHERE ns = ?", (ns,))
            self._db.executemany(
                "INSERT INTO tombstones(ns, fingerprint) VALUES (?, ?)",
                [(ns, fp) for fp in sorted(keys)],
            )

    # --- queries -------------------------------------------------------------------------------
    def get(self, ns: str, memory_id: str) -> IndexedMemory | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT m.doc, {_EFFECTIVE_STATUS}, m.path, m.tokens FROM memories m "  # noqa: S608
                "WHERE m.ns = ? AND m.id = ?",
                (ns, memory_id),
            ).fetchone()
        if row is None:
            return None
        return IndexedMemory(_from_doc(row[0], row[1]), row[2], row[3])

    def with_fingerprint(self, ns: str, fingerprint: str) -> list[IndexedMemory]:
        with self._lock:
            rows = self._db.execute(
                f"SELECT m.doc, {_EFFECTIVE_STATUS}, m.path, m.tokens FROM memories m "  # noqa: S608
                "WHERE m.ns = ? AND m.fingerprint = ?",
                (ns, fingerprint),
            ).fetchall()
        return [IndexedMemory(_from_doc(doc, eff), path, tokens) for doc, eff, path, tokens in rows]

    def _affordable_terms(self, terms: list[str]) -> list[str]:
        """The rarest terms whose matches fit ROW_BUDGET (at least the rarest one): bm25 is computed for every
        row a term matches, and a word in most memories (a folder full of one user's prompts) ranks nothing."""
        counted = []
        now = time.monotonic()
        for term in terms:
            cached = self._frequencies.get(term)
            if cached is not None and now - cached[0] < FREQUENCY_CACHE_SECONDS:
                count = cached[1]
            else:
                (count,) = self._db.execute(
                    "SELECT count(*) FROM memory_fts WHERE memory_fts MATCH ?", (f'"{term}"',)
                ).fetchone()
                if count:  # never cache a zero: the next memory stored may have the word
                    if len(self._frequencies) > 20_000:
                        self._frequencies.clear()
                    self._frequencies[term] = (now, int(count))
            if count:
                counted.append((int(count), term))
        if sum(count for count, _ in counted) <= ROW_BUDGET:
            return [term for _, term in counted]
        chosen: list[str] = []
        rows = 0
        for count, term in sorted(counted):
            if chosen and rows + count > ROW_BUDGET:
                break
            chosen.append(term)
            rows += count
        return chosen

    def search(self, flt: MemoryFilter, terms: list[str], limit: int) -> list[Candidate]:
        where, args = _filter_sql(flt)
        with self._lock:
            if terms:
                terms = self._affordable_terms(terms)
                if not terms:
                    return []  # no memory has any of the words
                match = " OR ".join(f'"{term}"' for term in terms)
                rows = self._db.execute(
                    f"SELECT m.doc, {_EFFECTIVE_STATUS} AS eff, m.tokens, -{BM25} AS rel, "  # noqa: S608
                    "COALESCE(u.count, 0) FROM memory_fts JOIN memories m ON m.rowid = memory_fts.rowid "
                    "LEFT JOIN usage u ON u.ns = m.ns AND u.id = m.id "
                    f"WHERE memory_fts MATCH ? AND {where} ORDER BY {BM25} LIMIT ?",
                    (match, *args, limit),
                ).fetchall()
            else:
                rows = self._db.execute(
                    f"SELECT m.doc, {_EFFECTIVE_STATUS} AS eff, m.tokens, 0.0, COALESCE(u.count, 0) "  # noqa: S608
                    "FROM memories m LEFT JOIN usage u ON u.ns = m.ns AND u.id = m.id "
                    f"WHERE {where} ORDER BY m.updated DESC, m.id LIMIT ?",
                    (*args, limit),
                ).fetchall()
        return [
            Candidate(_from_doc(doc, eff), max(0.0, rel), tokens, uses)
            for doc, eff, tokens, rel, uses in rows
        ]

    def list_memories(self, flt: MemoryFilter, limit: int) -> list[Memory]:
        where, args = _filter_sql(flt)
        with self._lock:
            rows = self._db.execute(
                f"SELECT m.doc, {_EFFECTIVE_STATUS} FROM memories m WHERE {where} "  # noqa: S608
                "ORDER BY m.updated DESC, m.id LIMIT ?",
                (*args, limit),
            ).fetchall()
        return [_from_doc(doc, eff) for doc, eff in rows]

    # --- usage ---------------------------------------------------------------------------------
    def usage(self, ns: str) -> dict[str, tuple[int, float]]:
        with self._lock:
            rows = self._db.execute("SELECT id, count, last_used FROM usage WHERE ns = ?", (ns,)).fetchall()
        return {memory_id: (count, last) for memory_id, count, last in rows}

    def set_usage(self, ns: str, usage: dict[str, tuple[int, float]], mtime_ns: int) -> None:
        with self._lock, self._transaction():
            self._db.execute("DELETE FROM usage WHERE ns = ?", (ns,))
            self._db.executemany(
                "INSERT INTO usage(ns, id, count, last_used) VALUES (?, ?, ?, ?)",
                [(ns, memory_id, count, last) for memory_id, (count, last) in usage.items()],
            )
            self._db.execute(
                "INSERT INTO usage_files(ns, mtime_ns) VALUES (?, ?) "
                "ON CONFLICT(ns) DO UPDATE SET mtime_ns = excluded.mtime_ns",
                (ns, mtime_ns),
            )

    def usage_mtime_ns(self, ns: str) -> int:
        with self._lock:
            row = self._db.execute("SELECT mtime_ns FROM usage_files WHERE ns = ?", (ns,)).fetchone()
        return row[0] if row else -1

    # --- maintenance ---------------------------------------------------------------------------
    def drop_namespace(self, ns: str) -> None:
        with self._lock, self._transaction():
            self._delete_rows("ns = ?", (ns,))
            for table in _TABLES:
                self._db.execute(f"DELETE FROM {table} WHERE ns = ?", (ns,))  # noqa: S608

    def clear(self) -> None:
        with self._lock, self._transaction():
            for table in (*_TABLES, "memory_fts"):
                self._db.execute(f"DELETE FROM {table}")  # noqa: S608

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


def _create_private(path: Path) -> None:
    """The database file owner-only before SQLite opens it (its -wal and -shm files take the same mode)."""
    make_private_dir(path.parent)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)
    for suffix in ("-wal", "-shm"):  # left by an older version with the umask's mode
        with contextlib.suppress(FileNotFoundError):
            os.chmod(f"{path}{suffix}", FILE_MODE)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self._db.execute("COMMIT" if exc_type is None else "ROLLBACK")


def _filter_sql(flt: MemoryFilter) -> tuple[str, list[Any]]:
    viewer = flt.viewer
    clauses = [
        "m.ns IN (?, '')",
        "(m.scope != 'branch' OR m.branch = ?)",
        "(m.scope != 'user' OR (m.user != '' AND m.user = ?))",
        "(m.class != 'working' OR m.user = '' OR m.user = ?)",
        "m.confidence >= ?",
    ]
    args: list[Any] = [viewer.repo, viewer.branch, viewer.user, viewer.user, flt.min_confidence]
    if flt.classes:
        clauses.append(f"m.class IN ({','.join('?' * len(flt.classes))})")
        args.extend(sorted(c.value for c in flt.classes))
    if not flt.include_inactive:
        clauses.append(f"{_EFFECTIVE_STATUS} = 'active'")
    return " AND ".join(clauses), args


def _to_doc(memory: Memory) -> dict[str, Any]:
    return {
        "id": memory.id,
        "repo": memory.repo,
        "name": memory.name,
        "description": memory.description,
        "body": memory.body,
        "type": memory.type.value,
        "class": memory.memory_class.value,
        "scope": memory.scope.value,
        "status": memory.status.value,
        "pinned": memory.pinned,
        "confidence": memory.confidence,
        "fingerprint": memory.fingerprint,
        "supersedes": list(memory.supersedes),
        "reason": memory.reason,
        "related_files": list(memory.related_files),
        "related_symbols": list(memory.related_symbols),
        "branch": memory.branch,
        "user": memory.user,
        "session": memory.session,
        "source": memory.source.value,
        "created": memory.created.isoformat(),
        "updated": memory.updated.isoformat(),
    }


_TYPES = {e.value: e for e in MemoryType}
_CLASSES = {e.value: e for e in MemoryClass}
_SCOPES = {e.value: e for e in Scope}
_STATUSES = {e.value: e for e in Status}
_SOURCES = {e.value: e for e in Source}


def _from_doc(doc: str, effective_status: str) -> Memory:
    """A memory from its stored JSON (dict lookups, not Enum(...): this runs for every recall candidate)."""
    data = json.loads(doc)
    return Memory(
        id=data["id"],
        repo=data["repo"],
        name=data["name"],
        description=data["description"],
        body=data["body"],
        type=_TYPES[data["type"]],
        memory_class=_CLASSES[data["class"]],
        scope=_SCOPES[data["scope"]],
        status=_STATUSES[effective_status],
        pinned=data["pinned"],
        confidence=data["confidence"],
        fingerprint=data["fingerprint"],
        supersedes=tuple(data["supersedes"]),
        reason=data["reason"],
        related_files=tuple(data["related_files"]),
        related_symbols=tuple(data["related_symbols"]),
        branch=data["branch"],
        user=data["user"],
        session=data["session"],
        source=_SOURCES[data["source"]],
        created=datetime.fromisoformat(data["created"]),
        updated=datetime.fromisoformat(data["updated"]),
    )
