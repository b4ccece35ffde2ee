"""The quality sets are well formed and every gold file and symbol exists in its pinned corpus."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.corpora import load_corpora
from bench.sets import (
    CATEGORIES,
    CODE,
    COMMIT,
    SHARED,
    load_commit_set,
    load_sets,
    load_shared_sets,
    problems,
)

SETS = load_sets()
SHARED_SETS = load_shared_sets()
CORPORA = load_corpora()


def test_every_set_names_a_pinned_corpus() -> None:
    assert set(SETS) == set(CORPORA)
    for name, prompts in SETS.items():
        assert all(p.corpus == name for p in prompts)


def test_the_sets_hold_at_least_120_prompts_covering_every_category() -> None:
    prompts = [p for ps in SETS.values() for p in ps]
    assert len(prompts) >= 120
    for name, ps in SETS.items():
        assert {p.category for p in ps} == set(CATEGORIES), name


def test_third_party_corpora_are_pinned_with_a_sha256() -> None:
    for corpus in CORPORA.values():
        if corpus.registry != "self":
            assert corpus.version and len(corpus.sha256) == 64 and corpus.archive, corpus.name


@pytest.mark.parametrize("name", sorted(SETS))
def test_every_gold_file_and_symbol_exists_in_the_corpus(name: str) -> None:
    corpus = CORPORA[name]
    if not corpus.present():
        pytest.skip(f"{name} {corpus.version} is not downloaded: run `.venv/bin/python -m bench fetch`")
    assert problems(SETS[name], corpus.path) == []


@pytest.mark.parametrize(
    ("name", "skips"), [("toml_edit", 8), ("mobx", 8), ("chi", 8), ("cobra", 6), ("click", 6)]
)
def test_each_new_corpus_has_25_graded_code_prompts_and_its_skips(name: str, skips: int) -> None:
    prompts = SETS[name]
    code = [p for p in prompts if not p.should_skip]
    assert len(code) >= 25 and len([p for p in prompts if p.should_skip]) >= skips
    for category, least in (("lookup", 8), ("flow", 6), ("bug", 6), ("architecture", 5)):
        assert len([p for p in code if p.category == category]) >= least, category


def test_the_shared_offtopic_set_runs_on_every_corpus_and_is_well_formed() -> None:
    shared = SHARED_SETS["offtopic"]
    assert all(p.corpus == SHARED and p.shared for p in shared)
    assert len([p for p in shared if p.should_skip]) >= 50
    assert len([p for p in shared if p.category == CODE]) >= 25
    assert problems(shared, None) == []
    assert "offtopic" not in SETS


COMMIT_SETS = {name: load_commit_set(name) for name in CORPORA}


@pytest.mark.parametrize("name", sorted(n for n, ps in COMMIT_SETS.items() if ps))
def test_every_commit_message_names_what_the_fix_changed_in_the_corpus(name: str) -> None:
    prompts = COMMIT_SETS[name]
    assert all(p.category == COMMIT and p.corpus == name for p in prompts)
    corpus = CORPORA[name]
    if not corpus.present():
        pytest.skip(f"{name} {corpus.version} is not downloaded: run `.venv/bin/python -m bench fetch`")
    assert problems(prompts, corpus.path) == []


def test_a_commit_set_of_the_wrong_corpus_or_category_is_refused(tmp_path) -> None:
    (tmp_path / "commits").mkdir()
    (tmp_path / "commits" / "demo.yaml").write_text(
        "corpus: other\nprompts:\n"
        "  - {id: c1, category: bug, prompt: fix, gold: [{file: a.py, symbol: f, grade: 3}]}\n"
    )
    with pytest.raises(ValueError, match="commit"):
        load_commit_set("demo", tmp_path)
    assert load_commit_set("absent", tmp_path) == []


def test_a_probe_answer_file_is_read_and_checked_against_its_corpus(tmp_path: Path) -> None:
    from bench.sets import answer_problems, load_set

    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "mux.go").write_text("package chi\n")
    path = tmp_path / "probe.yaml"
    path.write_text(
        "corpus: chi\nprompts:\n"
        "  - {id: chi-p-1, category: code, answer: src/mux.go, prompt: where are routes matched}\n"
        "  - {id: chi-p-2, category: code, answer: src/gone.go, prompt: where is the pool}\n"
        "  - {id: chi-p-3, category: skip, answer: src/mux.go, prompt: write a poem}\n"
        "  - {id: chi-p-4, category: code, prompt: how are params read}\n"
        f"  - {{id: chi-p-5, category: code, answer: {tmp_path / 'src' / 'mux.go'}, prompt: where is the tree}}\n"
        "  - {id: chi-p-6, category: code, answer: ../probe.yaml, prompt: where is the tree}\n"
    )
    prompts = load_set(path)
    assert [p.answer for p in prompts][:4] == ["src/mux.go", "src/gone.go", "src/mux.go", ""]
    assert answer_problems(prompts, tmp_path / "src") == [
        "chi-p-1: answer file src/mux.go does not exist",  # relative to the corpus root
        "chi-p-2: answer file src/gone.go does not exist",
        "chi-p-3: only a probe's code prompt (no gold) names an answer file",
        f"chi-p-5: answer file {tmp_path / 'src' / 'mux.go'} is not a relative path inside the corpus",
        "chi-p-6: answer file ../probe.yaml is not a relative path inside the corpus",
    ]
    assert answer_problems(prompts[:2], tmp_path) == ["chi-p-2: answer file src/gone.go does not exist"]
