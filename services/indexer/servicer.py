"""IndexerService over gRPC: proto ⇄ domain, domain errors → status codes; nothing else."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from reporecall.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from services.indexer.domain.model import (
    IndexPhase,
    IndexProgress,
    InvalidRepoPath,
    RepoNameTaken,
    RepoNotFound,
    RepoRecord,
)
from services.indexer.domain.scanner import PathOutsideRepo
from services.indexer.engine import IndexerEngine
from services.indexer.ports import ManifestUnwritable

SERVICE_NAME = indexer_pb2.DESCRIPTOR.services_by_name["IndexerService"].full_name
MAX_PATHS = 10_000
MAX_MESSAGE_CHARS = 1000

_PHASES = {
    IndexPhase.SCANNING: indexer_pb2.INDEX_PHASE_SCANNING,
    IndexPhase.INDEXING: indexer_pb2.INDEX_PHASE_INDEXING,
    IndexPhase.DELETING: indexer_pb2.INDEX_PHASE_DELETING,
    IndexPhase.DONE: indexer_pb2.INDEX_PHASE_DONE,
}


class IndexerServicer(indexer_pb2_grpc.IndexerServiceServicer):
    """Callers: the gateway only. Who may register, re-point, sync or remove (admins) is decided there;
    this service refuses what no caller may do: taking over a name, paths outside the roots, git URLs
    the policy refuses."""

    def __init__(self, engine: IndexerEngine) -> None:
        self._engine = engine

    async def RegisterRepo(
        self, request: indexer_pb2.RegisterRepoRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.RegisterRepoResponse:
        if not request.path and not request.git_url:
            await _abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                "path: give the absolute path of the working tree (or git_url to clone)",
            )
        try:
            if request.git_url:
                record = await self._engine.register_git_repo(request.git_url, request.name)
            else:
                record = await self._engine.register_repo(request.path, request.name)
        except RepoNameTaken as exc:
            await _abort(context, grpc.StatusCode.ALREADY_EXISTS, str(exc))
        except InvalidRepoPath as exc:
            await _abort(context, grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        except ManifestUnwritable as exc:
            await _abort(context, grpc.StatusCode.FAILED_PRECONDITION, str(exc))
        return indexer_pb2.RegisterRepoResponse(repo=_repo_pb(record, self._engine.is_managed(record)))

    async def SyncRepo(
        self, request: indexer_pb2.SyncRepoRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.SyncRepoResponse:
        await _require_repo(request.repo, context)
        try:
            pulled, final = await self._engine.sync_repo(request.repo)
            status = await self._engine.status(request.repo)
        except RepoNotFound as exc:
            await _abort(context, grpc.StatusCode.NOT_FOUND, str(exc))
        except (InvalidRepoPath, ManifestUnwritable) as exc:
            await _abort(context, grpc.StatusCode.FAILED_PRECONDITION, str(exc))
        return indexer_pb2.SyncRepoResponse(
            pulled=pulled,
            head_commit=status.head_commit,
            files_sent=final.files_sent,
            files_deleted=final.files_deleted,
            errors=final.errors,
        )

    async def ListRepos(
        self, request: indexer_pb2.ListReposRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.ListReposResponse:
        repos = await self._engine.list_repos()
        return indexer_pb2.ListReposResponse(repos=[_repo_pb(r, self._engine.is_managed(r)) for r in repos])

    async def RemoveRepo(
        self, request: indexer_pb2.RemoveRepoRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.RemoveRepoResponse:
        await _require_repo(request.repo, context)
        try:
            removed = await self._engine.remove_repo(request.repo)
        except ManifestUnwritable as exc:
            await _abort(context, grpc.StatusCode.FAILED_PRECONDITION, str(exc))
        return indexer_pb2.RemoveRepoResponse(removed=removed)

    async def IndexRepo(
        self, request: indexer_pb2.IndexRepoRequest, context: grpc.aio.ServicerContext
    ) -> AsyncIterator[indexer_pb2.IndexRepoResponse]:
        await _require_repo(request.repo, context)
        try:
            async for progress in self._engine.index_repo(request.repo, full=request.full):
                yield _progress_pb(progress)
        except RepoNotFound as exc:
            await _abort(context, grpc.StatusCode.NOT_FOUND, str(exc))
        except (InvalidRepoPath, ManifestUnwritable) as exc:
            await _abort(context, grpc.StatusCode.FAILED_PRECONDITION, str(exc))

    async def IndexPaths(
        self, request: indexer_pb2.IndexPathsRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.IndexPathsResponse:
        await _require_repo(request.repo, context)
        if len(request.paths) > MAX_PATHS:
            await _abort(
                context,
                grpc.StatusCode.INVALID_ARGUMENT,
                f"paths: {len(request.paths)} paths given, at most {MAX_PATHS}; index the repo instead",
            )
        try:
            result = await self._engine.index_paths(request.repo, list(request.paths))
        except RepoNotFound as exc:
            await _abort(context, grpc.StatusCode.NOT_FOUND, str(exc))
        except PathOutsideRepo as exc:
            await _abort(context, grpc.StatusCode.INVALID_ARGUMENT, f"paths: {exc}")
        except (InvalidRepoPath, ManifestUnwritable) as exc:
            await _abort(context, grpc.StatusCode.FAILED_PRECONDITION, str(exc))
        # Files whose send failed stay pending for the next run; they are reported beside the refusals.
        return indexer_pb2.IndexPathsResponse(
            files_sent=result.files_sent,
            files_deleted=result.files_deleted,
            rejected=[*result.rejected, *result.errors],
        )

    async def RepoStatus(
        self, request: indexer_pb2.RepoStatusRequest, context: grpc.aio.ServicerContext
    ) -> indexer_pb2.RepoStatusResponse:
        await _require_repo(request.repo, context)
        try:
            status = await self._engine.status(request.repo)
        except RepoNotFound as exc:
            await _abort(context, grpc.StatusCode.NOT_FOUND, str(exc))
        except ManifestUnwritable as exc:
            await _abort(context, grpc.StatusCode.FAILED_PRECONDITION, str(exc))
        response = indexer_pb2.RepoStatusResponse(
            repo=_repo_pb(status.repo),
            indexed_commit=status.indexed_commit,
            head_commit=status.head_commit,
            files=status.files,
            chunks=status.chunks,
            dirty_files=list(status.dirty_files),
            running=status.running,
            pending_files=status.pending_files,
            branch=status.branch,
            dirty_truncated=status.dirty_truncated,
        )
        if status.repo.last_run_started is not None:
            response.last_run_started.CopyFrom(_timestamp(status.repo.last_run_started))
        if status.repo.last_run_finished is not None:
            response.last_run_finished.CopyFrom(_timestamp(status.repo.last_run_finished))
        return response


async def _abort(context: grpc.aio.ServicerContext, code: grpc.StatusCode, message: str) -> None:
    """Abort with `message` cut to a size every client accepts: messages quote the input, and a quoted
    100 kB name would exceed gRPC's 16 kB metadata limit and reach the client as RESOURCE_EXHAUSTED."""
    if len(message) > MAX_MESSAGE_CHARS:
        message = message[: MAX_MESSAGE_CHARS - 1] + "…"
    await context.abort(code, message)


async def _require_repo(name: str, context: grpc.aio.ServicerContext) -> None:
    if not name:
        await _abort(
            context, grpc.StatusCode.INVALID_ARGUMENT, "repo: give the name of a registered repository"
        )


def _repo_pb(record: RepoRecord, managed: bool = False) -> indexer_pb2.Repo:
    return indexer_pb2.Repo(name=record.name, path=record.path, remote=record.remote, managed=managed)


def _progress_pb(progress: IndexProgress) -> indexer_pb2.IndexRepoResponse:
    return indexer_pb2.IndexRepoResponse(
        phase=_PHASES[progress.phase],
        files_scanned=progress.files_scanned,
        files_changed=progress.files_changed,
        files_parsed=progress.files_parsed,
        files_sent=progress.files_sent,
        files_deleted=progress.files_deleted,
        chunks=progress.chunks,
        errors=progress.errors,
        eta_seconds=progress.eta_seconds,
        message=progress.message,
        skipped_reasons=dict(progress.skipped_reasons),
        skipped_files=[indexer_pb2.SkippedFile(path=p, reason=r) for p, r in progress.skipped_files],
    )


def _timestamp(value: datetime) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(value)
    return stamp
