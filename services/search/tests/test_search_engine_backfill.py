"""The embedding backfill behind the keyword index: cache, races with re-indexing, failures, the thread."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.search.adapters.numpy_vector_index import NumpyVectorIndex
from services.search.adapters.sqlite_embedding_store import MAX_ATTEMPTS, SqliteEmbeddingStore
from services.search.adapters.sqlite_keyword_index import SqliteKeywordIndex
from services.search.domain.embedding_text import embedding_text
from services.search.domain.model import SearchMode
from services.search.engine import EngineOptions, SearchEngine
from services.search.tests.search_fakes import WordHashEmbedder, chunk

REPO = "repo"


@pytest.fixture
def embedder() -> WordHashEmbedder:
    return WordHashEmbedder()


@pytest.fixture
def engine(tmp_path: Path, embedder: WordHashEmbedder) -> Iterator[SearchEngine]:
    built = SearchEngine(
        SqliteKeywordIndex(tmp_path / "k.db"),
        NumpyVectorIndex(tmp_path / "v.db", embedder.dimension),
        embedder,
        SqliteEmbeddingStore(tmp_path / "e.db"),
        EngineOptions(backfill_batch=4, retry_seconds=0.01),
    )
    yield built
    built.close()


def test_backfill_embeds_in_batches_until_the_backlog_is_empty(
    engine: SearchEngine, embedder: WordHashEmbedder
) -> None:
    engine.upsert_file(REPO, "a.py", [chunk(f"fn_{i}", "a.py", start_line=i * 5 + 1) for i in range(10)])
    assert engine.stats(REPO).embed_backlog == 10
    assert [engine.backfill_once() for _ in range(4)] == [4, 4, 2, 0]
    assert embedder.calls == [4, 4, 2]
    stats = engine.stats(REPO)
    assert (stats.vectors, stats.embed_backlog) == (10, 0)


def test_a_file_reindexed_while_its_batch_is_embedding_keeps_only_the_new_version(
    engine: SearchEngine, embedder: WordHashEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = chunk("moving_target", "m.py", body="def moving_target():\n    return old_value\n")
    engine.upsert_file(REPO, "m.py", [old])
    new = chunk("moving_target", "m.py", body="def moving_target():\n    return new_value\n")
    embed = embedder.embed

    def reindex_during_embedding(texts):
        engine.upsert_file(REPO, "m.py", [new])  # the indexer wins the race
        return embed(texts)

    monkeypatch.setattr(embedder, "embed", reindex_during_embedding)
    assert engine.backfill_once() == 0  # the stale vector was not written
    monkeypatch.setattr(embedder, "embed", embed)
    assert engine.stats(REPO).embed_backlog == 1
    assert engine.backfill_once() == 1
    hit = engine.search("new value", REPO, mode=SearchMode.VECTOR).hits[0]
    assert hit.signals.vector_score == pytest.approx(
        float(engine.embed_query("new value") @ embedder.embed([embedding_text(new)])[0]), abs=1e-5
    )


def test_a_file_deleted_while_embedding_gets_no_vectors(
    engine: SearchEngine, embedder: WordHashEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine.upsert_file(REPO, "d.py", [chunk("doomed", "d.py")])
    embed = embedder.embed

    def delete_during_embedding(texts):
        engine.delete_files(REPO, ["d.py"])
        return embed(texts)

    monkeypatch.setattr(embedder, "embed", delete_during_embedding)
    assert engine.backfill_once() == 0
    assert (engine.stats(REPO).vectors, engine.stats(REPO).embed_backlog) == (0, 0)


def test_embedding_failures_are_retried_then_parked(engine: SearchEngine, embedder: WordHashEmbedder) -> None:
    engine.upsert_file(REPO, "f.py", [chunk("flaky", "f.py")])
    embedder.fail_next = 1
    with pytest.raises(RuntimeError):
        engine.backfill_once()
    assert engine.backfill_once() == 1  # retried
    engine.upsert_file(REPO, "g.py", [chunk("broken", "g.py")])
    embedder.fail_next = MAX_ATTEMPTS
    for _ in range(MAX_ATTEMPTS):
        with pytest.raises(RuntimeError):
            engine.backfill_once()
    assert engine.backfill_once() == 0  # parked: no hot loop on a poisoned chunk
    assert engine.stats(REPO).embed_backlog == 1  # and still visible
    assert engine.progress.failures == MAX_ATTEMPTS + 1


class FakeClock:
    """Wall-clock seconds that move only when a test says so."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def test_parked_chunks_are_tried_again_after_a_while(tmp_path: Path, embedder: WordHashEmbedder) -> None:
    """An embedding server down for longer than the retries: its chunks get their vectors once it is back."""
    clock = FakeClock()
    engine = SearchEngine(
        SqliteKeywordIndex(tmp_path / "k.db"),
        NumpyVectorIndex(tmp_path / "v.db", embedder.dimension),
        embedder,
        SqliteEmbeddingStore(tmp_path / "e.db", parked_retry_seconds=0.2, clock=clock),
        EngineOptions(backfill_batch=4),
    )
    engine.upsert_file(REPO, "g.py", [chunk("outage", "g.py")])
    embedder.fail_next = MAX_ATTEMPTS
    for _ in range(MAX_ATTEMPTS):
        with pytest.raises(RuntimeError):
            engine.backfill_once()
    assert engine.backfill_once() == 0  # parked
    clock.now += 0.3
    engine.upsert_file(REPO, "h.py", [chunk("fresh", "h.py")])
    embedder.calls.clear()
    assert engine.backfill_once() == 1 and embedder.calls == [1]  # fresh work first, in a batch of its own
    assert engine.backfill_once() == 1  # then the parked chunk: the server is back
    assert (engine.stats(REPO).vectors, engine.stats(REPO).embed_backlog) == (2, 0)
    engine.close()


