"""bench.gate_replay decides a prompt the way the hook does before assembly: router, search, gate."""

from __future__ import annotations

from pathlib import Path

from bench.gate_replay import decide
from gateway.pipeline import Pipeline
from services.search.adapters.numpy_vector_index import NumpyVectorIndex
from services.search.adapters.sqlite_embedding_store import SqliteEmbeddingStore
from services.search.adapters.sqlite_keyword_index import SqliteKeywordIndex
from services.search.domain.topicality import OffTopicModel
from services.search.engine import SearchEngine
from services.search.tests.search_fakes import WordHashEmbedder, chunk


def test_router_skips_gate_skips_model_cues_and_code_prompts_are_told_apart(tmp_path: Path) -> None:
    embedder = WordHashEmbedder()
    chat = embedder.embed(["answer way too long"])[0] * 8.0
    engine = SearchEngine(
        SqliteKeywordIndex(tmp_path / "k.db"),
        NumpyVectorIndex(tmp_path / "v.db", embedder.dimension),
        embedder,
        SqliteEmbeddingStore(tmp_path / "e.db"),
        off_topic_model=OffTopicModel(embedder.name, chat, -4.0),
    )
    engine.upsert_file("lib", "src/cache.py", [chunk("evict_entries", "src/cache.py", repo="lib")])
    engine.backfill_once()
    pipeline = Pipeline(None, 1.0)  # type: ignore[arg-type]
    try:
        assert decide(engine, pipeline, "lib", "thanks!") == ("skip", {"reason": "router", "cue": ""})
        route, why = decide(engine, pipeline, "lib", "write me a poem about the sea")
        assert route == "skip" and why["cue"] == "creative"
        route, why = decide(engine, pipeline, "lib", "that answer was way too long")
        assert route == "skip" and why["cue"] == "" and "reads off-topic" in why["reason"]
        assert why["p"] > 0.85
        route, why = decide(engine, pipeline, "lib", "why does evict_entries drop the newest entry")
        assert route == "flow" and why["reason"] == ""  # an identifier: no cue, no gate
    finally:
        engine.close()
