"""The sinks over gRPC: search's UpsertFile/DeleteFiles/DeleteRepo and graph's ReplaceFileGraph/….

Transient failures (the peer is down, overloaded or slow) become `SinkUnavailable`, which the engine
retries with backoff; any other status is a refusal and is raised as `SinkRejected`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

import grpc

from kit.convert import call_site_to_pb, chunk_to_pb, import_to_pb, symbol_to_pb
from kit.domain import CallSite, Chunk, Import, Symbol
from reporecall.graph.v1 import graph_pb2, graph_pb2_grpc
from reporecall.search.v1 import search_pb2, search_pb2_grpc
from services.indexer.ports import SinkUnavailable

R = TypeVar("R")

_TRANSIENT = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.DEADLINE_EXCEEDED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.ABORTED,
        grpc.StatusCode.CANCELLED,
    }
)

# A file's upsert may carry up to 1 MiB of content plus embeddings work on the far side.
DEFAULT_TIMEOUT = 60.0


class SinkRejected(Exception):
    """The downstream service refused the request; retrying the same request will not help."""


async def _call(what: str, call: Callable[[], Awaitable[R]]) -> R:
    try:
        return await call()
    except grpc.aio.AioRpcError as exc:
        message = f"{what}: {exc.code().name} {exc.details() or ''}".strip()
        if exc.code() in _TRANSIENT:
            raise SinkUnavailable(message) from None
        raise SinkRejected(message) from None


class GrpcSearchSink:
    """ports.SearchSink over `reporecall.search.v1.SearchService`."""

    def __init__(self, channel: grpc.aio.Channel, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self._stub = search_pb2_grpc.SearchServiceStub(channel)
        self._timeout = timeout

    async def upsert_file(self, repo: str, path: str, file_hash: str, chunks: Sequence[Chunk]) -> None:
        request = search_pb2.UpsertFileRequest(
            repo=repo, path=path, file_hash=file_hash, chunks=[chunk_to_pb(c) for c in chunks]
        )
        await _call("search.UpsertFile", lambda: self._stub.UpsertFile(request, timeout=self._timeout))

    async def delete_files(self, repo: str, paths: Sequence[str]) -> None:
        request = search_pb2.DeleteFilesRequest(repo=repo, paths=list(paths))
        await _call("search.DeleteFiles", lambda: self._stub.DeleteFiles(request, timeout=self._timeout))

    async def delete_repo(self, repo: str) -> None:
        request = search_pb2.DeleteRepoRequest(repo=repo)
        await _call("search.DeleteRepo", lambda: self._stub.DeleteRepo(request, timeout=self._timeout))


class GrpcGraphSink:
    """ports.GraphSink over `reporecall.graph.v1.GraphService`."""

    def __init__(self, channel: grpc.aio.Channel, *, timeout: float = DEFAULT_TIMEOUT) -> None:
        self._stub = graph_pb2_grpc.GraphServiceStub(channel)
        self._timeout = timeout

    async def replace_file_graph(
        self,
        repo: str,
        path: str,
        file_hash: str,
        symbols: Sequence[Symbol],
        call_sites: Sequence[CallSite],
        imports: Sequence[Import],
    ) -> None:
        request = graph_pb2.ReplaceFileGraphRequest(
            repo=repo,
            path=path,
            file_hash=file_hash,
            symbols=[symbol_to_pb(s) for s in symbols],
            call_sites=[call_site_to_pb(c) for c in call_sites],
            imports=[import_to_pb(i) for i in imports],
        )
        await _call(
            "graph.ReplaceFileGraph", lambda: self._stub.ReplaceFileGraph(request, timeout=self._timeout)
        )

    async def delete_files(self, repo: str, paths: Sequence[str]) -> None:
        request = graph_pb2.DeleteFilesRequest(repo=repo, paths=list(paths))
        await _call("graph.DeleteFiles", lambda: self._stub.DeleteFiles(request, timeout=self._timeout))

    async def delete_repo(self, repo: str) -> None:
        request = graph_pb2.DeleteRepoRequest(repo=repo)
        await _call("graph.DeleteRepo", lambda: self._stub.DeleteRepo(request, timeout=self._timeout))
