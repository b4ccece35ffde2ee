"""SQLite manifest: repo registry, file rows, pending marks, counts; and the pure change planning over it."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest

from services.indexer.adapters.sqlite_manifest import SqliteManifest, manifest_path_from_url
from services.indexer.domain.changes import dirty_paths, estimate_eta, plan_run
from services.indexer.domain.model import FileRecord, FileStatus
from services.indexer.domain.repos import derive_repo_name, normalise_remote, validate_repo_name
from services.indexer.domain.scanner import ScannedFile


@pytest.fixture
def manifest(tmp_path: Path) -> SqliteManifest:
    m = SqliteManifest(tmp_path / "m" / "manifest.db")
    m.add_repo("demo", "/src/demo", "github.com/acme/demo")
    return m


def test_uses_wal_and_survives_reopen(tmp_path: Path) -> None:
    path = tmp_path / "manifest.db"
    first = SqliteManifest(path)
    first.add_repo("demo", "/src/demo", "")
    first.record_files("demo", [FileRecord("a.py", 1, 2, "h", 3)])
    first.close()
    assert sqlite3.connect(path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    second = SqliteManifest(path)
    assert second.files("demo") == {"a.py": FileRecord("a.py", 1, 2, "h", 3, FileStatus.INDEXED)}


def test_repo_registry_register_refuse_repoint_list_remove(manifest: SqliteManifest) -> None:
    from services.indexer.domain.model import RepoNameTaken

    manifest.add_repo("other", "/src/other", "")
    with pytest.raises(RepoNameTaken, match="remove it first"):
        manifest.add_repo("demo", "/moved/demo", "github.com/acme/demo")
    again = manifest.add_repo("demo", "/src/demo", "github.com/acme/demo")  # idempotent
    assert again.path == "/src/demo"
    assert [r.name for r in manifest.list_repos()] == ["demo", "other"]
    assert again.registered_at is not None and again.last_run_started is None
    manifest.record_files("demo", [FileRecord("a.py", 1, 2, "h", 3)])
    assert manifest.remove_repo("demo") is True
    assert manifest.remove_repo("demo") is False
    assert manifest.get_repo("demo") is None
    assert manifest.files("demo") == {}


def test_run_times_and_indexed_commit(manifest: SqliteManifest) -> None:
    started = datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC)
    manifest.mark_run_started("demo", started)
    repo = manifest.get_repo("demo")
    assert repo is not None and repo.last_run_started == started and repo.last_run_finished is None
    assert repo.parser == ""
    manifest.mark_run_finished("demo", started.replace(minute=10), "abc123", "parser-1")
    repo = manifest.get_repo("demo")
    assert repo is not None and repo.indexed_commit == "abc123" and repo.last_run_finished is not None
    assert repo.parser == "parser-1"


_V1_SCHEMA = """
CREATE TABLE repos (name TEXT PRIMARY KEY, path TEXT NOT NULL, remote TEXT NOT NULL DEFAULT '',
    registered_at REAL NOT NULL, last_run_started REAL, last_run_finished REAL,
    indexed_commit TEXT NOT NULL DEFAULT '');
CREATE TABLE files (repo TEXT NOT NULL REFERENCES repos(name) ON DELETE CASCADE, path TEXT NOT NULL,
    mtime_ns INTEGER NOT NULL, size INTEGER NOT NULL, hash TEXT NOT NULL, chunks INTEGER NOT NULL,
    status TEXT NOT NULL, PRIMARY KEY (repo, path)) WITHOUT ROWID;
