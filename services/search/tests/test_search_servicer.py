"""SearchService over a real in-process grpc.aio server on port 0, called through the generated stub."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest

from kit.convert import chunk_to_pb
from kit.testing import eventually
from reporecall.common.v1 import common_pb2
from reporecall.search.v1 import search_pb2, search_pb2_grpc
from services.search.adapters.numpy_vector_index import NumpyVectorIndex
from services.search.adapters.sqlite_embedding_store import SqliteEmbeddingStore
from services.search.adapters.sqlite_feedback_store import SqliteFeedbackStore
from services.search.adapters.sqlite_keyword_index import SqliteKeywordIndex
from services.search.engine import SearchEngine
from services.search.tests.search_fakes import WordHashEmbedder, chunk, served

REPO = "svc"


@pytest.fixture
async def stub(tmp_path: Path) -> AsyncIterator[search_pb2_grpc.SearchServiceStub]:
    embedder = WordHashEmbedder()
    engine = SearchEngine(
        SqliteKeywordIndex(tmp_path / "k.db"),
        NumpyVectorIndex(tmp_path / "v.db", embedder.dimension),
        embedder,
        SqliteEmbeddingStore(tmp_path / "e.db"),
        feedback=SqliteFeedbackStore(tmp_path / "f.db"),
    )
    async with served(engine) as client:
        engine.start()
        yield client
    engine.close()


def _file(path: str, *names: str, is_test: bool = False) -> search_pb2.UpsertFileRequest:
    chunks = [chunk(n, path, repo=REPO, is_test=is_test, start_line=1 + 10 * i) for i, n in enumerate(names)]
    return search_pb2.UpsertFileRequest(
        repo=REPO, path=path, file_hash="h", chunks=[chunk_to_pb(c) for c in chunks]
    )


async def _wait_backfilled(stub: search_pb2_grpc.SearchServiceStub) -> search_pb2.StatsResponse:
    async def backfilled() -> search_pb2.StatsResponse | None:
        stats = await stub.Stats(search_pb2.StatsRequest(repo=REPO))
        return stats if stats.embed_backlog == 0 and stats.vectors == stats.chunks else None

    return await eventually(backfilled, 30, "the backfill to finish", interval=0.02)


async def test_upsert_search_get_find_stats_and_delete_round_trip(stub) -> None:
    stored = await stub.UpsertFile(_file("src/orders.py", "place_order", "cancel_order"))
    assert stored.chunks_stored == 2
    await stub.UpsertFile(_file("tests/test_orders.py", "test_place_order", is_test=True))
    stats = await _wait_backfilled(stub)
    assert (stats.files, stats.chunks, stats.vectors, stats.embed_backlog) == (2, 3, 3, 0)
    assert (stats.keyword_backend, stats.vector_backend, stats.embedder) == (
        "sqlite-fts5",
        "numpy",
        "word-hash-test",
    )

    found = await stub.Search(search_pb2.SearchRequest(query="place_order", repo=REPO))
    assert not found.partial
    top = found.hits[0]
    assert (top.chunk.name, top.chunk.kind, top.chunk.path) == (
        "place_order",
        common_pb2.CHUNK_KIND_FUNCTION,
        "src/orders.py",
    )
    assert top.signals.keyword_rank == 1 and top.signals.vector_rank >= 1
    assert top.score == pytest.approx(top.signals.fused * top.signals.adjustment)

    only_tests = await stub.Search(
        search_pb2.SearchRequest(
            query="place order",
            repo=REPO,
            mode=search_pb2.SEARCH_MODE_KEYWORD,
            filters=search_pb2.SearchFilters(tests=search_pb2.TEST_FILTER_ONLY),
        )
    )
    assert [h.chunk.name for h in only_tests.hits] == ["test_place_order"]

    ids = [h.chunk.id for h in found.hits]
    got = await stub.GetChunks(search_pb2.GetChunksRequest(repo=REPO, ids=[ids[1], "nope", ids[0]]))
    assert [c.id for c in got.chunks] == [ids[1], ids[0]]
    assert got.chunks[0].content

    symbols = await stub.FindSymbols(
        search_pb2.FindSymbolsRequest(repo=REPO, name="cancel", match=search_pb2.SYMBOL_MATCH_PREFIX)
    )
    assert [(s.name, s.content) for s in symbols.symbols] == [("cancel_order", "")]

    deleted = await stub.DeleteFiles(search_pb2.DeleteFilesRequest(repo=REPO, paths=["tests/test_orders.py"]))
    assert deleted.chunks_deleted == 1
    assert (await stub.DeleteRepo(search_pb2.DeleteRepoRequest(repo=REPO))).chunks_deleted == 2
    stats = await stub.Stats(search_pb2.StatsRequest(repo=REPO))
    assert (stats.files, stats.chunks, stats.vectors) == (0, 0, 0)


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda s: s.Search(search_pb2.SearchRequest(query="x", repo=REPO, limit=201)), "limit"),
        (lambda s: s.Search(search_pb2.SearchRequest(query="x", repo=REPO, limit=-1)), "limit"),
        (lambda s: s.Search(search_pb2.SearchRequest(query="x", repo="")), "repo"),
        (lambda s: s.Search(search_pb2.SearchRequest(query="", repo=REPO)), "query"),
        (lambda s: s.Search(search_pb2.SearchRequest(query="x", repo=REPO, mode=99)), "mode"),
        (
            lambda s: s.Search(
                search_pb2.SearchRequest(query="x", repo=REPO, filters=search_pb2.SearchFilters(kinds=[0]))
            ),
            "filters.kinds[0]",
        ),
        (
            lambda s: s.UpsertFile(
                search_pb2.UpsertFileRequest(
                    repo=REPO, path="a.py", chunks=[common_pb2.Chunk(id="x", kind=0, path="a.py")]
                )
            ),
            "chunks[0].kind",
        ),
        (lambda s: s.UpsertFile(search_pb2.UpsertFileRequest(repo="", path="a.py")), "repo"),
        (lambda s: s.FindSymbols(search_pb2.FindSymbolsRequest(repo=REPO, name="")), "name"),
        (lambda s: s.FindSymbols(search_pb2.FindSymbolsRequest(repo=REPO, name="x", limit=1000)), "limit"),
        (lambda s: s.GetChunks(search_pb2.GetChunksRequest(repo="", ids=["a"])), "repo"),
    ],
)
async def test_bad_requests_get_invalid_argument_naming_the_field(stub, call, field: str) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await call(stub)
    assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert caught.value.details().startswith(field), caught.value.details()


async def test_zero_limits_mean_the_documented_defaults(stub) -> None:
    names = [f"handler_{i}" for i in range(25)]
    await stub.UpsertFile(_file("src/many.py", *names))
    hits = await stub.Search(
        search_pb2.SearchRequest(query="handler", repo=REPO, mode=search_pb2.SEARCH_MODE_KEYWORD)
    )
    assert len(hits.hits) == 10
    symbols = await stub.FindSymbols(
        search_pb2.FindSymbolsRequest(repo=REPO, name="handler", match=search_pb2.SYMBOL_MATCH_PREFIX)
    )
    assert len(symbols.symbols) == 20


async def test_file_chunks_feedback_and_repo_profile(stub) -> None:
    await stub.UpsertFile(_file("src/orders.py", "place_order", "cancel_order"))
    await stub.UpsertFile(_file("tests/test_orders.py", "test_place_order", is_test=True))
    chunks = (await stub.FileChunks(search_pb2.FileChunksRequest(repo=REPO, path="src/orders.py"))).chunks
    assert [(c.name, c.start_line) for c in chunks] == [("place_order", 1), ("cancel_order", 11)]
    assert (await stub.FileChunks(search_pb2.FileChunksRequest(repo=REPO, path="nope.py"))).chunks == []

    vote = await stub.Feedback(
        search_pb2.FeedbackRequest(repo=REPO, chunk_id=chunks[1].id, useful=True, query="q")
    )
    assert vote.score == 1
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await stub.Feedback(search_pb2.FeedbackRequest(repo=REPO, chunk_id="ghost", useful=True))
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND and "chunk_id" in caught.value.details()

    profile = await stub.RepoProfile(search_pb2.RepoProfileRequest(repo=REPO))
    assert [(f.path, f.is_test) for f in profile.files] == [
        ("src/orders.py", False),
        ("tests/test_orders.py", True),
    ]
    assert [s.name for s in profile.symbols] == ["place_order", "test_place_order", "cancel_order"]
    assert all(s.content == "" for s in profile.symbols)


@pytest.mark.parametrize("path", ["../../../../etc/passwd", "/etc/passwd", "src/../../x.py"])
async def test_paths_that_leave_the_repository_are_invalid_arguments(stub, path: str) -> None:
    for call in (
        stub.UpsertFile(search_pb2.UpsertFileRequest(repo=REPO, path=path, chunks=[])),
        stub.DeleteFiles(search_pb2.DeleteFilesRequest(repo=REPO, paths=[path])),
        stub.FileChunks(search_pb2.FileChunksRequest(repo=REPO, path=path)),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "path" in caught.value.details()


async def test_a_full_store_is_reported_as_resource_exhausted_with_the_cause(tmp_path: Path) -> None:
    keyword = SqliteKeywordIndex(tmp_path / "k.db")
    # A size limit behaves exactly like a full disk for SQLite: SQLITE_FULL, "database or disk is full".
    (pages,) = keyword._writer.execute("PRAGMA page_count").fetchone()
    keyword._writer.execute(f"PRAGMA max_page_count = {pages}")
    engine = SearchEngine(keyword)
    try:
        async with served(engine, workers=1) as s:
            big = chunk("big", "big.py", repo=REPO, body="def big():\n" + "    x = 1\n" * 5000)
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await s.UpsertFile(
                    search_pb2.UpsertFileRequest(repo=REPO, path="big.py", chunks=[chunk_to_pb(big)])
                )
            assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "database or disk is full" in caught.value.details()
            stats = await s.Stats(
                search_pb2.StatsRequest(repo=REPO)
            )  # reads still work, nothing half-written
            assert stats.chunks == 0
    finally:
        engine.close()


async def test_huge_values_are_not_echoed_whole_in_error_details(stub) -> None:
    huge = "x" * 20_000  # details travel in gRPC metadata, limited to 16 KiB
    for call, code in (
        (
            stub.Feedback(search_pb2.FeedbackRequest(repo=REPO, chunk_id=huge, useful=True)),
            grpc.StatusCode.NOT_FOUND,
        ),
        (
            stub.FileChunks(search_pb2.FileChunksRequest(repo=REPO, path="/" + huge)),
            grpc.StatusCode.INVALID_ARGUMENT,
        ),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as caught:
            await call
        assert caught.value.code() == code
        assert len(caught.value.details()) < 400
