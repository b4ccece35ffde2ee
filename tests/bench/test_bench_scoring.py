"""The benchmark scorer against values computed by hand (log2(3) = 1.5849625, log2(5) = 2.3219281)."""

from __future__ import annotations

import pytest

from bench.scoring import (
    Gold,
    Retrieved,
    names_match,
    ndcg,
    percentile,
    ratio,
    score_files,
    score_symbols,
    skip_scores,
    spans_overlap,
)

GOLD = [
    Gold("a.py", "f", 3, 10, 20),
    Gold("a.py", "C.g", 2, 30, 40),
    Gold("b.py", "h", 1, 1, 5),
]


def test_qualified_names_match_on_a_dotted_suffix_only() -> None:
    assert names_match("Session.perform_collect", "perform_collect")
    assert names_match("perform_collect", "Session.perform_collect")
    assert names_match("C.g", "C.g")
    assert not names_match("Session.xperform_collect", "perform_collect")
    assert not names_match("C", "C.g")
    assert not names_match("", "f")


def test_line_spans_overlap_inclusively_and_unknown_spans_never_do() -> None:
    assert spans_overlap(1, 10, 10, 20)
    assert not spans_overlap(1, 9, 10, 20)
    assert not spans_overlap(0, 0, 1, 5)


def test_symbol_metrics_of_a_mixed_ranking() -> None:
    ranked = [
        Retrieved("x.py", "foo", 1, 3),
        Retrieved("a.py", "C.g", 30, 40),
        Retrieved("b.py", "h", 1, 5),
        Retrieved("a.py", "f", 10, 20),
    ]
    scores = score_symbols(ranked, GOLD)
    # gains 0, 2, 1, 3 → DCG = 3/log2(3) + 1/2 + 7/log2(5) = 1.892789 + 0.5 + 3.014736 = 5.407525
    # ideal 3, 2, 1  → IDCG = 7 + 1.892789 + 0.5 = 9.392789
    assert scores.ndcg_10 == pytest.approx(5.407525 / 9.392789, abs=1e-6)
    assert scores.recall_5 == 1.0  # both grade ≥ 2 items within the first four
    assert scores.mrr_10 == 0.5  # first relevant hit at rank 2


def test_recall_at_5_and_10_differ_when_the_answer_is_sixth() -> None:
    ranked = [Retrieved("x.py", f"n{i}", 1, 1) for i in range(5)] + [Retrieved("a.py", "f", 10, 20)]
    scores = score_symbols(ranked, GOLD)
    assert scores.recall_5 == 0.0
    assert scores.recall_10 == 0.5  # f found, C.g not
    assert scores.mrr_10 == pytest.approx(1 / 6)
    # one gain of 3 at rank 6: 7/log2(7) = 7/2.8073549 = 2.4934498; IDCG 9.392789
    assert scores.ndcg_10 == pytest.approx(2.4934498 / 9.392789, abs=1e-6)


def test_a_chunk_overlapping_two_gold_spans_earns_one_gain_but_covers_both_for_recall() -> None:
    scores = score_symbols([Retrieved("a.py", "", 15, 35)], GOLD)
    assert scores.recall_10 == 1.0
    assert scores.ndcg_10 == pytest.approx(7 / 9.392789, abs=1e-6)


def test_a_gold_item_is_credited_once_even_when_retrieved_twice() -> None:
    ranked = [Retrieved("a.py", "f", 10, 20), Retrieved("a.py", "f", 10, 20)]
    assert score_symbols(ranked, GOLD).ndcg_10 == pytest.approx(7 / 9.392789, abs=1e-6)


def test_a_symbol_in_another_file_does_not_match() -> None:
    scores = score_symbols([Retrieved("z.py", "f", 10, 20)], GOLD)
    assert scores.ndcg_10 == 0.0 and scores.recall_10 == 0.0 and scores.mrr_10 == 0.0


def test_recall_and_mrr_are_undefined_without_relevant_gold() -> None:
    scores = score_symbols([Retrieved("b.py", "h", 1, 5)], [Gold("b.py", "h", 1, 1, 5)])
    assert scores.recall_10 is None and scores.mrr_10 is None
    assert scores.ndcg_10 == 1.0


def test_file_metrics_use_distinct_files_graded_by_their_best_gold() -> None:
    ranked = [Retrieved("a.py", "x"), Retrieved("a.py", "y"), Retrieved("c.py"), Retrieved("b.py")]
    scores = score_files(ranked, GOLD)
    # files a(3), c(0), b(1) → DCG = 7 + 0 + 1/log2(4) = 7.5; ideal 3, 1 → 7 + 1/log2(3) = 7.630930
    assert scores.ndcg_10 == pytest.approx(7.5 / 7.630930, abs=1e-6)
    assert scores.recall_5 == 1.0 and scores.mrr_10 == 1.0


def test_ndcg_of_an_empty_ranking_is_zero() -> None:
    assert ndcg([], [3, 2]) == 0.0
    assert ndcg([0, 0], []) == 0.0


def test_skip_scores_count_false_skips_against_code_prompts() -> None:
    scores = skip_scores([(True, True), (True, False), (False, False), (False, True)])
    assert scores.accuracy == 0.5
    assert scores.false_skip_rate == 0.5
    assert scores.skip_recall == 0.5
    assert (scores.n_code, scores.n_skip) == (2, 2)


def test_nearest_rank_percentiles() -> None:
    values = [float(v) for v in range(10, 0, -1)]
    assert percentile(values, 50) == 5.0
    assert percentile(values, 99) == 10.0
    assert percentile([3.0, 1.0, 2.0], 50) == 2.0
    assert percentile([], 50) == 0.0


def test_ratio_is_none_for_a_zero_baseline() -> None:
    assert ratio(3.0, 2.0) == 1.5
    assert ratio(1.0, 0.0) is None
