"""Test doubles and builders for the search tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import grpc
import numpy as np
import xxhash

from kit.domain import Chunk, ChunkKind
from reporecall.search.v1 import search_pb2_grpc
from services.search.domain.keywords import words
from services.search.engine import SearchEngine
from services.search.servicer import SearchServicer


class WordHashEmbedder:
    """A deterministic `Embedder`: the sum of one pseudo-random unit vector per word, normalised.

    Texts sharing words are similar, so ranking tests can reason about it; no model, no threads.
    """

    def __init__(self, dimension: int = 64, name: str = "word-hash-test") -> None:
        self.dimension = dimension
        self.name = name
        self.calls: list[int] = []
        self.fail_next = 0

    def _word(self, word: str) -> np.ndarray:
        rng = np.random.default_rng(xxhash.xxh3_64_intdigest(word.encode()))
        v = rng.standard_normal(self.dimension).astype(np.float32)
        return v / np.linalg.norm(v)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.fail_next:
            self.fail_next -= 1
            raise RuntimeError("embedder down (test)")
        self.calls.append(len(texts))
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in words(text) or ["empty"]:
                out[i] += self._word(word)
            out[i] /= max(float(np.linalg.norm(out[i])), 1e-9)
        return out

    def close(self) -> None:
        return None


def chunk(
    name: str,
    path: str = "src/app.py",
    *,
    repo: str = "repo",
    kind: ChunkKind = ChunkKind.FUNCTION,
    body: str = "",
    doc: str = "",
    language: str = "python",
    is_test: bool = False,
    qualified_name: str = "",
    start_line: int = 1,
    lines: int = 0,
    ordinal: int = 0,
) -> Chunk:
    content = body or f"def {name}():\n    pass\n"
    end = start_line + (lines or content.count("\n") + 1) - 1
    return Chunk(
        id=f"{path}#{qualified_name or name}#{ordinal}",
        repo=repo,
        path=path,
        language=language,
        kind=kind,
        name=name,
        qualified_name=qualified_name or name,
        start_line=start_line,
        end_line=end,
        content=content,
        content_hash=xxhash.xxh3_64_hexdigest(content.encode()),
        signature=content.splitlines()[0] if content else "",
        doc=doc,
        is_test=is_test,
    )


@asynccontextmanager
async def served(engine: SearchEngine, workers: int = 2) -> AsyncIterator[search_pb2_grpc.SearchServiceStub]:
    """The engine behind a SearchServicer on an in-process gRPC server (port 0), and a stub on it. The
    servicer is closed afterwards; the engine stays the caller's."""
    servicer = SearchServicer(engine, workers=workers)
    server = grpc.aio.server()
    search_pb2_grpc.add_SearchServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    try:
        async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
            yield search_pb2_grpc.SearchServiceStub(channel)
    finally:
        await server.stop(None)
        servicer.close()
