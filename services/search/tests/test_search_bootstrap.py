"""Backends are chosen by URL in one place; bad URLs fail at start-up naming the setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from kit.settings import ConfigError
from reporecall.search.v1 import search_pb2
from services.search.adapters.numpy_vector_index import NumpyVectorIndex
from services.search.adapters.sqlite_keyword_index import SqliteKeywordIndex
from services.search.bootstrap import bootstrap, build_embedder, build_keyword_index, build_vector_index
from services.search.settings import SearchSettings


def test_empty_urls_mean_embedded_stores_under_the_data_dir(tmp_path: Path) -> None:
    keyword = build_keyword_index("", tmp_path)
    vector = build_vector_index("", tmp_path, 8)
    assert isinstance(keyword, SqliteKeywordIndex)
    assert isinstance(vector, NumpyVectorIndex)
    assert (tmp_path / "search" / "keyword.db").exists() and (tmp_path / "search" / "vectors.db").exists()
    keyword.close()
    vector.close()


def test_explicit_local_urls_and_none(tmp_path: Path) -> None:
    keyword = build_keyword_index(f"sqlite://{tmp_path}/kw/k.db", tmp_path)
    vector = build_vector_index(f"file://{tmp_path}/vec", tmp_path, 8)
    assert vector is not None
    assert (tmp_path / "kw" / "k.db").exists() and (tmp_path / "vec" / "vectors.db").exists()
    keyword.close()
    vector.close()
    assert build_vector_index("none", tmp_path, 8) is None
    assert build_embedder("none") is None


@pytest.mark.parametrize(
    ("build", "setting"),
    [
        (lambda p: build_keyword_index("redis://x", p), "REPORECALL_KEYWORD_URL"),
        (lambda p: build_keyword_index("sqlite://relative.db", p), "REPORECALL_KEYWORD_URL"),
        (lambda p: build_vector_index("ftp://x", p, 8), "REPORECALL_VECTOR_URL"),
        (lambda p: build_vector_index("file://", p, 8), "REPORECALL_VECTOR_URL"),
        (lambda p: build_embedder("bert"), "REPORECALL_EMBEDDER"),
    ],
)
def test_unknown_or_incomplete_urls_name_the_setting(tmp_path: Path, build, setting: str) -> None:
    with pytest.raises(ConfigError, match=setting):
        build(tmp_path)


async def test_keyword_only_bootstrap_serves_the_search_service(tmp_path: Path) -> None:
    settings = SearchSettings(data_dir=tmp_path, vector_url="none")
    parts = bootstrap(settings)
    ((_, servicer, name),) = parts.servicers
    assert name == "reporecall.search.v1.SearchService"
    engine = parts.extra["engine"]
    assert engine.stats("").vector_backend == "none"
    assert parts.on_start is not None and parts.on_stop is not None
    await parts.on_start()
    await parts.on_stop()


async def test_default_bootstrap_uses_minilm_with_a_separate_query_session(tmp_path: Path) -> None:
    parts = bootstrap(SearchSettings(data_dir=tmp_path, embed_threads=1))
    engine = parts.extra["engine"]
    stats = engine.stats("")
    assert (stats.keyword_backend, stats.vector_backend, stats.embedder) == (
        "sqlite-fts5",
        "numpy",
        "all-MiniLM-L6-v2-int8",
    )
    assert engine.query_embedder is not engine.embedder
    assert search_pb2.StatsResponse(embedder=stats.embedder).embedder == "all-MiniLM-L6-v2-int8"
    assert parts.on_start is not None and parts.on_stop is not None
    await parts.on_start()
    await parts.on_stop()
