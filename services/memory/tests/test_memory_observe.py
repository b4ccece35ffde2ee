"""Observe: where a session's prompts led becomes branch-scoped working memory, pruned per session, expired
when idle. (The prompts themselves are never stored: tests/security/test_sec_memory_working.py.)"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from services.memory.domain.errors import InvalidField
from services.memory.domain.model import MemoryClass, Scope
from services.memory.engine import EngineConfig, MemoryEngine, Observation, RecallQuery

REPO = "shop"


def observe(engine: MemoryEngine, prompt: str, session: str = "s-1", **kwargs: Any) -> int:
    """One prompt that led to a file named after it (distinct prompts, distinct notes)."""
    kwargs.setdefault("branch", "main")
    kwargs.setdefault("user", "ann")
    kwargs.setdefault("hit_paths", (f"shop/{prompt.strip().replace(' ', '_')}.py",) if prompt.strip() else ())
    return engine.observe(Observation(repo=REPO, session_id=session, prompt=prompt, **kwargs))


def working_files(root: Path) -> list[str]:
    return sorted(p.stem for p in (root / "repos" / REPO).glob("working-*.md"))


def test_observation_is_branch_scoped_working_memory_of_its_user(engine: MemoryEngine) -> None:
    assert (
        observe(engine, "why does the checkout total drift?", route="bug", hit_paths=("shop/total.py",)) == 1
    )
    [memory] = engine.list_memories(REPO, branch="main", user="ann")
    assert (memory.memory_class, memory.scope, memory.branch) == (MemoryClass.WORKING, Scope.BRANCH, "main")
    assert memory.related_files == ("shop/total.py",) and memory.session == "s-1"

    def found(branch: str, user: str) -> int:
        query = RecallQuery(
            repo=REPO, query="why does the checkout drift", branch=branch, user=user, record_use=False
        )
        result = engine.recall(query)
        return len(result.memories)

    assert found(branch="main", user="ann") == 0  # the prompt's words are not stored
    query = RecallQuery(repo=REPO, query="shop total", branch="main", user="ann", record_use=False)
    assert [m.memory.id for m in engine.recall(query).memories] == [memory.id]
    for branch, user in (("dev", "ann"), ("main", "bob")):
        other = RecallQuery(repo=REPO, query="shop total", branch=branch, user=user, record_use=False)
        assert engine.recall(other).memories == []


def test_only_the_last_n_observations_of_a_session_are_kept(
    make_engine: Callable[..., MemoryEngine], memory_root: Path, clock: Any
) -> None:
    engine = make_engine(config=EngineConfig(working_keep=3))
    kept = []
    for i in range(6):
        kept.append(observe(engine, f"prompt number {i}"))
        clock.advance(seconds=10)
    assert kept == [1, 2, 3, 3, 3, 3]
    assert len(working_files(memory_root)) == 3
    bodies = sorted(m.body for m in engine.list_memories(REPO, branch="main", user="ann"))
    assert bodies == [f"- shop/prompt_number_{i}.py" for i in (3, 4, 5)]
    assert observe(engine, "other session", session="s-2") == 1  # sessions are pruned separately
    assert len(working_files(memory_root)) == 4


def test_idle_sessions_expire(
    make_engine: Callable[..., MemoryEngine], memory_root: Path, clock: Any
) -> None:
    engine = make_engine()
    observe(engine, "old session prompt", session="old")
    clock.advance(days=4)
    observe(engine, "new session prompt", session="new")
    assert [m.body for m in engine.list_memories(REPO, branch="main", user="ann")] == [
        "- shop/new_session_prompt.py"
    ]
    assert len(working_files(memory_root)) == 1


def test_observe_lists_the_folder_once_a_minute_not_once_a_prompt(
    make_engine: Callable[..., MemoryEngine], memory_root: Path, clock: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A team's folder holds thousands of working memories (sessions × keep, for days); each prompt looks
    at its own session's entries only, and the whole folder is listed again once a minute."""
    from services.memory.adapters.memory_folder import MemoryFolder

    engine = make_engine(config=EngineConfig(working_keep=2))
    listings = []
    memory_ids = MemoryFolder.memory_ids

    def counted(self: MemoryFolder, prefix: str = "") -> list[str]:
        listings.append(1)
        return memory_ids(self, prefix)

    monkeypatch.setattr(MemoryFolder, "memory_ids", counted)
    for i in range(30):
        assert observe(engine, f"prompt {i} of session {i % 10}", session=f"s-{i % 10}") == min(
            2, 1 + i // 10
        )
        clock.advance(seconds=1)
    assert len(listings) == 1
    assert len(working_files(memory_root)) == 20  # 10 sessions × keep 2
    (memory_root / "repos" / REPO / f"{working_files(memory_root)[0]}.md").unlink()  # removed by hand
    clock.advance(seconds=61)
    observe(engine, "after a minute", session="s-new")
    assert len(listings) == 2 and len(working_files(memory_root)) == 20


def test_a_forgotten_working_memory_no_longer_counts_towards_the_session(
    make_engine: Callable[..., MemoryEngine], memory_root: Path, clock: Any
) -> None:
    engine = make_engine(config=EngineConfig(working_keep=2))
    observe(engine, "first prompt")
    clock.advance(seconds=1)
    observe(engine, "second prompt")
    assert engine.forget(REPO, working_files(memory_root)[-1], user="ann")  # the newest
    clock.advance(seconds=1)
    assert observe(engine, "third prompt") == 2
    assert len(working_files(memory_root)) == 2  # nothing real pruned for the forgotten one


def test_a_prompt_that_led_nowhere_writes_nothing_and_session_id_is_required(engine: MemoryEngine) -> None:
    assert observe(engine, "   ") == 0
    assert observe(engine, "thanks, that works", hit_paths=()) == 0
    assert working_files(engine._root.path) == []
    with pytest.raises(InvalidField, match="session_id"):
        observe(engine, "hello", session="")


def test_use_counts_of_pruned_working_memory_do_not_pile_up(
    make_engine: Callable[..., MemoryEngine], memory_root: Path, clock: Any
) -> None:
    """Every prompt is a new working id; counts for the ones pruned since must not outlive them (a steady
    hook load otherwise grows the engine's pending counts and the usage file by one entry per prompt)."""
    engine = make_engine(config=EngineConfig(working_keep=3))
    for i in range(40):
        observe(engine, f"how does the checkout total drift, take {i}")
        engine.recall(RecallQuery(repo=REPO, query="checkout total drift", branch="main", user="ann"))
        clock.advance(seconds=5)
    live = set(working_files(memory_root))
    assert len(live) == 3
    assert set(engine._pending_usage.get(REPO, {})) <= live
    engine.flush_usage()
    usage = json.loads((memory_root / "repos" / REPO / ".usage.json").read_text())
    assert set(usage) <= live and usage, usage
