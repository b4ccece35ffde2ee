"""Fixtures for the memory service tests: engines on a temp folder with a clock the test moves."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from services.memory.adapters.sqlite_index import SqliteMemoryIndex
from services.memory.bootstrap import memory_engine
from services.memory.engine import EngineConfig, MemoryEngine


class FakeClock:
    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2025, 3, 1, 12, 0, tzinfo=UTC))


@pytest.fixture
def memory_root(tmp_path: Path) -> Path:
    return tmp_path / "memory"


EngineFactory = Callable[..., MemoryEngine]


@pytest.fixture
def make_engine(tmp_path: Path, memory_root: Path, clock: FakeClock) -> Iterator[EngineFactory]:
    """Engines over the same memory folder, each with its own index (as separate processes would have)."""
    engines: list[MemoryEngine] = []

    def make(
        name: str = "a", *, config: EngineConfig | None = None, claude_projects_dir: Path | None = None
    ) -> MemoryEngine:
        engine = memory_engine(
            memory_root,
            SqliteMemoryIndex(tmp_path / f"index-{name}.db"),
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
