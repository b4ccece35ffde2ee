"""The HTTP middleware every request passes: request id, rate limits, authentication, the body read under
a cap and a deadline, then one log line and bounded metrics per request."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import structlog
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway import metrics
from gateway.auth import RateLimiter, TokenAuthenticator
from kit.logging import REQUEST_ID_HEADER, new_request_id

log = structlog.get_logger("http")

PUBLIC_PATHS = {"/healthz", "/hooks/git"}  # the webhook authenticates by HMAC signature
LIMITED_PUBLIC_PATHS = {"/hooks/git"}  # public, but limited per client address
UNKNOWN_ROUTE = "other"
UNAUTHENTICATED_ROUTE = "unauthenticated"


class RequestContext:
    """Pure ASGI middleware: request id, rate limits, auth, the whole body read under a cap and a
    deadline, one log line and bounded metrics per request.

    Limits: an authenticated client is limited per token (the stored hash it matched, so header
    spellings share one bucket); failed authentications and the public webhook are limited per client
    address (429 once an address has used its burst), so a teammate behind the same NAT is unaffected. The body is read
    here, before any route runs (chunked or not), so every route — /mcp included — gets a clean 413 or
    408 instead of an error from inside an app."""

    def __init__(
        self,
        app: ASGIApp,
        auth: TokenAuthenticator,
        max_body: int,
        limiter: RateLimiter,
        routes: list[BaseRoute] | None = None,
        body_timeout: float = 30.0,
    ) -> None:
        self.app, self.auth, self.max_body, self.limiter = app, auth, max_body, limiter
        self.routes = routes or []
        self.body_timeout = body_timeout

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode().lower(): v.decode("latin-1") for k, v in scope["headers"]}
        request_id = (headers.get(REQUEST_ID_HEADER) or "")[:128] or new_request_id()
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=request_id)
        path = scope["path"]
        route = route_label(self.routes, scope)
        started = time.perf_counter()
        status_holder = {"status": 500}
        address = "address:" + (scope.get("client") or ("unknown", 0))[0]

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                status_holder["status"] = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (REQUEST_ID_HEADER.encode(), request_id.encode())]
            await send(message)

        async def refuse(response: Response) -> None:
            await response(scope, receive, send_wrapper)

        try:
            if path in LIMITED_PUBLIC_PATHS:
                allowed, retry_after = self.limiter.allow(address)
                if not allowed:
                    await refuse(_too_many(retry_after))
                    return
            if path not in PUBLIC_PATHS:
                principal = self.auth.authenticate(headers.get("authorization"))
                if principal is None:
                    route = UNAUTHENTICATED_ROUTE  # whatever the path: one label, not one per junk path
                    allowed, retry_after = self.limiter.allow(address)
                    await refuse(
                        _json(401, {"error": "missing or invalid bearer token"})
                        if allowed
                        else _too_many(retry_after)
                    )
                    return
                allowed, retry_after = self.limiter.allow("token:" + principal.key)
                if not allowed:
                    await refuse(_too_many(retry_after))
                    return
                scope.setdefault("state", {})["principal"] = principal
                structlog.contextvars.bind_contextvars(user=principal.user)
            hook = path.startswith("/hooks/") and path != "/hooks/git"
            length = headers.get("content-length")
            if length and length.isdigit() and int(length) > self.max_body:
                await refuse(self._too_big(hook))
                return
            try:
                body = await asyncio.wait_for(_read_body(receive, self.max_body), self.body_timeout)
            except _BodyTooLarge:
                await refuse(self._too_big(hook))
                return
            except TimeoutError:
                # A hook never fails a prompt: answered like any other hook failure (200, {}).
                late = {"error": f"request body not received within {self.body_timeout:g} s"}
                await refuse(_closing(_json(200, {}) if hook else _json(408, late)))
                return
            if body is None:  # the client went away
                return
            await self.app(scope, _replay(body, receive), send_wrapper)
        finally:
            elapsed = time.perf_counter() - started
            metrics.HTTP_REQUESTS.labels(route, str(status_holder["status"])).inc()
            metrics.HTTP_SECONDS.labels(route).observe(elapsed)
            log.info(
                "http",
                method=scope.get("method"),
                path=path[:300],
                route=route,
                status=status_holder["status"],
                ms=round(elapsed * 1000, 2),
            )

    def _too_big(self, hook: bool) -> Response:
        # A hook never fails a prompt: too big is answered like any other hook failure (200, {}).
        too_big = {"error": f"body larger than {self.max_body} bytes; send less"}
        return _closing(_json(200, {}) if hook else _json(413, too_big))


class _BodyTooLarge(Exception):
    pass


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole request body (None when the client disconnected first); _BodyTooLarge past `limit`."""
    chunks: list[bytes] = []
    seen = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        if message["type"] != "http.request":
            continue
        chunk = message.get("body", b"")
        seen += len(chunk)
        if seen > limit:
            raise _BodyTooLarge
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """Hands the buffered body to the app once; after that, the connection's own messages (disconnect)."""
    delivered = False

    async def replayed() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replayed


def _too_many(retry_after: float) -> Response:
    response = _json(429, {"error": "rate limit exceeded; slow down"})
    response.headers["Retry-After"] = str(max(1, round(retry_after)))
    return response


def _closing(response: Response) -> Response:
    response.headers["Connection"] = "close"  # the rest of the body is never read: do not reuse
    return response


def route_label(routes: list[BaseRoute], scope: Scope) -> str:
    """The metrics label of a request: its route's template, or one label for every unknown path."""
    for route in routes:
        match, _ = route.matches(scope)
        if match is not Match.NONE:
            return str(getattr(route, "path", UNKNOWN_ROUTE))
    return UNKNOWN_ROUTE


def _json(status: int, body: Any) -> Response:
    return JSONResponse(body, status_code=status)
