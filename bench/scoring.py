"""Retrieval-quality and latency metrics for the benchmark. Pure functions, no I/O.

Conventions (issue 9):
- Graded relevance: 3 exact answer, 2 directly related (a caller, the type), 1 marginal.
- NDCG@k uses gain 2^g - 1 and log2(rank + 1) discounts; the ideal ranking is the gold grades sorted.
- Recall@k and MRR@k count only gold items of grade >= 2 ("relevant").
- File level: the ranked list is reduced to distinct files in first-seen order; a file's grade is the
  highest grade of any gold item in it.
- Symbol level: a retrieved chunk matches a gold item when both are in the same file and either the
  qualified names agree on a dotted suffix (`Session.perform_collect` ~ `perform_collect`) or the
  chunk's line range overlaps the gold span. Each gold item is credited at most once (to the first
  chunk that matches it) and each chunk earns the gain of at most one gold item (its best uncredited
  match), so NDCG stays within [0, 1]; recall counts every relevant gold item any top-k chunk covers.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

RELEVANT = 2  # minimum grade counted by recall and MRR


@dataclass(frozen=True)
class Gold:
    """One graded answer: a definition in a file. `start_line`/`end_line` 0 when the span is unknown."""

    file: str
    symbol: str
    grade: int
    start_line: int = 0
    end_line: int = 0


@dataclass(frozen=True)
class Retrieved:
    """One ranked result. `symbol` is a qualified name ("" for a whole-file or text chunk)."""

    file: str
    symbol: str = ""
    start_line: int = 0
    end_line: int = 0


@dataclass(frozen=True)
class QueryScores:
    """Metrics of one prompt at one level (file or symbol). Recall/MRR are None without relevant gold."""

    recall_5: float | None
    recall_10: float | None
    mrr_10: float | None
    ndcg_10: float


# --- matching -------------------------------------------------------------------------------------------


def names_match(retrieved: str, gold: str) -> bool:
    """True when one qualified name equals the other or ends with it at a `.` boundary."""
    if not retrieved or not gold:
        return False
    if retrieved == gold:
        return True
    shorter, longer = sorted((retrieved, gold), key=len)
    return longer.endswith("." + shorter)


def spans_overlap(a_start: int, a_end: int, b_start: int, b_end: int) -> bool:
    """Inclusive line ranges share at least one line; unknown (0) spans never overlap."""
    if a_start <= 0 or b_start <= 0:
        return False
    return a_start <= b_end and b_start <= a_end


def symbol_matches(item: Retrieved, gold: Gold) -> bool:
    if item.file != gold.file:
        return False
    return names_match(item.symbol, gold.symbol) or spans_overlap(
        item.start_line, item.end_line, gold.start_line, gold.end_line
    )


# --- ranking metrics ------------------------------------------------------------------------------------


def dcg(gains_by_rank: Sequence[int]) -> float:
    """Sum of (2^g - 1) / log2(rank + 1) over 1-based ranks."""
    return sum((2**g - 1) / math.log2(rank + 1) for rank, g in enumerate(gains_by_rank, start=1))


def ndcg(gains_by_rank: Sequence[int], gold_grades: Iterable[int], k: int = 10) -> float:
    ideal = dcg(sorted((g for g in gold_grades if g > 0), reverse=True)[:k])
    return dcg(list(gains_by_rank)[:k]) / ideal if ideal > 0 else 0.0


def _recall(hit_flags: Sequence[set[int]], relevant: set[int], k: int) -> float | None:
    if not relevant:
        return None
    covered: set[int] = set()
    for hits in hit_flags[:k]:
        covered |= hits & relevant
    return len(covered) / len(relevant)


def _mrr(hit_flags: Sequence[set[int]], relevant: set[int], k: int) -> float | None:
    if not relevant:
        return None
    for rank, hits in enumerate(hit_flags[:k], start=1):
        if hits & relevant:
            return 1.0 / rank
    return 0.0


def score_symbols(ranked: Sequence[Retrieved], gold: Sequence[Gold], k: int = 10) -> QueryScores:
    """Symbol-level metrics of one ranked list against the gold items."""
    matches = [{i for i, g in enumerate(gold) if symbol_matches(item, g)} for item in ranked]
    relevant = {i for i, g in enumerate(gold) if g.grade >= RELEVANT}
    credited: set[int] = set()
    gains: list[int] = []
    for found in matches[:k]:
        fresh = [i for i in found if i not in credited]
        if fresh:
            best = max(fresh, key=lambda i: gold[i].grade)
            credited.add(best)
            gains.append(gold[best].grade)
        else:
            gains.append(0)
    return QueryScores(
        recall_5=_recall(matches, relevant, 5),
        recall_10=_recall(matches, relevant, k),
        mrr_10=_mrr(matches, relevant, k),
        ndcg_10=ndcg(gains, (g.grade for g in gold), k),
    )


def distinct_files(ranked: Sequence[Retrieved]) -> list[str]:
    seen: dict[str, None] = {}
    for item in ranked:
        seen.setdefault(item.file, None)
    return list(seen)


def score_files(ranked: Sequence[Retrieved], gold: Sequence[Gold], k: int = 10) -> QueryScores:
    """File-level metrics: distinct files in first-seen order, graded by their best gold item."""
    grade_of: dict[str, int] = {}
    for g in gold:
        grade_of[g.file] = max(grade_of.get(g.file, 0), g.grade)
    files = distinct_files(ranked)
    names = sorted(grade_of)
    index = {name: i for i, name in enumerate(names)}
    matches = [{index[f]} if f in index else set() for f in files]
    relevant = {index[f] for f, g in grade_of.items() if g >= RELEVANT}
    return QueryScores(
        recall_5=_recall(matches, relevant, 5),
        recall_10=_recall(matches, relevant, k),
        mrr_10=_mrr(matches, relevant, k),
        ndcg_10=ndcg([grade_of.get(f, 0) for f in files[:k]], grade_of.values(), k),
    )


def mean_scores(scores: Sequence[QueryScores]) -> dict[str, float | None]:
    """Macro averages; recall/MRR average over the prompts where they are defined."""

    def avg(values: Iterable[float | None]) -> float | None:
        present = [v for v in values if v is not None]
        return sum(present) / len(present) if present else None

    return {
        "recall_5": avg(s.recall_5 for s in scores),
        "recall_10": avg(s.recall_10 for s in scores),
        "mrr_10": avg(s.mrr_10 for s in scores),
        "ndcg_10": avg(s.ndcg_10 for s in scores),
        "n": len(scores),
    }


# --- routing --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SkipScores:
    accuracy: float  # skip/not-skip decision correct, over every prompt
    false_skip_rate: float  # code prompts routed to skip / code prompts
    skip_recall: float  # non-code prompts routed to skip / non-code prompts
    n_code: int
    n_skip: int


def skip_scores(decisions: Sequence[tuple[bool, bool]]) -> SkipScores:
    """`decisions` holds (should_skip, was_skipped) per prompt."""
    code = [was for should, was in decisions if not should]
    chat = [was for should, was in decisions if should]
    correct = sum(1 for should, was in decisions if should == was)
    return SkipScores(
        accuracy=correct / len(decisions) if decisions else 0.0,
        false_skip_rate=sum(code) / len(code) if code else 0.0,
        skip_recall=sum(chat) / len(chat) if chat else 0.0,
        n_code=len(code),
        n_skip=len(chat),
    )


# --- latency --------------------------------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile: the smallest value with at least q% of the values at or below it."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


def latency_summary(ms: Sequence[float]) -> dict[str, float]:
    return {
        "n": len(ms),
        "p50_ms": round(percentile(ms, 50), 2),
        "p99_ms": round(percentile(ms, 99), 2),
        "mean_ms": round(sum(ms) / len(ms), 2) if ms else 0.0,
    }


def ratio(ours: float, baseline: float) -> float | None:
    """ours / baseline, or None when the baseline is zero."""
    return round(ours / baseline, 3) if baseline else None


# --- quality at equal injected tokens -------------------------------------------------------------------


def within_tokens(ranked: Sequence[Retrieved], costs: Sequence[int], budget: int) -> list[Retrieved]:
    """The prefix of `ranked` a reader gets for `budget` tokens: items are taken in order while the
    tokens spent before them are under the budget (the last one may be only partly inside, as the hook
    trims its last block rather than dropping it). `costs[i]` is the token cost of `ranked[i]`."""
    kept: list[Retrieved] = []
    spent = 0
    for item, cost in zip(ranked, costs, strict=True):
        if spent >= budget:
            break
        kept.append(item)
        spent += cost
    return kept
