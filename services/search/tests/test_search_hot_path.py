"""What keeps a query cheap on the hook's path, without changing what it finds: keyword readers map the
database file (shared OS pages instead of a page cache per connection) and still see every write; the
keyword candidates' metadata is read, and a test word's share of the repo counted, while the query is being
embedded."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from kit.domain import Chunk
from services.search.adapters.numpy_vector_index import NumpyVectorIndex
from services.search.adapters.sqlite_embedding_store import SqliteEmbeddingStore
from services.search.adapters.sqlite_keyword_index import SqliteKeywordIndex
from services.search.domain.model import SearchFilters, TestFilter
from services.search.engine import SearchEngine
from services.search.tests.search_fakes import WordHashEmbedder, chunk

REPO = "acme/app"


def _search_in_thread(index: SqliteKeywordIndex, words: list[str]) -> list[str]:
    found: list[str] = []
    worker = threading.Thread(
        target=lambda: found.extend(h.chunk_id for h in index.search(REPO, words, SearchFilters(), 10))
    )
    worker.start()
    worker.join()
    return found


def test_keyword_readers_map_the_file_and_see_each_committed_write(tmp_path: Path) -> None:
    index = SqliteKeywordIndex(tmp_path / "keyword.db")
    first = chunk("parse_flags", "src/cli.py", repo=REPO, body="def parse_flags():\n    return argv\n")
    index.replace_file(REPO, "src/cli.py", [first])
    assert index._reader().execute("PRAGMA mmap_size").fetchone()[0] > 0
    assert _search_in_thread(index, ["argv"]) == [first.id]
    # A reader thread that already mapped the file sees the next write (it lands in the WAL first).
    second = chunk("read_config", "src/cli.py", repo=REPO, body="def read_config():\n    return toml\n")
    index.replace_file(REPO, "src/cli.py", [second])
    assert _search_in_thread(index, ["argv"]) == []
    assert _search_in_thread(index, ["toml"]) == [second.id]
    index.close()


class _GatedQueries(WordHashEmbedder):
    """A query embedder that waits (up to 5 s) for the gate: it records whether the gate opened first."""

    def __init__(self, gate: threading.Event) -> None:
        super().__init__()
        self.gate = gate
        self.opened_first: list[bool] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.opened_first.append(self.gate.wait(5.0))
        return super().embed(texts)


def test_keyword_candidates_metadata_is_read_while_the_query_is_embedded(tmp_path: Path) -> None:
    gate = threading.Event()
    keyword = SqliteKeywordIndex(tmp_path / "k.db")
    read = keyword.get_chunks

    def get_chunks(repo: str, ids: Sequence[str], with_content: bool = True) -> list[Chunk]:
        if not with_content:
            gate.set()
        return read(repo, ids, with_content)

    keyword.get_chunks = get_chunks  # type: ignore[method-assign]
    backfill = WordHashEmbedder()
    queries = _GatedQueries(gate)
    engine = SearchEngine(
        keyword,
        NumpyVectorIndex(tmp_path / "v.db", backfill.dimension),
        backfill,
        SqliteEmbeddingStore(tmp_path / "e.db"),
        query_embedder=queries,
    )
    wanted = chunk("parse_flags", "src/cli.py", repo=REPO, body="def parse_flags(argv):\n    return argv\n")
    other = chunk("send_mail", "src/mail.py", repo=REPO, body="def send_mail(to):\n    return smtp(to)\n")
    engine.upsert_file(REPO, "src/cli.py", [wanted])
    engine.upsert_file(REPO, "src/mail.py", [other])
    while engine.backfill_once():
        pass
    result = engine.search("parse_flags argv", REPO, limit=5)
    assert queries.opened_first == [True]  # the vector side waited for the keyword side's metadata
    assert result.hits[0].chunk.id == wanted.id and result.hits[0].chunk.content == wanted.content
    assert result.hits[0].signals.keyword_rank == 1 and result.hits[0].signals.vector_rank == 1
    engine.close()


def test_a_test_words_share_of_the_repo_is_counted_while_the_query_is_embedded(tmp_path: Path) -> None:
    gate = threading.Event()
    keyword = SqliteKeywordIndex(tmp_path / "k.db")
    share = keyword.document_share

    def document_share(repo: str, word: str, filters: SearchFilters) -> float:
        gate.set()
        return share(repo, word, filters)

    keyword.document_share = document_share  # type: ignore[method-assign]
    backfill = WordHashEmbedder()
    queries = _GatedQueries(gate)
    engine = SearchEngine(
        keyword,
        NumpyVectorIndex(tmp_path / "v.db", backfill.dimension),
        backfill,
        SqliteEmbeddingStore(tmp_path / "e.db"),
        query_embedder=queries,
    )
    code = chunk("parse_flags", "src/cli.py", repo=REPO, body="def parse_flags(argv):\n    return argv\n")
    test = chunk("test_parse_flags", "tests/test_cli.py", repo=REPO, is_test=True)
    engine.upsert_file(REPO, "src/cli.py", [code])
    engine.upsert_file(REPO, "tests/test_cli.py", [test])
    while engine.backfill_once():
        pass
    result = engine.search("the test for parse_flags", REPO, limit=5)
    assert queries.opened_first == [True]  # the embedding waited for the share count, not the reverse
    assert {h.chunk.id for h in result.hits} == {code.id, test.id}
    engine.close()


def test_unfiltered_keyword_ranking_matches_the_filtered_query_that_keeps_everything(tmp_path: Path) -> None:
    index = SqliteKeywordIndex(tmp_path / "keyword.db")
    for f in range(6):
        path = f"src/mod{f}.py"
        bodies = [
            f"def handler_{f}_{i}():\n    return parse(request, {i}) + parse(reply)\n" for i in range(f + 2)
        ]
        index.replace_file(
            REPO,
            path,
            [chunk(f"handler_{f}_{i}", path, repo=REPO, body=b, ordinal=i) for i, b in enumerate(bodies)],
        )
    words = ["parse", "request", "reply", "handler"]
    everything = SearchFilters.of(languages=["python"])  # a filter: the query joins the chunks table
    for limit in (1, 5, 50):
        unfiltered = index.search(REPO, words, SearchFilters(), limit)
        assert unfiltered == index.search(REPO, words, everything, limit)
        assert len(unfiltered) == min(limit, 27)
    assert not index._reader().in_transaction  # the read snapshot is closed again
    index.close()


def test_a_words_share_of_the_implementation_is_counted_fts_first_and_its_total_once(tmp_path: Path) -> None:
    index = SqliteKeywordIndex(tmp_path / "keyword.db")
    tests = [
        chunk(f"test_parse_{i}", "tests/test_cli.py", repo=REPO, ordinal=i, is_test=True) for i in range(3)
    ]
    code = [
        chunk(f"parse_{i}", "src/cli.py", repo=REPO, ordinal=i, body=f"def parse_{i}():\n    return {i}\n")
        for i in range(4)
    ]
    code[0] = chunk("run_tests", "src/cli.py", repo=REPO, body="def run_tests():\n    return test()\n")
    index.replace_file(REPO, "tests/test_cli.py", tests)
    index.replace_file(REPO, "src/cli.py", code)
    statements: list[str] = []
    index._reader().set_trace_callback(statements.append)
    implementation = SearchFilters(tests=TestFilter.EXCLUDE)
    assert index.document_share(REPO, "test", implementation) == 0.25
    assert index.document_share(REPO, "parse", implementation) == 0.75
    counted = [s for s in statements if "MATCH" in s]
    assert len(counted) == 2 and all("CROSS JOIN chunks" in s for s in counted)  # the plan SQLite keeps
    assert len([s for s in statements if "MATCH" not in s and "count(*)" in s]) == 1  # the total, once
    index.delete_repo(REPO)
    assert index.document_share(REPO, "test", implementation) == 0.0
    index.replace_file(REPO, "src/cli.py", code[:2])
    assert index.document_share(REPO, "test", implementation) == 0.5  # no total left from before
    index.close()
