"""Backends are chosen by URL in one place; bad URLs fail at start-up naming the setting."""

from __future__ import annotations

from pathlib import Path

import pytest

from kit.settings import ConfigError
from reporecall.search.v1 import search_pb2
from services.search.adapters.numpy_vector_index import NumpyVectorIndex
from services.search.adapters.sqlite_keyword_index import SqliteKeywordIndex
from services.search.bootstrap import (
    bootstrap,
    build_embedder,
    build_engine,
    build_keyword_index,
    build_vector_index,
    load_off_topic_model,
)
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
    assert engine.off_topic_model is not None  # the bundled model reads this embedder's vectors
    assert search_pb2.StatsResponse(embedder=stats.embedder).embedder == "all-MiniLM-L6-v2-int8"
    assert parts.on_start is not None and parts.on_stop is not None
    await parts.on_start()
    await parts.on_stop()


def test_the_off_topic_model_is_bundled_another_file_or_none(tmp_path: Path) -> None:
    bundled = load_off_topic_model("")
    assert bundled is not None and bundled.embedder == "all-MiniLM-L6-v2-int8"
    assert load_off_topic_model("none") is None and load_off_topic_model(" NONE ") is None
    other = tmp_path / "m.json"
    other.write_text('{"embedder": "e", "weights": [0.5, 0.5], "bias": 0.0}')
    assert load_off_topic_model(str(other)).embedder == "e"  # type: ignore[union-attr]


@pytest.mark.parametrize("content", [None, "not json", '{"embedder": "e", "weights": [], "bias": 0}'])
def test_a_missing_or_broken_off_topic_model_stops_start_up_before_any_store_opens(
    tmp_path: Path, content: str | None
) -> None:
    model = tmp_path / "model.json"
    if content is not None:
        model.write_text(content)
    with pytest.raises(ConfigError) as raised:
        build_engine(SearchSettings(data_dir=tmp_path / "data", off_topic_model=str(model)))
    assert raised.value.setting == "REPORECALL_OFF_TOPIC_MODEL" and "model.json" in str(raised.value)
    assert not (tmp_path / "data" / "search").exists()  # refused before any store was created
    with pytest.raises(ConfigError, match="absolute"):
        load_off_topic_model("relative/model.json")


def test_a_model_for_another_embedder_or_none_reads_nothing(tmp_path: Path) -> None:
    other = tmp_path / "m.json"
    other.write_text('{"embedder": "another-embedder", "weights": [0.5], "bias": 0.0}')
    for setting, vector_url in ((str(other), ""), ("none", ""), ("", "none")):
        engine = build_engine(
            SearchSettings(
                data_dir=tmp_path / setting.strip("/").replace("/", "_"),
                off_topic_model=setting,
                vector_url=vector_url,
                embed_threads=1,
            )
        )
        try:
            assert engine.off_topic_model is None
        finally:
            engine.close()
