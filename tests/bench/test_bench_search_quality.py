"""bench.search_quality scores the engine's own rankings the way the bench does."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.scoring import Gold
from bench.search_quality import score_prompts
from bench.sets import Prompt
from services.search.adapters.sqlite_keyword_index import SqliteKeywordIndex
from services.search.engine import SearchEngine
from services.search.tests.search_fakes import chunk


def test_scores_each_code_prompt_by_symbol_ndcg_and_skips_skip_prompts(tmp_path: Path) -> None:
    engine = SearchEngine(SqliteKeywordIndex(tmp_path / "keyword.db"))
    engine.upsert_file("lib", "src/cache.py", [chunk("evict_entries", "src/cache.py", repo="lib")])
    engine.upsert_file("lib", "src/log.py", [chunk("rotate_logs", "src/log.py", repo="lib")])
    prompts = [
        Prompt("lib-1", "lib", "lookup", "evict entries", (Gold("src/cache.py", "evict_entries", 3),)),
        Prompt("lib-2", "lib", "lookup", "rotate logs", (Gold("src/cache.py", "evict_entries", 3),)),
        Prompt("lib-3", "lib", "skip", "thanks!"),
    ]
    scores, cpu = score_prompts(engine, "lib", prompts, "keyword")
    assert scores == {"lib-1": pytest.approx(1.0), "lib-2": 0.0}
    assert len(cpu) == 2 and all(ms >= 0 for ms in cpu)


def test_a_prompt_naming_its_answer_file_is_scored_by_that_files_rank(tmp_path: Path) -> None:
    engine = SearchEngine(SqliteKeywordIndex(tmp_path / "keyword.db"))
    engine.upsert_file("lib", "src/cache.py", [chunk("evict_entries", "src/cache.py", repo="lib")])
    engine.upsert_file("lib", "src/log.py", [chunk("rotate_logs", "src/log.py", repo="lib")])
    prompts = [
        Prompt("lib-p-1", "lib", "code", "evict entries", answer="src/cache.py"),
        Prompt("lib-p-2", "lib", "code", "rotate logs", answer="src/cache.py"),
    ]
    scores, _ = score_prompts(engine, "lib", prompts, "keyword")
    assert scores == {"lib-p-1": 1.0, "lib-p-2": 0.0}
