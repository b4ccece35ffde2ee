"""Adding a column an older SQLite file lacks: the one schema upgrade the stores here make in place."""

from __future__ import annotations

import contextlib
import sqlite3


def add_missing_column(db: sqlite3.Connection, table: str, column: str, definition: str) -> bool:
    """Add `column` (`definition`: its type, constraints and default) to `table` unless it is there; True
    when this call added it. Another process adding it at the same moment is no error."""
    if column in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
        return False
    with contextlib.suppress(sqlite3.OperationalError):  # "duplicate column": another process was first
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")
        return True
    return False
