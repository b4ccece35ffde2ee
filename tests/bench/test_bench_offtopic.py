"""The corpus-independent routing set: loading, validation and scoring apart from the corpus sets."""

from __future__ import annotations

from pathlib import Path

from bench.offtopic import QUICK_PER_CATEGORY, shared_prompts, shared_routing
from bench.scoring import Gold
from bench.sets import SETS_DIR, Prompt, load_set, load_sets, load_shared_sets, problems

SHARED_YAML = """corpus: "*"
prompts:
  - {id: s-1, category: skip, prompt: write a poem about a compiler}
  - {id: s-2, category: skip, prompt: hello there}
  - {id: c-1, category: code, prompt: "thanks, now where is the retry logic?"}
"""
CORPUS_YAML = """corpus: demo
prompts:
  - {id: d-1, category: skip, prompt: hi}
"""


def test_shared_sets_are_kept_apart_from_the_corpus_sets(tmp_path: Path) -> None:
    (tmp_path / "offtopic.yaml").write_text(SHARED_YAML)
    (tmp_path / "demo.yaml").write_text(CORPUS_YAML)
    assert list(load_sets(tmp_path)) == ["demo"]
    assert list(load_shared_sets(tmp_path)) == ["offtopic"]
    assert [p.category for p in load_shared_sets(tmp_path)["offtopic"]] == ["skip", "skip", "code"]


def test_a_shared_prompt_with_gold_or_a_corpus_category_is_reported(tmp_path: Path) -> None:
    (tmp_path / "offtopic.yaml").write_text(SHARED_YAML)
    good = load_set(tmp_path / "offtopic.yaml")
    assert problems(good, None) == []
    bad = [
        Prompt("x-1", "*", "lookup", "where is the parser"),
        Prompt("x-2", "*", "code", "where is the parser", (Gold("a.py", "parse", 3),)),
    ]
    found = problems(bad, None)
    assert any("x-1" in f and "skip or code" in f for f in found)
    assert any("x-2" in f and "gold" in f for f in found)


def test_shared_routing_reports_skip_accuracy_and_false_skips_separately(tmp_path: Path) -> None:
    (tmp_path / "offtopic.yaml").write_text(SHARED_YAML)
    prompts = load_set(tmp_path / "offtopic.yaml")
    routes = {"write a poem about a compiler": "skip", "hello there": "lookup"}
    scored = shared_routing(lambda text: routes.get(text, "skip"), prompts)
    assert scored["false_skips"] == ["c-1"]
    assert scored["missed_skips"] == ["s-2"]
    assert scored["accuracy"] == 1 / 3
    assert scored["false_skip_rate"] == 1.0 and scored["skip_recall"] == 0.5
    assert scored["routes"] == {"s-1": "skip", "s-2": "lookup", "c-1": "skip"}


def test_the_quick_run_takes_a_few_prompts_of_each_kind() -> None:
    full, quick = shared_prompts(), shared_prompts(quick=True)
    assert len(full) > len(quick) == 2 * QUICK_PER_CATEGORY
    assert {p.category for p in quick} == {"skip", "code"}


def test_every_corpus_has_probe_code_prompts_scored_with_the_probe_skip_set() -> None:
    from bench.corpora import load_corpora
    from bench.offtopic import PROBE_SET, SHARED_PREFIX, by_set, probe_prompts

    joined = [s for s in load_shared_sets() if (SETS_DIR / s.removeprefix(SHARED_PREFIX)).is_dir()]
    assert PROBE_SET in joined
    for stem in joined:
        tag = stem.removeprefix(SHARED_PREFIX)
        for name in load_corpora():
            probes = probe_prompts(name, stem=stem)
            assert len(probes) >= 11, (stem, name)
            assert {p.category for p in probes} == {"code"} and not any(p.gold for p in probes), name
            assert all(p.corpus == name and p.id.startswith(f"{name}-{tag}-") for p in probes), name
    # From probe3 on, each code prompt names the file that answers it (file-level gold for the run's
    # `probe_files` and `bench.search_quality --probes`).
    answering = [s for s in joined if s not in (PROBE_SET, f"{SHARED_PREFIX}probe2")]
    assert len(answering) >= 8
    for name in load_corpora():
        assert all(p.answer for s in answering for p in probe_prompts(name, stem=s)), name
    prompts = shared_prompts(corpus="mobx")
    assert len({p.id for p in prompts}) == len(prompts)
    routes = {p.id: ("skip" if p.should_skip else "lookup") for p in prompts}
    scored = by_set({"routes": routes}, prompts)
    probe = scored[PROBE_SET]
    assert probe["n_code"] == len(probe_prompts("mobx")) and probe["n_skip"] >= 60
    assert probe["accuracy"] == 1.0
