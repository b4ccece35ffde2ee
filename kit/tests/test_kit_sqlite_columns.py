"""Adding a column an older SQLite file lacks, once, whoever gets there first."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from kit.sqlite_columns import add_missing_column


def test_a_missing_column_is_added_once_with_its_default_and_rows_kept(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "s.db", isolation_level=None)
    db.execute("CREATE TABLE t (a INTEGER)")
    db.execute("INSERT INTO t VALUES (1)")
    assert add_missing_column(db, "t", "b", "TEXT NOT NULL DEFAULT 'x'") is True
    assert add_missing_column(db, "t", "b", "TEXT NOT NULL DEFAULT 'x'") is False
    assert db.execute("SELECT a, b FROM t").fetchall() == [(1, "x")]


def test_a_column_another_connection_added_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    first, second = sqlite3.connect(path, isolation_level=None), sqlite3.connect(path, isolation_level=None)
    first.execute("CREATE TABLE t (a INTEGER)")
    assert add_missing_column(first, "t", "b", "INTEGER")
    assert add_missing_column(second, "t", "b", "INTEGER") is False
