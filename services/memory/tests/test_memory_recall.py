"""Recall: identifier-aware matching, ranking, scope filters (repo, branch, user), class and budget limits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kit.tokens import count_tokens
from services.memory.domain.errors import InvalidField, MemoryNotFound
from services.memory.domain.model import MemoryClass, MemoryType, Scope
from services.memory.domain.query import context_text
from services.memory.engine import EngineConfig, MemoryDraft, MemoryEngine, RecallQuery

REPO = "github.com/acme/shop"


def ids(engine: MemoryEngine, query: str, **kwargs: Any) -> list[str]:
    kwargs.setdefault("repo", REPO)
    result = engine.recall(RecallQuery(query=query, record_use=False, **kwargs))
    return [r.memory.id for r in result.memories]


def test_camel_case_query_finds_snake_case_memory_and_back(engine: MemoryEngine) -> None:
    snake = engine.store(MemoryDraft(repo=REPO, body="parse_order_line drops the currency column"))
    camel = engine.store(MemoryDraft(repo=REPO, body="Call refreshAuthToken before retrying a 401"))
    assert ids(engine, "why does parseOrderLine lose data?") == [snake.id]
    assert ids(engine, "refresh_auth_token retry") == [camel.id]
    assert ids(engine, "how is the auth token refreshed") == [camel.id]  # parts and stems match too


def test_branch_scoped_memory_is_not_recalled_on_another_branch(engine: MemoryEngine) -> None:
    note = engine.store(
        MemoryDraft(
            repo=REPO,
            body="checkout service is half migrated to gRPC",
            scope=Scope.BRANCH,
            branch="feature/grpc",
        )
    )
    assert ids(engine, "checkout service migrated", branch="feature/grpc") == [note.id]
    assert ids(engine, "checkout service migrated", branch="main") == []
    assert ids(engine, "checkout service migrated") == []
    assert engine.list_memories(REPO, branch="main") == []
    assert [m.id for m in engine.list_memories(REPO, branch="feature/grpc")] == [note.id]


def test_user_scoped_memory_is_invisible_to_other_users_and_cannot_be_forgotten_by_them(
    engine: MemoryEngine,
) -> None:
    mine = engine.store(
        MemoryDraft(repo=REPO, body="I prefer pytest -x -q for quick runs", type=MemoryType.USER, user="ann")
    )
    assert mine.scope is Scope.USER
    assert ids(engine, "pytest quick runs", user="ann") == [mine.id]
    assert ids(engine, "pytest quick runs", user="bob") == []
    assert ids(engine, "pytest quick runs") == []
    assert [m.id for m in engine.list_memories(REPO, user="bob")] == []
    assert engine.forget(REPO, mine.id, user="bob") is False
    with pytest.raises(MemoryNotFound):
        engine.store(MemoryDraft(repo=REPO, id=mine.id, body="hijacked", user="bob"))
    with pytest.raises(MemoryNotFound):
        engine.get(REPO, mine.id, user="bob")
    assert ids(engine, "pytest quick runs", user="ann") == [mine.id]
    assert engine.forget(REPO, mine.id, user="ann") is True


def test_memories_of_other_repos_are_invisible_but_global_ones_are_everywhere(engine: MemoryEngine) -> None:
    engine.store(MemoryDraft(repo="github.com/acme/other", body="the ledger rounds half-even"))
    glob = engine.store(MemoryDraft(repo="", body="the ledger team owns rounding rules", scope=Scope.GLOBAL))
    assert glob.repo == "" and glob.scope is Scope.GLOBAL
    assert ids(engine, "ledger rounding") == [glob.id]


def test_inactive_memories_only_on_request(engine: MemoryEngine) -> None:
    memory = engine.store(MemoryDraft(repo=REPO, body="blue-green deploys via the router"))
    engine.archive(REPO, memory.id, admin=True)
    assert ids(engine, "blue green deploys") == []
    assert ids(engine, "blue green deploys", include_inactive=True) == [memory.id]


def test_class_and_confidence_filters(engine: MemoryEngine) -> None:
    rule = engine.store(
        MemoryDraft(repo=REPO, body="invoices: never edit a sent invoice", type=MemoryType.FEEDBACK)
    )
    fact = engine.store(MemoryDraft(repo=REPO, body="invoices are numbered per year", confidence=0.4))
    assert ids(engine, "invoices", classes=frozenset({MemoryClass.RULE})) == [rule.id]
    assert ids(engine, "invoices", min_confidence=0.5) == [rule.id]
    assert set(ids(engine, "invoices")) == {rule.id, fact.id}


def test_rules_outrank_episodes_of_equal_relevance(engine: MemoryEngine) -> None:
    episode = engine.store(
        MemoryDraft(repo=REPO, body="webhooks signature check", memory_class=MemoryClass.EPISODE)
    )
    rule = engine.store(
        MemoryDraft(
            repo=REPO,
            body="webhooks signature check",
            name="w",
            memory_class=MemoryClass.RULE,
            description="webhooks rule",
        )
    )
    assert ids(engine, "webhooks signature")[0] == rule.id
    assert episode.id not in ids(engine, "webhooks signature")  # same content: one copy is enough


def test_used_memories_rank_higher(engine: MemoryEngine) -> None:
    a = engine.store(MemoryDraft(repo=REPO, name="a", body="retry budget for the mailer is three"))
    b = engine.store(MemoryDraft(repo=REPO, name="b", body="retry budget for the mailer is five"))
    first = ids(engine, "mailer retry budget")
    loser = b.id if first[0] == a.id else a.id
    for _ in range(8):
        engine.recall(
            RecallQuery(repo=REPO, query="mailer five" if loser == b.id else "mailer three", limit=1)
        )
    assert ids(engine, "mailer retry budget")[0] == loser


def test_recall_stays_within_the_budget_and_keeps_class_shares(
    make_engine: Callable[..., MemoryEngine],
) -> None:
    engine = make_engine(config=EngineConfig(max_budget_tokens=300))
    for i in range(10):
        engine.store(
            MemoryDraft(
                repo=REPO,
                name=f"cache rule {i}",
                body="cache invalidation " * 20,
                memory_class=MemoryClass.RULE,
                description=f"rule {i}",
            )
        )
        engine.store(
            MemoryDraft(
                repo=REPO,
                name=f"cache episode {i}",
                body=f"cache outage number {i} " * 5,
                memory_class=MemoryClass.EPISODE,
                description=f"episode {i}",
            )
        )
    result = engine.recall(RecallQuery(repo=REPO, query="cache", budget_tokens=10_000, limit=50))
    assert result.tokens <= 300
    assert sum(r.tokens for r in result.memories) == result.tokens
    for item in result.memories:
        assert item.tokens == count_tokens(context_text(item.memory))
    classes = {r.memory.memory_class for r in result.memories}
    assert classes == {MemoryClass.RULE, MemoryClass.EPISODE}  # rules alone would have eaten the budget


def test_a_long_memory_is_cut_to_fit_rather_than_dropped(engine: MemoryEngine) -> None:
    engine.store(
        MemoryDraft(
            repo=REPO,
            name="runbook",
            body="\n".join(f"step {i}: restart the queue worker" for i in range(300)),
        )
    )
    result = engine.recall(RecallQuery(repo=REPO, query="restart queue worker", budget_tokens=120))
    assert len(result.memories) == 1
    assert 48 <= result.tokens <= 120 and result.memories[0].memory.body.endswith("…")


def test_query_of_stopwords_only_recalls_nothing(engine: MemoryEngine) -> None:
    engine.store(MemoryDraft(repo=REPO, body="what is the thing"))
    assert ids(engine, "what is the") == []


def test_empty_query_recalls_most_recent_visible_memories(engine: MemoryEngine, clock: Any) -> None:
    old = engine.store(MemoryDraft(repo=REPO, body="old news"))
    clock.advance(days=1)
    new = engine.store(MemoryDraft(repo=REPO, body="fresh news"))
    assert ids(engine, "")[:2] == [new.id, old.id]


@pytest.mark.parametrize("bad_id", ["../etc/passwd", "a/b", "a\\b", "..", ".hidden", "x" * 200, "a..b", ""])
def test_ids_with_path_tricks_are_refused(engine: MemoryEngine, bad_id: str) -> None:
    with pytest.raises(InvalidField) as info:
        engine.forget(REPO, bad_id)
    assert info.value.field == "id"
    with pytest.raises(InvalidField) as info:
        engine.store(MemoryDraft(repo=REPO, id=bad_id or "../x", body="x"))
    assert info.value.field == "memory.id"


def test_repo_names_cannot_escape_the_memory_folder(engine: MemoryEngine, memory_root: Any) -> None:
    memory = engine.store(MemoryDraft(repo="../../etc", body="sneaky"))
    files = [p for p in memory_root.rglob("*.md")]
    assert files and all(memory_root in p.parents for p in files)
    assert memory.repo == "../../etc" and ids(engine, "sneaky", repo="../../etc") == [memory.id]


def test_scope_that_needs_a_branch_or_user_says_so(engine: MemoryEngine) -> None:
    with pytest.raises(InvalidField, match="memory.branch"):
        engine.store(MemoryDraft(repo=REPO, body="x", scope=Scope.BRANCH))
    with pytest.raises(InvalidField, match="memory.user"):
        engine.store(MemoryDraft(repo=REPO, body="x", scope=Scope.USER))
    with pytest.raises(InvalidField, match="memory.body"):
        engine.store(MemoryDraft(repo=REPO, body="  "))


def test_words_in_most_memories_do_not_drown_the_rare_one(
    engine: MemoryEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Recall scores only the rows its rarest words match (ROW_BUDGET): a folder full of prompts that share
    common words stays fast, and the memory with the rare word still comes first."""
    from services.memory.adapters import sqlite_index

    # A small budget, so crossing it takes 110 stores, not 650: the rule is the same at any size.
    monkeypatch.setattr(sqlite_index, "ROW_BUDGET", 60)
    for i in range(sqlite_index.ROW_BUDGET + 50):
        engine.store(MemoryDraft(repo=REPO, body=f"deploy the service after the checks, run {i}"))
    rare = engine.store(MemoryDraft(repo=REPO, body="deploy to kubernetes with the helm chart in ops/"))
    assert ids(engine, "how do we deploy the service to kubernetes?")[0] == rare.id
    assert len(ids(engine, "deploy the service")) > 0  # only common words: the rarest is still searched
