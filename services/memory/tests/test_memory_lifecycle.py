"""Lifecycle lives in the files: archive, supersede, promote, forget survive edits, rebuilds, re-imports."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from services.memory.domain.frontmatter import parse_memory_text
from services.memory.domain.model import MemoryClass, MemoryType, Status
from services.memory.engine import MemoryDraft, MemoryEngine, RecallQuery

REPO = "app"


def recalled_ids(engine: MemoryEngine, query: str, **kwargs: object) -> list[str]:
    result = engine.recall(RecallQuery(repo=REPO, query=query, record_use=False, **kwargs))  # type: ignore[arg-type]
    return [r.memory.id for r in result.memories]


def file_status(root: Path, memory_id: str, repo: str = REPO) -> str | None:
    parsed = parse_memory_text((root / "repos" / repo / f"{memory_id}.md").read_text())
    return parsed.fields.status.value if parsed.fields.status else None


def test_archived_episode_stays_archived_after_an_edit_and_a_full_rebuild(
    engine: MemoryEngine, memory_root: Path, clock: Any
) -> None:
    episode = engine.store(
        MemoryDraft(
            repo=REPO,
            body="The nightly importer crashed on a NUL byte in orders.csv",
            memory_class=MemoryClass.EPISODE,
        ),
        admin=True,
    )
    clock.advance(days=45)
    assert engine.compact(REPO, admin=True).archived == 1
    assert recalled_ids(engine, "importer crashed") == []

    path = memory_root / "repos" / REPO / f"{episode.id}.md"
    path.write_text(path.read_text().replace("NUL byte", "stray NUL byte"))  # a hand edit of the body
    engine.sync_all()
    assert recalled_ids(engine, "importer crashed") == []
    engine.rebuild_index()
    assert recalled_ids(engine, "importer crashed") == []
    assert recalled_ids(engine, "importer crashed", include_inactive=True) == [episode.id]
    assert engine.get(REPO, episode.id).status is Status.ARCHIVED


def test_rebuilt_index_gives_the_same_answers(make_engine: Callable[..., MemoryEngine], clock: Any) -> None:
    engine = make_engine()
    for i in range(12):
        engine.store(
            MemoryDraft(
                repo=REPO,
                name=f"cache note {i}",
                body=f"cache layer detail {i} " * (i + 1),
                memory_class=[MemoryClass.RULE, MemoryClass.FACT, MemoryClass.EPISODE][i % 3],
            ),
            admin=True,
        )
        clock.advance(hours=3)
    for _ in range(3):
        engine.recall(RecallQuery(repo=REPO, query="cache detail 7"))  # usage counts feed ranking
    before = engine.recall(RecallQuery(repo=REPO, query="cache layer", record_use=False, limit=8))
    engine.rebuild_index()
    after = engine.recall(RecallQuery(repo=REPO, query="cache layer", record_use=False, limit=8))
    assert [(r.memory.id, r.score) for r in after.memories] == [
        (r.memory.id, r.score) for r in before.memories
    ]

    fresh = make_engine("fresh")  # another process, its own index, same files
    again = fresh.recall(RecallQuery(repo=REPO, query="cache layer", record_use=False, limit=8))
    assert [(r.memory.id, r.score) for r in again.memories] == [
        (r.memory.id, r.score) for r in before.memories
    ]


def test_forgotten_memory_stays_forgotten_when_its_file_is_restored(
    engine: MemoryEngine, memory_root: Path
) -> None:
    memory = engine.store(MemoryDraft(repo=REPO, body="Feature flags live in flags.yaml"), admin=True)
    path = memory_root / "repos" / REPO / f"{memory.id}.md"
    backup = path.read_text()
    assert engine.forget(REPO, memory.id, admin=True)
    assert not path.exists()

    path.write_text(backup)  # re-import: someone restores the file from a backup
    (path.parent / "copy-of-flags.md").write_text(backup)  # or copies it under another name
    engine.sync_all()
    assert recalled_ids(engine, "feature flags") == []
    engine.rebuild_index()
    assert recalled_ids(engine, "feature flags", include_inactive=True) == []


def test_storing_forgotten_content_again_explicitly_brings_it_back(engine: MemoryEngine) -> None:
    memory = engine.store(MemoryDraft(repo=REPO, body="Feature flags live in flags.yaml"), admin=True)
    engine.forget(REPO, memory.id, admin=True)
    again = engine.store(MemoryDraft(repo=REPO, body="Feature flags live in flags.yaml"), admin=True)
    assert recalled_ids(engine, "feature flags") == [again.id]


def test_compaction_supersedes_duplicates_in_the_files(
    engine: MemoryEngine, memory_root: Path, clock: Any
) -> None:
    first = engine.store(MemoryDraft(repo=REPO, body="Use UTC everywhere in the scheduler."), admin=True)
    clock.advance(minutes=5)
    second = engine.store(
        MemoryDraft(repo=REPO, body="use utc everywhere in the scheduler", confidence=0.9), admin=True
    )
    result = engine.compact(REPO, admin=True)
    assert (result.superseded, result.archived) == (1, 0)
    assert file_status(memory_root, second.id) == "superseded"
    survivor = parse_memory_text((memory_root / "repos" / REPO / f"{first.id}.md").read_text())
    assert survivor.fields.supersedes == (second.id,)
    loser = parse_memory_text((memory_root / "repos" / REPO / f"{second.id}.md").read_text())
    assert loser.fields.reason == f"duplicate of {first.id} (compaction)"
    assert engine.compact(REPO, admin=True).superseded == 0  # idempotent
    assert recalled_ids(engine, "scheduler UTC") == [first.id]


def test_pinned_memories_survive_compaction(engine: MemoryEngine, memory_root: Path, clock: Any) -> None:
    pinned_episode = engine.store(
        MemoryDraft(
            repo=REPO, body="Outage 2024-11: DNS TTL too long", memory_class=MemoryClass.EPISODE, pinned=True
        ),
        admin=True,
    )
    pinned_dup = engine.store(
        MemoryDraft(repo=REPO, body="Never run migrations by hand", pinned=True), admin=True
    )
    second_pinned = engine.store(
        MemoryDraft(repo=REPO, body="NEVER run migrations by hand.", pinned=True), admin=True
    )
    plain_dup = engine.store(
        MemoryDraft(
            repo=REPO, body="never run migrations by hand!", confidence=1.0, memory_class=MemoryClass.RULE
        ),
        admin=True,
    )
    clock.advance(days=400)
    result = engine.compact(REPO, admin=True)
    assert file_status(memory_root, pinned_episode.id) == "active"
    assert file_status(memory_root, pinned_dup.id) == "active"
    assert file_status(memory_root, second_pinned.id) == "active"
    assert file_status(memory_root, plain_dup.id) == "superseded"
    assert (result.superseded, result.archived) == (1, 0)


def test_promoted_fact_is_not_removed_by_the_next_compaction(
    engine: MemoryEngine, memory_root: Path, clock: Any
) -> None:
    episode = engine.store(
        MemoryDraft(
            repo=REPO,
            body="Payments retries must be idempotent (learned in INC-42)",
            memory_class=MemoryClass.EPISODE,
        ),
        admin=True,
    )
    fact = engine.promote(REPO, episode.id, name="Payment retries are idempotent", admin=True)
    assert (
        fact.id != episode.id and fact.memory_class is MemoryClass.FACT and fact.supersedes == (episode.id,)
    )
    assert file_status(memory_root, episode.id) == "superseded"

    clock.advance(days=90)
    # a newer copy of the same content, as a fact too: by recency alone it would win
    duplicate = engine.store(
        MemoryDraft(
            repo=REPO,
            body="Payments retries must be idempotent, learned in INC-42",
            memory_class=MemoryClass.FACT,
        ),
        admin=True,
    )
    engine.compact(REPO, admin=True)
    engine.compact(REPO, admin=True)
    assert file_status(memory_root, fact.id) == "active"
    assert file_status(memory_root, duplicate.id) == "superseded"
    engine.rebuild_index()
    assert recalled_ids(engine, "payments retries idempotent") == [fact.id]


def test_store_with_supersedes_retires_the_old_memory_in_its_file(
    engine: MemoryEngine, memory_root: Path
) -> None:
    old = engine.store(MemoryDraft(repo=REPO, body="CI runs on Jenkins"), admin=True)
    new = engine.store(
        MemoryDraft(repo=REPO, body="CI runs on GitHub Actions", supersedes=(old.id,)), admin=True
    )
    assert file_status(memory_root, old.id) == "superseded"
    assert recalled_ids(engine, "CI runs") == [new.id]


def test_updating_a_memory_by_id_keeps_created_and_changes_updated(engine: MemoryEngine, clock: Any) -> None:
    first = engine.store(MemoryDraft(repo=REPO, body="Port 8080", type=MemoryType.REFERENCE), admin=True)
    clock.advance(days=1)
    second = engine.store(
        MemoryDraft(repo=REPO, id=first.id, body="Port 9090", type=MemoryType.REFERENCE), admin=True
    )
    assert second.created == first.created and second.updated > first.updated
    assert engine.get(REPO, first.id).body == "Port 9090"


def test_delete_repo_removes_its_memories_only(
    make_engine: Callable[..., MemoryEngine], memory_root: Path
) -> None:
    engine = make_engine()
    engine.store(MemoryDraft(repo=REPO, body="one"), admin=True)
    engine.store(MemoryDraft(repo=REPO, body="two"), admin=True)
    engine.store(MemoryDraft(repo="other", body="three"), admin=True)
    assert engine.delete_repo(REPO) == 2
    assert engine.list_memories(REPO) == []
    assert len(engine.list_memories("other")) == 1
    assert not (memory_root / "repos" / REPO).exists()


def test_index_file_can_be_deleted_and_rebuilt(
    make_engine: Callable[..., MemoryEngine], tmp_path: Path
) -> None:
    engine = make_engine("x")
    memory = engine.store(MemoryDraft(repo=REPO, body="Blue/green deploys via the router"), admin=True)
    engine.close()
    for leftover in tmp_path.glob("index-x.db*"):
        leftover.unlink()
    again = make_engine("x")
    assert recalled_ids(again, "blue green deploys") == [memory.id]


def test_a_repo_folder_deleted_behind_the_engines_back_leaves_the_index(
    engine: MemoryEngine, memory_root: Path
) -> None:
    engine.store(MemoryDraft(repo=REPO, body="soon gone"), admin=True)
    shutil.rmtree(memory_root / "repos" / REPO)
    engine.sync_all()
    assert engine.list_memories(REPO, include_inactive=True) == []
