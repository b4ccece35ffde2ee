"""The indexing engine: scan → detect changes → parse off the loop → fan out per file → record after ack.

Consistency rule (DESIGN.md §4): a file is the unit. Before sending, its manifest row is marked
pending; it is recorded with its new hash only after BOTH search and graph acknowledged the complete
new state (replace semantics). A crash, a cancelled run or a failed send therefore leaves the file
pending, and the next run sends it again whatever its hash — so the final state downstream always
converges on the state of a clean run. Deletions are forgotten only after both acknowledged, too.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from collections.abc import Set as AbstractSet
from concurrent.futures import Executor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import structlog

from kit.domain import Chunk, Import
from services.indexer import metrics
from services.indexer.adapters.git_repo import (
    DEFAULT_PROTOCOLS,
    GIT_URL_REFUSED,
    GitError,
    GitUrlRefused,
    Resolver,
    check_git_url,
    clone,
    pull,
    read_branch,
    read_head,
    read_origin_url,
    resolve_host,
)
from services.indexer.domain.changes import Candidate, dirty_paths, estimate_eta, plan_run
from services.indexer.domain.model import (
    MAX_SKIPPED_LISTED,
    DownstreamUnavailable,
    FileRecord,
    FileStatus,
    IndexPathsResult,
    IndexPhase,
    IndexProgress,
    InvalidRepoPath,
    RepoNameTaken,
    RepoNotFound,
    RepoRecord,
    RepoStatus,
)
from services.indexer.domain.repos import derive_repo_name, normalise_remote, validate_repo_name
from services.indexer.domain.scanner import (
    DEFAULT_MAX_FILE_BYTES,
    PathOutsideRepo,
    RepoScanner,
    ScannedFile,
    confine,
    read_regular_file,
)
from services.indexer.ports import GraphSink, Manifest, SearchSink, SinkUnavailable
from services.indexer.worker import Outcome, ParseFn, Prepared, PrepareJob, default_parse, prepare_file

log = structlog.get_logger("indexer")

T = TypeVar("T")

# (imports as parsed, language, every repo file, Go module path) → imports with resolved_path/external set
ImportResolver = Callable[[Sequence[Import], str, AbstractSet[str], str | None], Sequence[Import]]


@dataclass(frozen=True)
class EngineConfig:
    """Tuning of the engine; `IndexerSettings` fills it from the environment."""

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    # Files between "read" and "recorded" at once; a slow downstream fills these slots and pauses the scan.
    max_in_flight: int = 16
    # Attempts per downstream call when the sink reports SinkUnavailable (1 = no retry).
    send_attempts: int = 5
    retry_initial_seconds: float = 0.5
    retry_max_seconds: float = 8.0
    delete_batch: int = 256
    record_batch: int = 64
    progress_interval_seconds: float = 0.25
    dirty_limit: int = 1000
    # RepoStatus walks the tree to find dirty files; callers asking more often than this get the last
    # answer (a finished run or index_paths invalidates it at once).
    status_cache_seconds: float = 2.0
    extra_ignores: tuple[str, ...] = ()
    # Where repositories registered by git URL are cloned; None refuses git URLs.
    clone_root: Path | None = None
    # Seconds between pulls of cloned repositories (0: only on SyncRepo, e.g. from a webhook).
    pull_interval_seconds: float = 0.0
    # Directories (resolved) under which working trees may be registered; clones under clone_root always
    # may. An empty tuple allows no working tree at all (git URLs only): a client's token must never turn
    # /etc or / into a searchable "repository". None means unrestricted and is for tests and embedding
    # only; the service always passes a tuple (REPORECALL_REPO_ROOTS).
    repo_roots: tuple[Path, ...] | None = None
    # Transports git may use for git_url registrations and pulls, and whether hosts on loopback,
    # link-local or private addresses may be cloned from (REPORECALL_GIT_ALLOW_*).
    git_protocols: frozenset[str] = DEFAULT_PROTOCOLS
    git_allow_private_hosts: bool = False


@dataclass
class _Tracker:
    """Mutable counters of one run; snapshots go to the caller."""

    phase: IndexPhase = IndexPhase.SCANNING
    files_scanned: int = 0
    files_changed: int = 0
    files_parsed: int = 0
    files_sent: int = 0
    files_deleted: int = 0
    chunks: int = 0
    errors: int = 0
    message: str = ""
    started: float = field(default_factory=time.monotonic)
    indexing_started: float = 0.0
    version: int = 0
    error_messages: list[str] = field(default_factory=list)
    skipped_reasons: dict[str, int] = field(default_factory=dict)
    skipped_files: list[tuple[str, str]] = field(default_factory=list)

    def skip(self, path: str, reason: str) -> None:
        """A file left out of this run (called from the scan thread too: plain dict/list updates)."""
        self.skipped_reasons[reason] = self.skipped_reasons.get(reason, 0) + 1
        if len(self.skipped_files) < MAX_SKIPPED_LISTED:
            self.skipped_files.append((path, reason))

    def bump(self, **changes: Any) -> None:
        for name, value in changes.items():
            setattr(self, name, value)
        self.version += 1

    def error(self, path: str, problem: str) -> None:
        self.errors += 1
        self.message = f"{path}: {problem}"
        self.error_messages.append(self.message)
        self.version += 1

    def snapshot(self) -> IndexProgress:
        done = self.files_sent + self.errors
        remaining = self.files_changed - done
        eta = 0.0
        if self.phase is IndexPhase.INDEXING and self.indexing_started:
            eta = estimate_eta(done, remaining, time.monotonic() - self.indexing_started)
        return IndexProgress(
            phase=self.phase,
            files_scanned=self.files_scanned,
            files_changed=self.files_changed,
            files_parsed=self.files_parsed,
            files_sent=self.files_sent,
            files_deleted=self.files_deleted,
            chunks=self.chunks,
            errors=self.errors,
            eta_seconds=round(eta, 1),
            message=self.message,
            skipped_reasons=dict(self.skipped_reasons),
            skipped_files=tuple(self.skipped_files),
        )


class _Recorder:
    """Buffers acknowledged manifest rows and writes them in batches (a lost batch only means a resend)."""

    def __init__(self, engine: IndexerEngine, repo: str, batch: int) -> None:
        self._engine, self._repo, self._batch = engine, repo, batch
        self._rows: list[FileRecord] = []

    async def add(self, row: FileRecord) -> None:
        self._rows.append(row)
        if len(self._rows) >= self._batch:
            await self.flush()

    async def flush(self) -> None:
        rows, self._rows = self._rows, []
        if rows:
            await self._engine._db(self._engine.manifest.record_files, self._repo, rows)


@dataclass
class _RunContext:
    repo: RepoRecord
    root: Path
    tracker: _Tracker
    recorder: _Recorder
    repo_files: AbstractSet[str]  # a FileIndex, built once per run for import resolution
    go_module: str | None
    to_delete: list[str] = field(default_factory=list)
    stop: asyncio.Event = field(default_factory=asyncio.Event)  # set when a downstream is down


class IndexerEngine:
    """Registers repos, runs indexing, reports status, and (optionally) watches registered repos."""

    def __init__(
        self,
        manifest: Manifest,
        search: SearchSink,
        graph: GraphSink,
        *,
        config: EngineConfig | None = None,
        executor_factory: Callable[[], Executor] | None = None,
        parse: ParseFn = default_parse,
        accept: Callable[[str], bool] | None = None,
        resolve_imports: ImportResolver | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        watch_debounce_ms: int = 300,
        resolve_host: Resolver = resolve_host,
    ) -> None:
        self.manifest = manifest
        self.search = search
        self.graph = graph
        self.config = config or EngineConfig()
        self._executor_factory = executor_factory or (lambda: ThreadPoolExecutor(2, "indexer-parse"))
        self._executor: Executor | None = None
        self._parse = parse
        self._accept = accept or _has_known_language
        self._resolve_imports = resolve_imports or _default_import_resolver
        self._sleep = sleep
        self._locks: dict[str, asyncio.Lock] = {}
        self._generation: dict[str, int] = {}  # bumped whenever a repo's manifest rows change
        self._dirty_cache: dict[str, tuple[float, int, list[str]]] = {}
        self._dirty_locks: dict[str, asyncio.Lock] = {}
        self._watch_debounce_ms = watch_debounce_ms
        self._watcher: Any = None  # services.indexer.watch.RepoWatcher while watching
        self._resolve_host = resolve_host

    # -- repositories --------------------------------------------------------------------------------

    def is_managed(self, record: RepoRecord) -> bool:
        """True when the server cloned this repository and keeps it pulled."""
        root = self.config.clone_root
        return root is not None and Path(record.path).parent == root

    async def register_git_repo(self, url: str, name: str = "") -> RepoRecord:
        """Clone `url` under the clone root (or reuse the clone) and register it; named by its remote.

        Every refusal of the URL itself (not allowed, private host, clone failed) raises the same
        InvalidRepoPath(GIT_URL_REFUSED); the cause goes to the log only. A name registered for another
        path or remote raises RepoNameTaken before anything is cloned.
        """
        if self.config.clone_root is None:
            raise InvalidRepoPath("git_url: this indexer does not clone repositories (no clone root)")
        url = url.strip()
        await self._check_git_url(url)
        name = name.strip() or normalise_remote(url) or Path(url.rstrip("/")).name.removesuffix(".git")
        problem = validate_repo_name(name)
        if problem:
            raise InvalidRepoPath(problem)
        dest = self.config.clone_root / name.replace("/", "__")
        remote = normalise_remote(url)
        existing = await self._db(self.manifest.get_repo, name)
        if existing is not None and (existing.path != str(dest.resolve()) or existing.remote != remote):
            raise RepoNameTaken(name, existing.remote or existing.path)
        try:
            await asyncio.to_thread(self._clone_or_pull, url, remote, dest)
        except GitError as exc:
            log.warning("repo.clone_failed", url=url, repo=name, error=str(exc))
            raise InvalidRepoPath(GIT_URL_REFUSED) from None
        return await self.register_repo(str(dest), name, same_remote=True)

    async def _check_git_url(self, url: str) -> None:
        try:
            await asyncio.to_thread(
                check_git_url,
                url,
                protocols=self.config.git_protocols,
                allow_private_hosts=self.config.git_allow_private_hosts,
                resolve=self._resolve_host,
            )
        except GitUrlRefused as exc:
            log.warning("repo.git_url_refused", url=url[:300], reason=exc.detail)
            raise InvalidRepoPath(GIT_URL_REFUSED) from None

    def _clone_or_pull(self, url: str, remote: str, dest: Path) -> None:
        """Blocking. Reuse a clone of the same remote; a leftover clone of another one is replaced."""
        import shutil

        if dest.is_dir() and normalise_remote(read_origin_url(dest)) == remote and remote:
            pull(dest, self.config.git_protocols)
            return
        if dest.exists():
            shutil.rmtree(dest)
        clone(url, dest, self.config.git_protocols)

    async def sync_repo(self, name: str) -> tuple[bool, IndexProgress]:
        """Pull a managed clone (fast-forward) and index what changed; (pulled, final progress)."""
        record = await self.get_repo(name)
        pulled = False
        if self.is_managed(record):
            try:
                # The host is checked again: where it resolves may have changed since the clone.
                await self._check_git_url(await asyncio.to_thread(read_origin_url, Path(record.path)))
                await asyncio.to_thread(pull, Path(record.path), self.config.git_protocols)
                pulled = True
            except GitError as exc:
                log.warning("repo.pull_failed", repo=name, error=str(exc))
            except InvalidRepoPath:
                log.warning("repo.pull_refused", repo=name)
        return pulled, await self.run_index(name)

    async def pull_forever(self) -> None:
        """Every `pull_interval_seconds`, sync each managed clone (a failure never stops the loop)."""
        interval = self.config.pull_interval_seconds
        while interval > 0:
            await asyncio.sleep(interval)
            for record in await self.list_repos():
                if self.is_managed(record):
                    with contextlib.suppress(Exception):
                        await self.sync_repo(record.name)

    async def register_repo(self, path: str, name: str = "", *, same_remote: bool = False) -> RepoRecord:
        """Register the working tree at absolute `path`; name defaults to its git remote/dir.

        The same name for the same path is idempotent; a name registered for another path raises
        RepoNameTaken (never re-pointed). The path must lie under the configured roots (symlinks resolved).
        """
        if not path or "\x00" in path or not Path(path).expanduser().is_absolute():
            raise InvalidRepoPath(f"path: repository path {path!r} must be absolute (and free of NUL bytes)")
        try:
            root = Path(path).expanduser().resolve()
            is_dir = root.is_dir()
        except (OSError, RuntimeError) as exc:  # e.g. a name longer than the OS allows, a symlink loop
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise InvalidRepoPath(f"path: repository path {path!r} is unusable ({reason})") from None
        self._require_allowed_root(root)
        if not is_dir:
            raise InvalidRepoPath(f"path: repository path {str(root)!r} is not a directory")
        remote = normalise_remote(await asyncio.to_thread(read_origin_url, root))
        name = name.strip() or derive_repo_name(remote, str(root))
        problem = validate_repo_name(name)
        if problem:
            raise InvalidRepoPath(problem)
        record = await self._db(
            partial(self.manifest.add_repo, same_remote=same_remote), name, str(root), remote
        )
        if self._watcher is not None:
            await self._watcher.watch(record.name, Path(record.path))
        log.info("repo.registered", repo=name, path=str(root), remote=remote)
        return record

    def _require_tree(self, repo: RepoRecord) -> None:
        # Without this, a missing (e.g. unmounted) working tree would look like "every file deleted".
        if not Path(repo.path).is_dir():
            raise InvalidRepoPath(
                f"repository {repo.name!r}: working tree {repo.path} is missing; restore it, or remove the "
                "repository and register it again with its new path"
            )
        # A registered folder later swapped for a symlink to /etc must not be walked.
        try:
            self._require_allowed_root(Path(repo.path).resolve())
        except InvalidRepoPath as exc:
            raise InvalidRepoPath(f"repository {repo.name!r}: {exc}") from None

    def _require_allowed_root(self, root: Path) -> None:
        """Raise InvalidRepoPath unless the resolved `root` lies under a configured root or the clone root."""
        roots = self.config.repo_roots
        if roots is None:
            return
        clone_root = self.config.clone_root.resolve() if self.config.clone_root else None
        if clone_root is not None and clone_root in root.parents:
            return
        if any(root == r or r in root.parents for r in roots):
            return
        if not roots:
            raise InvalidRepoPath(
                f"path: repository path {str(root)!r} is refused: this server allows no working trees "
                "(REPORECALL_REPO_ROOTS is empty); register a git_url instead, or have an admin set "
                "REPORECALL_REPO_ROOTS to the directories that hold repositories"
            )
        listed = ", ".join(str(r) for r in roots)
        raise InvalidRepoPath(
            f"path: repository path {str(root)!r} is outside the allowed roots ({listed}); move the "
            "repository under one of them, or have an admin widen REPORECALL_REPO_ROOTS"
        )

    async def list_repos(self) -> list[RepoRecord]:
        return await self._db(self.manifest.list_repos)

    async def get_repo(self, name: str) -> RepoRecord:
        record = await self._db(self.manifest.get_repo, name)
        if record is None:
            raise RepoNotFound(name)
        return record

    async def remove_repo(self, name: str) -> bool:
        """Delete the repo's data downstream, then forget it. False when it was not registered."""
        if await self._db(self.manifest.get_repo, name) is None:
            return False
        async with self._lock(name):
            results = await asyncio.gather(
                self._with_retry("search.delete_repo", partial(self.search.delete_repo, name)),
                self._with_retry("graph.delete_repo", partial(self.graph.delete_repo, name)),
                return_exceptions=True,
            )
            _raise_first(results)
            removed = await self._db(self.manifest.remove_repo, name)
        if self._watcher is not None:
            await self._watcher.unwatch(name)
        log.info("repo.removed", repo=name)
        return removed

    # -- indexing ------------------------------------------------------------------------------------

    async def index_repo(self, name: str, full: bool = False) -> AsyncGenerator[IndexProgress, None]:
        """Index the repo, yielding progress snapshots; the last one has phase DONE.

        Stopping the iteration cancels the run; what was acknowledged so far stays recorded.
        """
        repo = await self.get_repo(name)
        self._require_tree(repo)
        tracker = _Tracker()
        yield tracker.snapshot()
        task = asyncio.create_task(self._locked_run(repo, full, tracker))
        seen = tracker.version
        try:
            while not task.done():
                await asyncio.wait({task}, timeout=self.config.progress_interval_seconds)
                if tracker.version != seen and not task.done():
                    seen = tracker.version
                    yield tracker.snapshot()
            task.result()
            yield tracker.snapshot()
        finally:
            if not task.done():
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)

    async def run_index(self, name: str, full: bool = False) -> IndexProgress:
        """`index_repo` to the end; returns the final snapshot."""
        last = IndexProgress(IndexPhase.SCANNING)
        async for snapshot in self.index_repo(name, full):
            last = snapshot
        return last

    async def _locked_run(self, repo: RepoRecord, full: bool, tracker: _Tracker) -> None:
        async with self._lock(repo.name):
            try:
                await self._run(repo, full, tracker)
            finally:
                self._bump_generation(repo.name)

    def _bump_generation(self, name: str) -> None:
        self._generation[name] = self._generation.get(name, 0) + 1

    async def _run(self, repo: RepoRecord, full: bool, tracker: _Tracker) -> None:
        root = Path(repo.path)
        await self._db(self.manifest.mark_run_started, repo.name, datetime.now(UTC))

        def accept(path: str) -> bool:
            accepted = self._accept(path)
            if not accepted:
                tracker.skip(path, "unsupported file type")
            return accepted

        scanner = self._scanner(root, accept)
        recorded = await self._db(self.manifest.files, repo.name)

        def scan() -> list[ScannedFile]:
            files: list[ScannedFile] = []
            for file in scanner.walk():
                files.append(file)
                if len(files) % 256 == 0:
                    tracker.files_scanned = len(files)
                    tracker.version += 1
            return files

        scanned = await asyncio.to_thread(scan)
        unwalkable = self._report_walk(repo.name, scanner)
        plan = plan_run(scanned, recorded, full=full)
        tracker.bump(files_scanned=len(scanned), files_changed=len(plan.candidates))
        log.info(
            "index.planned",
            repo=repo.name,
            scanned=len(scanned),
            candidates=len(plan.candidates),
            vanished=len(plan.vanished),
            full=full,
        )
        ctx = await self._context(repo, root, tracker, frozenset(f.path for f in scanned))
        await self._process(ctx, plan.candidates)
        ctx.to_delete.extend(plan.vanished)
        await self._delete(ctx)
        stopped = ctx.stop.is_set()
        head = await asyncio.to_thread(read_head, root)
        commit = head if tracker.errors == 0 and not stopped else repo.indexed_commit
        await self._db(self.manifest.mark_run_finished, repo.name, datetime.now(UTC), commit)
        summary = (
            f"indexed {tracker.files_sent} of {tracker.files_changed} changed files, "
            f"deleted {tracker.files_deleted}, {tracker.errors} errors"
        )
        if unwalkable:
            summary += (
                f"; {unwalkable} paths skipped (odd names, unreadable folders or too deep; see the log)"
            )
        if tracker.error_messages:
            summary += f"; last error: {tracker.error_messages[-1]}"
        if stopped:
            summary += (
                "; stopped early because a downstream service is unavailable — run again when it is back"
            )
        tracker.bump(phase=IndexPhase.DONE, message=summary)
        counts = await self._db(self.manifest.counts, repo.name)
        metrics.BACKLOG.labels(repo.name).set(counts.pending)
        metrics.LAST_RUN.labels(repo.name).set(time.time())
        metrics.RUN_SECONDS.labels(repo.name).set(time.monotonic() - tracker.started)
        log.info(
            "index.done",
            repo=repo.name,
            sent=tracker.files_sent,
            deleted=tracker.files_deleted,
            chunks=tracker.chunks,
            errors=tracker.errors,
            seconds=round(time.monotonic() - tracker.started, 3),
        )

    def _report_walk(self, repo: str, scanner: RepoScanner) -> int:
        """Log and count what the walk skipped for reasons other than ignore rules; returns the count."""
        report = scanner.last_walk
        if report.total:
            log.warning(
                "index.paths_skipped", repo=repo, skipped=dict(report.skipped), examples=report.examples
            )
            metrics.FILES.labels(repo, "unwalkable").inc(report.total)
        return report.total

    async def index_paths(self, name: str, paths: Sequence[str]) -> IndexPathsResult:
        """Re-index the given repo-relative (or absolute, inside the root) paths now.

        Raises PathOutsideRepo before doing anything when any path leaves the root. Folders are
        expanded; vanished or now-ignored paths are deleted downstream; refused ones are reported.
        """
        repo = await self.get_repo(name)
        self._require_tree(repo)
        root = Path(repo.path)
        relative = [confine(root, p) for p in paths]  # all-or-nothing validation
        async with self._lock(name):
            tracker = _Tracker(phase=IndexPhase.INDEXING, indexing_started=time.monotonic())
            wanted, gone, rejected = await asyncio.to_thread(self._select_paths, name, root, relative)
            recorded = await self._db(self.manifest.get_files, name, list(wanted))
            candidates = [
                Candidate(
                    file,
                    recorded.get(path),
                    recorded.get(path) is None or recorded[path].status is FileStatus.PENDING,
                )
                for path, file in sorted(wanted.items())
            ]
            tracker.bump(files_scanned=len(wanted), files_changed=len(candidates))
            all_files = await self._db(self.manifest.files, name)
            repo_files = frozenset(all_files) | frozenset(wanted)
            ctx = await self._context(repo, root, tracker, repo_files)
            try:
                await self._process(ctx, candidates)
                ctx.to_delete.extend(sorted(gone))
                await self._delete(ctx)
            finally:
                self._bump_generation(name)
        log.info(
            "index_paths.done",
            repo=name,
            paths=len(paths),
            sent=tracker.files_sent,
            deleted=tracker.files_deleted,
            errors=tracker.errors,
        )
        return IndexPathsResult(
            files_sent=tracker.files_sent,
            files_deleted=tracker.files_deleted,
            rejected=tuple(rejected),
            errors=tuple(tracker.error_messages),
        )

    def _select_paths(
        self, name: str, root: Path, relative: Sequence[str]
    ) -> tuple[dict[str, ScannedFile], set[str], list[str]]:
        """Blocking: which paths to (re)index, which recorded ones to delete, which to refuse and why."""
        scanner = self._scanner(root)
        wanted: dict[str, ScannedFile] = {}
        gone: set[str] = set()
        rejected: list[str] = []
        for rel in dict.fromkeys(relative):
            if rel == "" or (root / rel).is_dir():
                files = _walk_list(scanner, rel)
                wanted.update((f.path, f) for f in files)
                gone.update(p for p in self.manifest.files_under(name, rel) if p not in wanted)
                continue
            reason = scanner.skip_reason(rel)
            file = scanner.stat(rel) if reason is None else None
            if file is not None:
                wanted[rel] = file
                continue
            known = self.manifest.files_under(name, rel)  # a file, or a folder that vanished
            gone.update(known)
            if not known:
                rejected.append(f"{rel}: {reason or 'missing'}")
        return wanted, gone - set(wanted), rejected

    # -- status --------------------------------------------------------------------------------------

    async def status(self, name: str) -> RepoStatus:
        repo = await self.get_repo(name)
        root = Path(repo.path)
        counts = await self._db(self.manifest.counts, name)
        dirty = await self._dirty_files(name, root)
        head = await asyncio.to_thread(read_head, root)
        branch = await asyncio.to_thread(read_branch, root)
        limit = self.config.dirty_limit
        return RepoStatus(
            repo=repo,
            indexed_commit=repo.indexed_commit,
            head_commit=head,
            files=counts.files,
            chunks=counts.chunks,
            pending_files=counts.pending,
            running=self.is_running(name),
            dirty_files=tuple(dirty[:limit]),
            dirty_truncated=len(dirty) > limit,
            branch=branch,
        )

    async def _dirty_files(self, name: str, root: Path) -> list[str]:
        """Files changed on disk since indexed. One walk at a time per repo: callers that arrive during a
        walk wait for it and share its result (a walk of a large tree costs a few hundred ms of CPU)."""
        lock = self._dirty_locks.setdefault(name, asyncio.Lock())
        async with lock:
            generation = self._generation.get(name, 0)
            cached = self._dirty_cache.get(name)
            now = time.monotonic()
            if cached and cached[1] == generation and now - cached[0] < self.config.status_cache_seconds:
                return cached[2]
            recorded = await self._db(self.manifest.files, name)
            scanner = self._scanner(root)
            scanned: list[ScannedFile] = []
            if root.is_dir():
                try:
                    self._require_tree(await self.get_repo(name))
                    scanned = await asyncio.to_thread(_walk_list, scanner, "")
                except InvalidRepoPath as exc:
                    log.warning("status.tree_refused", repo=name, error=str(exc))
            # Skipped files (binary, generated) are dirty only when their stat changed, like any other.
            dirty = dirty_paths(scanned, recorded)
            self._dirty_cache[name] = (now, generation, dirty)
            return dirty

    def is_running(self, name: str) -> bool:
        lock = self._locks.get(name)
        return lock is not None and lock.locked()

    # -- watching ------------------------------------------------------------------------------------

    async def start_watching(self) -> None:
        """Watch every registered repo; saved files are re-indexed after a short debounce."""
        if self._watcher is not None:
            return
        from services.indexer.watch import RepoWatcher

        self._watcher = RepoWatcher(
            index_paths=self.index_paths,
            reindex=self.run_index,
            make_scanner=self._scanner,
            debounce_ms=self._watch_debounce_ms,
        )
        for repo in await self.list_repos():
            await self._watcher.watch(repo.name, Path(repo.path))

    async def stop_watching(self) -> None:
        watcher, self._watcher = self._watcher, None
        if watcher is not None:
            await watcher.close()

    @property
    def watching(self) -> frozenset[str]:
        return frozenset(self._watcher.watched) if self._watcher is not None else frozenset()

    async def warm_up(self) -> None:
        """Start the parse pool and import the parser now rather than on the first file."""
        from services.indexer.worker import warm_up

        for future in [asyncio.wrap_future(self._get_executor().submit(warm_up)) for _ in range(4)]:
            await future

    async def close(self) -> None:
        await self.stop_watching()
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    # -- the pipeline --------------------------------------------------------------------------------

    async def _context(
        self, repo: RepoRecord, root: Path, tracker: _Tracker, files: frozenset[str]
    ) -> _RunContext:
        go_module = await asyncio.to_thread(_read_go_module, root)
        index = await asyncio.to_thread(_file_index, files)
        return _RunContext(
            repo, root, tracker, _Recorder(self, repo.name, self.config.record_batch), index, go_module
        )

    async def _process(self, ctx: _RunContext, candidates: Sequence[Candidate]) -> None:
        tracker = ctx.tracker
        if candidates:
            await self._db(self.manifest.mark_pending, ctx.repo.name, [c.file.path for c in candidates])
        backlog = metrics.BACKLOG.labels(ctx.repo.name)
        backlog.set(len(candidates))
        tracker.bump(phase=IndexPhase.INDEXING, indexing_started=time.monotonic())
        slots = asyncio.Semaphore(self.config.max_in_flight)

        async def one(candidate: Candidate) -> None:
            try:
                outcome = await self._index_file(ctx, candidate)
                metrics.FILES.labels(ctx.repo.name, outcome).inc()
            finally:
                backlog.dec()
                slots.release()

        try:
            async with asyncio.TaskGroup() as group:
                for candidate in candidates:
                    await slots.acquire()
                    if ctx.stop.is_set():
                        slots.release()
                        break
                    group.create_task(one(candidate))
        finally:
            await ctx.recorder.flush()

    async def _index_file(self, ctx: _RunContext, candidate: Candidate) -> str:
        """Read, parse, send and record one file; returns what happened (a metrics label)."""
        tracker, path, previous = ctx.tracker, candidate.file.path, candidate.previous
        job = PrepareJob(
            repo=ctx.repo.name,
            root=str(ctx.root),
            path=path,
            known_hash=previous.hash
            if previous is not None and previous.status is FileStatus.INDEXED
            else "",
            force=candidate.force,
            max_file_bytes=self.config.max_file_bytes,
        )
        try:
            prepared = await self._prepare(job)
        except Exception as exc:  # a parser bug must not abort the run: the file stays pending
            log.warning("index.parse_failed", repo=ctx.repo.name, path=path, error=repr(exc))
            tracker.error(path, f"parse failed: {exc!r}")
            return "error"
        if prepared.outcome is Outcome.MISSING:
            ctx.to_delete.append(path)
            tracker.bump(files_changed=tracker.files_changed - 1)
            return "missing"
        if prepared.outcome is Outcome.UNCHANGED:  # touched, not modified: nothing to send
            assert previous is not None
            await ctx.recorder.add(
                replace(previous, mtime_ns=prepared.mtime_ns, size=prepared.size, status=FileStatus.INDEXED)
            )
            tracker.bump(files_changed=tracker.files_changed - 1)
            return "unchanged"
        try:
            if prepared.outcome is Outcome.SKIPPED:
                chunk_count = 0
                sent = await self._send_skipped(ctx, prepared, previous)
            else:
                sent = True
                tracker.bump(files_parsed=tracker.files_parsed + 1)
                chunk_count = await self._send_parsed(ctx, prepared)
        except DownstreamUnavailable as exc:
            ctx.stop.set()
            tracker.error(path, str(exc))
            return "error"
        except Exception as exc:
            log.warning("index.send_failed", repo=ctx.repo.name, path=path, error=repr(exc))
            tracker.error(path, f"send failed: {exc!r}")
            return "error"
        status = FileStatus.SKIPPED if prepared.outcome is Outcome.SKIPPED else FileStatus.INDEXED
        await ctx.recorder.add(
            FileRecord(path, prepared.mtime_ns, prepared.size, prepared.file_hash, chunk_count, status)
        )
        if prepared.outcome is Outcome.SKIPPED:
            tracker.skip(path, prepared.reason or "skipped")
        if not sent:  # a new binary/generated file: nothing went downstream
            tracker.bump(files_changed=tracker.files_changed - 1)
            return "skipped"
        tracker.bump(files_sent=tracker.files_sent + 1, chunks=tracker.chunks + chunk_count)
        metrics.CHUNKS.labels(ctx.repo.name).inc(chunk_count)
        return "sent"

    async def _send_parsed(self, ctx: _RunContext, prepared: Prepared) -> int:
        parsed: Any = prepared.parsed
        for warning in getattr(parsed, "warnings", ()) or ():
            log.info("index.parse_warning", repo=ctx.repo.name, path=prepared.path, warning=str(warning))
        chunks: tuple[Chunk, ...] = tuple(parsed.chunks)
        imports = tuple(
            self._resolve_imports(tuple(parsed.imports), parsed.language or "", ctx.repo_files, ctx.go_module)
        )
        await self._fan_out(
            ctx.repo.name, prepared.path, prepared.file_hash, chunks, tuple(parsed.call_sites), imports
        )
        return len(chunks)

    async def _send_skipped(self, ctx: _RunContext, prepared: Prepared, previous: FileRecord | None) -> bool:
        """Replace whatever may be stored downstream for the path with nothing; False if nothing could be."""
        if previous is None or previous.status is FileStatus.SKIPPED:
            return False
        await self._fan_out(ctx.repo.name, prepared.path, prepared.file_hash, (), (), ())
        return True

    async def _fan_out(
        self,
        repo: str,
        path: str,
        file_hash: str,
        chunks: tuple[Chunk, ...],
        call_sites: tuple,
        imports: tuple,
    ) -> None:
        symbols = tuple(chunk.symbol() for chunk in chunks)
        results = await asyncio.gather(
            self._with_retry(
                "search.upsert_file", lambda: self.search.upsert_file(repo, path, file_hash, chunks)
            ),
            self._with_retry(
                "graph.replace_file_graph",
                lambda: self.graph.replace_file_graph(repo, path, file_hash, symbols, call_sites, imports),
            ),
            return_exceptions=True,
        )
        _raise_first(results)  # both calls ran to the end; report the first failure

    async def _delete(self, ctx: _RunContext) -> None:
        paths = sorted(set(ctx.to_delete))
        if not paths or ctx.stop.is_set():
            return
        tracker = ctx.tracker
        tracker.bump(phase=IndexPhase.DELETING)
        size = self.config.delete_batch
        for start in range(0, len(paths), size):
            batch = paths[start : start + size]
            results = await asyncio.gather(
                self._with_retry(
                    "search.delete_files", partial(self.search.delete_files, ctx.repo.name, batch)
                ),
                self._with_retry(
                    "graph.delete_files", partial(self.graph.delete_files, ctx.repo.name, batch)
                ),
                return_exceptions=True,
            )
            failure = next((r for r in results if isinstance(r, BaseException)), None)
            if failure is not None:
                for path in batch:
                    tracker.error(path, f"delete failed: {failure!r}")
                if isinstance(failure, DownstreamUnavailable):
                    ctx.stop.set()
                    return
                continue
            await self._db(self.manifest.forget_files, ctx.repo.name, batch)
            tracker.bump(files_deleted=tracker.files_deleted + len(batch))
            metrics.FILES.labels(ctx.repo.name, "deleted").inc(len(batch))

    async def _with_retry(self, what: str, call: Callable[[], Awaitable[T]]) -> T:
        """Retry SinkUnavailable with exponential backoff and jitter; other errors fail at once."""
        delay = self.config.retry_initial_seconds
        attempts = max(1, self.config.send_attempts)
        for attempt in range(1, attempts + 1):
            try:
                return await call()
            except SinkUnavailable as exc:
                if attempt == attempts:
                    raise DownstreamUnavailable(
                        f"{what} unavailable after {attempts} attempts: {exc}"
                    ) from exc
                log.debug("index.retry", call=what, attempt=attempt, delay=round(delay, 2), error=str(exc))
                await self._sleep(delay * random.uniform(0.8, 1.2))
                delay = min(delay * 2, self.config.retry_max_seconds)
        raise AssertionError("unreachable")

    async def _prepare(self, job: PrepareJob) -> Prepared:
        loop = asyncio.get_running_loop()
        for _ in range(2):
            executor = self._get_executor()
            try:
                return await loop.run_in_executor(executor, partial(prepare_file, self._parse, job))
            except BrokenProcessPool:
                # A worker died (e.g. a grammar crashed); start a fresh pool and try the file once more.
                log.warning("index.pool_broken", path=job.path)
                if self._executor is executor:
                    executor.shutdown(wait=False, cancel_futures=True)
                    self._executor = None
        raise RuntimeError(f"parser process crashed twice on {job.path}")

    def _get_executor(self) -> Executor:
        if self._executor is None:
            self._executor = self._executor_factory()
        return self._executor

    def _scanner(self, root: Path, accept: Callable[[str], bool] | None = None) -> RepoScanner:
        return RepoScanner(
            root,
            max_file_bytes=self.config.max_file_bytes,
            extra_ignores=self.config.extra_ignores,
            accept=accept or self._accept,
        )

    def _lock(self, name: str) -> asyncio.Lock:
        return self._locks.setdefault(name, asyncio.Lock())

    async def _db(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(fn, *args)


def _raise_first(results: Sequence[object]) -> None:
    for result in results:
        if isinstance(result, BaseException):
            raise result


def _walk_list(scanner: RepoScanner, under: str) -> list[ScannedFile]:
    return list(scanner.walk(under=under))


def _has_known_language(path: str) -> bool:
    from services.indexer.domain.languages import detect_language

    return detect_language(path) is not None


def _read_go_module(root: Path) -> str | None:
    from services.indexer.domain.imports import read_go_module

    try:
        confine(root, "go.mod")
    except (PathOutsideRepo, OSError, RuntimeError):
        return None
    data = read_regular_file(root / "go.mod", 1024 * 1024)
    return None if data is None else read_go_module(data.decode("utf-8", errors="replace"))


def _file_index(files: frozenset[str]) -> AbstractSet[str]:
    from services.indexer.domain.imports import FileIndex

    return FileIndex(files)


def _default_import_resolver(
    imports: Sequence[Import], language: str, repo_files: AbstractSet[str], go_module: str | None
) -> Sequence[Import]:
    from services.indexer.domain.imports import resolve_imports

    return resolve_imports(imports, language, repo_files, go_module=go_module)
