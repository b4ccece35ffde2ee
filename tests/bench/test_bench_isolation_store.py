"""The bench's one shared store: which corpora it holds for a run."""

from __future__ import annotations

import pytest

from bench.runner import store_corpora

EVERY = ["pytest", "rxjs", "fastify", "reporecall", "express"]


def test_store_all_holds_every_corpus_with_the_evaluated_ones_first() -> None:
    assert store_corpora(["fastify"], EVERY, "all") == ["fastify", "pytest", "rxjs", "reporecall", "express"]


def test_store_run_holds_only_the_evaluated_corpora() -> None:
    assert store_corpora(["rxjs", "express"], EVERY, "run") == ["rxjs", "express"]


def test_an_unknown_store_mode_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="use one of all, run"):
        store_corpora(["rxjs"], EVERY, "shared")