def test_identical_text_is_embedded_once_across_files_and_repos(
    engine: SearchEngine, embedder: WordHashEmbedder
) -> None:
    body = "def same():\n    return 1\n"
    engine.upsert_file(REPO, "x.py", [chunk("same", "x.py", body=body)])
    engine.backfill_once()
    engine.upsert_file("other", "x.py", [chunk("same", "x.py", body=body, repo="other")])
    assert engine.stats("other").vectors == 1  # straight from the cache, no backlog
    assert embedder.calls == [1]


def test_background_thread_drains_the_backlog_and_stops_on_close(tmp_path: Path) -> None:
    embedder = WordHashEmbedder()
    engine = SearchEngine(
        SqliteKeywordIndex(tmp_path / "k.db"),
        NumpyVectorIndex(tmp_path / "v.db", embedder.dimension),
        embedder,
        SqliteEmbeddingStore(tmp_path / "e.db"),
    )
    engine.start()
    for i in range(3):
        engine.upsert_file(REPO, f"t{i}.py", [chunk(f"threaded_{i}", f"t{i}.py")])
    assert engine.wait_idle(timeout=10)
    assert engine.stats(REPO).vectors == 3
    engine.close()
    assert engine._thread is None


def test_backlog_survives_a_restart(tmp_path: Path) -> None:
    def build(embedder):
        return SearchEngine(
            SqliteKeywordIndex(tmp_path / "k.db"),
            NumpyVectorIndex(tmp_path / "v.db", embedder.dimension),
            embedder,
            SqliteEmbeddingStore(tmp_path / "e.db"),
        )

    first = build(WordHashEmbedder())
    first.upsert_file(REPO, "r.py", [chunk("restart_me", "r.py")])
    first.close()
    second = build(WordHashEmbedder())
    assert second.stats(REPO).embed_backlog == 1
    assert second.backfill_once() == 1
    assert second.stats(REPO).vectors == 1
    second.close()


def test_keyword_only_engine_reports_partial_for_vector_requests(tmp_path: Path) -> None:
    engine = SearchEngine(SqliteKeywordIndex(tmp_path / "k.db"))
    engine.upsert_file(REPO, "k.py", [chunk("keyword_only", "k.py")])
    assert engine.search("keyword only", REPO).partial
    assert engine.search("keyword only", REPO, mode=SearchMode.VECTOR).hits == []
    assert not engine.search("keyword only", REPO, mode=SearchMode.KEYWORD).partial
    stats = engine.stats(REPO)
    assert (stats.vector_backend, stats.embedder, stats.vectors) == ("none", "none", 0)
    engine.close()


def _engine_with(tmp_path: Path, embedder: WordHashEmbedder) -> SearchEngine:
    return SearchEngine(
        SqliteKeywordIndex(tmp_path / "k.db"),
        NumpyVectorIndex(tmp_path / "v.db", embedder.dimension),
        embedder,
        SqliteEmbeddingStore(tmp_path / "e.db"),
        EngineOptions(backfill_batch=8),
    )


@pytest.mark.parametrize("dimension", [64, 32], ids=["same dimension", "other dimension"])
def test_after_an_embedder_change_every_chunk_is_embedded_again_by_the_new_model(
    tmp_path: Path, dimension: int
) -> None:
    first = _engine_with(tmp_path, WordHashEmbedder(name="model-a"))
    assert first.realign_vectors() == 0  # a fresh store records its model
    for f in range(3):
        first.upsert_file(
            REPO, f"f{f}.py", [chunk(f"fn_{f}_{i}", f"f{f}.py", start_line=i * 5 + 1) for i in range(4)]
        )
    first.upsert_file("other", "o.py", [chunk("other_fn", "o.py", repo="other")])
    while first.backfill_once():
        pass
    first.close()

    same = _engine_with(tmp_path, WordHashEmbedder(name="model-a"))
    assert same.realign_vectors() == 0 and same.stats("").vectors == 13
    same.close()

    model_b = WordHashEmbedder(dimension=dimension, name="model-b")
    second = _engine_with(tmp_path, model_b)
    assert second.realign_vectors() == 4  # files queued, in both repositories
    assert (second.stats("").vectors, second.stats("").embed_backlog) == (0, 13)
    assert second.search("fn_1_2", REPO, mode=SearchMode.VECTOR).partial
    model_b.calls.clear()  # the query above
    while second.backfill_once():
        pass
    assert sum(model_b.calls) == 13 and second.stats("").vectors == 13
    hits = second.search("fn_1_2", REPO, mode=SearchMode.VECTOR, limit=1).hits
    assert hits[0].chunk.name == "fn_1_2"
    assert second.realign_vectors() == 0  # recorded: the next start has nothing to do
    second.close()
