"""Index runs: scan → detect changes → the file pipeline → delete what vanished; and re-indexing the
paths a watcher or a client named. One run per repo at a time (RepoLocks)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncGenerator, Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

import structlog

from services.indexer import metrics
from services.indexer.domain.changes import Candidate, plan_run
from services.indexer.domain.model import FileStatus, IndexPathsResult, IndexPhase, IndexProgress, RepoRecord
from services.indexer.domain.parser_version import parser_fingerprint
from services.indexer.domain.scanner import ScannedFile, TreeScanner
from services.indexer.engine.config import EngineConfig
from services.indexer.engine.pipeline import FilePipeline
from services.indexer.engine.progress import RunTracker
from services.indexer.engine.registry import RepoRegistry
from services.indexer.engine.state import RepoLocks, blocking
from services.indexer.ports import GitRepos, Manifest

log = structlog.get_logger("indexer")

ScannerFactory = Callable[[Path, Callable[[str], bool] | None], TreeScanner]


class IndexRuns:
    def __init__(
        self,
        manifest: Manifest,
        registry: RepoRegistry,
        pipeline: FilePipeline,
        git: GitRepos,
        locks: RepoLocks,
        scanner: ScannerFactory,
        accept: Callable[[str], bool],
        config: EngineConfig,
    ) -> None:
        self._manifest = manifest
        self._registry = registry
        self._pipeline = pipeline
        self._git = git
        self._locks = locks
        self._scanner = scanner
        self._accept = accept
        self._config = config

    async def index_repo(self, name: str, full: bool = False) -> AsyncGenerator[IndexProgress, None]:
        """Index the repo, yielding progress snapshots; the last one has phase DONE.

        Stopping the iteration cancels the run; what was acknowledged so far stays recorded.
        """
        repo = await self._registry.get_repo(name)
        self._registry.require_tree(repo)
        tracker = RunTracker()
        yield tracker.snapshot()
        task = asyncio.create_task(self._locked_run(repo, full, tracker))
        seen = tracker.version
        try:
            while not task.done():
                await asyncio.wait({task}, timeout=self._config.progress_interval_seconds)
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

    async def _locked_run(self, repo: RepoRecord, full: bool, tracker: RunTracker) -> None:
        async with self._locks.lock(repo.name):
            try:
                await self._run(repo, full, tracker)
            finally:
                self._locks.bump_generation(repo.name)

    async def _scan(self, repo: RepoRecord, tracker: RunTracker) -> tuple[list[ScannedFile], int]:
        """Walk the tree (off the loop), counting progress; the files and how many paths the walk skipped."""

        def accept(path: str) -> bool:
            accepted = self._accept(path)
            if not accepted:
                tracker.skip(path, "unsupported file type")
            return accepted

        scanner = self._scanner(Path(repo.path), accept)

        def scan() -> list[ScannedFile]:
            files: list[ScannedFile] = []
            for file in scanner.walk():
                files.append(file)
                if len(files) % 256 == 0:
                    tracker.files_scanned = len(files)
                    tracker.version += 1
            return files

        scanned = await asyncio.to_thread(scan)
        return scanned, _report_walk(repo.name, scanner)

    async def _run(self, repo: RepoRecord, full: bool, tracker: RunTracker) -> None:
        # As the run before this one (queued behind it on the lock) left it: its commit and parser.
        latest: RepoRecord | None = await blocking(self._manifest.get_repo, repo.name)
        repo = latest or repo
        root = Path(repo.path)
        await blocking(self._manifest.mark_run_started, repo.name, datetime.now(UTC))
        recorded = await blocking(self._manifest.files, repo.name)
        scanned, unwalkable = await self._scan(repo, tracker)
        parser = parser_fingerprint()
        reparse = bool(recorded) and repo.parser != parser  # chunked by another parser: chunk it again
        plan = plan_run(scanned, recorded, full=full or reparse)
        tracker.bump(files_scanned=len(scanned), files_changed=len(plan.candidates))
        log.info(
            "index.planned",
            repo=repo.name,
            scanned=len(scanned),
            candidates=len(plan.candidates),
            vanished=len(plan.vanished),
            full=full,
            reparse=reparse,
        )
        ctx = await self._pipeline.context(repo, root, tracker, frozenset(f.path for f in scanned))
        await self._pipeline.process(ctx, plan.candidates)
        ctx.to_delete.extend(plan.vanished)
        await self._pipeline.delete(ctx)
        stopped = ctx.stop.is_set()
        head = await asyncio.to_thread(self._git.head, root)
        commit = head if tracker.errors == 0 and not stopped else repo.indexed_commit
        # Every file went through this parser unless the run stopped (a failed one is pending: retried by it).
        parsed_by = repo.parser if stopped else parser
        await blocking(self._manifest.mark_run_finished, repo.name, datetime.now(UTC), commit, parsed_by)
        tracker.bump(phase=IndexPhase.DONE, message=tracker.summary(unwalkable, stopped))
        counts = await blocking(self._manifest.counts, repo.name)
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

    async def index_paths(self, name: str, paths: Sequence[str]) -> IndexPathsResult:
        """Re-index the given repo-relative (or absolute, inside the root) paths now.

        Raises PathOutsideRepo before doing anything when any path leaves the root. Folders are
        expanded; vanished or now-ignored paths are deleted downstream; refused ones are reported.
        """
        repo = await self._registry.get_repo(name)
        self._registry.require_tree(repo)
        root = Path(repo.path)
        scanner = self._scanner(root, None)
        relative = [scanner.tree.confine(p) for p in paths]  # all-or-nothing validation
        async with self._locks.lock(name):
            tracker = RunTracker(phase=IndexPhase.INDEXING, indexing_started=time.monotonic())
            wanted, gone, rejected = await asyncio.to_thread(self._select_paths, name, scanner, relative)
            recorded = await blocking(self._manifest.get_files, name, list(wanted))
            candidates = [
                Candidate(
                    file,
                    recorded.get(path),
                    recorded.get(path) is None or recorded[path].status is FileStatus.PENDING,
                )
                for path, file in sorted(wanted.items())
            ]
            tracker.bump(files_scanned=len(wanted), files_changed=len(candidates))
            all_files = await blocking(self._manifest.files, name)
            repo_files = frozenset(all_files) | frozenset(wanted)
            ctx = await self._pipeline.context(repo, root, tracker, repo_files)
            try:
                await self._pipeline.process(ctx, candidates)
                ctx.to_delete.extend(sorted(gone))
                await self._pipeline.delete(ctx)
            finally:
                self._locks.bump_generation(name)
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
        self, name: str, scanner: TreeScanner, relative: Sequence[str]
    ) -> tuple[dict[str, ScannedFile], set[str], list[str]]:
        """Blocking: which paths to (re)index, which recorded ones to delete, which to refuse and why."""
        wanted: dict[str, ScannedFile] = {}
        gone: set[str] = set()
        rejected: list[str] = []
        for rel in dict.fromkeys(relative):
            if rel == "" or scanner.tree.dir_key(rel) is not None:
                files = list(scanner.walk(under=rel))
                wanted.update((f.path, f) for f in files)
                gone.update(p for p in self._manifest.files_under(name, rel) if p not in wanted)
                continue
            reason = scanner.skip_reason(rel)
            file = scanner.stat(rel) if reason is None else None
            if file is not None:
                wanted[rel] = file
                continue
            known = self._manifest.files_under(name, rel)  # a file, or a folder that vanished
            gone.update(known)
            if not known:
                rejected.append(f"{rel}: {reason or 'missing'}")
        return wanted, gone - set(wanted), rejected


def _report_walk(repo: str, scanner: TreeScanner) -> int:
    """Log and count what the walk skipped for reasons other than ignore rules; returns the count."""
    report = scanner.last_walk
    if report.total:
        log.warning("index.paths_skipped", repo=repo, skipped=dict(report.skipped), examples=report.examples)
        metrics.FILES.labels(repo, "unwalkable").inc(report.total)
    return report.total
