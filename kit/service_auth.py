"""The suite's service credentials: the gRPC services trust only callers that present the deployment's secret.

Every process of one deployment shares one secret (`REPORECALL_SERVICE_TOKEN`): `reporecall up` keeps it in
`<data-dir>/service-token` (0600), docker compose reads it from `.env` (deploy/make-env.sh). Clients send it in
the `x-reporecall-service-token` metadata entry; servers compare it in constant time and answer anything else
with UNAUTHENTICATED. Only the standard health service stays open, so load balancers, compose healthchecks and
`up`'s readiness probe need no secret (it tells nothing but SERVING / NOT_SERVING). Reflection is not open.
"""

from __future__ import annotations

import hmac
import os
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc

METADATA_KEY = "x-reporecall-service-token"
TOKEN_FILE = "service-token"
_OPEN_PREFIXES = ("/grpc.health.v1.Health/",)


def new_token() -> str:
    return "rrs_" + secrets.token_urlsafe(32)


def load_or_create_token(data_dir: Path) -> str:
    """The deployment's secret kept in the data dir (created owner-only on first use)."""
    path = data_dir / TOKEN_FILE
    if path.exists():
        return path.read_text().strip()
    token = new_token()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(token + "\n")
    return token


def read_token(data_dir: Path) -> str:
    """The secret of the suite whose data dir this is (for tools and tests that call services directly)."""
    return (data_dir / TOKEN_FILE).read_text().strip()


def _refuse(kind: str) -> grpc.RpcMethodHandler:
    async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await context.abort(
            grpc.StatusCode.UNAUTHENTICATED, "this service accepts only the suite's own callers"
        )

    async def stream(request: Any, context: grpc.aio.ServicerContext) -> Any:
        await context.abort(
            grpc.StatusCode.UNAUTHENTICATED, "this service accepts only the suite's own callers"
        )
        yield  # pragma: no cover - abort raises

    if kind == "unary_stream":
        return grpc.unary_stream_rpc_method_handler(stream)
    if kind == "stream_unary":
        return grpc.stream_unary_rpc_method_handler(unary)
    if kind == "stream_stream":
        return grpc.stream_stream_rpc_method_handler(stream)
    return grpc.unary_unary_rpc_method_handler(unary)


def _kind(handler: grpc.RpcMethodHandler) -> str:
    return ("stream_" if handler.request_streaming else "unary_") + (
        "stream" if handler.response_streaming else "unary"
    )


class ServiceAuthInterceptor(grpc.aio.ServerInterceptor):
    """Refuses every call that does not carry the deployment's secret (health checks excepted)."""

    def __init__(self, token: str) -> None:
        if not token:
            raise ValueError("a service token is required")
        self._token = token.encode()

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Any],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        if details.method.startswith(_OPEN_PREFIXES):
            return await continuation(details)
        presented = ""
        for key, value in details.invocation_metadata or ():
            if key == METADATA_KEY:
                presented = value if isinstance(value, str) else value.decode(errors="replace")
                break
        handler = await continuation(details)
        if handler is None or hmac.compare_digest(presented.encode(), self._token):
            return handler  # unknown methods stay UNIMPLEMENTED
        return _refuse(_kind(handler))


def _with_token(details: Any, token: str, factory: Callable[..., Any]) -> Any:
    metadata = [(k, v) for k, v in (details.metadata or ()) if k != METADATA_KEY]
    metadata.append((METADATA_KEY, token))
    return factory(details, metadata)


def _aio_details(details: grpc.aio.ClientCallDetails, metadata: list[tuple[str, str]]) -> Any:
    return grpc.aio.ClientCallDetails(
        details.method,
        details.timeout,
        grpc.aio.Metadata(*metadata),
        details.credentials,
        details.wait_for_ready,
    )


class _AioTokenUnaryUnary(grpc.aio.UnaryUnaryClientInterceptor):
    def __init__(self, token: str) -> None:
        self._token = token

    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(_with_token(details, self._token, _aio_details), request)


class _AioTokenUnaryStream(grpc.aio.UnaryStreamClientInterceptor):
    def __init__(self, token: str) -> None:
        self._token = token

    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return await continuation(_with_token(details, self._token, _aio_details), request)


def aio_client_interceptors(token: str) -> list[grpc.aio.ClientInterceptor]:
    """Interceptors that send `token` on every call of an asyncio channel (none when there is no token)."""
    return [_AioTokenUnaryUnary(token), _AioTokenUnaryStream(token)] if token else []


class _SyncDetails(grpc.ClientCallDetails):  # type: ignore[misc]
    def __init__(self, details: Any, metadata: list[tuple[str, str]]) -> None:
        self.method = details.method
        self.timeout = details.timeout
        self.metadata = metadata
        self.credentials = details.credentials
        self.wait_for_ready = getattr(details, "wait_for_ready", None)
        self.compression = getattr(details, "compression", None)


class _SyncToken(
    grpc.UnaryUnaryClientInterceptor,
    grpc.UnaryStreamClientInterceptor,
    grpc.StreamUnaryClientInterceptor,
    grpc.StreamStreamClientInterceptor,
):
    def __init__(self, token: str) -> None:
        self._token = token

    def _details(self, details: Any) -> Any:
        return _with_token(details, self._token, _SyncDetails)

    def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        return continuation(self._details(details), request)

    def intercept_stream_unary(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._details(details), requests)

    def intercept_stream_stream(self, continuation: Any, details: Any, requests: Any) -> Any:
        return continuation(self._details(details), requests)


def authorized_channel(address: str, token: str) -> grpc.Channel:
    """A blocking channel that presents the suite's secret (tools, benchmarks and tests)."""
    return grpc.intercept_channel(grpc.insecure_channel(address), _SyncToken(token))
