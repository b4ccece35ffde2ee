"""Review fixes in the keyword indexes' caches: the SQLite per-repo table cache never misleads a writer,
the legacy migration reads in batches, and the Meilisearch word-frequency cache keeps zeros (dropped
by a write that may add the word) and forgets a deleted repo."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from services.search.adapters import meilisearch_keyword_index as meili_module
from services.search.adapters import sqlite_keyword_index as sqlite_module
from services.search.adapters.meilisearch_keyword_index import MeilisearchKeywordIndex
from services.search.adapters.sqlite_keyword_index import SqliteKeywordIndex, fts_table
from services.search.domain.keywords import chunk_fields
from services.search.domain.model import SearchFilters
from services.search.tests.search_fakes import chunk

REPO = "acme/app"


def _chunks(repo: str, n: int, path: str = "src/cli.py") -> list:
    return [
        chunk(
            f"parse{i}", path, repo=repo, body=f"def parse{i}():\n    return command({i})\n", start_line=i + 1
        )
        for i in range(n)
    ]


# --- SQLite: the per-repo FTS table cache ------------------------------------------------------------


def test_a_stale_table_cache_entry_after_delete_repo_does_not_break_the_next_replace_file(
    tmp_path: Path,
) -> None:
    index = SqliteKeywordIndex(tmp_path / "keyword.db")
    index.replace_file(REPO, "src/cli.py", _chunks(REPO, 3))
    assert index.delete_repo(REPO) == 3
    # The race: a reader found the table before the drop and re-adds it to the cache after.
    index._known_tables.add(fts_table(REPO))
    assert index.replace_file(REPO, "src/cli.py", _chunks(REPO, 2)) == 2
    assert len(index.search(REPO, ["command"], SearchFilters(), 10)) == 2
    index._known_tables.add(fts_table(REPO))
    assert index.delete_repo(REPO) == 2
    index._known_tables.add(fts_table(REPO))
    assert index.delete_files(REPO, ["src/cli.py"]) == 0


def test_delete_repo_forgets_the_table_under_the_write_lock(tmp_path: Path) -> None:
    index = SqliteKeywordIndex(tmp_path / "keyword.db")
    index.replace_file(REPO, "src/cli.py", _chunks(REPO, 1))
    assert fts_table(REPO) in index._known_tables
    seen: list[bool] = []

    class Watching(set):
        def discard(self, item: object) -> None:
            seen.append(index._write_lock.locked())
            super().discard(item)

    index._known_tables = Watching(index._known_tables)
    index.delete_repo(REPO)
    assert seen == [True] and fts_table(REPO) not in index._known_tables


def _legacy_layout(path: Path, repos: dict[str, int]) -> None:
    index = SqliteKeywordIndex(path)
    for repo, n in repos.items():
        index.replace_file(repo, "src/cli.py", _chunks(repo, n))
    index.close()
    db = sqlite3.connect(path)
    for repo in repos:
        db.execute(f"DROP TABLE {fts_table(repo)}")
    db.execute(
        "CREATE VIRTUAL TABLE chunks_fts USING fts5(names, path, signature, doc, body,"
        " tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    for rowid, repo, *_ in db.execute("SELECT rowid, repo FROM chunks").fetchall():
        f = chunk_fields(next(c for c in _chunks(repo, repos[repo]) if c.id in _ids_at(db, rowid)))
        db.execute(
            "INSERT INTO chunks_fts (rowid, names, path, signature, doc, body) VALUES (?, ?, ?, ?, ?, ?)",
            (rowid, f["names"], f["path"], f["signature"], f["doc"], f["body"]),
        )
    db.commit()
    db.close()


def _ids_at(db: sqlite3.Connection, rowid: int) -> set[str]:
    return {cid for (cid,) in db.execute("SELECT id FROM chunks WHERE rowid = ?", (rowid,))}


def test_the_shared_table_migration_reads_in_batches_and_logs_progress(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "keyword.db"
    _legacy_layout(path, {REPO: 7, "other/x": 3})
    monkeypatch.setattr(sqlite_module, "MIGRATION_BATCH", 2, raising=False)
    fetched: list[int] = []

    class Counting(sqlite3.Cursor):
        def fetchall(self) -> list[Any]:
            rows = super().fetchall()
            fetched.append(len(rows))
            return rows

        def fetchmany(self, size: int | None = 1) -> list[Any]:
            rows = super().fetchmany(size if size is not None else self.arraysize)
            fetched.append(len(rows))
            return rows

    class CountingConnection(sqlite3.Connection):
        def cursor(self, factory: Any = Counting) -> Any:  # type: ignore[override]
            return super().cursor(factory)

        def execute(self, sql: str, parameters: Any = ()) -> Any:  # type: ignore[override]
            return self.cursor().execute(sql, parameters)

    real_connect = sqlite3.connect
    monkeypatch.setattr(
        sqlite_module.sqlite3, "connect", lambda *a, **k: real_connect(*a, factory=CountingConnection, **k)
    )
    with caplog.at_level(logging.INFO, logger=sqlite_module.__name__):
        index = SqliteKeywordIndex(path)
    assert fetched and max(fetched) <= 2, f"rows read at a time: {fetched}"
    progress = [r.getMessage() for r in caplog.records if "moved so far" in r.getMessage()]
    assert progress and "10 chunks moved" in progress[-1]
    assert len(index.search(REPO, ["command"], SearchFilters(), 20)) == 7
    assert len(index.search("other/x", ["command"], SearchFilters(), 20)) == 3


# --- Meilisearch: the repo word-frequency cache -------------------------------------------------------


class _FakeIndex:
    def __init__(self, uid: str) -> None:
        self.uid = uid

    def update_settings(self, settings: dict[str, Any]) -> SimpleNamespace:
        return SimpleNamespace(task_uid=1)

    def add_documents(self, docs: list[dict[str, Any]], primary_key: str = "") -> SimpleNamespace:
        return SimpleNamespace(task_uid=2)

    def delete_documents(self, filter: str = "") -> SimpleNamespace:  # noqa: A002 (the client's name)
        return SimpleNamespace(task_uid=3)


class _FakeClient:
    """Just enough of `meilisearch.Client`: counts come from `counts`, multi-searches are recorded."""

    def __init__(self, url: str, api_key: str | None = None, timeout: int = 0) -> None:
        self.counts: dict[str, int] = {}
        self.searched: list[list[str]] = []
        self.fail_deletes = False

    def index(self, uid: str) -> _FakeIndex:
        return _FakeIndex(uid)

    def get_index(self, uid: str) -> None:
        return None

    def wait_for_task(self, uid: int, timeout_in_ms: int = 0) -> SimpleNamespace:
        if uid == 3 and self.fail_deletes:
            return SimpleNamespace(uid=uid, type="documentDeletion", status="failed", error={}, details={})
        return SimpleNamespace(uid=uid, type="t", status="succeeded", error=None, details={})

    def multi_search(self, queries: list[dict[str, Any]]) -> dict[str, Any]:
        self.searched.append([q["q"] for q in queries])
        return {"results": [{"estimatedTotalHits": self.counts.get(q["q"], 0)} for q in queries]}


@pytest.fixture
def meili(monkeypatch: pytest.MonkeyPatch) -> MeilisearchKeywordIndex:
    monkeypatch.setattr(meili_module.meilisearch, "Client", _FakeClient)
    return MeilisearchKeywordIndex("http://meili.test")


def test_a_word_absent_from_the_repo_is_counted_once_not_on_every_search(
    meili: MeilisearchKeywordIndex,
) -> None:
    client: _FakeClient = meili._client  # type: ignore[assignment]
    client.counts = {"parse": 4}
    assert meili._repo_frequencies(REPO, ["parse", "nowhere"]) == {"parse": 4, "nowhere": 0}
    assert meili._repo_frequencies(REPO, ["parse", "nowhere"]) == {"parse": 4, "nowhere": 0}
    assert client.searched == [["parse", "nowhere"]], "the zero was cached like the other count"


def test_a_cached_zero_is_dropped_by_a_write_to_the_repo_so_reads_see_writes(
    meili: MeilisearchKeywordIndex,
) -> None:
    client: _FakeClient = meili._client  # type: ignore[assignment]
    client.counts = {"parse": 4}
    meili._repo_frequencies(REPO, ["parse", "fresh"])
    meili._repo_frequencies("other/x", ["fresh"])
    client.counts["fresh"] = 1
    meili.replace_file(REPO, "src/new.py", _chunks(REPO, 1, "src/new.py"))
    assert meili._repo_frequencies(REPO, ["parse", "fresh"]) == {"parse": 4, "fresh": 1}
    assert client.searched[-1] == ["fresh"], "only the zero was asked again"
    assert meili._repo_frequencies("other/x", ["fresh"]) == {"fresh": 0}, "another repo keeps its own"


def test_delete_repo_clears_that_repos_cached_counts_and_only_those(meili: MeilisearchKeywordIndex) -> None:
    client: _FakeClient = meili._client  # type: ignore[assignment]
    client.counts = {"parse": 4}
    meili._repo_frequencies(REPO, ["parse", "nowhere"])
    meili._repo_frequencies("other/x", ["parse"])
    meili.delete_repo(REPO)
    client.counts = {}
    assert meili._repo_frequencies(REPO, ["parse", "nowhere"]) == {"parse": 0, "nowhere": 0}
    assert client.searched[-1] == ["parse", "nowhere"]
    assert meili._repo_frequencies("other/x", ["parse"]) == {"parse": 4}
    client.fail_deletes = True
    with pytest.raises(RuntimeError):
        meili.delete_repo("other/x")
    assert meili._repo_frequencies("other/x", ["parse"]) == {"parse": 0}, "a half-done delete forgets too"


def test_a_count_taken_while_a_write_ran_is_used_but_not_kept(meili: MeilisearchKeywordIndex) -> None:
    client: _FakeClient = meili._client  # type: ignore[assignment]
    real = client.multi_search

    def racing(queries: list[dict[str, Any]]) -> dict[str, Any]:
        answer = real(queries)
        client.counts["late"] = 2
        meili.replace_file(REPO, "src/new.py", _chunks(REPO, 1, "src/new.py"))  # lands meanwhile
        return answer

    client.multi_search = racing  # type: ignore[method-assign]
    assert meili._repo_frequencies(REPO, ["late"]) == {"late": 0}
    client.multi_search = real  # type: ignore[method-assign]
    assert meili._repo_frequencies(REPO, ["late"]) == {"late": 2}
