"""Shared pieces of the memory security tests: engines over a temp folder, a clock the test moves, and
the memory service over a real in-process gRPC server."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import grpc
import pytest

from reporecall.memory.v1 import memory_pb2_grpc
from services.memory.adapters.sqlite_index import SqliteMemoryIndex
from services.memory.bootstrap import memory_engine
from services.memory.engine import EngineConfig, MemoryEngine
from services.memory.servicer import MemoryServicer

REPO = "github.com/acme/shop"


class FakeClock:
    def __init__(self) -> None:
        self.now = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


EngineFactory = Callable[..., MemoryEngine]


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def memory_root(tmp_path: Path) -> Path:
    return tmp_path / "memory"


@pytest.fixture
def make_engine(tmp_path: Path, memory_root: Path, clock: FakeClock) -> Iterator[EngineFactory]:
    engines: list[MemoryEngine] = []

    def make(config: EngineConfig | None = None, claude_projects_dir: Path | None = None) -> MemoryEngine:
        engine = memory_engine(
            memory_root,
            SqliteMemoryIndex(memory_root / f"index-{len(engines)}.db"),
            config=config,
            clock=clock,
            claude_projects_dir=claude_projects_dir,
        )
        engine.open()
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.close()


@pytest.fixture
def engine(make_engine: EngineFactory) -> MemoryEngine:
    return make_engine()


@pytest.fixture
async def stub(engine: MemoryEngine) -> AsyncIterator[memory_pb2_grpc.MemoryServiceStub]:
    servicer = MemoryServicer(engine, workers=2)
    server = grpc.aio.server()
    memory_pb2_grpc.add_MemoryServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield memory_pb2_grpc.MemoryServiceStub(channel)
    await server.stop(None)
    servicer.close()
