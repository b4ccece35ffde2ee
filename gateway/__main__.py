"""python -m gateway — run the gateway: HTTP (hooks, MCP, JSON API) and gRPC (Context) in one event loop."""

from __future__ import annotations

import asyncio
import socket

import structlog
import uvicorn

from gateway.auth import TokenAuthenticator
from gateway.backends import Backends
from gateway.context import ContextService
from gateway.http import build_http_app
from gateway.repos import RepoDirectory
from gateway.servicer import GatewayServicer
from gateway.settings import GatewaySettings
from kit.logging import configure_logging
from kit.service import fail, start_grpc_server, start_metrics, termination_event
from kit.settings import ConfigError, load_settings
from reporecall.gateway.v1 import gateway_pb2_grpc

log = structlog.get_logger("gateway")


def bind_http(settings: GatewaySettings) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((settings.http_host, settings.http_port))
    except OSError as exc:
        sock.close()
        raise ConfigError(
            f"REPORECALL_HTTP_PORT={settings.http_port}",
            f"cannot listen on {settings.http_host}:{settings.http_port} ({exc.strerror})",
            "stop the other process or choose another port (reporecall up --base-port)",
        ) from None
    sock.listen(512)
    return sock


async def serve(settings: GatewaySettings) -> None:
    stop = termination_event()
    metrics_port = start_metrics(settings)
    sock = bind_http(settings)
    backends = Backends(settings.indexer_addr, settings.search_addr, settings.graph_addr, settings.memory_addr)
    repos = RepoDirectory(backends)
    service = ContextService(backends, repos, settings.budget_tokens, settings.backend_deadline_ms / 1000)
    app = build_http_app(settings, backends, service, TokenAuthenticator(settings.local_token))
    grpc_server, health, grpc_port = await start_grpc_server(
        "gateway", settings,
        [(gateway_pb2_grpc.add_GatewayServiceServicer_to_server, GatewayServicer(service),
          "reporecall.gateway.v1.GatewayService")],
    )
    config = uvicorn.Config(app, log_config=None, access_log=False, lifespan="on", timeout_graceful_shutdown=5)
    http = uvicorn.Server(config)
    http.install_signal_handlers = lambda: None  # type: ignore[method-assign]  # we own the signals
    http_task = asyncio.create_task(http.serve(sockets=[sock]))
    log.info("service.started", http=f"{settings.http_host}:{sock.getsockname()[1]}", grpc_port=grpc_port,
             metrics_port=metrics_port)
    await stop.wait()
    log.info("service.stopping")
    await health.enter_graceful_shutdown()
    http.should_exit = True
    await grpc_server.stop(5)
    await http_task
    await backends.close()
    log.info("service.stopped")


def main() -> None:
    try:
        settings = load_settings(GatewaySettings)
    except ConfigError as exc:
        fail(str(exc), "gateway")
    configure_logging("gateway", settings.log_format, settings.log_level)
    try:
        asyncio.run(serve(settings))
    except ConfigError as exc:
        fail(str(exc), "gateway")


if __name__ == "__main__":
    main()
