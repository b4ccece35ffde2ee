"""MemoryEngine: the memory service's use cases over the memory folders (truth) and the index (cache).

Synchronous and thread-safe. Every change happens under the folder's lock (threads and processes), is
written to the files atomically, then re-read from disk into the index, so the index can always be
rebuilt from the files and give the same answers.

Sources per namespace (a repo, or "" for global memories):
- the team folder under the memory root, writable;
- on a local install, Claude Code's memory folder for the repo, read-only (ids prefixed `claude.`).

Forget is by content: it deletes the team file and writes a tombstone with the content's fingerprint,
so the same content is never imported again (from a restored file, or from Claude Code's folder that
still holds it). Storing the same content explicitly lifts the tombstone.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import structlog

from kit.tokens import count_tokens, truncate_to_tokens
from services.memory.adapters.claude_memory import find_claude_memory_dir, owns_checkout
from services.memory.adapters.memory_folder import (
    FileEntry,
    InvalidFileName,
    MemoryFolder,
    MemoryRoot,
    is_memory_file_name,
    list_markdown,
    read_memory,
)
from services.memory.adapters.watcher import MemoryWatcher
from services.memory.domain.budget import BudgetPolicy, select_within_budget
from services.memory.domain.errors import (
    FrontmatterError,
    InvalidField,
    MemoryNotFound,
    NotAllowed,
    Problem,
    ReadOnlyMemory,
)
from services.memory.domain.frontmatter import render_memory
from services.memory.domain.ids import (
    OWNER_SEPARATOR,
    new_memory_id,
    parse_working_id,
    session_key,
    session_owner,
    working_id,
)
from services.memory.domain.lifecycle import (
    WorkingEntry,
    WorkingLimits,
    plan_compaction,
    plan_working_prune,
    promoted,
)
from services.memory.domain.model import (
    GLOBAL_REPO,
    Memory,
    MemoryClass,
    MemoryFields,
    MemoryType,
    Scope,
    Source,
    Status,
    build_memory,
)
from services.memory.domain.ownership import Caller, content_key, is_personal, may_change, user_tag
from services.memory.domain.query import context_text, query_terms
from services.memory.domain.ranking import RankingWeights, rank
from services.memory.domain.scope import MemoryFilter, Viewer, is_visible
from services.memory.domain.secrets import find_secret
from services.memory.domain.validation import (
    CLAUDE_ID_PREFIX,
    MAX_BODY_CHARS,
    MAX_DESCRIPTION_CHARS,
    MAX_NAME_CHARS,
    check_confidence,
    check_id,
    check_items,
    check_label,
    check_repo,
    check_text,
)
from services.memory.domain.working import WorkingNote, working_note
from services.memory.ports import MemoryIndex
from services.memory.usage import PendingUsage, merged_usage

log = structlog.get_logger("memory.engine")
# How often observe lists the whole folder (others' writes, idle sessions past their age); between
# listings it looks only at the observing session's own entries.
WORKING_RESCAN_SECONDS = 60.0


def _utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class EngineConfig:
    default_budget_tokens: int = 600  # when a recall asks for 0
    max_budget_tokens: int = 2000  # no recall returns more, whatever it asks (keeps the floor for code)
    default_limit: int = 10
    max_limit: int = 50
    candidate_limit: int = 40  # best index matches considered per recall (ranking drops weak ones anyway)
    working_keep: int = 20  # observations kept per session
    working_max_age: timedelta = timedelta(days=3)  # sessions idle longer are dropped
    working_max_sessions_per_user: int = 20  # a user's newest sessions kept (each new session_id starts one)
    working_max_per_user: int = 200  # a user's newest working notes kept over all their sessions
    working_max_files: int = 8  # files one working note lists
    default_episode_max_age: timedelta = timedelta(days=30)
    ranking: RankingWeights = field(default_factory=RankingWeights)
    budget: BudgetPolicy = field(default_factory=BudgetPolicy)


@dataclass(frozen=True, slots=True)
class MemoryDraft:
    """What Store receives. None / empty means "use the default" (see domain/model.py)."""

    repo: str
    body: str
    id: str = ""
    name: str = ""
    description: str = ""
    type: MemoryType | None = None
    memory_class: MemoryClass | None = None
    scope: Scope | None = None
    status: Status | None = None
    pinned: bool = False
    confidence: float | None = None
    supersedes: tuple[str, ...] = ()
    reason: str = ""
    related_files: tuple[str, ...] = ()
    related_symbols: tuple[str, ...] = ()
    branch: str = ""
    user: str = ""


@dataclass(frozen=True, slots=True)
class RecallQuery:
    repo: str
    query: str = ""
    branch: str = ""
    user: str = ""
    classes: frozenset[MemoryClass] = frozenset()
    budget_tokens: int = 0  # 0: the default budget
    limit: int = 0  # 0: the default limit
    include_inactive: bool = False
    min_confidence: float = 0.0
    record_use: bool = True  # count this recall as a use of what it returns


@dataclass(frozen=True, slots=True)
class Recalled:
    memory: Memory
    score: float
    tokens: int


@dataclass(frozen=True, slots=True)
class RecallResult:
    memories: list[Recalled]
    tokens: int


@dataclass(frozen=True, slots=True)
class Observation:
    repo: str
    session_id: str
    prompt: str
    branch: str = ""
    user: str = ""
    route: str = ""
    hit_paths: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CompactResult:
    superseded: int
    archived: int


class MemoryEngine:
    def __init__(
        self,
        memory_root: Path,
        index: MemoryIndex,
        *,
        config: EngineConfig | None = None,
        clock: Callable[[], datetime] = _utc_now,
        claude_projects_dir: Path | None = None,
    ) -> None:
        self._root = MemoryRoot(memory_root)
        self._index = index
        self._config = config or EngineConfig()
        self._clock = clock
        self._claude_projects_dir = claude_projects_dir
        self._claude_dirs: dict[str, Path] = {}
        # repo → session → working memories, kept in step by observe (see _working_registry)
        self._working: dict[str, dict[str, list[WorkingEntry]]] = {}
        self._working_listed: dict[str, datetime] = {}
        self._state_lock = threading.Lock()
        self._ns_locks: dict[str, threading.RLock] = {}
        self._problems: dict[str, Problem] = {}
        self._usage = PendingUsage()
        self._watcher: MemoryWatcher | None = None
        self._closed = False
        cfg = self._config
        self._working_limits = WorkingLimits(
            keep=cfg.working_keep,
            max_age_ns=int(cfg.working_max_age.total_seconds() * 1_000_000_000),
            max_sessions_per_user=cfg.working_max_sessions_per_user,
            max_per_user=cfg.working_max_per_user,
        )

    # ------------------------------------------------------------------ lifecycle of the engine
    def open(self) -> list[Problem]:
        """Bring the index in step with every folder; the problems found (also kept in `problems`)."""
        self.sync_all()
        return self.problems

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self.stop_watching()
        self.flush_usage()
        self._index.close()

    def start_watching(self, resync_seconds: float = 60.0) -> None:
        if self._watcher is None:
            self._watcher = MemoryWatcher(
                self._watched_paths, self._on_paths_changed, self._on_idle, resync_seconds
            )
            self._watcher.start()

    def stop_watching(self) -> None:
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None

    @property
    def _pending_usage(self) -> dict[str, Counter[str]]:
        """Unflushed recall counts per namespace (tests look at them)."""
        return self._usage.counts

    @property
    def problems(self) -> list[Problem]:
        with self._state_lock:
            return sorted(self._problems.values(), key=lambda p: p.path)

    def attach_claude_memory(self, repo: str, repo_path: Path) -> Path | None:
        """Read Claude Code's memory folder of the repo checked out at `repo_path`, if there is one.

        Only on a local install (the engine got a projects folder) and only for a checkout owned by the user
        whose Claude Code folder it is (claude_memory.owns_checkout)."""
        check_repo(repo)
        if self._claude_projects_dir is None or not repo:
            return None
        if not owns_checkout(self._claude_projects_dir, repo_path):
            log.info(
                "memory.claude_folder_refused", repo=repo, reason="checkout not the projects folder owner's"
            )
            return None
        folder = find_claude_memory_dir(self._claude_projects_dir, repo_path)
        if folder is None:
            log.info("memory.claude_folder_not_found", repo=repo, path=str(repo_path))
            return None
        with self._state_lock:
            self._claude_dirs[repo] = folder
        self.sync_namespace(repo)
        if self._watcher is not None:
            self._watcher.refresh()
        return folder

    # ------------------------------------------------------------------ use cases
    def store(self, draft: MemoryDraft, *, admin: bool = False) -> Memory:
        """Write a new memory, or replace the one with `draft.id`; returns it with defaults filled.

        `draft.user` is the caller (and author); `admin` whether the caller is an admin. Replacing a memory,
        superseding one or lifting a tombstone needs the right to change it (domain/ownership.py)."""
        ns = self._store_namespace(draft)
        self._check_draft(draft)
        if draft.id.startswith(CLAUDE_ID_PREFIX):
            raise ReadOnlyMemory(draft.id)
        caller = Caller(draft.user, admin)
        folder = self._root.folder(ns)
        with folder.lock():
            now = self._clock()
            existing: Memory | None = None
            memory_id = draft.id
            if memory_id and folder.file_for(memory_id).exists():
                existing = self._read_team(folder, memory_id)
                if existing is not None:
                    self._check_may_change(ns, existing, caller, "replace")
            for target in draft.supersedes:
                self._check_supersede_target(ns, folder, target, caller)
            if not memory_id:
                memory_id = self._fresh_id(folder, draft.name or draft.description or draft.body)
            fields = MemoryFields(
                name=draft.name or None,
                description=draft.description or None,
                type=draft.type,
                memory_class=draft.memory_class,
                scope=draft.scope,
                status=draft.status,
                pinned=draft.pinned,
                confidence=draft.confidence,
                supersedes=tuple(dict.fromkeys(s for s in draft.supersedes if s != memory_id)),
                reason=draft.reason,
                related_files=draft.related_files,
                related_symbols=draft.related_symbols,
                branch=draft.branch,
                user=draft.user,
                created=existing.created if existing else now,
                updated=now,
                extra=existing.extra if existing else {},
            )
            memory = build_memory(fields, memory_id=memory_id, repo=ns, body=draft.body, fallback_time=now)
            lifted = self._lift_tombstone(folder, memory, caller)
            folder.write(memory.id, render_memory(memory))
            touched = [memory.id]
            for target in memory.supersedes:
                if self._retire(folder, target, Status.SUPERSEDED, f"superseded by {memory.id}"):
                    touched.append(target)
            self._reindex_team(ns, folder, touched, force_namespace=lifted)
        return memory

    def recall(self, query: RecallQuery) -> RecallResult:
        check_repo(query.repo)
        check_label(query.branch, "branch")
        check_label(query.user, "user")
        check_text(query.query, "query", MAX_BODY_CHARS)
        if query.budget_tokens < 0:
            raise InvalidField("budget_tokens", "must not be negative")
        if query.limit < 0:
            raise InvalidField("limit", "must not be negative")
        config = self._config
        budget = min(query.budget_tokens or config.default_budget_tokens, config.max_budget_tokens)
        limit = min(query.limit or config.default_limit, config.max_limit)
        terms = query_terms(query.query)
        if query.query.strip() and not terms:
            return RecallResult([], 0)  # only stopwords: nothing to look for
        flt = MemoryFilter(
            Viewer(query.repo, query.branch, query.user),
            classes=query.classes,
            include_inactive=query.include_inactive,
            min_confidence=query.min_confidence,
        )
        candidates = self._usage.added_to(self._index.search(flt, terms, config.candidate_limit))
        ranked = rank(candidates, self._clock(), config.ranking)
        chosen = select_within_budget(ranked, budget, limit, self._truncate, config.budget)
        if query.record_use and chosen:
            self._usage.record([(item.memory.repo, item.memory.id) for item in chosen], time.time())
        return RecallResult(
            [Recalled(item.memory, item.score, item.tokens) for item in chosen],
            sum(item.tokens for item in chosen),
        )

    def list_memories(
        self, repo: str, *, user: str = "", branch: str = "", include_inactive: bool = False, limit: int = 100
    ) -> list[Memory]:
        check_repo(repo)
        check_label(user, "user")
        check_label(branch, "branch")
        if limit < 0:
            raise InvalidField("limit", "must not be negative")
        flt = MemoryFilter(Viewer(repo, branch, user), include_inactive=include_inactive)
        return self._index.list_memories(flt, min(limit or 100, 1000))

    def get(self, repo: str, memory_id: str, *, user: str = "", branch: str = "") -> Memory:
        """A memory visible to the caller, from the repo or the global namespace."""
        check_repo(repo)
        check_id(memory_id)
        viewer = Viewer(repo, branch, user)
        for ns in self._lookup_namespaces(repo):
            found = self._index.get(ns, memory_id)
            if found is not None and is_visible(found.memory, viewer):
                return found.memory
        raise MemoryNotFound(repo, memory_id)

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
        for ns in self._lookup_namespaces(repo):
            folder = self._root.folder(ns)
            with folder.lock():
                memory, path = self._read_any(ns, folder, memory_id)
                if memory is None or path is None:
                    continue
                if is_personal(memory) and not may_change(memory, caller):
                    return False
                self._check_may_change(ns, memory, caller, "forget")
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
                    self._drop_working(ns, [memory.id])
                self._apply_tombstone(ns, memory, key, removed=path)
            return True
        return False

    def compact(
        self,
        repo: str,
        episode_max_age: timedelta | None = None,
        *,
        user: str = "",
        admin: bool = False,
    ) -> CompactResult:
        """Supersede duplicates and archive old episodes, writing the outcome into the files.

        Only memories the caller may change take part (their own personal ones; team ones they wrote, or
        every team one for an admin), so the counts say nothing about anyone else's memories."""
        check_repo(repo)
        check_label(user, "user")
        caller = Caller(user, admin)
        max_age = episode_max_age or self._config.default_episode_max_age
        folder = self._root.folder(repo)
        with folder.lock():
            memories = self._load_namespace(repo, folder)
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
            self._reindex_team(repo, folder, touched)
            self._flush_namespace_usage(repo, folder, keep={m.id for m in memories})
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
        for ns in self._lookup_namespaces(repo):
            folder = self._root.folder(ns)
            with folder.lock():
                source, _ = self._read_any(ns, folder, memory_id)
                if source is None:
                    continue
                self._check_may_change(repo, source, caller, "promote")
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
                self._reindex_team(ns, folder, touched)
            return fact
        raise MemoryNotFound(repo, memory_id)

    def archive(
        self, repo: str, memory_id: str, *, user: str = "", reason: str = "", admin: bool = False
    ) -> Memory:
        """Mark a writable memory archived (kept, not recalled by default)."""
        check_repo(repo)
        check_id(memory_id)
        caller = Caller(user, admin)
        for ns in self._lookup_namespaces(repo):
            folder = self._root.folder(ns)
            with folder.lock():
                memory, _ = self._read_any(ns, folder, memory_id)
                if memory is None:
                    continue
                if memory.read_only:
                    raise ReadOnlyMemory(memory_id)
                self._check_may_change(repo, memory, caller, "archive")
                self._retire(folder, memory_id, Status.ARCHIVED, reason or "archived", only_active=False)
                self._reindex_team(ns, folder, [memory_id])
                result = self._read_team(folder, memory_id)
            assert result is not None
            return result
        raise MemoryNotFound(repo, memory_id)

    def observe(self, observation: Observation) -> int:
        """Note where a prompt led (the files of its context block) as the session's working memory, then
        prune; the number of notes the session keeps. The prompt itself is never stored (domain/working.py);
        the same files make the same note, kept once per user and branch."""
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
        folder = self._root.folder(repo)
        with folder.lock():
            first_listing = repo not in self._working
            registry = self._working_registry(repo, folder)  # listed before the write: no double entry
            now = self._clock()
            now_ns = int(now.timestamp() * 1_000_000_000)
            touched: list[str] = []
            if note is not None:
                written = self._write_working_note(folder, observation, session, note, now, now_ns)
                if written is not None:
                    touched.append(written)
                    registry.setdefault(session, []).append(WorkingEntry(written, session, now_ns))
            listed = self._working_listed.get(repo)
            if first_listing or listed is None or (now - listed).total_seconds() > WORKING_RESCAN_SECONDS:
                # Now and then: the whole folder again (files written or deleted by others, idle sessions).
                if not first_listing:
                    registry = self._working_registry(repo, folder, relist=True)
                entries = [e for items in registry.values() for e in items]
            else:  # every prompt: only this user's sessions, so the cost does not grow with the team
                entries = [e for key, items in registry.items() if session_owner(key) == owner for e in items]
            doomed = plan_working_prune(entries, session=session, limits=self._working_limits, now_ns=now_ns)
            for memory_id in doomed:
                folder.delete(memory_id)
            touched.extend(doomed)
            self._usage.forget(repo, doomed)
            self._reindex_team(repo, folder, touched)
            self._drop_working(repo, doomed)
            return len(registry.get(session, []))

    def _write_working_note(
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

    def _drop_working(self, repo: str, memory_ids: list[str]) -> None:
        """Take working memories deleted outside observe (forget, a hand edit) out of the registry."""
        registry = self._working.get(repo)
        for memory_id in memory_ids:
            parsed = parse_working_id(memory_id)
            if registry is None or parsed is None or parsed[0] not in registry:
                continue
            kept = [e for e in registry[parsed[0]] if e.memory_id != memory_id]
            if kept:
                registry[parsed[0]] = kept
            else:
                del registry[parsed[0]]

    def _working_registry(
        self, repo: str, folder: MemoryFolder, *, relist: bool = False
    ) -> dict[str, list[WorkingEntry]]:
        """Session → its working memories, listed from the folder on first use and at every rescan."""
        registry = self._working.get(repo)
        if registry is None or relist:
            registry = {}
            for memory_id in folder.memory_ids(prefix="working-"):
                if (parsed := parse_working_id(memory_id)) is not None:
                    registry.setdefault(parsed[0], []).append(WorkingEntry(memory_id, *parsed))
            self._working[repo] = registry
            self._working_listed[repo] = self._clock()
        return registry

    def delete_repo(self, repo: str) -> int:
        """Delete the repo's team memories (files, tombstones, usage) and detach its Claude Code folder."""
        check_repo(repo)
        if not repo:
            raise InvalidField("repo", "is required (the global namespace cannot be deleted this way)")
        folder = self._root.folder(repo)
        with folder.lock(), self._ns_lock(repo):
            removed = folder.remove_all()
            with self._state_lock:
                self._claude_dirs.pop(repo, None)
                prefix = str(folder.path)
                self._problems = {k: v for k, v in self._problems.items() if not k.startswith(prefix)}
            self._usage.drop(repo)
            self._working.pop(repo, None)
            self._index.drop_namespace(repo)
        return removed

    # ------------------------------------------------------------------ index upkeep
    def sync_all(self) -> None:
        """Bring every namespace in step with its folders (cheap for unchanged files: stat only)."""
        with self._state_lock:
            claude = set(self._claude_dirs)
        # Namespaces only the index still knows (a folder deleted behind our back) are emptied too.
        namespaces = set(self._root.namespaces()) | claude | self._index.namespaces()
        for ns in sorted(namespaces):
            self.sync_namespace(ns)

    def sync_namespace(self, ns: str, *, force: bool = False) -> None:
        folder = self._root.folder(ns)
        with self._ns_lock(ns):
            tombstones = folder.tombstones()
            if tombstones != self._index.tombstones(ns):
                self._index.set_tombstones(ns, tombstones)
                force = True
            known = self._index.file_states(ns)
            seen: set[str] = set()
            for entry, source in self._source_entries(ns, folder):
                key = str(entry.path)
                seen.add(key)
                if force or known.get(key) != (entry.mtime_ns, entry.size):
                    self._load_into_index(ns, entry, source, tombstones)
            gone = [path for path in known if path not in seen]
            self._index.remove_files(ns, gone)
            with self._state_lock:
                for path in gone:
                    self._problems.pop(path, None)
            usage_mtime = folder.usage_mtime_ns()
            if usage_mtime != self._index.usage_mtime_ns(ns):
                self._load_usage(ns, folder, usage_mtime)

    def rebuild_index(self) -> None:
        """Throw the index away and rebuild it from the files alone."""
        self.flush_usage()
        self._index.clear()
        with self._state_lock:
            self._problems.clear()
        self.sync_all()

    def flush_usage(self) -> None:
        """Merge this engine's recall counts into each namespace's usage file."""
        for ns in self._usage.namespaces():
            folder = self._root.folder(ns)
            with folder.lock():
                self._flush_namespace_usage(ns, folder)

    # ------------------------------------------------------------------ internals
    def _store_namespace(self, draft: MemoryDraft) -> str:
        check_repo(draft.repo, "memory.repo")
        if draft.scope is Scope.GLOBAL:
            return GLOBAL_REPO
        if not draft.repo and draft.scope is not None:
            raise InvalidField("memory.repo", f"is required for a {draft.scope.value}-scoped memory")
        return draft.repo

    def _check_draft(self, draft: MemoryDraft) -> None:
        if draft.id:
            check_id(draft.id, "memory.id")
        check_text(draft.body, "memory.body", MAX_BODY_CHARS)
        check_text(draft.name, "memory.name", MAX_NAME_CHARS)
        check_text(draft.description, "memory.description", MAX_DESCRIPTION_CHARS)
        check_text(draft.reason, "memory.reason", MAX_DESCRIPTION_CHARS)
        if not (draft.body.strip() or draft.description.strip() or draft.name.strip()):
            raise InvalidField("memory.body", "is empty (give a body, a description or a name)")
        if draft.confidence is not None:
            check_confidence(draft.confidence, "memory.confidence")
        for target in draft.supersedes:
            check_id(target, "memory.supersedes")
        check_items(draft.related_files, "memory.related_files")
        check_items(draft.related_symbols, "memory.related_symbols")
        check_label(draft.branch, "memory.branch")
        check_label(draft.user, "memory.user")
        for field_name, value in (
            ("memory.body", draft.body),
            ("memory.name", draft.name),
            ("memory.description", draft.description),
            ("memory.related_files", " ".join(draft.related_files)),
            ("memory.related_symbols", " ".join(draft.related_symbols)),
        ):
            if (kind := find_secret(value)) is not None:
                raise InvalidField(
                    field_name,
                    f"looks like it holds {kind}; memories are shared as plain text and recalled into "
                    "prompts, so store where the secret lives (e.g. 'in the vault under payments/'), "
                    "not the secret",
                )
        if draft.scope is Scope.BRANCH and not draft.branch:
            raise InvalidField("memory.branch", "is required for a branch-scoped memory")
        if draft.scope is Scope.USER and not draft.user:
            raise InvalidField("memory.user", "is required for a user-scoped memory")

    @staticmethod
    def _check_may_change(repo: str, memory: Memory, caller: Caller, action: str) -> None:
        """Another user's personal memory does not exist for the caller; a team memory they may not change
        is refused by name (it is visible to them anyway)."""
        if may_change(memory, caller):
            return
        if is_personal(memory):
            raise MemoryNotFound(repo, memory.id)
        raise NotAllowed(memory.id, action, "ask an admin, or store a new memory of your own")

    def _check_supersede_target(self, ns: str, folder: MemoryFolder, target: str, caller: Caller) -> None:
        """A memory may list in `supersedes` only memories its author may change: listing one retires it."""
        memory, _ = self._read_any(ns, folder, target)
        if memory is None:
            found = self._index.get(GLOBAL_REPO, target) if ns != GLOBAL_REPO else None
            memory = found.memory if found is not None else None
        if memory is None:
            return  # nothing to retire (a stale id is harmless: ids are unique and random)
        try:
            self._check_may_change(ns, memory, caller, "supersede")
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

    def _lookup_namespaces(self, repo: str) -> list[str]:
        return [repo, GLOBAL_REPO] if repo else [GLOBAL_REPO]

    def _fresh_id(self, folder: MemoryFolder, title: str) -> str:
        while True:
            memory_id = new_memory_id(title)
            if not folder.file_for(memory_id).exists():
                return memory_id

    def _read_team(self, folder: MemoryFolder, memory_id: str) -> Memory | None:
        try:
            return read_memory(folder.file_for(memory_id), repo=folder.repo, source=Source.TEAM)
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
            return read_memory(Path(found.path), repo=ns, source=Source.CLAUDE), Path(found.path)
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

    def _load_namespace(self, ns: str, folder: MemoryFolder) -> list[Memory]:
        """Every readable, non-tombstoned memory of the namespace, straight from the files."""
        tombstones = folder.tombstones()
        memories: list[Memory] = []
        for entry, source in self._source_entries(ns, folder):
            try:
                memory = read_memory(entry.path, repo=ns, source=source, mtime_ns=entry.mtime_ns)
            except (FrontmatterError, InvalidFileName, UnicodeDecodeError, OSError):
                continue
            if content_key(memory) not in tombstones:
                memories.append(memory)
        return memories

    def _source_entries(self, ns: str, folder: MemoryFolder) -> Iterator[tuple[FileEntry, Source]]:
        for entry in folder.entries():
            yield entry, Source.TEAM
        with self._state_lock:
            claude = self._claude_dirs.get(ns)
        if claude is not None:
            for entry in list_markdown(claude):
                yield entry, Source.CLAUDE

    def _load_into_index(self, ns: str, entry: FileEntry, source: Source, tombstones: set[str]) -> None:
        key = str(entry.path)
        try:
            memory = read_memory(entry.path, repo=ns, source=source, mtime_ns=entry.mtime_ns)
        except FileNotFoundError:
            self._index.remove_files(ns, [key])
            return
        except (FrontmatterError, InvalidFileName, UnicodeDecodeError, OSError) as exc:
            problem = _problem(key, exc)
            with self._state_lock:
                known = self._problems.get(key)
                self._problems[key] = problem
            if known != problem:
                log.warning("memory.file_skipped", path=key, field=problem.field, problem=problem.message)
            self._index.put(ns, key, entry.mtime_ns, entry.size, None, 0)
            return
        with self._state_lock:
            self._problems.pop(key, None)
        if content_key(memory) in tombstones or _legacy_working(memory):
            self._index.put(ns, key, entry.mtime_ns, entry.size, None, 0)
            return
        self._index.put(ns, key, entry.mtime_ns, entry.size, memory, count_tokens(context_text(memory)))

    def _reindex_team(
        self, ns: str, folder: MemoryFolder, memory_ids: list[str], *, force_namespace: bool = False
    ) -> None:
        """Re-read the given team files from disk into the index (deleted ones leave it)."""
        if force_namespace:
            self.sync_namespace(ns, force=True)
            return
        with self._ns_lock(ns):
            tombstones = self._index.tombstones(ns)
            for memory_id in dict.fromkeys(memory_ids):
                path = folder.file_for(memory_id)
                try:
                    stat = path.stat()
                except FileNotFoundError:
                    self._index.remove_files(ns, [str(path)])
                    continue
                self._load_into_index(
                    ns, FileEntry(path, stat.st_mtime_ns, stat.st_size), Source.TEAM, tombstones
                )

    def _apply_tombstone(self, ns: str, memory: Memory, key: str, removed: Path) -> None:
        """Hide, in the index, every copy of the forgotten content that the same owner holds."""
        with self._ns_lock(ns):
            self._index.set_tombstones(ns, self._index.tombstones(ns) | {key})
            self._index.remove_files(ns, [str(removed)])
            for found in self._index.with_fingerprint(ns, memory.fingerprint):
                if content_key(found.memory) != key:
                    continue  # another user's copy, or a team copy of personal content: not this tombstone's
                with contextlib.suppress(FileNotFoundError):
                    stat = Path(found.path).stat()
                    self._index.put(ns, found.path, stat.st_mtime_ns, stat.st_size, None, 0)

    def _truncate(self, memory: Memory, max_tokens: int) -> tuple[Memory, int] | None:
        head_tokens = count_tokens(context_text(memory.with_changes(body="")))
        room = max_tokens - head_tokens - 3
        if room < 16:
            return None
        cut = memory.with_changes(body=truncate_to_tokens(memory.body, room).rstrip() + " …")
        tokens = count_tokens(context_text(cut))
        return (cut, tokens) if tokens <= max_tokens else None

    def _flush_namespace_usage(self, ns: str, folder: MemoryFolder, keep: set[str] | None = None) -> None:
        """Under the folder lock: file counts + our pending counts → file and index."""
        pending, last_used = self._usage.take(ns)
        if not pending and keep is None:
            return
        usage = merged_usage(
            folder.read_usage(), pending, last_used, keep=keep, exists=lambda k: folder.file_for(k).exists()
        )
        if usage or folder.usage_mtime_ns():
            folder.write_usage(usage)
        self._load_usage(ns, folder, folder.usage_mtime_ns(), usage)

    def _load_usage(
        self, ns: str, folder: MemoryFolder, mtime_ns: int, usage: dict[str, dict[str, float]] | None = None
    ) -> None:
        """The index's use counts = the usage file's (this engine's unflushed counts are added at recall)."""
        data = folder.read_usage() if usage is None else usage
        totals: dict[str, tuple[int, float]] = {}
        for memory_id, entry in data.items():
            if isinstance(entry, dict):
                totals[memory_id] = (int(entry.get("count", 0)), float(entry.get("last_used", 0.0)))
        self._index.set_usage(ns, totals, mtime_ns)

    def _ns_lock(self, ns: str) -> threading.RLock:
        with self._state_lock:
            lock = self._ns_locks.get(ns)
            if lock is None:
                lock = self._ns_locks[ns] = threading.RLock()
            return lock

    def _on_idle(self) -> None:
        self.sync_all()
        self.flush_usage()

    def _watched_paths(self) -> list[Path]:
        with self._state_lock:
            return [self._root.path, *self._claude_dirs.values()]

    def _on_paths_changed(self, paths: set[Path]) -> None:
        """Bring the index in step with changed paths. A team memory file is re-read only when its stat
        differs from the index (the engine's own writes are indexed already); anything else (tombstones,
        usage, a Claude Code folder, a folder event) re-syncs its whole namespace."""
        whole: set[str] = set()
        changed: dict[str, list[Path]] = {}
        with self._state_lock:
            claude = dict(self._claude_dirs)
        for path in paths:
            if path.name.endswith(".tmp") or ".locks" in path.parts:
                continue
            ns = self._root.namespace_of(path)
            if ns is None:
                ns = next((repo for repo, folder in claude.items() if path.parent == folder), None)
                if ns is not None:
                    whole.add(ns)
            elif path.parent == self._root.folder(ns).path and is_memory_file_name(path.name):
                changed.setdefault(ns, []).append(path)
            else:
                whole.add(ns)
        for ns in sorted(whole):
            self.sync_namespace(ns)
        for ns, files in sorted(changed.items()):
            if ns not in whole:
                self._sync_files(ns, files)

    def _sync_files(self, ns: str, paths: list[Path]) -> None:
        with self._ns_lock(ns):
            gone: list[str] = []
            known = self._index.file_states(ns)
            tombstones: set[str] | None = None
            for path in paths:
                try:
                    stat = path.stat()
                except FileNotFoundError:
                    if str(path) in known:
                        self._index.remove_files(ns, [str(path)])
                    with self._state_lock:
                        self._problems.pop(str(path), None)
                    gone.append(path.name.removesuffix(".md"))
                    continue
                except OSError as exc:  # unreadable for now: the periodic resync looks again
                    log.warning("memory.file_unreadable", path=str(path), error=str(exc))
                    continue
                if known.get(str(path)) == (stat.st_mtime_ns, stat.st_size):
                    continue
                if tombstones is None:
                    tombstones = self._index.tombstones(ns)
                self._load_into_index(
                    ns, FileEntry(path, stat.st_mtime_ns, stat.st_size), Source.TEAM, tombstones
                )
        if gone:  # after the namespace lock: observe takes the folder lock first, then the namespace's
            with self._root.folder(ns).lock():
                self._drop_working(ns, gone)


def _legacy_working(memory: Memory) -> bool:
    """Working memory observe wrote before it recorded owners: it holds a prompt verbatim, so it is never
    recalled again (observe deletes it at its next full listing)."""
    parsed = parse_working_id(memory.id) if memory.memory_class is MemoryClass.WORKING else None
    return parsed is not None and OWNER_SEPARATOR not in parsed[0]


def _problem(path: str, exc: Exception) -> Problem:
    if isinstance(exc, FrontmatterError):
        return Problem(path, exc.field, exc.message)
    if isinstance(exc, InvalidFileName):
        return Problem(path, "filename", str(exc))
    if isinstance(exc, UnicodeDecodeError):
        return Problem(path, "encoding", "is not UTF-8 text")
    return Problem(path, "file", str(exc))
