"""The per-file pipeline of an index run: read and parse off the loop → send to both sinks → record.

Consistency rule (DESIGN.md §4): a file is the unit. Before sending, its manifest row is marked
pending; it is recorded with its new hash only after BOTH search and graph acknowledged the complete
new state (replace semantics). A crash, a cancelled run or a failed send therefore leaves the file
pending, and the next run sends it again whatever its hash — so the final state downstream always
converges on the state of a clean run. Deletions are forgotten only after both acknowledged, too.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

import structlog

from kit.domain import Chunk
from services.indexer import metrics
from services.indexer.domain.changes import Candidate
from services.indexer.domain.model import (
    DownstreamUnavailable,
    FileRecord,
    FileStatus,
    IndexPhase,
    RepoRecord,
)
from services.indexer.engine.config import EngineConfig, ImportResolver
from services.indexer.engine.downstream import Downstream
from services.indexer.engine.progress import RunTracker
from services.indexer.engine.state import blocking
from services.indexer.ports import FileTree, Manifest
from services.indexer.worker import Outcome, ParseFn, Prepared, PrepareJob, prepare_file

log = structlog.get_logger("indexer")
_GO_MOD_MAX_BYTES = 1024 * 1024


class Recorder:
    """Buffers acknowledged manifest rows and writes them in batches (a lost batch only means a resend)."""

    def __init__(self, manifest: Manifest, repo: str, batch: int) -> None:
        self._manifest, self._repo, self._batch = manifest, repo, batch
        self._rows: list[FileRecord] = []

    async def add(self, row: FileRecord) -> None:
        self._rows.append(row)
        if len(self._rows) >= self._batch:
            await self.flush()

    async def flush(self) -> None:
        rows, self._rows = self._rows, []
        if rows:
            await blocking(self._manifest.record_files, self._repo, rows)


@dataclass
class RunContext:
    repo: RepoRecord
    root: Path
    tracker: RunTracker
    recorder: Recorder
    repo_files: AbstractSet[str]  # a FileIndex, built once per run for import resolution
    go_module: str | None
    to_delete: list[str] = field(default_factory=list)
    stop: asyncio.Event = field(default_factory=asyncio.Event)  # set when a downstream is down


class FilePipeline:
    def __init__(
        self,
        manifest: Manifest,
        downstream: Downstream,
        config: EngineConfig,
        *,
        executor_factory: Callable[[], Executor],
        parse: ParseFn,
        resolve_imports: ImportResolver,
        open_tree: Callable[[Path], FileTree],
    ) -> None:
        self._manifest = manifest
        self._downstream = downstream
        self._config = config
        self._executor_factory = executor_factory
        self._executor: Executor | None = None
        self.parse = parse
        self._resolve_imports = resolve_imports
        self._open_tree = open_tree

    async def context(
        self, repo: RepoRecord, root: Path, tracker: RunTracker, files: frozenset[str]
    ) -> RunContext:
        go_module = await asyncio.to_thread(self._read_go_module, root)
        index = await asyncio.to_thread(_file_index, files)
        recorder = Recorder(self._manifest, repo.name, self._config.record_batch)
        return RunContext(repo, root, tracker, recorder, index, go_module)

    def _read_go_module(self, root: Path) -> str | None:
        from services.indexer.domain.imports import read_go_module

        data = self._open_tree(root).read_file("go.mod", _GO_MOD_MAX_BYTES)
        return None if data is None else read_go_module(data.decode("utf-8", errors="replace"))

    async def process(self, ctx: RunContext, candidates: Sequence[Candidate]) -> None:
        """Index the candidates, at most `max_in_flight` at once; stops early when a downstream is down."""
        tracker = ctx.tracker
        if candidates:
            await blocking(self._manifest.mark_pending, ctx.repo.name, [c.file.path for c in candidates])
        backlog = metrics.BACKLOG.labels(ctx.repo.name)
        backlog.set(len(candidates))
        tracker.bump(phase=IndexPhase.INDEXING, indexing_started=time.monotonic())
        slots = asyncio.Semaphore(self._config.max_in_flight)

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

    async def _index_file(self, ctx: RunContext, candidate: Candidate) -> str:
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
            max_file_bytes=self._config.max_file_bytes,
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
        return await self._send_and_record(ctx, path, prepared, previous)

    async def _send_and_record(
        self, ctx: RunContext, path: str, prepared: Prepared, previous: FileRecord | None
    ) -> str:
        tracker = ctx.tracker
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

    async def _send_parsed(self, ctx: RunContext, prepared: Prepared) -> int:
        parsed: Any = prepared.parsed
        for warning in getattr(parsed, "warnings", ()) or ():
            log.info("index.parse_warning", repo=ctx.repo.name, path=prepared.path, warning=str(warning))
        chunks: tuple[Chunk, ...] = tuple(parsed.chunks)
        imports = tuple(
            self._resolve_imports(tuple(parsed.imports), parsed.language or "", ctx.repo_files, ctx.go_module)
        )
        await self._downstream.replace_file(
            ctx.repo.name, prepared.path, prepared.file_hash, chunks, tuple(parsed.call_sites), imports
        )
        return len(chunks)

    async def _send_skipped(self, ctx: RunContext, prepared: Prepared, previous: FileRecord | None) -> bool:
        """Replace whatever may be stored downstream for the path with nothing; False if nothing could be."""
        if previous is None or previous.status is FileStatus.SKIPPED:
            return False
        await self._downstream.replace_file(ctx.repo.name, prepared.path, prepared.file_hash, (), (), ())
        return True

    async def delete(self, ctx: RunContext) -> None:
        """Delete `ctx.to_delete` downstream in batches, then forget each acknowledged batch."""
        paths = sorted(set(ctx.to_delete))
        if not paths or ctx.stop.is_set():
            return
        tracker = ctx.tracker
        tracker.bump(phase=IndexPhase.DELETING)
        size = self._config.delete_batch
        for start in range(0, len(paths), size):
            batch = paths[start : start + size]
            failure = await self._downstream.delete_files(ctx.repo.name, batch)
            if failure is not None:
                for path in batch:
                    tracker.error(path, f"delete failed: {failure!r}")
                if isinstance(failure, DownstreamUnavailable):
                    ctx.stop.set()
                    return
                continue
            await blocking(self._manifest.forget_files, ctx.repo.name, batch)
            tracker.bump(files_deleted=tracker.files_deleted + len(batch))
            metrics.FILES.labels(ctx.repo.name, "deleted").inc(len(batch))

    async def _prepare(self, job: PrepareJob) -> Prepared:
        loop = asyncio.get_running_loop()
        for _ in range(2):
            executor = self.executor()
            try:
                return await loop.run_in_executor(executor, partial(prepare_file, self.parse, job))
            except BrokenProcessPool:
                # A worker died (e.g. a grammar crashed); start a fresh pool and try the file once more.
                log.warning("index.pool_broken", path=job.path)
                if self._executor is executor:
                    executor.shutdown(wait=False, cancel_futures=True)
                    self._executor = None
        raise RuntimeError(f"parser process crashed twice on {job.path}")

    def executor(self) -> Executor:
        if self._executor is None:
            self._executor = self._executor_factory()
        return self._executor

    def shutdown(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None


def _file_index(files: frozenset[str]) -> AbstractSet[str]:
    from services.indexer.domain.imports import FileIndex

    return FileIndex(files)