INSERT INTO repos VALUES ('demo', '/src/demo', '', 1.0, 2.0, 3.0, 'abc123');
INSERT INTO files VALUES ('demo', 'a.py', 1, 2, 'h', 3, 'indexed');
PRAGMA user_version=1;
"""


def test_a_version_1_manifest_is_upgraded_in_place_keeping_every_row(tmp_path: Path) -> None:
    path = tmp_path / "manifest.db"
    _v1(path)
    manifest = SqliteManifest(path)
    repo = manifest.get_repo("demo")
    assert repo is not None and (repo.indexed_commit, repo.parser) == ("abc123", "")  # '': parse again
    assert manifest.files("demo") == {"a.py": FileRecord("a.py", 1, 2, "h", 3, FileStatus.INDEXED)}
    manifest.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 2
    assert SqliteManifest(path).get_repo("demo") == repo  # reopened: nothing to upgrade


def _v1(path: Path, script: str = _V1_SCHEMA) -> None:
    old = sqlite3.connect(path)
    old.executescript(script)
    old.close()


def test_v1_tables_stamped_0_or_a_half_done_upgrade_open_as_upgraded(tmp_path: Path) -> None:
    unstamped, half = tmp_path / "unstamped.db", tmp_path / "half.db"
    _v1(unstamped, _V1_SCHEMA.replace("PRAGMA user_version=1;", ""))  # written before the version was
    _v1(half, _V1_SCHEMA + "ALTER TABLE repos ADD COLUMN parser TEXT NOT NULL DEFAULT '';")  # column, still 1
    for path in (unstamped, half):
        manifest = SqliteManifest(path)
        repo = manifest.get_repo("demo")
        assert repo is not None and (repo.indexed_commit, repo.parser) == ("abc123", ""), path
        assert len(manifest.files("demo")) == 1
        manifest.close()
        assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == 2


def test_an_upgrade_that_fails_leaves_the_file_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from services.indexer.adapters import sqlite_manifest

    path = tmp_path / "manifest.db"
    _v1(path)

    def add_then_fail(db: sqlite3.Connection, table: str, column: str, definition: str) -> bool:
        db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {definition}")
        raise sqlite3.OperationalError("disk I/O error")

    monkeypatch.setattr(sqlite_manifest, "add_missing_column", add_then_fail)
    with pytest.raises(Exception, match="disk I/O error"):
        SqliteManifest(path)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 1
    assert "parser" not in {row[1] for row in db.execute("PRAGMA table_info(repos)")}
    db.close()
    monkeypatch.undo()
    assert SqliteManifest(path).get_repo("demo") is not None  # and the next open upgrades it


def test_a_manifest_of_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "manifest.db"
    sqlite3.connect(path).execute("PRAGMA user_version=99").connection.close()
    with pytest.raises(RuntimeError, match="schema version 99"):
        SqliteManifest(path)


def test_mark_pending_keeps_the_acknowledged_hash_and_counts_pending(manifest: SqliteManifest) -> None:
    manifest.record_files("demo", [FileRecord("a.py", 10, 20, "old", 4), FileRecord("b.py", 1, 1, "h", 2)])
    manifest.mark_pending("demo", ["a.py", "new.py"])
    rows = manifest.files("demo")
    assert rows["a.py"] == FileRecord("a.py", 10, 20, "old", 4, FileStatus.PENDING)
    assert rows["new.py"].status is FileStatus.PENDING and rows["new.py"].hash == ""
    counts = manifest.counts("demo")
    assert (counts.files, counts.chunks, counts.pending) == (1, 2, 2)


def test_forget_files_and_files_under_a_folder(manifest: SqliteManifest) -> None:
    rows = [FileRecord(p, 1, 1, "h", 1) for p in ["a/x.py", "a/y/z.py", "a_b.py", "a.py", "ab/c.py"]]
    manifest.record_files("demo", rows)
    assert manifest.files_under("demo", "a") == ["a/x.py", "a/y/z.py"]
    assert manifest.files_under("demo", "a.py") == ["a.py"]
    manifest.forget_files("demo", ["a/x.py", "missing.py"])
    assert sorted(manifest.get_files("demo", ["a/x.py", "a.py", "a_b.py"])) == ["a.py", "a_b.py"]


def test_manifest_url_parsing(tmp_path: Path) -> None:
    assert manifest_path_from_url("", tmp_path / "d.db") == tmp_path / "d.db"
    assert manifest_path_from_url("sqlite:////var/x/m.db", tmp_path) == Path("/var/x/m.db")
    assert manifest_path_from_url("sqlite:///var/x/m.db", tmp_path) == Path("/var/x/m.db")
    with pytest.raises(ValueError, match="sqlite:///"):
        manifest_path_from_url("postgres://db/x", tmp_path)


# -- pure planning -----------------------------------------------------------------------------------


def test_plan_reads_only_new_changed_and_pending_files_and_deletes_vanished() -> None:
    recorded = {
        "same.py": FileRecord("same.py", 100, 10, "h1", 1),
        "edited.py": FileRecord("edited.py", 100, 10, "h2", 1),
        "pending.py": FileRecord("pending.py", 100, 10, "h3", 1, FileStatus.PENDING),
        "gone.py": FileRecord("gone.py", 100, 10, "h4", 1),
    }
    scanned = [
        ScannedFile("same.py", 100, 10),
        ScannedFile("edited.py", 200, 10),
        ScannedFile("pending.py", 100, 10),
        ScannedFile("new.py", 5, 5),
    ]
    plan = plan_run(scanned, recorded, full=False)
    by_path = {c.file.path: c for c in plan.candidates}
    assert set(by_path) == {"edited.py", "pending.py", "new.py"}
    assert not by_path["edited.py"].force  # may turn out unchanged by hash
    assert by_path["pending.py"].force and by_path["new.py"].force
    assert plan.unchanged == 1 and plan.vanished == ("gone.py",)
    assert {c.file.path for c in plan_run(scanned, recorded, full=True).candidates} == {
        "same.py",
        "edited.py",
        "pending.py",
        "new.py",
    }


def test_dirty_paths_lists_new_modified_deleted_and_pending() -> None:
    recorded = {
        "same.py": FileRecord("same.py", 1, 1, "h", 1),
        "mod.py": FileRecord("mod.py", 1, 1, "h", 1),
        "del.py": FileRecord("del.py", 1, 1, "h", 1),
        "pend.py": FileRecord("pend.py", 1, 1, "h", 1, FileStatus.PENDING),
    }
    scanned = [
        ScannedFile("same.py", 1, 1),
        ScannedFile("mod.py", 1, 2),
        ScannedFile("new.py", 1, 1),
        ScannedFile("pend.py", 1, 1),
    ]
    assert dirty_paths(scanned, recorded) == ["del.py", "mod.py", "new.py", "pend.py"]


def test_eta_is_remaining_over_rate_and_zero_when_unknown() -> None:
    assert estimate_eta(done=10, remaining=30, elapsed_seconds=2.0) == pytest.approx(6.0)
    assert estimate_eta(done=0, remaining=30, elapsed_seconds=2.0) == 0.0
    assert estimate_eta(done=10, remaining=0, elapsed_seconds=2.0) == 0.0


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("git@github.com:Acme/Widget.git", "github.com/Acme/Widget"),
        ("https://github.com/Acme/Widget.git", "github.com/Acme/Widget"),
        ("https://user:token@GitHub.com/Acme/Widget/", "github.com/Acme/Widget"),
        ("ssh://git@gitlab.example.com:2222/group/sub/proj.git", "gitlab.example.com/group/sub/proj"),
        ("git://example.org/proj", "example.org/proj"),
        ("/home/me/src/proj", ""),
        ("file:///home/me/proj.git", ""),
        ("", ""),
    ],
)
def test_normalise_remote(url: str, expected: str) -> None:
    assert normalise_remote(url) == expected


def test_repo_name_from_remote_else_folder_and_validation() -> None:
    assert derive_repo_name("github.com/acme/widget", "/x/widget") == "github.com/acme/widget"
    assert derive_repo_name("", "/x/widget") == "widget"
    assert validate_repo_name("github.com/acme/widget") is None
    assert validate_repo_name("../etc") is not None
    assert validate_repo_name("a b") is not None


def test_the_parser_fingerprint_follows_the_query_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    from services.indexer.domain import parser_version

    shipped = parser_version.parser_fingerprint()
    assert len(shipped) == 16 and shipped == parser_version.parser_fingerprint.__wrapped__()
    queries = tmp_path / "queries"
    shutil.copytree(parser_version._QUERIES, queries)
    monkeypatch.setattr(parser_version, "_QUERIES", queries)
    assert parser_version.parser_fingerprint.__wrapped__() == shipped
    rust = queries / "rust.scm"
    rust.write_text(rust.read_text() + "\n(line_comment) @comment\n")
    assert parser_version.parser_fingerprint.__wrapped__() != shipped
