"""SearchService over grpc.aio: proto ⇄ domain, domain errors → status codes. Nothing else.

Engine calls block (SQLite, HTTP to stores, ONNX), so they run in a bounded thread pool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import grpc

from kit.convert import chunk_from_pb, chunk_to_pb, kind_from_pb
from kit.engine_calls import Answer, EngineCalls
from reporecall.search.v1 import search_pb2, search_pb2_grpc
from services.search.domain.model import (
    InvalidRequest,
    NotFound,
    SearchFilters,
    SearchHit,
    SearchMode,
    StoreFull,
    StoreUnavailable,
    SymbolMatch,
    TestFilter,
)
from services.search.engine import MAX_LIMIT, SearchEngine

SERVICE_NAME = search_pb2.DESCRIPTOR.services_by_name["SearchService"].full_name
T = TypeVar("T")

DEFAULT_SEARCH_LIMIT = 10
DEFAULT_SYMBOL_LIMIT = 20
DEFAULT_PROFILE_SYMBOLS = 3000

_MODES = {
    search_pb2.SEARCH_MODE_UNSPECIFIED: SearchMode.HYBRID,
    search_pb2.SEARCH_MODE_HYBRID: SearchMode.HYBRID,
    search_pb2.SEARCH_MODE_KEYWORD: SearchMode.KEYWORD,
    search_pb2.SEARCH_MODE_VECTOR: SearchMode.VECTOR,
}
_TESTS = {
    search_pb2.TEST_FILTER_UNSPECIFIED: TestFilter.INCLUDE,
    search_pb2.TEST_FILTER_EXCLUDE: TestFilter.EXCLUDE,
    search_pb2.TEST_FILTER_ONLY: TestFilter.ONLY,
}
_MATCHES = {
    search_pb2.SYMBOL_MATCH_UNSPECIFIED: SymbolMatch.EXACT,
    search_pb2.SYMBOL_MATCH_EXACT: SymbolMatch.EXACT,
    search_pb2.SYMBOL_MATCH_PREFIX: SymbolMatch.PREFIX,
    search_pb2.SYMBOL_MATCH_FUZZY: SymbolMatch.FUZZY,
}


def _enum(table: dict[int, T], value: int, field: str) -> T:
    try:
        return table[value]
    except KeyError:
        raise InvalidRequest(f"{field}: unknown value {value}") from None


def _limit(value: int, default: int, field: str = "limit") -> int:
    if value == 0:
        return default
    if not 1 <= value <= MAX_LIMIT:
        raise InvalidRequest(f"{field}: {value} is out of range 1..{MAX_LIMIT} (0 means {default})")
    return value


def filters_from_pb(message: search_pb2.SearchFilters) -> SearchFilters:
    kinds = []
    for i, kind in enumerate(message.kinds):
        try:
            kinds.append(kind_from_pb(kind))
        except ValueError as exc:
            raise InvalidRequest(f"filters.kinds[{i}]: {exc}") from None
    return SearchFilters.of(
        languages=[lang for lang in message.languages if lang],
        kinds=kinds,
        path_prefix=message.path_prefix,
        tests=_enum(_TESTS, message.tests, "filters.tests"),
    )


def hit_to_pb(hit: SearchHit) -> search_pb2.SearchHit:
    s = hit.signals
    return search_pb2.SearchHit(
        chunk=chunk_to_pb(hit.chunk),
        score=hit.score,
        signals=search_pb2.SignalScores(
            keyword_rank=s.keyword_rank,
            keyword_score=s.keyword_score,
            vector_rank=s.vector_rank,
            vector_score=s.vector_score,
            fused=s.fused,
            adjustment=s.adjustment,
        ),
    )


class SearchServicer(search_pb2_grpc.SearchServiceServicer):
    def __init__(self, engine: SearchEngine, workers: int = 8) -> None:
        self._engine = engine
        self._calls = EngineCalls(
            "search",
            workers,
            {
                InvalidRequest: grpc.StatusCode.INVALID_ARGUMENT,
                NotFound: grpc.StatusCode.NOT_FOUND,
                StoreFull: Answer(grpc.StatusCode.RESOURCE_EXHAUSTED, "error"),
                StoreUnavailable: Answer(grpc.StatusCode.UNAVAILABLE, "warning"),
            },
        )

    def close(self) -> None:
        self._calls.close()

    async def _parse(self, context: grpc.aio.ServicerContext, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except (InvalidRequest, ValueError) as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, str(exc))
        raise AssertionError("unreachable: context.abort raises")

    async def UpsertFile(self, request, context):  # noqa: N802
        def parse() -> list:
            chunks = []
            for i, message in enumerate(request.chunks):
                try:
                    chunks.append(chunk_from_pb(message))
                except ValueError as exc:
                    raise InvalidRequest(f"chunks[{i}].{exc}") from None
            return chunks

        chunks = await self._parse(context, parse)
        stored = await self._calls.run(context, self._engine.upsert_file, request.repo, request.path, chunks)
        return search_pb2.UpsertFileResponse(chunks_stored=stored)

    async def DeleteFiles(self, request, context):  # noqa: N802
        removed = await self._calls.run(context, self._engine.delete_files, request.repo, list(request.paths))
        return search_pb2.DeleteFilesResponse(chunks_deleted=removed)

    async def DeleteRepo(self, request, context):  # noqa: N802
        removed = await self._calls.run(context, self._engine.delete_repo, request.repo)
        return search_pb2.DeleteRepoResponse(chunks_deleted=removed)

    async def Search(self, request, context):  # noqa: N802
        filters, limit, mode = await self._parse(
            context,
            lambda: (
                filters_from_pb(request.filters),
                _limit(request.limit, DEFAULT_SEARCH_LIMIT),
                _enum(_MODES, request.mode, "mode"),
            ),
        )
        result = await self._calls.run(
            context, self._engine.search, request.query, request.repo, filters, limit, mode
        )
        return search_pb2.SearchResponse(
            hits=[hit_to_pb(h) for h in result.hits], partial=result.partial, off_topic=result.off_topic
        )

    async def GetChunks(self, request, context):  # noqa: N802
        chunks = await self._calls.run(context, self._engine.get_chunks, request.repo, list(request.ids))
        return search_pb2.GetChunksResponse(chunks=[chunk_to_pb(c) for c in chunks])

    async def FindSymbols(self, request, context):  # noqa: N802
        match, limit = await self._parse(
            context,
            lambda: (_enum(_MATCHES, request.match, "match"), _limit(request.limit, DEFAULT_SYMBOL_LIMIT)),
        )
        found = await self._calls.run(
            context, self._engine.find_symbols, request.repo, request.name, match, limit
        )
        return search_pb2.FindSymbolsResponse(symbols=[chunk_to_pb(c) for c in found])

    async def Stats(self, request, context):  # noqa: N802
        stats = await self._calls.run(context, self._engine.stats, request.repo)
        return search_pb2.StatsResponse(
            files=stats.files,
            chunks=stats.chunks,
            vectors=stats.vectors,
            embed_backlog=stats.embed_backlog,
            keyword_backend=stats.keyword_backend,
            vector_backend=stats.vector_backend,
            embedder=stats.embedder,
        )

    async def FileChunks(self, request, context):  # noqa: N802
        chunks = await self._calls.run(context, self._engine.file_chunks, request.repo, request.path)
        return search_pb2.FileChunksResponse(chunks=[chunk_to_pb(c) for c in chunks])

    async def FileLines(self, request, context):  # noqa: N802
        lines = await self._calls.run(context, self._engine.file_lines, request.repo, list(request.paths))
        return search_pb2.FileLinesResponse(lines=lines)

    async def Feedback(self, request, context):  # noqa: N802
        score = await self._calls.run(
            context, self._engine.feedback, request.repo, request.chunk_id, request.useful, request.query
        )
        return search_pb2.FeedbackResponse(score=score)

    async def RepoProfile(self, request, context):  # noqa: N802
        max_symbols = request.max_symbols or DEFAULT_PROFILE_SYMBOLS
        profile = await self._calls.run(context, self._engine.profile, request.repo, max_symbols)
        return search_pb2.RepoProfileResponse(
            files=[
                search_pb2.ProfileFile(path=f.path, language=f.language, is_test=f.is_test)
                for f in profile.files
            ],
            symbols=[chunk_to_pb(c) for c in profile.symbols],
        )
