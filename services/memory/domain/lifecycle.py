"""Lifecycle decisions — compaction, promotion, pruning of working memory — as pure plans.

The engine applies a plan by rewriting frontmatter (atomically) under the folder's lock, so the files hold
every outcome and a rebuilt index reaches the same state.

Compaction:
- Active memories with the same content key are duplicates (working memory excepted: observe prunes it).
  The key is the fingerprint plus, for personal memories, their owner (domain/ownership.py), so one user's
  note is never merged with another's or with a team memory; the engine passes only the memories the
  caller may change.
  One survives, chosen by: pinned, promoted (it supersedes something), writable, class (rule > fact >
  episode), confidence, most recently updated, then id. The others become `superseded` with a reason,
  and the survivor's `supersedes` lists them. Pinned memories are never superseded.
- A read-only (Claude Code) duplicate cannot be rewritten: the survivor's `supersedes` records it, which
  is what makes it count as superseded. When every copy is read-only nothing can be recorded, and recall
  still shows only one of them (ranking deduplicates by fingerprint).
- Active, unpinned, writable episodes not updated for `episode_max_age` are archived.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from services.memory.domain.ids import session_owner
from services.memory.domain.model import Memory, MemoryClass, Scope, Source, Status
from services.memory.domain.ownership import content_key

_CLASS_RANK = {MemoryClass.RULE: 3, MemoryClass.FACT: 2, MemoryClass.EPISODE: 1, MemoryClass.WORKING: 0}


@dataclass(frozen=True, slots=True)
class StatusChange:
    memory_id: str
    status: Status
    reason: str


@dataclass(frozen=True, slots=True)
class CompactionPlan:
    changes: tuple[StatusChange, ...] = ()
    # survivor id → ids it now supersedes (added to its frontmatter)
    supersedes: dict[str, tuple[str, ...]] = field(default_factory=dict)
    superseded: int = 0
    archived: int = 0

    @property
    def empty(self) -> bool:
        return not self.changes and not self.supersedes


def _survivor_priority(memory: Memory) -> tuple[bool, bool, bool, int, float, datetime, str]:
    return (
        memory.pinned,
        bool(memory.supersedes),
        not memory.read_only,
        _CLASS_RANK[memory.memory_class],
        memory.confidence,
        memory.updated,
        memory.id,
    )


def plan_compaction(active: list[Memory], *, now: datetime, episode_max_age: timedelta) -> CompactionPlan:
    """What compaction changes among the namespace's active memories (tombstoned ones already left out)."""
    groups: dict[str, list[Memory]] = defaultdict(list)
    for memory in active:
        if memory.status is Status.ACTIVE and memory.memory_class is not MemoryClass.WORKING:
            groups[content_key(memory)].append(memory)
    changes: list[StatusChange] = []
    supersedes: dict[str, tuple[str, ...]] = {}
    retired: set[str] = set()
    for group in groups.values():
        if len(group) < 2:
            continue
        survivor = max(group, key=_survivor_priority)
        if survivor.read_only:
            continue
        losers = sorted(m.id for m in group if m is not survivor and not m.pinned)
        if not losers:
            continue
        supersedes[survivor.id] = tuple(losers)
        for loser in group:
            if loser.id in losers:
                retired.add(loser.id)
                if not loser.read_only:
                    changes.append(
                        StatusChange(loser.id, Status.SUPERSEDED, f"duplicate of {survivor.id} (compaction)")
                    )
    archived = 0
    cutoff = now - episode_max_age
    days = max(1, round(episode_max_age.total_seconds() / 86400))
    for memory in active:
        if (
            memory.status is Status.ACTIVE
            and memory.memory_class is MemoryClass.EPISODE
            and not memory.pinned
            and not memory.read_only
            and memory.id not in retired
            and memory.updated < cutoff
        ):
            changes.append(
                StatusChange(memory.id, Status.ARCHIVED, f"episode older than {days} days (compaction)")
            )
            archived += 1
    return CompactionPlan(
        changes=tuple(changes),
        supersedes=supersedes,
        superseded=sum(len(ids) for ids in supersedes.values()),
        archived=archived,
    )


def promoted(
    source: Memory,
    *,
    new_id: str,
    now: datetime,
    memory_class: MemoryClass = MemoryClass.FACT,
    name: str | None = None,
    scope: Scope | None = None,
) -> Memory:
    """A new, writable memory with its own identity that supersedes `source` (same content)."""
    # A note promoted out of a session outlives its branch unless a scope is asked for.
    target_scope = scope or (Scope.PROJECT if source.scope is Scope.BRANCH else source.scope)
    return source.with_changes(
        id=new_id,
        name=name or source.name,
        memory_class=memory_class,
        scope=target_scope,
        branch=source.branch if target_scope is Scope.BRANCH else "",
        status=Status.ACTIVE,
        supersedes=(source.id,),
        reason=f"promoted from {source.id}",
        source=Source.TEAM,
        session="",
        created=now,
        updated=now,
        extra={},
    )


@dataclass(frozen=True, slots=True)
class WorkingEntry:
    """A working-memory file written by observe: its session and when it was written (ns)."""

    memory_id: str
    session: str
    written_ns: int


@dataclass(frozen=True, slots=True)
class WorkingLimits:
    """How much working memory observe keeps: per session, per user (files and sessions), and for how long."""

    keep: int = 20  # newest notes kept per session
    max_age_ns: int = 72 * 3600 * 1_000_000_000  # sessions idle longer are dropped
    max_sessions_per_user: int = 20  # a user's newest sessions kept (each new session_id starts one)
    max_per_user: int = 200  # a user's newest notes kept over all their sessions


def plan_working_prune(
    entries: list[WorkingEntry], *, session: str, limits: WorkingLimits, now_ns: int
) -> list[str]:
    """Ids to delete: all but the newest `keep` of `session`; every session idle longer than max_age; and,
    for the owner of `session`, the sessions past their newest `max_sessions_per_user` and the notes past
    their newest `max_per_user`. Working memory from before owners were recorded is always dropped (it
    held prompts verbatim)."""
    by_session: dict[str, list[WorkingEntry]] = defaultdict(list)
    for entry in entries:
        by_session[entry.session].append(entry)
    doomed: set[str] = set()
    owner = session_owner(session)
    mine: list[tuple[str, list[WorkingEntry]]] = []
    for name, items in by_session.items():
        items.sort(key=lambda e: (e.written_ns, e.memory_id), reverse=True)
        if now_ns - items[0].written_ns > limits.max_age_ns or not session_owner(name):
            doomed.update(e.memory_id for e in items)
            continue
        if name == session:
            doomed.update(e.memory_id for e in items[limits.keep :])
            items = items[: limits.keep]
        if owner and session_owner(name) == owner:
            mine.append((name, items))
    mine.sort(key=lambda pair: (pair[0] == session, pair[1][0].written_ns, pair[0]), reverse=True)
    for _, items in mine[limits.max_sessions_per_user :]:
        doomed.update(e.memory_id for e in items)
    kept = [e for _, items in mine[: limits.max_sessions_per_user] for e in items]
    kept.sort(key=lambda e: (e.session == session, e.written_ns, e.memory_id), reverse=True)
    doomed.update(e.memory_id for e in kept[limits.max_per_user :])
    return sorted(doomed)
