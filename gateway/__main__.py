"""python -m gateway — run the gateway: HTTP (hooks, MCP, JSON API) and gRPC (Context) in one event loop."""

from __future__ import annotations

import asyncio
import contextlib
import socket

import structlog
import uvicorn

from gateway.bootstrap import bootstrap
from gateway.entrypoints.grpc import GatewayServicer
from gateway.settings import GatewaySettings
from gateway.slow_clients import header_deadline_protocol
from kit.logging import configure_logging
from kit.service import fail, start_grpc_server, start_metrics, termination_event
from kit.settings import ConfigError, load_settings
from reporecall.gateway.v1 import gateway_pb2_grpc

log = structlog.get_logger("gateway")


def bind_http(settings: GatewaySettings) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    # Accepted connections inherit this: without it, Nagle + delayed ACK stall small replies on
    # kept-alive connections by ~40 ms.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
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
    gateway = bootstrap(settings)
    backends, ops, app = gateway.backends, gateway.ops, gateway.app
    grpc_server, health, grpc_port = await start_grpc_server(
        "gateway",
        settings,
        [
            (
                gateway_pb2_grpc.add_GatewayServiceServicer_to_server,
                GatewayServicer(ops),
                "reporecall.gateway.v1.GatewayService",
            )
        ],
    )
    tls = bool(settings.tls_cert_file and settings.tls_key_file)
    config = uvicorn.Config(
        app,
        log_config=None,
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=5,
        # Slow clients: the request head must arrive within header_timeout_seconds and fit in
        # max_header_bytes; the body's deadline and cap are RequestContext's.
        http=header_deadline_protocol(settings.header_timeout_seconds),
        h11_max_incomplete_event_size=settings.max_header_bytes,
        ssl_certfile=settings.tls_cert_file if tls else None,
        ssl_keyfile=settings.tls_key_file if tls else None,
    )
    http = uvicorn.Server(config)
    # This process owns SIGTERM/SIGINT (termination_event): uvicorn must not take them over.
    http.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
    http_task = asyncio.create_task(http.serve(sockets=[sock]))
    log.info(
        "service.started",
        http=f"{settings.http_host}:{sock.getsockname()[1]}",
        grpc_port=grpc_port,
        metrics_port=metrics_port,
    )
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
