"""Composition root: settings → backend clients → operations → the HTTP app (hooks, API, /mcp)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from mcp.server.mcpserver import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from gateway.adapters.grpc_backends import GrpcBackends
from gateway.auth import TokenAuthenticator, TokenStore, token_store_path
from gateway.context import ContextService
from gateway.entrypoints.http import build_http_app
from gateway.entrypoints.mcp import build_mcp
from gateway.operations import Operations
from gateway.repos import RepoDirectory
from gateway.settings import GatewaySettings


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
        settings.indexer_addr, settings.search_addr, settings.graph_addr, settings.memory_addr
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
