"""Pure rules: ranking, budgets, compaction and pruning plans, ids."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from services.memory.domain.budget import BudgetPolicy, memory_budget_for_context, select_within_budget
from services.memory.domain.ids import new_memory_id, parse_working_id, working_id
from services.memory.domain.lifecycle import WorkingEntry, WorkingLimits, plan_compaction, plan_working_prune
from services.memory.domain.model import Memory, MemoryClass, MemoryFields, Source, Status, build_memory
from services.memory.domain.query import query_terms
from services.memory.domain.ranking import Candidate, Scored, rank
from services.memory.domain.validation import is_valid_id

NOW = datetime(2025, 6, 1, tzinfo=UTC)


def memory(
    memory_id: str,
    body: str = "",
    *,
    cls: MemoryClass = MemoryClass.FACT,
    age_days: float = 0,
    **fields: object,
) -> Memory:
    when = NOW - timedelta(days=age_days)
    made = build_memory(
        MemoryFields(memory_class=cls, created=when, updated=when),
        memory_id=memory_id,
        repo="r",
        body=body or f"body of {memory_id}",
        fallback_time=when,
    )
    return made.with_changes(**fields) if fields else made


def no_truncate(m: Memory, n: int) -> tuple[Memory, int] | None:
    return None


def test_budget_first_pass_respects_class_shares_then_fills_the_rest() -> None:
    ranked = [Scored(memory(f"r{i}", cls=MemoryClass.RULE), 10 - i, 30) for i in range(8)]
    ranked.append(Scored(memory("e", cls=MemoryClass.EPISODE), 1, 30))
    chosen = select_within_budget(ranked, budget=200, limit=10, truncate=no_truncate)
    # rules' share (70 tokens) takes two rules, the episode fits its own share (30), leftovers go to rules;
    # by rank alone the episode would have lost to a sixth rule
    assert [s.memory.id for s in chosen] == ["r0", "r1", "r2", "r3", "r4", "e"]
    assert sum(s.tokens for s in chosen) <= 200


def test_budget_respects_limit_and_zero_budget() -> None:
    ranked = [Scored(memory(f"f{i}"), 1, 5) for i in range(10)]
    assert len(select_within_budget(ranked, 1000, 3, no_truncate)) == 3
    assert select_within_budget(ranked, 0, 3, no_truncate) == []


def test_budget_cuts_a_memory_that_does_not_fit_when_enough_room_is_left() -> None:
    big = Scored(memory("big"), 1, 500)
    cut = memory("big", body="short")
    chosen = select_within_budget(
        [big], 100, 5, lambda m, n: (cut, 60), BudgetPolicy(min_truncated_tokens=48)
    )
    assert [(s.memory.body, s.tokens) for s in chosen] == [("short", 60)]


def test_memory_budget_leaves_the_floor_to_code() -> None:
    assert memory_budget_for_context(4000, 2000) == 1000
    assert memory_budget_for_context(40_000, 2000) == 2000


def test_rank_prefers_relevance_then_class_and_recency_and_dedups_fingerprints() -> None:
    old = memory("old", "alpha", age_days=400)
    new = memory("new", "beta")
    rule = memory("rule", "gamma", cls=MemoryClass.RULE)
    dup = memory("dup", "gamma", cls=MemoryClass.EPISODE)
    weak = memory("weak", "delta")
    ranked = rank(
        [
            Candidate(old, 5.0, 1),
            Candidate(new, 5.0, 1),
            Candidate(rule, 5.0, 1),
            Candidate(dup, 5.0, 1),
            Candidate(weak, 0.5, 1),
        ],
        NOW,
    )
    assert [s.memory.id for s in ranked] == ["rule", "new", "old"]


def test_compaction_plan_keeps_pinned_and_prefers_writable_survivors() -> None:
    claude = memory("claude.x", "same words", source=Source.CLAUDE)
    team = memory("team", "Same words!", age_days=3)
    pinned = memory("pinned", "same   words", pinned=True, age_days=9)
    plan = plan_compaction([claude, team, pinned], now=NOW, episode_max_age=timedelta(days=30))
    assert plan.supersedes == {"pinned": ("claude.x", "team")}
    assert [(c.memory_id, c.status) for c in plan.changes] == [("team", Status.SUPERSEDED)]


def test_compaction_plan_archives_old_unpinned_writable_episodes_only() -> None:
    episodes = [
        memory("old", cls=MemoryClass.EPISODE, age_days=40),
        memory("young", cls=MemoryClass.EPISODE, age_days=10),
        memory("pinned", cls=MemoryClass.EPISODE, age_days=40, pinned=True),
        memory("claude.e", cls=MemoryClass.EPISODE, age_days=40, source=Source.CLAUDE),
        memory("fact", age_days=400),
    ]
    plan = plan_compaction(episodes, now=NOW, episode_max_age=timedelta(days=30))
    assert [(c.memory_id, c.status) for c in plan.changes] == [("old", Status.ARCHIVED)]
    assert plan.archived == 1


def test_working_prune_keeps_newest_per_session_and_drops_idle_sessions() -> None:
    hour = 3600 * 10**9
    a, b = "u000000000000--a", "u000000000000--b"
    entries = [WorkingEntry(f"a{i}", a, i * hour) for i in range(5)]
    entries += [WorkingEntry("b0", b, 0)]
    limits = WorkingLimits(keep=2, max_age_ns=3 * hour)
    doomed = plan_working_prune(entries, session=a, limits=limits, now_ns=4 * hour)
    assert doomed == ["a0", "a1", "a2", "b0"]


def test_ids_are_safe_and_working_ids_round_trip() -> None:
    assert is_valid_id(new_memory_id("Don't use ../ in paths!"))
    assert parse_working_id(working_id("abc-123", 42)) == ("abc-123", 42)
    assert parse_working_id("note-1") is None


def test_query_terms_drop_stopwords_and_split_identifiers() -> None:
    terms = query_terms("How does the parseOrderLine work? Add it to OrderRepo")
    assert terms == ["parseorderline", "parse", "order", "line", "orderrepo", "repo"]
