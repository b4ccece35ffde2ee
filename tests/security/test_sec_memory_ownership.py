# ruff: noqa: F811 - the fixtures are imported from sec_memory_support by name
"""Issue 18, memory ownership: forgetting or compacting never touches another user's memories, only who may
change a memory changes it, and what a client controls (sessions, working notes) is capped per user."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from reporecall.memory.v1 import memory_pb2 as pb
from reporecall.memory.v1 import memory_pb2_grpc
from services.memory.domain.errors import InvalidField, MemoryNotFound, NotAllowed
from services.memory.domain.model import Memory, Scope, Status
from services.memory.engine import EngineConfig, MemoryDraft, MemoryEngine, Observation, RecallQuery

from .sec_memory_support import (  # noqa: F401 - fixtures
    REPO,
    EngineFactory,
    FakeClock,
    clock,
    engine,
    make_engine,
    memory_root,
    stub,
)

SECRET_WORDS = "Ann's rounding preference: banker's rounding for the zqvortex invoices"


def personal(engine: MemoryEngine, user: str, body: str = SECRET_WORDS) -> Memory:
    return engine.store(MemoryDraft(repo=REPO, body=body, scope=Scope.USER, user=user))


def team(engine: MemoryEngine, user: str, body: str) -> Memory:
    return engine.store(MemoryDraft(repo=REPO, body=body, user=user))


def recalled_ids(engine: MemoryEngine, user: str, query: str = "zqvortex invoices rounding") -> list[str]:
    result = engine.recall(RecallQuery(repo=REPO, query=query, user=user, record_use=False))
    return [r.memory.id for r in result.memories]


def file_of(memory_root: Path, memory: Memory) -> Path:
    [path] = list(memory_root.rglob(f"{memory.id}.md"))
    return path


@pytest.mark.parametrize("bob_scope", [Scope.USER, Scope.PROJECT])
def test_a_tombstone_of_one_user_never_hides_another_users_personal_memory(
    engine: MemoryEngine, memory_root: Path, bob_scope: Scope
) -> None:
    """Bob stores Ann's words (as his own note or as a team note) and forgets them: Ann's note stays."""
    ann = personal(engine, "ann")
    bob = engine.store(MemoryDraft(repo=REPO, body=SECRET_WORDS, scope=bob_scope, user="bob"))
    assert ann.fingerprint == bob.fingerprint  # the same content, as the attack needs
    assert engine.forget(REPO, bob.id, user="bob")
    assert recalled_ids(engine, "ann") == [ann.id]
    assert file_of(memory_root, ann).exists()
    engine.rebuild_index()  # the tombstone on disk must not hide it either
    assert recalled_ids(engine, "ann") == [ann.id]
    assert recalled_ids(engine, "bob") == []  # Bob's own copy is forgotten for him


def test_a_personal_tombstone_hides_the_owners_own_copies_only(engine: MemoryEngine) -> None:
    bob = personal(engine, "bob")
    first = personal(engine, "ann")
    assert engine.forget(REPO, first.id, user="ann")
    engine.rebuild_index()
    assert recalled_ids(engine, "bob") == [bob.id]
    assert recalled_ids(engine, "ann") == []


def test_compaction_never_merges_another_users_memory_nor_tells_a_guess_matched(
    engine: MemoryEngine, memory_root: Path
) -> None:
    ann = personal(engine, "ann")
    ann_team = team(engine, "ann", "Invoices are numbered per calendar year")
    before = file_of(memory_root, ann).read_bytes(), file_of(memory_root, ann_team).read_bytes()
    # Bob guesses: one wrong, two right (Ann's personal words, Ann's team note), as personal and team notes.
    for body in ("Ann likes tabs", SECRET_WORDS, "Invoices are numbered per calendar year"):
        personal(engine, "bob", body)
        team(engine, "bob", body)
    result = engine.compact(REPO, user="bob")
    assert (result.superseded, result.archived) == (0, 0)  # the same answer for right and wrong guesses
    assert (file_of(memory_root, ann).read_bytes(), file_of(memory_root, ann_team).read_bytes()) == before
    assert engine.get(REPO, ann.id, user="ann").status is Status.ACTIVE
    # Ann still recalls those words (her note, or Bob's team copy of the same text when recall dedups them).
    assert recalled_ids(engine, "ann")
    # His own duplicates are his to merge; Ann's notes stay untouched even then.
    team(engine, "bob", "Ann likes tabs")
    assert engine.compact(REPO, user="bob").superseded == 1
    assert engine.get(REPO, ann.id, user="ann").status is Status.ACTIVE
    assert engine.get(REPO, ann_team.id).status is Status.ACTIVE


def test_an_admin_compacts_team_duplicates_but_not_personal_ones(engine: MemoryEngine) -> None:
    a = team(engine, "ann", "Prices are stored in cents")
    b = team(engine, "bob", "Prices are stored in cents")
    ann_note = personal(engine, "ann", "Prices are stored in cents")
    result = engine.compact(REPO, user="root", admin=True)
    assert result.superseded == 1
    statuses = {m.id: engine.get(REPO, m.id, user="ann").status for m in (a, b, ann_note)}
    assert sorted(statuses.values()) == [Status.ACTIVE, Status.ACTIVE, Status.SUPERSEDED]
    assert statuses[ann_note.id] is Status.ACTIVE


def test_another_users_personal_memory_cannot_be_forgotten_superseded_replaced_or_archived(
    engine: MemoryEngine, memory_root: Path
) -> None:
    ann = personal(engine, "ann")
    before = file_of(memory_root, ann).read_bytes()
    for admin in (False, True):  # not even an admin: for everyone else it does not exist
        assert engine.forget(REPO, ann.id, user="bob", admin=admin) is False
        with pytest.raises(InvalidField, match="memory.supersedes"):
            engine.store(MemoryDraft(repo=REPO, body="new", user="bob", supersedes=(ann.id,)), admin=admin)
        with pytest.raises(MemoryNotFound):
            engine.store(MemoryDraft(repo=REPO, id=ann.id, body="hijacked", user="bob"), admin=admin)
        with pytest.raises(MemoryNotFound):
            engine.archive(REPO, ann.id, user="bob", admin=admin)
        with pytest.raises(MemoryNotFound):
            engine.promote(REPO, ann.id, user="bob", admin=admin)
    assert file_of(memory_root, ann).read_bytes() == before
    assert recalled_ids(engine, "ann") == [ann.id]
    assert engine.forget(REPO, ann.id, user="ann")


def test_a_member_changes_only_team_memories_they_wrote_and_an_admin_any(
    engine: MemoryEngine, memory_root: Path
) -> None:
    ann = team(engine, "ann", "Deploys go through the blue/green router")
    before = file_of(memory_root, ann).read_bytes()
    with pytest.raises(NotAllowed, match="author or an admin"):
        engine.forget(REPO, ann.id, user="bob")
    with pytest.raises(NotAllowed):
        engine.store(MemoryDraft(repo=REPO, body="Deploys are manual", user="bob", supersedes=(ann.id,)))
    with pytest.raises(NotAllowed):
        engine.store(MemoryDraft(repo=REPO, id=ann.id, body="Deploys are manual", user="bob"))
    with pytest.raises(NotAllowed):
        engine.archive(REPO, ann.id, user="bob")
    assert file_of(memory_root, ann).read_bytes() == before
    assert engine.get(REPO, ann.id).status is Status.ACTIVE
    # Nor can Bob bring back team content someone else forgot by storing it again.
    assert engine.forget(REPO, ann.id, user="ann")
    with pytest.raises(InvalidField, match="forgotten"):
        team(engine, "bob", "Deploys go through the blue/green router")
    # An admin may.
    again = engine.store(MemoryDraft(repo=REPO, body="Deploys go through the blue/green router"), admin=True)
    other = team(engine, "bob", "Feature flags live in flags.yaml")
    assert engine.forget(REPO, other.id, user="root", admin=True)
    assert engine.get(REPO, again.id).status is Status.ACTIVE


async def test_refusals_over_grpc_are_permission_denied_or_absent(
    stub: memory_pb2_grpc.MemoryServiceStub,
) -> None:
    ann_team = (
        await stub.Store(pb.StoreRequest(memory=pb.Memory(repo=REPO, body="Team rule: cents", user="ann")))
    ).memory
    ann_own = (
        await stub.Store(
            pb.StoreRequest(
                memory=pb.Memory(repo=REPO, body=SECRET_WORDS, scope=pb.MEMORY_SCOPE_USER, user="ann")
            )
        )
    ).memory
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.Forget(pb.ForgetRequest(repo=REPO, id=ann_team.id, user="bob"))
    assert info.value.code() == grpc.StatusCode.PERMISSION_DENIED and ann_team.id in info.value.details()
    assert not (
        await stub.Forget(pb.ForgetRequest(repo=REPO, id=ann_own.id, user="bob", admin=True))
    ).forgotten
    await stub.Store(
        pb.StoreRequest(
            memory=pb.Memory(repo=REPO, body=SECRET_WORDS, scope=pb.MEMORY_SCOPE_USER, user="bob")
        )
    )
    compacted = await stub.Compact(pb.CompactRequest(repo=REPO, user="bob"))
    assert (compacted.superseded, compacted.archived) == (0, 0)
    listed = await stub.List(pb.ListRequest(repo=REPO, user="ann"))
    assert sorted(m.id for m in listed.memories) == sorted([ann_team.id, ann_own.id])
    assert all(m.status == pb.MEMORY_STATUS_ACTIVE for m in listed.memories)
    assert (await stub.Forget(pb.ForgetRequest(repo=REPO, id=ann_team.id, user="root", admin=True))).forgotten


def observe(engine: MemoryEngine, user: str, session: str, path: str) -> int:
    return engine.observe(
        Observation(repo=REPO, session_id=session, prompt="p", user=user, branch="main", hit_paths=(path,))
    )


def working_files(memory_root: Path) -> list[Path]:
    return sorted(memory_root.glob("repos/*/working-*.md"))


def test_new_session_ids_do_not_grow_a_users_working_files_without_bound(
    make_engine: EngineFactory, memory_root: Path, clock: FakeClock
) -> None:
    engine = make_engine(
        EngineConfig(working_keep=5, working_max_sessions_per_user=3, working_max_per_user=8)
    )
    for i in range(4):
        observe(engine, "ann", "ann-session", f"shop/ann_{i}.py")
        clock.advance(seconds=1)
    ann_files = set(working_files(memory_root))
    for i in range(200):  # a hostile client: a new session id per request
        observe(engine, "bob", f"bob-{i}", f"shop/bob_{i}.py")
        clock.advance(seconds=1)
    bob_files = set(working_files(memory_root)) - ann_files
    assert len(bob_files) == 3  # his three newest sessions, one note each
    assert ann_files <= set(working_files(memory_root))  # Ann's notes untouched
    for i in range(20):  # many notes in few sessions: capped per user over all sessions
        observe(engine, "bob", f"bob-x{i % 3}", f"shop/bob_more_{i}.py")
        clock.advance(seconds=1)
    assert len(set(working_files(memory_root)) - ann_files) == 8
    assert ann_files <= set(working_files(memory_root))


def test_the_same_session_id_from_two_users_is_two_sessions(
    make_engine: EngineFactory, memory_root: Path, clock: FakeClock
) -> None:
    engine = make_engine(EngineConfig(working_keep=2))
    observe(engine, "ann", "shared-id", "shop/ann.py")
    for i in range(5):  # Bob's notes in "the same" session never prune Ann's
        clock.advance(seconds=1)
        observe(engine, "bob", "shared-id", f"shop/bob_{i}.py")
    ann_notes = engine.list_memories(REPO, user="ann", branch="main")
    assert [m.related_files for m in ann_notes] == [("shop/ann.py",)]
    assert len(engine.list_memories(REPO, user="bob", branch="main")) == 2
