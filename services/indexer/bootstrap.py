"""Composition root: settings → manifest, sink channels, parse pool → engine → servicer.

The only place that names the indexer's adapters: the engine sees ports (services/indexer/ports.py)."""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from typing import Any

from kit.grpc_client import open_channel
from kit.service import ServiceParts
from kit.settings import ConfigError
from reporecall.indexer.v1 import indexer_pb2_grpc
from services.indexer.adapters.fs_tree import FsTree
from services.indexer.adapters.git_repo import GitCli, Resolver
from services.indexer.adapters.git_repo import resolve_host as dns_resolve
from services.indexer.adapters.grpc_sinks import GrpcGraphSink, GrpcSearchSink
from services.indexer.adapters.sqlite_manifest import SqliteManifest, manifest_path_from_url
from services.indexer.engine import EngineConfig, IndexerEngine
from services.indexer.ports import GraphSink, Manifest, SearchSink
from services.indexer.servicer import SERVICE_NAME, IndexerServicer
from services.indexer.settings import IndexerSettings
from services.indexer.watch import RepoWatcher
from services.indexer.worker import warm_up


def build_manifest(url: str, data_dir: Path) -> SqliteManifest:
    try:
        path = manifest_path_from_url(url, data_dir / "indexer" / "manifest.db")
    except ValueError as exc:
        raise ConfigError(
            f"REPORECALL_MANIFEST_URL={url}", str(exc), "use sqlite:///absolute/path or leave empty"
        ) from None
    return SqliteManifest(path)


def build_parse_executor(kind: str, workers: int) -> Callable[[], Executor]:
    """A factory, so the engine can replace a pool whose worker died.

    Processes are spawned, not forked: forking a process that runs grpc.aio threads is unsafe.
    """
    if kind == "thread":
        return lambda: ThreadPoolExecutor(workers, thread_name_prefix="indexer-parse")
    context = multiprocessing.get_context("spawn")
    return lambda: ProcessPoolExecutor(workers, mp_context=context, initializer=warm_up)


def indexer_engine(
    manifest: Manifest,
    search: SearchSink,
    graph: GraphSink,
    *,
    config: EngineConfig | None = None,
    resolve_host: Resolver = dns_resolve,
    **options: Any,
) -> IndexerEngine:
    """An engine over working trees on disk, git for clones (held to `config`'s URL policy) and the file
    watcher; `options` go to IndexerEngine as they are (parse, executor_factory, watch_debounce_ms, …)."""
    config = config or EngineConfig()
    git = GitCli(
        config.git_protocols, allow_private_hosts=config.git_allow_private_hosts, resolve=resolve_host
    )
    return IndexerEngine(
        manifest, search, graph, git=git, open_tree=FsTree, watcher=RepoWatcher, config=config, **options
    )


def engine_config(settings: IndexerSettings) -> EngineConfig:
    extra = tuple(p.strip() for p in settings.extra_ignores.split(",") if p.strip())
    return EngineConfig(
        max_file_bytes=settings.max_file_bytes,
        max_in_flight=settings.max_in_flight,
        send_attempts=settings.send_attempts,
        extra_ignores=extra,
        clone_root=settings.data_dir / "repos",
        repo_roots=tuple(Path(r.strip()).resolve() for r in settings.repo_roots.split(",") if r.strip()),
        pull_interval_seconds=settings.pull_interval_seconds,
        git_protocols=frozenset(p.strip() for p in settings.git_allow_protocols.split(",") if p.strip()),
        git_allow_private_hosts=settings.git_allow_private_hosts,
    )


def bootstrap(settings: IndexerSettings) -> ServiceParts:
    manifest = build_manifest(settings.manifest_url, settings.data_dir)
    search_channel = open_channel(settings.search_addr, token=settings.service_token)
    graph_channel = open_channel(settings.graph_addr, token=settings.service_token)
    engine = indexer_engine(
        manifest,
        GrpcSearchSink(search_channel, timeout=settings.send_timeout_s),
        GrpcGraphSink(graph_channel, timeout=settings.send_timeout_s),
        config=engine_config(settings),
        executor_factory=build_parse_executor(settings.parse_executor, settings.parse_workers),
        watch_debounce_ms=settings.watch_debounce_ms,
    )
    servicer = IndexerServicer(engine)

    background: list[asyncio.Task[None]] = []

    async def on_start() -> None:
        await engine.warm_up()
        if settings.watch:
            await engine.start_watching()
        background.append(asyncio.create_task(engine.pull_forever()))

    async def on_stop() -> None:
        for task in background:
            task.cancel()
        await engine.close()
        await search_channel.close()
        await graph_channel.close()
        manifest.close()

    return ServiceParts(
        servicers=[(indexer_pb2_grpc.add_IndexerServiceServicer_to_server, servicer, SERVICE_NAME)],
        on_start=on_start,
        on_stop=on_stop,
        extra={"engine": engine},
    )
