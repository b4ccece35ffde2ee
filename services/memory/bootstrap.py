"""Composition root: settings → memory folders + index (chosen by URL, here only) → engine → servicer.

The only place that names the memory service's adapters: the engine sees ports (services/memory/ports.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path

from kit import tokens
from kit.metrics import TimedStore
from kit.service import ServiceParts
from kit.settings import ConfigError, check_url_scheme
from reporecall.memory.v1 import memory_pb2_grpc

from .adapters.claude_memory import ClaudeProjects
from .adapters.memory_folder import MemoryRoot
from .adapters.sqlite_index import SqliteMemoryIndex
from .adapters.watcher import MemoryWatcher
from .engine import EngineConfig, MemoryEngine
from .engine.config import utc_now
from .ports import MemoryIndex
from .servicer import SERVICE_NAME, MemoryServicer
from .settings import MemorySettings

_SCHEMES = {"": "SQLite at <memory_dir>/index.db", "sqlite": "SQLite file"}


def build_memory_index(url: str, memory_root: Path) -> MemoryIndex:
    """ "" → <memory_root>/index.db; sqlite:///abs/path.db → that file."""
    check_url_scheme("memory_index_url", url, _SCHEMES)
    if not url:
        return SqliteMemoryIndex(memory_root / "index.db")
    rest = url.removeprefix("sqlite://").lstrip("/")
    if not url.startswith("sqlite:///") or not rest:
        raise ConfigError(
            f"REPORECALL_MEMORY_INDEX_URL={url}",
            "a sqlite URL needs a file path",
            "use sqlite:///absolute/path/memory.db",
        )
    return SqliteMemoryIndex(Path("/" + rest))


def memory_engine(
    memory_root: Path,
    index: MemoryIndex,
    *,
    config: EngineConfig | None = None,
    clock: Callable[[], datetime] = utc_now,
    claude_projects_dir: Path | None = None,
) -> MemoryEngine:
    """An engine over the memory folders under `memory_root` (created 0700), with a file watcher, and Claude
    Code's memory folders when given the projects folder (a local install)."""
    return MemoryEngine(
        MemoryRoot(memory_root),
        index,
        config=config,
        clock=clock,
        claude=ClaudeProjects(claude_projects_dir) if claude_projects_dir is not None else None,
        watcher=MemoryWatcher,
    )


def build_engine(settings: MemorySettings) -> MemoryEngine:
    root = settings.memory_root()
    config = EngineConfig(
        default_budget_tokens=min(settings.memory_default_budget_tokens, settings.memory_max_budget_tokens),
        max_budget_tokens=settings.memory_max_budget_tokens,
        working_keep=settings.working_keep,
        working_max_age=timedelta(hours=settings.working_ttl_hours),
        working_max_sessions_per_user=settings.working_max_sessions_per_user,
        working_max_per_user=settings.working_max_per_user,
    )
    return memory_engine(
        root,
        TimedStore(build_memory_index(settings.memory_index_url, root), "memory"),
        config=config,
        claude_projects_dir=settings.claude_projects_dir if settings.read_claude_memory else None,
    )


def bootstrap(settings: MemorySettings) -> ServiceParts:
    engine = build_engine(settings)
    servicer = MemoryServicer(engine, workers=settings.memory_workers)

    async def on_start() -> None:
        tokens.warm()  # observe counts a note's tokens: the encoding loads now, not in the first hook's
        engine.open()
        for repo, path in settings.claude_repos.items():
            engine.attach_claude_memory(repo, path)
        if settings.memory_watch:
            engine.start_watching(settings.memory_resync_seconds)

    async def on_stop() -> None:
        servicer.close()
        engine.close()

    return ServiceParts(
        servicers=[(memory_pb2_grpc.add_MemoryServiceServicer_to_server, servicer, SERVICE_NAME)],
        on_start=on_start,
        on_stop=on_stop,
        extra={"engine": engine},
    )
