"""The gateway's HTTP surface: Claude Code hooks, the CLI's JSON API, health. (MCP is mounted at /mcp.)

Hooks never block a prompt: each runs under a deadline and any failure yields an empty, valid reply.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import inspect
import json
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import asdict
from typing import Any

import grpc
import structlog
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway import metrics
from gateway.auth import RateLimiter, TokenAuthenticator
from gateway.authorization import WEBHOOK, Forbidden, Principal
from gateway.backends import Unavailable
from gateway.context import ContextQuery, ContextResult
from gateway.domain.injected import InjectedLedger
from gateway.domain.utf16 import TEXT_CAP, cut_utf16
from gateway.errors import client_message, http_status
from gateway.operations import Operations
from gateway.pre_tool_use import pre_tool_use_endpoint, remember_injected
from gateway.repo_lookup import repos_with_remote, wanted_remote
from gateway.settings import GatewaySettings
from gateway.validation import LIMITS, BadInput, int_field, read_json_object, str_field
from kit.logging import REQUEST_ID_HEADER, new_request_id
from kit.remotes import normalise_remote

log = structlog.get_logger("http")

PUBLIC_PATHS = {"/healthz", "/hooks/git"}  # the webhook authenticates by HMAC signature
LIMITED_PUBLIC_PATHS = {"/hooks/git"}  # public, but limited per client address
UNKNOWN_ROUTE = "other"
UNAUTHENTICATED_ROUTE = "unauthenticated"
# Operations reachable through POST /api/ops/{op} (the CLI's graph, memory and index commands).
PUBLIC_OPERATIONS = frozenset(
    {
        "search",
        "find_symbol",
        "file_summary",
        "feedback",
        "callers",
        "callees",
        "call_tree",
        "call_path",
        "imports",
        "importers",
        "communities",
        "recall",
        "store_memory",
        "forget_memory",
        "list_memories",
        "compact_memories",
        "index_status",
        "refresh",
    }
)


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


def result_to_json(result: ContextResult) -> dict[str, Any]:
    return asdict(result)


def build_http_app(
    settings: GatewaySettings,
    ops: Operations,
    auth: TokenAuthenticator,
    extra_routes: list[Any] | None = None,
    lifespan: Any = None,
) -> ASGIApp:
    """The HTTP surface. Each handler reads its input, takes the principal the middleware authenticated,
    and calls one operation; what that principal may do is decided by the operation, not here."""
    hook_deadline = settings.hook_deadline_ms / 1000
    injected = InjectedLedger()  # what each session was given, for the PreToolUse hook

    async def prompt_context(request: Request) -> Response:
        started = time.perf_counter()
        route = "error"
        try:
            data = read_json_object(await request.body())
            query = ContextQuery(
                # A prompt over the cap still gets context: its head says what it is about.
                prompt=str_field(data, "prompt", max_len=sys.maxsize)[: LIMITS.prompt],
                cwd=str_field(data, "cwd", max_len=LIMITS.path),
                repo=request.headers.get("x-reporecall-repo", "")[:256],
                session_id=str_field(data, "session_id", max_len=LIMITS.session_id),
            )
            result = await asyncio.wait_for(ops.context(_principal(request), query), hook_deadline)
            route = result.route
            _record(result)
            remember_injected(injected, _principal(request), query.session_id, result.items)
            if not result.text:
                return _json(200, {})
            return _json(
                200,
                {
                    "hookSpecificOutput": {
                        "hookEventName": "UserPromptSubmit",
                        "additionalContext": result.text,
                    }
                },
            )
        except BadInput as exc:
            metrics.HOOK_FAILURES.labels("UserPromptSubmit", "bad_request").inc()
            log.warning("hook.bad_request", field=exc.field, problem=exc.problem)
            return _json(200, {})
        except Forbidden as exc:
            metrics.HOOK_FAILURES.labels("UserPromptSubmit", "forbidden").inc()
            log.warning("hook.forbidden", problem=str(exc))
            return _json(200, {})
        except TimeoutError:
            metrics.HOOK_FAILURES.labels("UserPromptSubmit", "deadline").inc()
            log.warning("hook.deadline", deadline_ms=settings.hook_deadline_ms)
            return _json(200, {})
        except Exception:
            metrics.HOOK_FAILURES.labels("UserPromptSubmit", "error").inc()
            log.exception("hook.error")
            return _json(200, {})
        finally:
            metrics.HOOK_SECONDS.labels("UserPromptSubmit", route).observe(time.perf_counter() - started)

    async def session_start(request: Request) -> Response:
        """SessionStart, reached by a fail-open `curl` command hook: orientation + conventions."""
        started = time.perf_counter()
        try:
            data = read_json_object(await request.body())
            repo = await ops.repos.resolve(
                request.headers.get("x-reporecall-repo") or None,
                str_field(data, "cwd", max_len=LIMITS.path) or None,
            )
            if repo is None:
                log.warning(
                    "hook.session_start.unknown_repo",
                    repo=request.headers.get("x-reporecall-repo", "")[:200],
                    cwd=str_field(data, "cwd", max_len=LIMITS.path)[:500],
                )
                return _json(200, {})
            text = await asyncio.wait_for(ops.session_orientation(_principal(request), repo), hook_deadline)
            if not text:
                return _json(200, {})
            return _json(
                200,
                {
                    "hookSpecificOutput": {
                        "hookEventName": "SessionStart",
                        "additionalContext": cut_utf16(text, TEXT_CAP),
                    }
                },
            )
        except Exception as exc:  # a hook never fails a session: empty and valid
            metrics.HOOK_FAILURES.labels("SessionStart", type(exc).__name__).inc()
            log.warning("hook.session_start.failed", error=repr(exc))
            return _json(200, {})
        finally:
            metrics.HOOK_SECONDS.labels("SessionStart", "session").observe(time.perf_counter() - started)

    async def api_context(request: Request) -> Response:
        data = read_json_object(await request.body())
        query = ContextQuery(
            prompt=str_field(data, "prompt"),
            repo=str_field(data, "repo", max_len=LIMITS.repo_name),
            cwd=str_field(data, "cwd", max_len=LIMITS.path),
            budget_tokens=int_field(data, "budget_tokens", 0, 0, 50_000),
        )
        result = await ops.context(_principal(request), query)
        _record(result)
        return _json(200, result_to_json(result))

    async def api_search(request: Request) -> Response:
        data = read_json_object(await request.body())
        repo = await ops.repo(
            str_field(data, "repo", max_len=LIMITS.repo_name), str_field(data, "cwd", max_len=LIMITS.path)
        )
        return _json(
            200,
            await ops.search(
                _principal(request),
                repo,
                data.get("query", ""),  # validated by Operations.search (type, length)
                data.get("limit", 10),
                data.get("mode", "hybrid"),
                data.get("path_prefix", "") or "",
            ),
        )

    async def api_op(request: Request) -> Response:
        """POST /api/ops/{op}: any Operations method by name; JSON body = its arguments + repo/cwd."""
        name = request.path_params["op"]
        if name not in PUBLIC_OPERATIONS:
            raise BadInput("op", f"unknown operation; one of {', '.join(sorted(PUBLIC_OPERATIONS))}")
        data = read_json_object(await request.body())
        if "user" in data:
            raise BadInput("user", "is the user of your token; leave it out of the request")
        repo = await ops.repo(
            str_field(data, "repo", max_len=LIMITS.repo_name), str_field(data, "cwd", max_len=LIMITS.path)
        )
        data.pop("repo", None)
        data.pop("cwd", None)
        method = getattr(ops, name)
        parameters = set(inspect.signature(method).parameters) - {"self", "who", "repo"}
        unknown = sorted(set(data) - parameters)
        if unknown:
            raise BadInput(unknown[0], f"not an argument of {name}")
        try:
            return _json(200, await method(_principal(request), repo, **data))
        except TypeError as exc:
            raise BadInput("body", f"wrong arguments for {name} ({exc})") from None

    async def list_repos(request: Request) -> Response:
        remote = request.query_params.get("remote")
        wanted = wanted_remote(remote) if remote is not None else ""  # bad input: refused before any call
        listing = await ops.list_repos(_principal(request))
        return _json(200, repos_with_remote(listing, wanted) if wanted else listing)

    async def register_repo(request: Request) -> Response:
        data = read_json_object(await request.body())
        return _json(
            200,
            await ops.register_repo(
                _principal(request),
                name=str_field(data, "name", max_len=LIMITS.repo_name),
                path=str_field(data, "path", max_len=LIMITS.path),
                git_url=str_field(data, "git_url", max_len=LIMITS.git_url),
            ),
        )

    async def remove_repo(request: Request) -> Response:
        return _json(200, await ops.remove_repo(_principal(request), request.path_params["name"]))

    async def sync_repo(request: Request) -> Response:
        return _json(200, await ops.sync_repo(_principal(request), request.path_params["name"]))

    async def git_webhook(request: Request) -> Response:
        """A push webhook (GitHub/Gitea style): HMAC-SHA256 of the body in X-Hub-Signature-256 with the
        configured secret; the pushed repository is found by its normalised remote and synced."""
        secret = settings.webhook_secret.get_secret_value()
        if not secret:
            return _json(404, {"error": "webhooks are not enabled (set REPORECALL_WEBHOOK_SECRET)"})
        body = await request.body()
        expected = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, request.headers.get("x-hub-signature-256", "")):
            return _json(401, {"error": "bad or missing X-Hub-Signature-256"})
        try:
            repository = json.loads(body).get("repository", {})
            urls = [str(repository.get(k, ""))[:2048] for k in ("clone_url", "ssh_url", "html_url")]
        except (ValueError, AttributeError):
            raise BadInput("body", "not a push event JSON object") from None
        remotes = {normalise_remote(url) for url in urls} - {""}
        return _json(202, {"syncing": await ops.sync_pushed(WEBHOOK, remotes)})

    async def repo_status(request: Request) -> Response:
        return _json(200, await ops.repo_status(_principal(request), request.path_params["name"]))

    async def index_repo(request: Request) -> Response:
        data = read_json_object(await request.body())
        progress = await ops.index_repo(
            _principal(request), request.path_params["name"], bool(data.get("full", False))
        )

        async def lines() -> AsyncIterator[bytes]:
            try:
                async for message in progress:
                    yield (json.dumps(message) + "\n").encode()
            except grpc.aio.AioRpcError as exc:
                yield (json.dumps({"error": client_message(exc)}) + "\n").encode()

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    async def health(request: Request) -> Response:
        return _json(200, {"status": "ok"})

    async def status(request: Request) -> Response:
        return _json(200, await ops.status(_principal(request)))

    routes = [
        Route("/healthz", health),
        Route("/hooks/prompt-context", prompt_context, methods=["POST"]),
        Route("/hooks/session-start", session_start, methods=["POST"]),
        Route("/hooks/pre-tool-use", pre_tool_use_endpoint(injected), methods=["POST"]),
        Route("/api/status", status, methods=["GET"]),
        Route("/api/context", api_context, methods=["POST"]),
        Route("/api/search", api_search, methods=["POST"]),
        Route("/api/ops/{op}", api_op, methods=["POST"]),
        Route("/api/repos", list_repos, methods=["GET"]),
        Route("/api/repos", register_repo, methods=["POST"]),
        Route("/api/repos/{name:path}", remove_repo, methods=["DELETE"]),
        Route("/api/repos/{name:path}/status", repo_status, methods=["GET"]),
        Route("/api/repos/{name:path}/index", index_repo, methods=["POST"]),
        Route("/api/repos/{name:path}/sync", sync_repo, methods=["POST"]),
        Route("/hooks/git", git_webhook, methods=["POST"]),
        *(extra_routes or []),
    ]

    async def bad_request(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, BadInput)
        return _json(400, {"error": str(exc), "field": exc.field})

    async def forbidden(request: Request, exc: Exception) -> Response:
        return _json(403, {"error": str(exc)})

    async def unavailable(request: Request, exc: Exception) -> Response:
        return _json(503, {"error": str(exc)})

    async def rpc_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, grpc.aio.AioRpcError)
        return _json(http_status(exc.code()), {"error": client_message(exc)})

    app = Starlette(
        routes=routes,
        exception_handlers={
            BadInput: bad_request,
            Forbidden: forbidden,
            Unavailable: unavailable,
            grpc.aio.AioRpcError: rpc_error,
        },
        lifespan=lifespan,
    )
    limiter = RateLimiter(
        settings.rate_limit_per_second, settings.rate_limit_burst, settings.rate_limit_clients
    )
    return RequestContext(app, auth, settings.max_body_bytes, limiter, routes, settings.body_timeout_seconds)


def _principal(request: Request) -> Principal:
    """The principal the middleware authenticated; a request that reached a handler without one is a bug."""
    principal = request.scope.get("state", {}).get("principal")
    if not isinstance(principal, Principal):
        raise RuntimeError(f"{request.url.path} reached a handler without an authenticated principal")
    return principal


def _record(result: ContextResult) -> None:
    metrics.CONTEXT_TOKENS.labels(result.route).observe(result.tokens)
    for backend in result.degraded:
        metrics.DEGRADED_REPLIES.labels(backend).inc()
