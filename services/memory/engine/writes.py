"""Memory writes: store (and supersede), forget, archive, promote, compact, delete a repo's memories.

Every change happens under the folder's lock (threads and processes), is written to the files atomically,
then re-read from disk into the index (FolderSync), so the index can always be rebuilt from the files.

Forget is by content: it deletes the team file and writes a tombstone with the content's fingerprint,
so the same content is never imported again (from a restored file, or from Claude Code's folder that
still holds it). Storing the same content explicitly lifts the tombstone.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

import structlog

from services.memory.domain.errors import (
    FrontmatterError,
    InvalidField,
    InvalidFileName,
    MemoryNotFound,
    ReadOnlyMemory,
)
from services.memory.domain.frontmatter import render_memory
from services.memory.domain.ids import new_memory_id
from services.memory.domain.lifecycle import plan_compaction, promoted
from services.memory.domain.model import GLOBAL_REPO, Memory, MemoryClass, Scope, Source, Status, build_memory
from services.memory.domain.ownership import Caller, content_key, is_personal, may_change
from services.memory.domain.validation import CLAUDE_ID_PREFIX, check_id, check_label, check_repo
from services.memory.engine.config import CompactResult, EngineConfig
from services.memory.engine.drafts import (
    MemoryDraft,
    check_draft,
    check_may_change,
    draft_fields,
    draft_namespace,
    lookup_namespaces,
)
from services.memory.engine.sync import FolderSync
from services.memory.engine.working_registry import WorkingRegistry
from services.memory.ports import MemoryFiles, MemoryFolder, MemoryIndex

log = structlog.get_logger("memory.engine")


class MemoryWrites:
    def __init__(
        self,
        files: MemoryFiles,
        index: MemoryIndex,
        sync: FolderSync,
        working: WorkingRegistry,
        config: EngineConfig,
        clock: Callable[[], datetime],
    ) -> None:
        self._files = files
        self._index = index
        self._sync = sync
        self._working = working
        self._config = config
        self._clock = clock

    def store(self, draft: MemoryDraft, *, admin: bool = False) -> Memory:
        """Write a new memory, or replace the one with `draft.id`; returns it with defaults filled.

        `draft.user` is the caller (and author); `admin` whether the caller is an admin. Replacing a memory,
        superseding one or lifting a tombstone needs the right to change it (domain/ownership.py)."""
        ns = draft_namespace(draft)
        check_draft(draft)
        if draft.id.startswith(CLAUDE_ID_PREFIX):
            raise ReadOnlyMemory(draft.id)
        caller = Caller(draft.user, admin)
        folder = self._files.folder(ns)
        with folder.lock():
            now = self._clock()
            existing: Memory | None = None
            memory_id = draft.id
            if memory_id and folder.file_for(memory_id).exists():
                existing = self._read_team(folder, memory_id)
                if existing is not None:
                    check_may_change(ns, existing, caller, "replace")
            for target in draft.supersedes:
                self._check_supersede_target(ns, folder, target, caller)
            if not memory_id:
                memory_id = self._fresh_id(folder, draft.name or draft.description or draft.body)
            fields = draft_fields(draft, memory_id, existing, now)
            memory = build_memory(fields, memory_id=memory_id, repo=ns, body=draft.body, fallback_time=now)
            lifted = self._lift_tombstone(folder, memory, caller)
            folder.write(memory.id, render_memory(memory))
            touched = [memory.id]
            for target in memory.supersedes:
                if self._retire(folder, target, Status.SUPERSEDED, f"superseded by {memory.id}"):
                    touched.append(target)
            self._sync.reindex_team(ns, folder, touched, force_namespace=lifted)
        return memory

    def forget(self, repo: str, memory_id: str, *, user: str = "", admin: bool = False) -> bool:
        """Forget a memory by content: delete its file (unless read-only) and tombstone its content key.

        The tombstone hides the same content only where its owner holds it: the user's own personal copies
        for a personal memory, team copies for a team memory. False when no memory with that id is visible
        to `user` (another user's memories count as absent); NotAllowed for a team memory the caller may
        not change.
        """
        check_repo(repo)
        check_id(memory_id)
        check_label(user, "user")
        caller = Caller(user, admin)
        for ns in lookup_namespaces(repo):
            folder = self._files.folder(ns)
            with folder.lock():
                memory, path = self._read_any(ns, folder, memory_id)
                if memory is None or path is None:
                    continue
                if is_personal(memory) and not may_change(memory, caller):
                    return False
                check_may_change(ns, memory, caller, "forget")
                key = content_key(memory)
                folder.add_tombstone(
                    key,
                    {
                        "id": memory.id,
                        "name": memory.name,
                        "user": user,
                        "forgotten": self._clock().isoformat(timespec="seconds"),
                    },
                )
                if not memory.read_only:
                    folder.delete(memory.id)
                    self._working.drop(ns, [memory.id])
                self._sync.apply_tombstone(ns, memory, key, removed=path)
            return True
        return False

    def compact(
        self, repo: str, episode_max_age: timedelta | None = None, *, user: str = "", admin: bool = False
    ) -> CompactResult:
        """Supersede duplicates and archive old episodes, writing the outcome into the files.

        Only memories the caller may change take part (their own personal ones; team ones they wrote, or
        every team one for an admin), so the counts say nothing about anyone else's memories."""
        check_repo(repo)
        check_label(user, "user")
        caller = Caller(user, admin)
        max_age = episode_max_age or self._config.default_episode_max_age
        folder = self._files.folder(repo)
        with folder.lock():
            memories = self._sync.load_namespace(repo, folder)
            superseded_by_others = {target for m in memories for target in m.supersedes if target != m.id}
            active = [
                m
                for m in memories
                if m.status is Status.ACTIVE and m.id not in superseded_by_others and may_change(m, caller)
            ]
            plan = plan_compaction(active, now=self._clock(), episode_max_age=max_age)
            touched: list[str] = []
            for change in plan.changes:
                if self._retire(folder, change.memory_id, change.status, change.reason):
                    touched.append(change.memory_id)
            for survivor_id, ids in plan.supersedes.items():
                survivor = self._read_team(folder, survivor_id)
                if survivor is None:
                    continue
                merged = tuple(dict.fromkeys((*survivor.supersedes, *ids)))
                folder.write(survivor_id, render_memory(survivor.with_changes(supersedes=merged)))
                touched.append(survivor_id)
            self._sync.reindex_team(repo, folder, touched)
            self._sync.flush_namespace_usage(repo, folder, keep={m.id for m in memories})
        if plan.superseded or plan.archived:
            log.info("memory.compacted", repo=repo, superseded=plan.superseded, archived=plan.archived)
        return CompactResult(plan.superseded, plan.archived)

    def promote(
        self,
        repo: str,
        memory_id: str,
        *,
        user: str = "",
        memory_class: MemoryClass = MemoryClass.FACT,
        name: str = "",
        scope: Scope | None = None,
        admin: bool = False,
    ) -> Memory:
        """A new fact (or rule) with its own id and the source's content, superseding the source."""
        check_repo(repo)
        check_id(memory_id)
        caller = Caller(user, admin)
        for ns in lookup_namespaces(repo):
            folder = self._files.folder(ns)
            with folder.lock():
                source, _ = self._read_any(ns, folder, memory_id)
                if source is None:
                    continue
                check_may_change(repo, source, caller, "promote")
                now = self._clock()
                new_id = self._fresh_id(folder, name or source.name)
                fact = promoted(
                    source, new_id=new_id, now=now, memory_class=memory_class, name=name or None, scope=scope
                )
                if fact.scope is Scope.USER and not fact.user:
                    fact = fact.with_changes(user=user)
                folder.write(fact.id, render_memory(fact))
                touched = [fact.id]
                if self._retire(folder, source.id, Status.SUPERSEDED, f"promoted to {fact.id}"):
                    touched.append(source.id)
                self._sync.reindex_team(ns, folder, touched)
            return fact
        raise MemoryNotFound(repo, memory_id)

    def archive(
        self, repo: str, memory_id: str, *, user: str = "", reason: str = "", admin: bool = False
    ) -> Memory:
        """Mark a writable memory archived (kept, not recalled by default)."""
        check_repo(repo)
        check_id(memory_id)
        caller = Caller(user, admin)
        for ns in lookup_namespaces(repo):
            folder = self._files.folder(ns)
            with folder.lock():
                memory, _ = self._read_any(ns, folder, memory_id)
                if memory is None:
                    continue
                if memory.read_only:
                    raise ReadOnlyMemory(memory_id)
                check_may_change(repo, memory, caller, "archive")
                self._retire(folder, memory_id, Status.ARCHIVED, reason or "archived", only_active=False)
                self._sync.reindex_team(ns, folder, [memory_id])
                result = self._read_team(folder, memory_id)
            assert result is not None
            return result
        raise MemoryNotFound(repo, memory_id)

    def delete_repo(self, repo: str) -> int:
        """Delete the repo's team memories (files, tombstones, usage) and detach its Claude Code folder."""
        check_repo(repo)
        if not repo:
            raise InvalidField("repo", "is required (the global namespace cannot be deleted this way)")
        folder = self._files.folder(repo)
        with folder.lock(), self._sync.ns_lock(repo):
            removed = folder.remove_all()
            self._sync.forget_repo(repo, folder)
        return removed

    # ------------------------------------------------------------------ under the folder lock
    def _check_supersede_target(self, ns: str, folder: MemoryFolder, target: str, caller: Caller) -> None:
        """A memory may list in `supersedes` only memories its author may change: listing one retires it."""
        memory, _ = self._read_any(ns, folder, target)
        if memory is None:
            found = self._index.get(GLOBAL_REPO, target) if ns != GLOBAL_REPO else None
            memory = found.memory if found is not None else None
        if memory is None:
            return  # nothing to retire (a stale id is harmless: ids are unique and random)
        try:
            check_may_change(ns, memory, caller, "supersede")
        except MemoryNotFound:
            raise InvalidField("memory.supersedes", f"no memory '{target}' in this repo") from None

    def _lift_tombstone(self, folder: MemoryFolder, memory: Memory, caller: Caller) -> bool:
        """Storing forgotten content again lifts its tombstone (only the one of the same owner: the key
        includes a personal memory's user). A team tombstone is lifted by an admin or whoever forgot it."""
        key = content_key(memory)
        info = folder.tombstone_info(key)
        if info is None:
            return False
        if not is_personal(memory) and not caller.admin and info.get("user") != caller.user:
            raise InvalidField(
                "memory.body",
                "this content was forgotten from the team's memories by someone else; ask an admin to store "
                "it again",
            )
        return folder.remove_tombstone(key)

    def _fresh_id(self, folder: MemoryFolder, title: str) -> str:
        while True:
            memory_id = new_memory_id(title)
            if not folder.file_for(memory_id).exists():
                return memory_id

    def _read_team(self, folder: MemoryFolder, memory_id: str) -> Memory | None:
        try:
            return self._files.read(folder.file_for(memory_id), repo=folder.repo, source=Source.TEAM)
        except FileNotFoundError:
            return None
        except (FrontmatterError, InvalidFileName, UnicodeDecodeError, OSError) as exc:
            log.warning("memory.unreadable", path=str(folder.file_for(memory_id)), error=str(exc))
            return None

    def _read_any(self, ns: str, folder: MemoryFolder, memory_id: str) -> tuple[Memory | None, Path | None]:
        """A memory by id from the team folder or the Claude Code folder, read from disk now."""
        if not memory_id.startswith(CLAUDE_ID_PREFIX):
            path = folder.file_for(memory_id)
            return self._read_team(folder, memory_id), path
        found = self._index.get(ns, memory_id)
        if found is None:
            return None, None
        try:
            return self._files.read(Path(found.path), repo=ns, source=Source.CLAUDE), Path(found.path)
        except (FrontmatterError, InvalidFileName, UnicodeDecodeError, OSError):
            return None, None

    def _retire(
        self, folder: MemoryFolder, memory_id: str, status: Status, reason: str, *, only_active: bool = True
    ) -> bool:
        """Write `status` and `reason` into a team memory's file; False for read-only or missing ones."""
        if memory_id.startswith(CLAUDE_ID_PREFIX):
            return False
        memory = self._read_team(folder, memory_id)
        if memory is None or (only_active and memory.status is not Status.ACTIVE):
            return False
        folder.write(memory_id, render_memory(memory.with_changes(status=status, reason=reason)))
        return True
