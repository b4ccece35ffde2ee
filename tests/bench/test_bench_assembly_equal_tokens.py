"""Quality at equal injected tokens: a ranking is cut to the tokens the hook spent on the same prompt."""

from bench.scoring import Gold, Retrieved, score_symbols, within_tokens


def test_within_tokens_keeps_items_while_the_tokens_spent_before_them_are_under_the_budget():
    ranked = [Retrieved("a.py", "f"), Retrieved("a.py", "g"), Retrieved("a.py", "h")]
    assert within_tokens(ranked, [100, 300, 50], 150) == ranked[:2]  # g starts inside, as a trimmed block
    assert within_tokens(ranked, [100, 300, 50], 100) == ranked[:1]
    assert within_tokens(ranked, [100, 300, 50], 0) == []
    assert within_tokens(ranked, [1, 1, 1], 10_000) == ranked


def test_a_long_first_hit_costs_a_ranking_its_later_answers_at_equal_tokens():
    gold = [Gold("a.py", "answer", 3)]
    ranked = [Retrieved("a.py", "module"), Retrieved("a.py", "answer")]
    assert score_symbols(ranked, gold).ndcg_10 > 0
    assert score_symbols(within_tokens(ranked, [2_000, 50], 400), gold).ndcg_10 == 0
