"""The manifest in one SQLite file (WAL): registered repos and, per file, what downstream acknowledged."""

from __future__ import annotations

import functools
import sqlite3
import threading
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from kit.sqlite_columns import add_missing_column
from services.indexer.domain.model import FileCounts, FileRecord, FileStatus, RepoNameTaken, RepoRecord
from services.indexer.ports import ManifestUnwritable

SCHEMA_VERSION = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS repos (
    name TEXT PRIMARY KEY,
    path TEXT NOT NULL,
    remote TEXT NOT NULL DEFAULT '',
    registered_at REAL NOT NULL,
    last_run_started REAL,
    last_run_finished REAL,
    indexed_commit TEXT NOT NULL DEFAULT '',
    parser TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS files (
    repo TEXT NOT NULL REFERENCES repos(name) ON DELETE CASCADE,
    path TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL,
    size INTEGER NOT NULL,
    hash TEXT NOT NULL,
    chunks INTEGER NOT NULL,
    status TEXT NOT NULL,
    PRIMARY KEY (repo, path)
) WITHOUT ROWID;
"""

_FILE_COLUMNS = "path, mtime_ns, size, hash, chunks, status"
_REPO_COLUMNS = (
    "name, path, remote, registered_at, last_run_started, last_run_finished, indexed_commit, parser"
)


def manifest_path_from_url(url: str, default: Path) -> Path:
    """`sqlite:///abs/path.db` (or SQLAlchemy's `sqlite:////abs/path.db`) → /abs/path.db; "" → `default`."""
    if not url:
        return default
    if not url.startswith("sqlite:///"):
        raise ValueError(f"manifest URL {url!r} must look like sqlite:///absolute/path/manifest.db")
    return Path("/" + url.removeprefix("sqlite://").lstrip("/"))


_Cls = TypeVar("_Cls", bound=type)


def _storage_errors(cls: _Cls) -> _Cls:
    """Every public method raises ManifestUnwritable, with the cause and the fix, instead of a raw sqlite3
    error when the database cannot be read or written (disk full, read-only or failing filesystem)."""

    def wrap(method: Callable[..., object]) -> Callable[..., object]:
        @functools.wraps(method)
        def guarded(self: SqliteManifest, *args: object, **kwargs: object) -> object:
            try:
                return method(self, *args, **kwargs)
            except sqlite3.OperationalError as exc:
                raise ManifestUnwritable(_explain(self.path, exc)) from exc

        return guarded

    for name, member in list(vars(cls).items()):
        if callable(member) and not name.startswith("_"):
            setattr(cls, name, wrap(member))
    return cls


def _explain(path: Path, exc: sqlite3.OperationalError) -> str:
    text = str(exc)
    if "full" in text:
        hint = "the disk holding the data directory is full; free space and index again"
    elif "readonly" in text or "read-only" in text or "disk I/O" in text:
        hint = "the data directory is read-only or failing; fix the disk and index again"
    else:
        hint = "check the data directory's disk, then index again"
    return f"manifest {path}: {text} — {hint} (nothing was recorded; the next run resends every file)"


@_storage_errors
class SqliteManifest:
    """Implements ports.Manifest. One connection guarded by a lock; every method is one transaction."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        # NORMAL loses at most the last transactions on power loss; they are then just resent.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        with self._lock:
            self._set_up()

    def _set_up(self) -> None:
        """Create the tables, or upgrade an older manifest in place, in one write transaction: a second
        opener waits for it, and a crash leaves the file as it was (nothing recorded is lost)."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version == 0 and self._db.execute("PRAGMA table_info(repos)").fetchone():
                version = 1  # the first schema's tables, written before their version was stamped
            if version > SCHEMA_VERSION:
                raise RuntimeError(
                    f"manifest {self.path} has schema version {version}, "
                    f"this indexer expects {SCHEMA_VERSION}; "
                    "delete the file to rebuild it (the next index run re-sends every file)"
                )
            for statement in filter(str.strip, _SCHEMA.split(";")):
                self._db.execute(statement)  # IF NOT EXISTS: creates only what a new file lacks
            if 0 < version < 2:  # schema 2: each repo's parser fingerprint; '' makes its next run parse all
                add_missing_column(self._db, "repos", "parser", "TEXT NOT NULL DEFAULT ''")
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

    # -- repositories ------------------------------------------------------------------------------

    def add_repo(self, name: str, path: str, remote: str, *, same_remote: bool = False) -> RepoRecord:
        # Check and insert in one transaction, so two racing registrations cannot both win.
        with self._lock, self._db:
            row = self._db.execute("SELECT path, remote FROM repos WHERE name = ?", (name,)).fetchone()
            if row is None:
                self._db.execute(
                    "INSERT INTO repos (name, path, remote, registered_at) VALUES (?, ?, ?, ?)",
                    (name, path, remote, _now()),
                )
            elif row[0] != path or (same_remote and row[1] != remote):
                raise RepoNameTaken(name, row[1] if same_remote and row[1] else row[0])
            elif row[1] != remote:  # the working tree's own origin changed: follow it
                self._db.execute("UPDATE repos SET remote = ? WHERE name = ?", (remote, name))
        record = self.get_repo(name)
        assert record is not None
        return record

    def get_repo(self, name: str) -> RepoRecord | None:
        with self._lock:
            row = self._db.execute(
                f"SELECT {_REPO_COLUMNS} FROM repos WHERE name = ?",
                (name,),
            ).fetchone()
        return _repo(row) if row else None

    def list_repos(self) -> list[RepoRecord]:
        with self._lock:
            rows = self._db.execute(f"SELECT {_REPO_COLUMNS} FROM repos ORDER BY name").fetchall()
        return [_repo(row) for row in rows]

    def remove_repo(self, name: str) -> bool:
        with self._lock, self._db:
            self._db.execute("DELETE FROM files WHERE repo = ?", (name,))
            return self._db.execute("DELETE FROM repos WHERE name = ?", (name,)).rowcount > 0

    def mark_run_started(self, name: str, at: datetime) -> None:
        with self._lock, self._db:
            self._db.execute(
                "UPDATE repos SET last_run_started = ?, last_run_finished = NULL WHERE name = ?",
                (at.timestamp(), name),
            )

    def mark_run_finished(self, name: str, at: datetime, indexed_commit: str, parser: str) -> None:
        with self._lock, self._db:
            self._db.execute(
                "UPDATE repos SET last_run_finished = ?, indexed_commit = ?, parser = ? WHERE name = ?",
                (at.timestamp(), indexed_commit, parser, name),
            )

    # -- files -------------------------------------------------------------------------------------

    def files(self, repo: str) -> dict[str, FileRecord]:
        with self._lock:
            rows = self._db.execute(f"SELECT {_FILE_COLUMNS} FROM files WHERE repo = ?", (repo,)).fetchall()
        return {row[0]: _file(row) for row in rows}

    def get_files(self, repo: str, paths: Sequence[str]) -> dict[str, FileRecord]:
        found: dict[str, FileRecord] = {}
        with self._lock:
            for batch in _batches(paths):
                marks = ",".join("?" * len(batch))
                rows = self._db.execute(
                    f"SELECT {_FILE_COLUMNS} FROM files WHERE repo = ? AND path IN ({marks})", (repo, *batch)
                ).fetchall()
                found.update((row[0], _file(row)) for row in rows)
        return found

    def files_under(self, repo: str, prefix: str) -> list[str]:
        prefix = prefix.rstrip("/")
        if not prefix:
            return sorted(self.files(repo))
        # Range scan instead of LIKE: no escaping of % and _ needed, and it uses the primary key.
        with self._lock:
            rows = self._db.execute(
                "SELECT path FROM files WHERE repo = ? AND (path = ? OR (path >= ? AND path < ?)) "
                "ORDER BY path",
                (repo, prefix, prefix + "/", prefix + "0"),  # "0" sorts right after "/"
            ).fetchall()
        return [row[0] for row in rows]

    def mark_pending(self, repo: str, paths: Sequence[str]) -> None:
        with self._lock, self._db:
            self._db.executemany(
                "INSERT INTO files (repo, path, mtime_ns, size, hash, chunks, status) "
                "VALUES (?, ?, 0, -1, '', 0, 'pending') "
                "ON CONFLICT(repo, path) DO UPDATE SET status = 'pending'",
                [(repo, path) for path in paths],
            )

    def record_files(self, repo: str, records: Sequence[FileRecord]) -> None:
        with self._lock, self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO files (repo, path, mtime_ns, size, hash, chunks, status) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(repo, r.path, r.mtime_ns, r.size, r.hash, r.chunks, r.status.value) for r in records],
            )

    def forget_files(self, repo: str, paths: Sequence[str]) -> None:
        with self._lock, self._db:
            self._db.executemany("DELETE FROM files WHERE repo = ? AND path = ?", [(repo, p) for p in paths])

    def counts(self, repo: str) -> FileCounts:
        with self._lock:
            rows = self._db.execute(
                "SELECT status, COUNT(*), COALESCE(SUM(chunks), 0) FROM files WHERE repo = ? GROUP BY status",
                (repo,),
            ).fetchall()
        by_status = {status: (count, chunks) for status, count, chunks in rows}
        indexed = by_status.get(FileStatus.INDEXED.value, (0, 0))
        return FileCounts(
            files=indexed[0],
            chunks=indexed[1],
            pending=by_status.get(FileStatus.PENDING.value, (0, 0))[0],
            skipped=by_status.get(FileStatus.SKIPPED.value, (0, 0))[0],
        )

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _now() -> float:
    return datetime.now(UTC).timestamp()


def _time(value: float | None) -> datetime | None:
    return datetime.fromtimestamp(value, UTC) if value is not None else None


def _repo(row: tuple) -> RepoRecord:
    name, path, remote, registered, started, finished, commit, parser = row
    return RepoRecord(name, path, remote, _time(registered), _time(started), _time(finished), commit, parser)


def _file(row: tuple) -> FileRecord:
    path, mtime_ns, size, file_hash, chunks, status = row
    return FileRecord(path, mtime_ns, size, file_hash, chunks, FileStatus(status))


def _batches(items: Sequence[str], size: int = 500) -> list[Sequence[str]]:
    return [items[i : i + size] for i in range(0, len(items), size)]
