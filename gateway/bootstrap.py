"""Composition root: settings → gRPC backends (the ports) → context service → operations → entrypoints
(HTTP hooks and API, /mcp, gRPC Context). `build_service` hands the process to kit.service like every
other service: the HTTP server starts in on_start and stops in on_stop."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass

import structlog
import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.adapters.grpc_backends import GrpcBackends
from gateway.adapters.grpc_gateway import SERVICE_NAME, add_gateway_servicer
from gateway.auth import TokenAuthenticator, TokenStore, token_store_path
from gateway.context import ContextService
from gateway.entrypoints.grpc import GatewayServicer
from gateway.entrypoints.http import build_http_app
from gateway.entrypoints.mcp import build_mcp
from gateway.operations import Operations
from gateway.repos import RepoDirectory
from gateway.settings import GatewaySettings
from gateway.slow_clients import header_deadline_protocol
from kit import tokens
from kit.service import ServiceParts
from kit.settings import ConfigError

log = structlog.get_logger("gateway")


class AsgiEndpoint:
    """Lets a Starlette Route hand the request, path untouched, to another ASGI app (the MCP app)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)


@dataclass
class Gateway:
    backends: GrpcBackends
    ops: Operations
    auth: TokenAuthenticator
    mcp: MCPServer
    app: ASGIApp


def bootstrap(settings: GatewaySettings, auth: TokenAuthenticator | None = None) -> Gateway:
    """Everything the gateway serves, wired; `auth` defaults to the local token + the token store."""
    backends = GrpcBackends(
        settings.indexer_addr,
        settings.search_addr,
        settings.graph_addr,
        settings.memory_addr,
        service_token=settings.service_token,
    )
    repos = RepoDirectory(backends.indexer)
    service = ContextService(backends, repos, settings.budget_tokens, settings.backend_deadline_ms / 1000)
    if auth is None:
        auth = TokenAuthenticator(settings.local_token, TokenStore(token_store_path(settings.data_dir)))
    ops = Operations.build(backends, repos, service)
    mcp = build_mcp(ops)
    mcp_app = mcp.streamable_http_app(
        streamable_http_path="/mcp",
        stateless_http=True,
        json_response=True,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: object) -> AsyncIterator[None]:
        async with mcp.session_manager.run():
            yield

    app = build_http_app(
        settings,
        ops,
        auth,
        lifespan=lifespan,
        extra_routes=[Route("/mcp", endpoint=AsgiEndpoint(mcp_app), methods=["GET", "POST", "DELETE"])],
    )
    return Gateway(backends, ops, auth, mcp, app)


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


def http_server(settings: GatewaySettings, app: ASGIApp) -> uvicorn.Server:
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
    server = uvicorn.Server(config)
    # The process owns SIGTERM/SIGINT (kit.service's termination event): uvicorn must not take them over.
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
    return server


def build_service(settings: GatewaySettings) -> ServiceParts:
    """The gateway process for kit.service.run_service: gRPC Context, plus HTTP started on_start."""
    sock = bind_http(settings)
    gateway = bootstrap(settings)
    http = http_server(settings, gateway.app)
    running: list[asyncio.Task[None]] = []

    async def start_http() -> None:
        # The token encoding loads before the first hook can arrive, not inside its reply (~0.5 s).
        await asyncio.to_thread(tokens.warm)
        running.append(asyncio.create_task(http.serve(sockets=[sock])))
        log.info("http.started", http=f"{settings.http_host}:{sock.getsockname()[1]}")

    async def stop_http() -> None:
        http.should_exit = True
        for task in running:
            await task
        await gateway.backends.close()

    return ServiceParts(
        servicers=[(add_gateway_servicer, GatewayServicer(gateway.ops), SERVICE_NAME)],
        on_start=start_http,
        on_stop=stop_http,
        extra={"gateway": gateway},
    )
