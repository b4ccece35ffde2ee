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
from google.protobuf.json_format import MessageToDict
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gateway import metrics
from gateway.auth import Principal, RateLimiter, TokenAuthenticator
from gateway.backends import Unavailable
from gateway.context import ContextQuery, ContextResult, ContextService
from gateway.domain.utf16 import TEXT_CAP, cut_utf16
from gateway.operations import BadInput, Operations
from gateway.session import SessionStartService
from gateway.settings import GatewaySettings
from kit.logging import REQUEST_ID_HEADER, new_request_id
from kit.remotes import normalise_remote
from reporecall.indexer.v1 import indexer_pb2
from reporecall.memory.v1 import memory_pb2

log = structlog.get_logger("http")

PROMPT_CHARS = 100_000  # longer prompts are cut to this before routing
PUBLIC_PATHS = {"/healthz", "/hooks/git"}  # the webhook authenticates by HMAC signature
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
    """Pure ASGI middleware: request id, auth, body cap, one log line and metrics per request."""

    def __init__(self, app: ASGIApp, auth: TokenAuthenticator, max_body: int, limiter: RateLimiter) -> None:
        self.app, self.auth, self.max_body, self.limiter = app, auth, max_body, limiter

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode().lower(): v.decode("latin-1") for k, v in scope["headers"]}
        request_id = headers.get(REQUEST_ID_HEADER) or new_request_id()
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=request_id)
        path = scope["path"]
        route = _route_label(path)
        started = time.perf_counter()
        status_holder = {"status": 500}

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                status_holder["status"] = message["status"]
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (REQUEST_ID_HEADER.encode(), request_id.encode())]
            await send(message)

        try:
            if path not in PUBLIC_PATHS:
                principal = self.auth.authenticate(headers.get("authorization"))
                if principal is None:
                    await _json(401, {"error": "missing or invalid bearer token"})(
                        scope, receive, send_wrapper
                    )
                    return
                allowed, retry_after = self.limiter.allow(headers.get("authorization", ""))
                if not allowed:
                    response = _json(429, {"error": "rate limit exceeded; slow down"})
                    response.headers["Retry-After"] = str(max(1, round(retry_after)))
                    await response(scope, receive, send_wrapper)
                    return
                scope.setdefault("state", {})["principal"] = principal
                structlog.contextvars.bind_contextvars(user=principal.user)
            length = headers.get("content-length")
            if length and length.isdigit() and int(length) > self.max_body:
                # A hook never fails a prompt: too big is answered like any other hook failure (200, {}).
                too_big = {"error": f"body larger than {self.max_body} bytes"}
                reply = _json(200, {}) if path.startswith("/hooks/") else _json(413, too_big)
                await reply(scope, receive, send_wrapper)
                return
            await self.app(scope, _capped(receive, self.max_body), send_wrapper)
        finally:
            elapsed = time.perf_counter() - started
            metrics.HTTP_REQUESTS.labels(route, str(status_holder["status"])).inc()
            metrics.HTTP_SECONDS.labels(route).observe(elapsed)
            log.info(
                "http",
                method=scope.get("method"),
                path=path,
                status=status_holder["status"],
                ms=round(elapsed * 1000, 2),
            )


def _capped(receive: Receive, limit: int) -> Receive:
    seen = 0

    async def wrapped() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise BadInput("body", f"larger than {limit} bytes")
        return message

    return wrapped


def _route_label(path: str) -> str:
    if path.startswith("/api/repos/"):
        return "/api/repos/{name}" + ("/index" if path.endswith("/index") else "")
    return path if path.count("/") <= 3 else "other"


def _json(status: int, body: Any) -> Response:
    return JSONResponse(body, status_code=status)


async def _read_json(request: Request) -> dict[str, Any]:
    raw = await request.body()
    try:
        data = json.loads(raw or b"{}")
        # A lone surrogate ("\ud800") parses but cannot be encoded again (protobuf, SQLite): refuse it here.
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except (ValueError, UnicodeError) as exc:  # JSONDecodeError, over-long integers, surrogates
        raise BadInput("body", f"not valid JSON ({exc.__class__.__name__})") from None
    except RecursionError:
        raise BadInput("body", "nested too deeply") from None
    if not isinstance(data, dict):
        raise BadInput("body", "must be a JSON object")
    return data


