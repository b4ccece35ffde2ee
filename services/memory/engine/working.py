"""Working memory: observe notes where a prompt led (the files of its context block) for the session, then
prunes by the caps (domain/lifecycle.py). The prompt itself is never stored (domain/working.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from services.memory.domain.errors import InvalidField
from services.memory.domain.frontmatter import render_memory
from services.memory.domain.ids import session_key, session_owner, working_id
from services.memory.domain.lifecycle import WorkingEntry, WorkingLimits, plan_working_prune
from services.memory.domain.model import MemoryClass, MemoryFields, MemoryType, Scope, build_memory
from services.memory.domain.ownership import content_key, user_tag
from services.memory.domain.validation import check_items, check_label, check_repo
from services.memory.domain.working import WorkingNote, working_note
from services.memory.engine.config import WORKING_RESCAN_SECONDS, EngineConfig, Observation
from services.memory.engine.sync import FolderSync
from services.memory.engine.working_registry import WorkingRegistry
from services.memory.ports import MemoryFiles, MemoryFolder, MemoryIndex
from services.memory.usage import PendingUsage


class WorkingMemory:
    def __init__(
        self,
        files: MemoryFiles,
        index: MemoryIndex,
        sync: FolderSync,
        registry: WorkingRegistry,
        usage: PendingUsage,
        config: EngineConfig,
        clock: Callable[[], datetime],
    ) -> None:
        self._files = files
        self._index = index
        self._sync = sync
        self._registry = registry
        self._usage = usage
        self._config = config
        self._clock = clock
        self._limits = WorkingLimits(
            keep=config.working_keep,
            max_age_ns=int(config.working_max_age.total_seconds() * 1_000_000_000),
            max_sessions_per_user=config.working_max_sessions_per_user,
            max_per_user=config.working_max_per_user,
        )

    def observe(self, observation: Observation) -> int:
        """Note where a prompt led as the session's working memory, then prune; the number of notes the
        session keeps. The same files make the same note, kept once per user and branch."""
        repo = check_repo(observation.repo, "repo")
        if not observation.session_id.strip():
            raise InvalidField("session_id", "is required")
        check_label(observation.session_id, "session_id")
        check_label(observation.branch, "branch")
        check_label(observation.user, "user")
        check_label(observation.route, "route")
        hit_paths = check_items(observation.hit_paths[:20], "hit_paths")
        owner = user_tag(observation.user)
        session = session_key(owner, observation.session_id)
        note = working_note(hit_paths, self._config.working_max_files)
        folder = self._files.folder(repo)
        with folder.lock():
            first_listing = not self._registry.knows(repo)
            registry = self._registry.sessions(repo, folder)  # listed before the write: no double entry
            now = self._clock()
            now_ns = int(now.timestamp() * 1_000_000_000)
            touched: list[str] = []
            if note is not None:
                written = self._write_note(folder, observation, session, note, now, now_ns)
                if written is not None:
                    touched.append(written)
                    registry.setdefault(session, []).append(WorkingEntry(written, session, now_ns))
            listed = self._registry.listed_at(repo)
            if first_listing or listed is None or (now - listed).total_seconds() > WORKING_RESCAN_SECONDS:
                # Now and then: the whole folder again (files written or deleted by others, idle sessions).
                if not first_listing:
                    registry = self._registry.sessions(repo, folder, relist=True)
                entries = [e for items in registry.values() for e in items]
            else:  # every prompt: only this user's sessions, so the cost does not grow with the team
                entries = [e for key, items in registry.items() if session_owner(key) == owner for e in items]
            doomed = plan_working_prune(entries, session=session, limits=self._limits, now_ns=now_ns)
            for memory_id in doomed:
                folder.delete(memory_id)
            touched.extend(doomed)
            self._usage.forget(repo, doomed)
            self._sync.reindex_team(repo, folder, touched)
            self._registry.drop(repo, doomed)
            return len(registry.get(session, []))

    def _write_note(
        self,
        folder: MemoryFolder,
        observation: Observation,
        session: str,
        note: WorkingNote,
        now: datetime,
        now_ns: int,
    ) -> str | None:
        """Under the folder lock: the note's file, unless this user already has it on this branch (or it
        was forgotten); its id, or None when nothing was written."""
        memory_id = working_id(session, now_ns)
        while folder.file_for(memory_id).exists():
            now_ns += 1
            memory_id = working_id(session, now_ns)
        fields = MemoryFields(
            name=note.name,
            description=note.description,
            type=MemoryType.PROJECT,
            memory_class=MemoryClass.WORKING,
            scope=Scope.BRANCH,
            related_files=note.files,
            branch=observation.branch,
            user=observation.user,
            session=observation.session_id,
            created=now,
            extra={"route": observation.route} if observation.route else {},
        )
        memory = build_memory(
            fields, memory_id=memory_id, repo=folder.repo, body=note.body, fallback_time=now
        )
        if content_key(memory) in folder.tombstones():
            return None
        for found in self._index.with_fingerprint(folder.repo, memory.fingerprint):
            same = found.memory
            if (
                same.memory_class is MemoryClass.WORKING
                and same.user == observation.user
                and same.branch == observation.branch
            ):
                return None  # the same files are noted already: one note is enough
        folder.write(memory_id, render_memory(memory))
        return memory_id
