"""Run one gRPC service process: settings → logging → bootstrap → server with health, reflection, metrics.

Every service's `__main__` is `run_service(name, SettingsClass, bootstrap)`. Start-up problems (a bad
setting, a port in use) end the process with exit code 2 and one line naming the setting and the fix.
SIGTERM/SIGINT: health goes NOT_SERVING, the server stops accepting and drains, then stores close.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import grpc
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection
from threadpoolctl import threadpool_info, threadpool_limits

from kit.lifetime import die_with_parent
from kit.logging import configure_logging
from kit.metrics import ServerInterceptor, start_metrics_server, watch_data_dir
from kit.service_auth import ServiceAuthInterceptor
from kit.settings import (
    ConfigError,
    ServiceSettings,
    SettingsT,
    load_settings,
    require_service_token,
    restrict_umask,
)

log = structlog.get_logger("service")

DRAIN_SECONDS = 5.0


@dataclass
class ServiceParts:
    """What a service's bootstrap hands to the runner."""

    # (add_XServicer_to_server, servicer instance, full service name such as "reporecall.search.v1.SearchService")
    servicers: list[tuple[Callable[[Any, grpc.aio.Server], None], Any, str]]
    on_start: Callable[[], Awaitable[None]] | None = None
    on_stop: Callable[[], Awaitable[None]] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def fail(message: str, service: str) -> None:
    print(f"reporecall-{service}: {message}", file=sys.stderr, flush=True)
    raise SystemExit(2)


def run_service(
    name: str, settings_cls: type[SettingsT], bootstrap: Callable[[SettingsT], ServiceParts]
) -> None:
    restrict_umask()
    try:
        settings = load_settings(settings_cls)
    except ConfigError as exc:
        fail(str(exc), name)
    configure_logging(name, settings.log_format, settings.log_level)
    try:
        asyncio.run(serve(name, settings, bootstrap))
    except ConfigError as exc:
        fail(str(exc), name)


async def start_grpc_server(
    name: str, settings: ServiceSettings, servicers: list[tuple[Callable[..., None], Any, str]]
) -> tuple[grpc.aio.Server, HealthServicer, int]:
    # Metrics first, so refused callers are counted; then the deployment's credentials (when configured:
    # in-process test servers run without; real processes must have them, see `serve`).
    interceptors: list[grpc.aio.ServerInterceptor] = [ServerInterceptor()]
    if settings.service_token:
        interceptors.append(ServiceAuthInterceptor(settings.service_token))
    server = grpc.aio.server(
        interceptors=interceptors,
        options=[
            ("grpc.max_receive_message_length", 64 * 1024 * 1024),
            ("grpc.max_send_message_length", 64 * 1024 * 1024),
            ("grpc.so_reuseport", 0),
        ],
    )
    health = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    names = [service_name for _, _, service_name in servicers]
    for add, servicer, _ in servicers:
        add(servicer, server)
    reflection.enable_server_reflection([*names, reflection.SERVICE_NAME, "grpc.health.v1.Health"], server)
    try:
        port = server.add_insecure_port(settings.listen)
    except RuntimeError as exc:
        raise ConfigError(
            f"REPORECALL_LISTEN={settings.listen}",
            f"cannot listen ({exc}); the port is probably in use",
            "stop the other process or choose another port (reporecall up --base-port)",
        ) from None
    if port == 0 and not settings.listen.startswith("unix:"):
        raise ConfigError(
            f"REPORECALL_LISTEN={settings.listen}",
            "cannot listen; the port is in use",
            "stop the other process or choose another port (reporecall up --base-port)",
        )
    await server.start()
    for service_name in ["", *names]:
        await health.set(service_name, health_pb2.HealthCheckResponse.SERVING)
    return server, health, port


def start_metrics(settings: ServiceSettings) -> int:
    if settings.metrics_port < 0:
        return -1
    watch_data_dir(str(settings.data_dir))
    try:
        return start_metrics_server(settings.metrics_port, settings.metrics_host)
    except OSError as exc:
        raise ConfigError(
            f"REPORECALL_METRICS_PORT={settings.metrics_port}",
            f"cannot serve metrics ({exc.strerror})",
            "choose a free port, 0 for any, -1 to disable",
        ) from None


def termination_event() -> asyncio.Event:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    return stop


def single_threaded_blas() -> threadpool_limits:
    """Hold every BLAS library this process has loaded so far (numpy's OpenBLAS, which the search service's
    bootstrap loads) to one thread; a library first loaded later is not held. A service answers many
    requests at once on its own threads, and each product it computes is small (a query against the off-topic
    model's ~10,000 labelled prompts): spread over BLAS threads, such a product finishes no sooner on two busy
    cores, and the threads spin waiting for the next one. Measured on the search service (bench/README
    "Twelfth session"): CPU per search 11.3 → 6.2 ms, wall 5.7 → 4.9 ms."""
    return threadpool_limits(limits=1, user_api="blas")


def blas_threads() -> list[int]:
    """The thread count of each BLAS library loaded in this process (what `service.started` logs)."""
    return [int(lib["num_threads"]) for lib in threadpool_info() if lib.get("user_api") == "blas"]


async def serve(name: str, settings: SettingsT, bootstrap: Callable[[SettingsT], ServiceParts]) -> None:
    require_service_token(settings)
    stop = termination_event()
    die_with_parent(settings.parent_pid)  # after the SIGTERM handler: a dead parent means a clean stop
    metrics_port = start_metrics(settings)
    parts = bootstrap(settings)
    single_threaded_blas()  # after bootstrap: the libraries it loaded are the ones to hold
    if parts.on_start:
        await parts.on_start()
    server, health, port = await start_grpc_server(name, settings, parts.servicers)
    log.info(
        "service.started",
        listen=settings.listen,
        port=port,
        metrics_port=metrics_port,
        data_dir=str(settings.data_dir),
        blas_threads=blas_threads(),
    )
    await stop.wait()
    log.info("service.stopping")
    await health.enter_graceful_shutdown()
    await server.stop(DRAIN_SECONDS)
    if parts.on_stop:
        await parts.on_stop()
    log.info("service.stopped")