def _str(data: dict[str, Any], key: str, default: str = "", max_len: int = 100_000) -> str:
    value = data.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        raise BadInput(key, "must be a string")
    if len(value) > max_len:
        raise BadInput(key, f"longer than {max_len} characters")
    return value


def _int(data: dict[str, Any], key: str, default: int, low: int, high: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(key, "must be an integer")
    if not low <= value <= high:
        raise BadInput(key, f"must be between {low} and {high}")
    return value


def result_to_json(result: ContextResult) -> dict[str, Any]:
    return asdict(result)


def build_http_app(
    settings: GatewaySettings,
    ops: Operations,
    service: ContextService,
    auth: TokenAuthenticator,
    extra_routes: list[Any] | None = None,
    lifespan: Any = None,
) -> ASGIApp:
    backends = ops.backends
    session = SessionStartService(backends, settings.backend_deadline_ms / 1000 * 2)
    hook_deadline = settings.hook_deadline_ms / 1000

    async def prompt_context(request: Request) -> Response:
        started = time.perf_counter()
        route = "error"
        try:
            data = await _read_json(request)
            query = ContextQuery(
                # A prompt over the cap still gets context: its head says what it is about.
                prompt=_str(data, "prompt", max_len=sys.maxsize)[:PROMPT_CHARS],
                cwd=_str(data, "cwd", max_len=4096),
                repo=request.headers.get("x-reporecall-repo", ""),
                session_id=_str(data, "session_id", max_len=256),
                user=_principal(request).user,
            )
            result = await asyncio.wait_for(service.build(query), hook_deadline)
            route = result.route
            _record(result)
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
            data = await _read_json(request)
            repo = await service.repos.resolve(
                request.headers.get("x-reporecall-repo") or None, _str(data, "cwd", max_len=4096) or None
            )
            if repo is None:
                log.warning(
                    "hook.session_start.unknown_repo",
                    repo=request.headers.get("x-reporecall-repo", "")[:200],
                    cwd=_str(data, "cwd", max_len=4096)[:500],
                )
                return _json(200, {})
            text = await asyncio.wait_for(session.orientation(repo), hook_deadline)
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
        data = await _read_json(request)
        query = ContextQuery(
            prompt=_str(data, "prompt"),
            repo=_str(data, "repo", max_len=256),
            cwd=_str(data, "cwd", max_len=4096),
            budget_tokens=_int(data, "budget_tokens", 0, 0, 50_000),
            user=_principal(request).user,
        )
        result = await service.build(query)
        _record(result)
        return _json(200, result_to_json(result))

    async def api_search(request: Request) -> Response:
        data = await _read_json(request)
        repo = await ops.repo(_str(data, "repo", max_len=256), _str(data, "cwd", max_len=4096))
        return _json(
            200,
            await ops.search(
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
        data = await _read_json(request)
        repo = await ops.repo(_str(data, "repo", max_len=256), _str(data, "cwd", max_len=4096))
        data.pop("repo", None)
        data.pop("cwd", None)
        method = getattr(ops, name)
        parameters = inspect.signature(method).parameters
        if "user" in parameters:
            data["user"] = _principal(request).user
        unknown = sorted(set(data) - set(parameters) - {"self"})
        if unknown:
            raise BadInput(unknown[0], f"not an argument of {name}")
        try:
            return _json(200, await method(repo, **data))
        except TypeError as exc:
            raise BadInput("body", f"wrong arguments for {name} ({exc})") from None

    async def list_repos(request: Request) -> Response:
        reply = await backends.call(
            "indexer", backends.indexer.ListRepos, indexer_pb2.ListReposRequest(), 5.0
        )
        return _json(200, MessageToDict(reply, preserving_proto_field_name=True))

    async def register_repo(request: Request) -> Response:
        data = await _read_json(request)
        reply = await backends.call(
            "indexer",
            backends.indexer.RegisterRepo,
            indexer_pb2.RegisterRepoRequest(
                name=_str(data, "name", max_len=256),
                path=_str(data, "path", max_len=4096),
                git_url=_str(data, "git_url", max_len=2048),
            ),
            600.0 if data.get("git_url") else 10.0,
        )
        await service.repos.refresh()
        return _json(200, MessageToDict(reply, preserving_proto_field_name=True))

    async def remove_repo(request: Request) -> Response:
        """Remove a repository from every service: search and graph (through the indexer), then memory."""
        if not _principal(request).admin:
            return _json(
                403,
                {
                    "error": "removing a repository needs an admin token "
                    "(reporecall token issue USER --admin, on the server)"
                },
            )
        name = request.path_params["name"]
        reply = await backends.call(
            "indexer", backends.indexer.RemoveRepo, indexer_pb2.RemoveRepoRequest(repo=name), 60.0
        )
        memories = 0
        if reply.removed:
            deleted = await backends.call(
                "memory", backends.memory.DeleteRepo, memory_pb2.DeleteRepoRequest(repo=name), 60.0
            )
            memories = deleted.deleted
        await service.repos.refresh()
        return _json(200, {"removed": reply.removed, "memories_deleted": memories})

    async def sync_repo(request: Request) -> Response:
        reply = await backends.call(
            "indexer",
            backends.indexer.SyncRepo,
            indexer_pb2.SyncRepoRequest(repo=request.path_params["name"]),
            900.0,
        )
        return _json(200, MessageToDict(reply, preserving_proto_field_name=True))

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
            urls = [str(repository.get(k, "")) for k in ("clone_url", "ssh_url", "html_url")]
        except (ValueError, AttributeError):
            raise BadInput("body", "not a push event JSON object") from None
        remotes = {normalise_remote(url) for url in urls} - {""}
        listing = await backends.call(
            "indexer", backends.indexer.ListRepos, indexer_pb2.ListReposRequest(), 5.0
        )
        targets = [r.name for r in listing.repos if r.remote and r.remote in remotes]
        for name in targets:
            service.spawn(
                backends.call(
                    "indexer", backends.indexer.SyncRepo, indexer_pb2.SyncRepoRequest(repo=name), 900.0
                )
            )
        return _json(202, {"syncing": targets})

    async def repo_status(request: Request) -> Response:
        reply = await backends.call(
            "indexer",
            backends.indexer.RepoStatus,
            indexer_pb2.RepoStatusRequest(repo=request.path_params["name"]),
            10.0,
        )
        return _json(200, MessageToDict(reply, preserving_proto_field_name=True))

    async def index_repo(request: Request) -> Response:
        data = await _read_json(request)
        call = backends.indexer.IndexRepo(
            indexer_pb2.IndexRepoRequest(repo=request.path_params["name"], full=bool(data.get("full", False)))
        )

        async def lines() -> AsyncIterator[bytes]:
            try:
                async for progress in call:
                    yield (
                        json.dumps(MessageToDict(progress, preserving_proto_field_name=True)) + "\n"
                    ).encode()
            except grpc.aio.AioRpcError as exc:
                yield (json.dumps({"error": exc.details() or exc.code().name}) + "\n").encode()

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    async def health(request: Request) -> Response:
        return _json(200, {"status": "ok"})

    async def status(request: Request) -> Response:
        services = await backends.health()
        return _json(
            200, {"gateway": {"status": "SERVING"}, "services": services, "savings": service.savings}
        )

    routes = [
        Route("/healthz", health),
        Route("/hooks/prompt-context", prompt_context, methods=["POST"]),
        Route("/hooks/session-start", session_start, methods=["POST"]),
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

    async def unavailable(request: Request, exc: Exception) -> Response:
        return _json(503, {"error": str(exc)})

    async def rpc_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, grpc.aio.AioRpcError)
        status = {
            grpc.StatusCode.INVALID_ARGUMENT: 400,
            grpc.StatusCode.NOT_FOUND: 404,
            grpc.StatusCode.ALREADY_EXISTS: 409,
            grpc.StatusCode.PERMISSION_DENIED: 403,
        }.get(exc.code(), 502)
        return _json(status, {"error": exc.details() or exc.code().name})

    app = Starlette(
        routes=routes,
        exception_handlers={BadInput: bad_request, Unavailable: unavailable, grpc.aio.AioRpcError: rpc_error},
        lifespan=lifespan,
    )
    limiter = RateLimiter(settings.rate_limit_per_second, settings.rate_limit_burst)
    return RequestContext(app, auth, settings.max_body_bytes, limiter)


def _principal(request: Request) -> Principal:
    return request.scope.get("state", {}).get("principal") or Principal("anonymous")


def _record(result: ContextResult) -> None:
    metrics.CONTEXT_TOKENS.labels(result.route).observe(result.tokens)
    for backend in result.degraded:
        metrics.DEGRADED_REPLIES.labels(backend).inc()
