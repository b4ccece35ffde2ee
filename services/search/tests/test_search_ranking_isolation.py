"""Repos are isolated in keyword ranking: indexing other repos never changes a repo's results.

The embedded store keeps one FTS table per repo (bm25 statistics and the row budget are per repo);
Meilisearch filters by repo and its ranking rules (words, typo, proximity, attribute, exactness) are
bucket sorts over each document's own matches, with no corpus-wide statistics.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest

from services.search.adapters.sqlite_keyword_index import ROW_BUDGET, SqliteKeywordIndex, fts_table
from services.search.domain.keywords import chunk_fields
from services.search.domain.model import ScoredId, SearchFilters, SearchMode, StoreFull
from services.search.engine import SearchEngine
from services.search.ports import KeywordIndex
from services.search.tests.conftest import KEYWORD_BACKENDS, open_keyword_index
from services.search.tests.search_fakes import chunk

REPO = "acme/app"
QUERIES = [["command", "parse"], ["parse"], ["command"], ["parse", "options", "command"]]


def _own_chunks() -> list:
    bodies = [
        "def run_command():\n    command = command or parse(command)\n",
        "def parse_args():\n    parse(parse(parse(command)))\n",
    ] + [f"def parse_{i}():\n    return parse(options_{i})\n" for i in range(8)]
    return [
        chunk(f"f{i}", "src/cli.py", repo=REPO, body=b, start_line=i * 10 + 1) for i, b in enumerate(bodies)
    ]


def _other_chunks(repo: str, n: int) -> list:
    return [
        chunk(
            f"handler{i}",
            "lib/commands.py",
            repo=repo,
            body=f"def handler{i}():\n    command(command)\n",
            start_line=i * 5 + 1,
        )
        for i in range(n)
    ]


def _rankings(index: KeywordIndex) -> list[list[ScoredId]]:
    return [index.search(REPO, words, SearchFilters(), 10) for words in QUERIES]


@pytest.mark.parametrize("backend", KEYWORD_BACKENDS)
def test_same_queries_rank_the_same_before_and_after_fifty_other_repos_are_indexed(
    backend: str, tmp_path: Path, cleanups: list
) -> None:
    index = open_keyword_index(backend, tmp_path, cleanups)
    index.replace_file(REPO, "src/cli.py", _own_chunks())
    before = _rankings(index)
    assert all(before), "every query must match something in the repo"
    # Enough other rows that the shared word would exceed a store-wide row budget on its own.
    per_repo = ROW_BUDGET // 50 + 10
    for i in range(50):
        other = f"other/repo{i}"
        index.replace_file(other, "lib/commands.py", _other_chunks(other, per_repo))
    after = _rankings(index)
    assert [[s.chunk_id for s in r] for r in after] == [[s.chunk_id for s in r] for r in before]
    if backend == "sqlite":  # the same bm25 numbers, not only the same order
        assert [[round(s.score, 9) for s in r] for r in after] == [
            [round(s.score, 9) for s in r] for r in before
        ]
    assert index.search("other/repo0", ["command"], SearchFilters(), 5), "the other repos are searchable too"


def test_deleting_a_repo_drops_its_table_and_leaves_the_others_ranking_alone(tmp_path: Path) -> None:
    index = SqliteKeywordIndex(tmp_path / "keyword.db")
    index.replace_file(REPO, "src/cli.py", _own_chunks())
    index.replace_file("other/x", "lib/commands.py", _other_chunks("other/x", 20))
    before = _rankings(index)
    assert index.delete_repo("other/x") == 20
    assert index.search("other/x", ["command"], SearchFilters(), 5) == []
    assert _rankings(index) == before
    db = sqlite3.connect(tmp_path / "keyword.db")
    names = {n for (n,) in db.execute("SELECT name FROM sqlite_master")}
    assert fts_table("other/x") not in names and fts_table(REPO) in names


def test_a_data_dir_with_one_shared_fts_table_is_migrated_in_place_with_a_log_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "keyword.db"
    index = SqliteKeywordIndex(path)
    index.replace_file(REPO, "src/cli.py", _own_chunks())
    expected = _rankings(index)
    index.close()
    # Rewrite it as the previous layout: every repo's rows in one chunks_fts table.
    db = sqlite3.connect(path)
    db.execute(f"DROP TABLE {fts_table(REPO)}")
    db.execute(
        "CREATE VIRTUAL TABLE chunks_fts USING fts5(names, path, signature, doc, body,"
        " tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    for rowid, c in zip(range(1, 11), _own_chunks(), strict=True):
        f = chunk_fields(c)
        db.execute(
            "INSERT INTO chunks_fts (rowid, names, path, signature, doc, body) VALUES (?, ?, ?, ?, ?, ?)",
            (rowid, f["names"], f["path"], f["signature"], f["doc"], f["body"]),
        )
    db.commit()
    db.close()
    with caplog.at_level(logging.WARNING):
        reopened = SqliteKeywordIndex(path)
    assert any("per repo" in r.getMessage() for r in caplog.records)
    assert _rankings(reopened) == expected
    names = {n for (n,) in sqlite3.connect(path).execute("SELECT name FROM sqlite_master")}
    assert "chunks_fts" not in names


def _fill(index: SqliteKeywordIndex) -> None:
    """The writer may not grow the file by one more page: SQLITE_FULL, as on a full disk."""
    (pages,) = index._writer.execute("PRAGMA page_count").fetchone()
    index._writer.execute(f"PRAGMA max_page_count = {pages}")


def _unfill(index: SqliteKeywordIndex) -> None:
    index._writer.execute("PRAGMA max_page_count = 1073741823")


def _schema(path: Path) -> set[str]:
    db = sqlite3.connect(path)
    try:
        return {n for (n,) in db.execute("SELECT name FROM sqlite_master")}
    finally:
        db.close()


def test_a_full_disk_while_creating_a_repos_table_is_store_full_and_leaves_nothing_half_created(
    tmp_path: Path,
) -> None:
    path = tmp_path / "keyword.db"
    index = SqliteKeywordIndex(path)
    index.replace_file(REPO, "src/cli.py", _own_chunks())
    before_schema = _schema(path)
    _fill(index)
    with pytest.raises(StoreFull, match="disk is full"):
        index.replace_file("new/repo", "lib/commands.py", _other_chunks("new/repo", 5))
    assert _schema(path) == before_schema, "no table (nor FTS shadow table) of the new repo is left behind"
    assert not any(n.startswith(fts_table("new/repo")) for n in _schema(path))
    assert index.counts("new/repo").chunks == 0
    # A file with nothing to store still succeeds: it needs no table.
    assert index.replace_file("new/repo", "empty/__init__.py", []) == 0
    with pytest.raises(StoreFull):  # and a second try is the same clear error, not "no such table"
        index.replace_file("new/repo", "lib/commands.py", _other_chunks("new/repo", 5))
    assert index.search("new/repo", ["command"], SearchFilters(), 5) == []
    _unfill(index)
    assert index.replace_file("new/repo", "lib/commands.py", _other_chunks("new/repo", 5)) == 5
    assert len(index.search("new/repo", ["command"], SearchFilters(), 10)) == 5
    assert index.search(REPO, ["parse"], SearchFilters(), 10), "the repo stored before is untouched"


def test_a_full_disk_on_writes_to_an_existing_repo_table_is_store_full_too(tmp_path: Path) -> None:
    index = SqliteKeywordIndex(tmp_path / "keyword.db")
    index.replace_file(REPO, "src/cli.py", _own_chunks())
    before = _rankings(index)
    _fill(index)
    big = [chunk(f"g{i}", "src/big.py", repo=REPO, body="word " * 2000, start_line=i + 1) for i in range(40)]
    with pytest.raises(StoreFull):
        index.replace_file(REPO, "src/big.py", big)
    assert _rankings(index) == before and index.file_chunks(REPO, "src/big.py") == []


def _legacy_layout(path: Path) -> None:
    index = SqliteKeywordIndex(path)
    index.replace_file(REPO, "src/cli.py", _own_chunks())
    index.close()
    db = sqlite3.connect(path)
    db.execute(f"DROP TABLE {fts_table(REPO)}")
    db.execute(
        "CREATE VIRTUAL TABLE chunks_fts USING fts5(names, path, signature, doc, body,"
        " tokenize = 'porter unicode61 remove_diacritics 2')"
    )
    for rowid, c in zip(range(1, 11), _own_chunks(), strict=True):
        f = chunk_fields(c)
        db.execute(
            "INSERT INTO chunks_fts (rowid, names, path, signature, doc, body) VALUES (?, ?, ?, ?, ?, ?)",
            (rowid, f["names"], f["path"], f["signature"], f["doc"], f["body"]),
        )
    db.commit()
    db.execute("VACUUM")  # no free pages left for the migration to reuse
    db.close()


def test_a_migration_that_hits_a_full_disk_rolls_back_whole_and_succeeds_on_the_next_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "keyword.db"
    _legacy_layout(path)
    legacy_schema = _schema(path)
    connect = SqliteKeywordIndex._connect

    def full_disk(self: SqliteKeywordIndex) -> sqlite3.Connection:
        db = connect(self)
        (pages,) = db.execute("PRAGMA page_count").fetchone()
        db.execute(f"PRAGMA max_page_count = {pages}")
        return db

    monkeypatch.setattr(SqliteKeywordIndex, "_connect", full_disk)
    with caplog.at_level(logging.WARNING), pytest.raises(StoreFull, match="disk is full"):
        SqliteKeywordIndex(path)
    assert any("rolled back" in r.getMessage() for r in caplog.records)
    assert _schema(path) == legacy_schema, "the old layout is intact, no per-repo table half made"
    monkeypatch.setattr(SqliteKeywordIndex, "_connect", connect)
    reopened = SqliteKeywordIndex(path)
    assert "chunks_fts" not in _schema(path) and fts_table(REPO) in _schema(path)
    assert all(_rankings(reopened))


def test_hybrid_search_ranks_and_scores_the_same_before_and_after_fifty_other_repos(
    engine: SearchEngine,
) -> None:
    """The whole engine (keyword + vectors + fusion + adjustments), not only the keyword index. The
    ranking is identical; scores agree to float32 precision (fusion uses cosines, and Qdrant's local
    mode computes them in float32, so a different set of stored points may change their last bit)."""
    engine.upsert_file(REPO, "src/cli.py", _own_chunks())
    while engine.backfill_once():
        pass
    prompts = ["how is the command parsed", "parse options", "run command"]

    def ranked() -> list[list[tuple[str, float]]]:
        return [
            [(h.chunk.id, h.score) for h in engine.search(q, REPO, limit=10, mode=SearchMode.HYBRID).hits]
            for q in prompts
        ]

    before = ranked()
    assert all(before)
    for i in range(50):
        other = f"other/repo{i}"
        engine.upsert_file(other, "lib/commands.py", _other_chunks(other, 10))
    while engine.backfill_once():
        pass
    after = ranked()
    assert [[cid for cid, _ in hits] for hits in after] == [[cid for cid, _ in hits] for hits in before]
    for now, then in zip(after, before, strict=True):
        assert [score for _, score in now] == pytest.approx([score for _, score in then], rel=1e-6, abs=1e-6)
