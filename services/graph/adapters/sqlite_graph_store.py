"""Embedded graph store: raw per-file facts in SQLite tables (the default, zero setup).

One writer connection behind a lock (BEGIN IMMEDIATE per file, so a replace is all-or-nothing) and one
reader connection per thread; WAL lets readers run while a file is being replaced.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Collection, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from kit.domain import CallSite, ChunkKind, Import, Symbol

from ..domain.errors import InvalidArgument
from ..domain.model import FileGraph, RepoFacts, StoreCounts

_SCHEMA = """
CREATE TABLE IF NOT EXISTS repos (
  repo TEXT PRIMARY KEY,
  generation INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS files (
  repo TEXT NOT NULL, path TEXT NOT NULL, file_hash TEXT NOT NULL,
  PRIMARY KEY (repo, path)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS symbols (
  repo TEXT NOT NULL, id TEXT NOT NULL, path TEXT NOT NULL, ord INTEGER NOT NULL,
  name TEXT NOT NULL, qualified_name TEXT NOT NULL, kind TEXT NOT NULL,
  start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, signature TEXT NOT NULL, is_test INTEGER NOT NULL,
  PRIMARY KEY (repo, id)
);
CREATE INDEX IF NOT EXISTS symbols_by_path ON symbols (repo, path, ord);
CREATE INDEX IF NOT EXISTS symbols_by_name ON symbols (repo, name);
CREATE INDEX IF NOT EXISTS symbols_by_qualified_name ON symbols (repo, qualified_name);
CREATE TABLE IF NOT EXISTS call_sites (
  repo TEXT NOT NULL, path TEXT NOT NULL, ord INTEGER NOT NULL,
  caller_id TEXT NOT NULL, callee_name TEXT NOT NULL, line INTEGER NOT NULL, receiver TEXT NOT NULL,
  PRIMARY KEY (repo, path, ord)
);
CREATE INDEX IF NOT EXISTS call_sites_by_caller ON call_sites (repo, caller_id);
CREATE INDEX IF NOT EXISTS call_sites_by_callee ON call_sites (repo, callee_name);
CREATE TABLE IF NOT EXISTS imports (
  repo TEXT NOT NULL, path TEXT NOT NULL, ord INTEGER NOT NULL,
  target TEXT NOT NULL, resolved_path TEXT NOT NULL, external INTEGER NOT NULL, names TEXT NOT NULL,
  line INTEGER NOT NULL,
  PRIMARY KEY (repo, path, ord)
);
CREATE INDEX IF NOT EXISTS imports_by_resolved_path ON imports (repo, resolved_path);
"""

_SYMBOL_COLUMNS = "id, path, name, qualified_name, kind, start_line, end_line, signature, is_test"
_CALL_COLUMNS = "caller_id, callee_name, line, receiver"
_IMPORT_COLUMNS = "path, target, resolved_path, external, names, line"
# SQLite's default cap on bound parameters is far above this; small chunks keep query plans simple.
_CHUNK = 500


def _symbol(row: sqlite3.Row | tuple) -> Symbol:
    return Symbol(
        id=row[0],
        path=row[1],
        name=row[2],
        qualified_name=row[3],
        kind=ChunkKind(row[4]),
        start_line=row[5],
        end_line=row[6],
        signature=row[7],
        is_test=bool(row[8]),
    )


def _call(row: tuple) -> CallSite:
    return CallSite(caller_id=row[0], callee_name=row[1], line=row[2], receiver=row[3])


def _import(row: tuple) -> Import:
    return Import(
        path=row[0],
        target=row[1],
        resolved_path=row[2],
        external=bool(row[3]),
        names=tuple(json.loads(row[4])),
        line=row[5],
    )


def _chunks(values: Collection[str]) -> Iterator[list[str]]:
    items = sorted(set(values))
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


def _marks(n: int) -> str:
    return ",".join("?" * n)


class SqliteGraphStore:
    """GraphStore over one SQLite file."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._path = path
        self._write_lock = threading.Lock()
        self._local = threading.local()
        self._all_connections: list[sqlite3.Connection] = []
        self._connections_lock = threading.Lock()
        self._writer = self._connect()
        self._writer.execute("PRAGMA journal_mode=WAL")
        self._writer.executescript(_SCHEMA)

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(self._path, isolation_level=None, check_same_thread=False, timeout=30)
        conn.execute("PRAGMA synchronous=NORMAL")
        conn.execute("PRAGMA busy_timeout=30000")
        with self._connections_lock:
            self._all_connections.append(conn)
        return conn

    def _reader(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._connect()
            self._local.conn = conn
        return conn

    @contextmanager
    def _write(self, repo: str) -> Iterator[sqlite3.Connection]:
        with self._write_lock:
            conn = self._writer
            conn.execute("BEGIN IMMEDIATE")
            try:
                yield conn
                conn.execute(
                    "INSERT INTO repos (repo, generation) VALUES (?, 1) "
                    "ON CONFLICT (repo) DO UPDATE SET generation = generation + 1",
                    (repo,),
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise

    # -- writes ---------------------------------------------------------------------------------------

    def replace_file(
        self,
        repo: str,
        path: str,
        file_hash: str,
        symbols: Sequence[Symbol],
        call_sites: Sequence[CallSite],
        imports: Sequence[Import],
    ) -> None:
        with self._write(repo) as conn:
            for chunk in _chunks([s.id for s in symbols]):
                clash = conn.execute(
                    "SELECT id, path FROM symbols "
                    f"WHERE repo = ? AND id IN ({_marks(len(chunk))}) AND path <> ? LIMIT 1",
                    (repo, *chunk, path),
                ).fetchone()
                if clash:
                    raise InvalidArgument(
                        f"symbol id {clash[0]!r} is already stored for file {clash[1]!r}; "
                        "symbol ids must be unique within a repository"
                    )
            self._delete_paths(conn, repo, [path])
            conn.execute(
                "INSERT INTO files (repo, path, file_hash) VALUES (?, ?, ?)", (repo, path, file_hash)
            )
            conn.executemany(
                "INSERT INTO symbols (repo, id, path, ord, name, qualified_name, kind, start_line, end_line, "
                "signature, is_test) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        repo,
                        s.id,
                        path,
                        i,
                        s.name,
                        s.qualified_name,
                        str(s.kind),
                        s.start_line,
                        s.end_line,
                        s.signature,
                        int(s.is_test),
                    )
                    for i, s in enumerate(symbols)
                ],
            )
            conn.executemany(
                "INSERT INTO call_sites (repo, path, ord, caller_id, callee_name, line, receiver) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (repo, path, i, c.caller_id, c.callee_name, c.line, c.receiver)
                    for i, c in enumerate(call_sites)
                ],
            )
            conn.executemany(
                "INSERT INTO imports (repo, path, ord, target, resolved_path, external, names, line) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        repo,
                        path,
                        i,
                        m.target,
                        m.resolved_path,
                        int(m.external),
                        json.dumps(list(m.names)),
                        m.line,
                    )
                    for i, m in enumerate(imports)
                ],
            )

    def delete_files(self, repo: str, paths: Collection[str]) -> int:
        with self._write(repo) as conn:
            return self._delete_paths(conn, repo, paths)

    def delete_repo(self, repo: str) -> int:
        with self._write(repo) as conn:
            removed = conn.execute("SELECT COUNT(*) FROM symbols WHERE repo = ?", (repo,)).fetchone()[0]
            for table in ("files", "symbols", "call_sites", "imports"):
                conn.execute(f"DELETE FROM {table} WHERE repo = ?", (repo,))
            return int(removed)

    @staticmethod
    def _delete_paths(conn: sqlite3.Connection, repo: str, paths: Collection[str]) -> int:
        removed = 0
        for chunk in _chunks(paths):
            marks = _marks(len(chunk))
            removed += conn.execute(
                f"DELETE FROM symbols WHERE repo = ? AND path IN ({marks})", (repo, *chunk)
            ).rowcount
            for table in ("files", "call_sites", "imports"):
                conn.execute(f"DELETE FROM {table} WHERE repo = ? AND path IN ({marks})", (repo, *chunk))
        return removed

    # -- reads ----------------------------------------------------------------------------------------

    def _select_in(self, sql: str, repo: str, values: Collection[str]) -> list[tuple]:
        """Run `sql` (with one `{marks}` IN-list after the repo parameter) over chunks of `values`."""
        conn = self._reader()
        rows: list[tuple] = []
        for chunk in _chunks(values):
            rows.extend(conn.execute(sql.format(marks=_marks(len(chunk))), (repo, *chunk)).fetchall())
        return rows

    def file_graph(self, repo: str, path: str) -> FileGraph | None:
        conn = self._reader()
        conn.execute("BEGIN")
        try:
            row = conn.execute(
                "SELECT file_hash FROM files WHERE repo = ? AND path = ?", (repo, path)
            ).fetchone()
            if row is None:
                return None
            symbols = conn.execute(
                f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE repo = ? AND path = ? ORDER BY ord",
                (repo, path),
            ).fetchall()
            calls = conn.execute(
                f"SELECT {_CALL_COLUMNS} FROM call_sites WHERE repo = ? AND path = ? ORDER BY ord",
                (repo, path),
            ).fetchall()
            imports = conn.execute(
                f"SELECT {_IMPORT_COLUMNS} FROM imports WHERE repo = ? AND path = ? ORDER BY ord",
                (repo, path),
            ).fetchall()
        finally:
            conn.execute("COMMIT")
        return FileGraph(
            path, row[0], tuple(map(_symbol, symbols)), tuple(map(_call, calls)), tuple(map(_import, imports))
        )

    def symbols_by_id(self, repo: str, ids: Collection[str]) -> dict[str, Symbol]:
        rows = self._select_in(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE repo = ? AND id IN ({{marks}})", repo, ids
        )
        return {row[0]: _symbol(row) for row in rows}

    def symbols_by_name(self, repo: str, names: Collection[str]) -> list[Symbol]:
        rows = self._select_in(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE repo = ? AND name IN ({{marks}})", repo, names
        )
        return sorted(map(_symbol, rows), key=lambda s: (s.path, s.start_line, s.id))

    def symbols_by_qualified_name(self, repo: str, qualified_names: Collection[str]) -> list[Symbol]:
        rows = self._select_in(
            f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE repo = ? AND qualified_name IN ({{marks}})",
            repo,
            qualified_names,
        )
        return sorted(map(_symbol, rows), key=lambda s: (s.path, s.start_line, s.id))

    def call_sites_from(self, repo: str, caller_ids: Collection[str]) -> list[CallSite]:
        rows = self._select_in(
            f"SELECT {_CALL_COLUMNS}, path, ord FROM call_sites WHERE repo = ? AND caller_id IN ({{marks}})",
            repo,
            caller_ids,
        )
        return [_call(r) for r in sorted(rows, key=lambda r: (r[4], r[5]))]

    def call_sites_to(self, repo: str, callee_names: Collection[str]) -> list[CallSite]:
        rows = self._select_in(
            f"SELECT {_CALL_COLUMNS}, path, ord FROM call_sites "
            "WHERE repo = ? AND callee_name IN ({marks})",
            repo,
            callee_names,
        )
        return [_call(r) for r in sorted(rows, key=lambda r: (r[4], r[5]))]

    def imports_of(self, repo: str, paths: Collection[str]) -> list[Import]:
        rows = self._select_in(
            f"SELECT {_IMPORT_COLUMNS}, ord FROM imports WHERE repo = ? AND path IN ({{marks}})", repo, paths
        )
        return [_import(r) for r in sorted(rows, key=lambda r: (r[0], r[5], r[1], r[6]))]

    def importers_of(self, repo: str, paths: Collection[str]) -> list[Import]:
        rows = self._select_in(
            f"SELECT {_IMPORT_COLUMNS}, ord FROM imports WHERE repo = ? AND resolved_path IN ({{marks}})",
            repo,
            paths,
        )
        return [_import(r) for r in sorted(rows, key=lambda r: (r[0], r[5], r[1], r[6]))]

    def facts(self, repo: str) -> RepoFacts:
        conn = self._reader()
        conn.execute("BEGIN")  # one snapshot for all three tables
        try:
            symbols = conn.execute(
                f"SELECT {_SYMBOL_COLUMNS} FROM symbols WHERE repo = ? ORDER BY path, ord", (repo,)
            ).fetchall()
            calls = conn.execute(
                f"SELECT {_CALL_COLUMNS} FROM call_sites WHERE repo = ? ORDER BY path, ord", (repo,)
            ).fetchall()
            imports = conn.execute(
                f"SELECT {_IMPORT_COLUMNS} FROM imports WHERE repo = ? ORDER BY path, ord", (repo,)
            ).fetchall()
        finally:
            conn.execute("COMMIT")
        return RepoFacts(tuple(map(_symbol, symbols)), tuple(map(_call, calls)), tuple(map(_import, imports)))

    def counts(self, repo: str) -> StoreCounts:
        conn = self._reader()
        where, params = ("WHERE repo = ?", (repo,)) if repo else ("", ())
        values = [
            conn.execute(f"SELECT COUNT(*) FROM {table} {where}", params).fetchone()[0]
            for table in ("symbols", "call_sites", "imports", "files")
        ]
        return StoreCounts(*values)

    def repos(self) -> list[str]:
        rows = self._reader().execute("SELECT DISTINCT repo FROM files ORDER BY repo").fetchall()
        return [r[0] for r in rows]

    def generation(self, repo: str) -> int:
        row = self._reader().execute("SELECT generation FROM repos WHERE repo = ?", (repo,)).fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        with self._connections_lock:
            for conn in self._all_connections:
                conn.close()
            self._all_connections.clear()
