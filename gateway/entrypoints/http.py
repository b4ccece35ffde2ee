"""The gateway's HTTP surface: Claude Code hooks, the CLI's JSON API, health. (MCP is mounted at /mcp.)

Each handler reads its input, takes the principal the middleware (gateway.entrypoints.request_context)
authenticated, and calls one operation; what that principal may do is decided by the operation, not
here. Hooks never block a prompt: each runs under a deadline and any failure yields an empty, valid reply.
New routes: a handler method on HttpSurface and a line in `routes()`.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import asdict
from typing import Any

import structlog
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp

from gateway import metrics
from gateway.auth import RateLimiter, TokenAuthenticator
from gateway.authorization import WEBHOOK, Forbidden, Principal
from gateway.context import ContextQuery, ContextResult, describe_in_request_log
from gateway.domain.injected import InjectedLedger
from gateway.domain.utf16 import TEXT_CAP, cut_utf16
from gateway.entrypoints.pre_tool_use import pre_tool_use_endpoint, remember_injected
from gateway.entrypoints.repo_lookup import repos_with_remote, wanted_remote
from gateway.entrypoints.request_context import RequestContext, _json
from gateway.errors import client_message, http_status
from gateway.operations import Operations
from gateway.ports import Rejected, Unavailable
from gateway.repos import RepoInfo
from gateway.settings import GatewaySettings
from gateway.validation import LIMITS, BadInput, int_field, read_json_object, str_field
from kit.remotes import normalise_remote

log = structlog.get_logger("http")

RepoOperation = Callable[..., Awaitable[dict[str, Any]]]


def _operation_table(ops: Operations) -> dict[str, tuple[RepoOperation, frozenset[str]]]:
    """POST /api/ops/{op}: the operation and the JSON arguments it takes (besides repo/cwd)."""
    return {
        "search": (ops.search, frozenset({"query", "limit", "mode", "path_prefix", "language"})),
        "find_symbol": (ops.find_symbol, frozenset({"name", "match", "limit"})),
        "file_summary": (ops.file_summary, frozenset({"path"})),
        "feedback": (ops.feedback, frozenset({"chunk_id", "useful", "query"})),
        "callers": (ops.callers, frozenset({"symbol", "depth"})),
        "callees": (ops.callees, frozenset({"symbol", "depth"})),
        "call_tree": (ops.call_tree, frozenset({"symbol", "up", "down"})),
        "call_path": (ops.call_path, frozenset({"source", "target"})),
        "imports": (ops.imports, frozenset({"path"})),
        "importers": (ops.importers, frozenset({"path"})),
        "communities": (ops.communities, frozenset({"limit"})),
        "recall": (ops.recall, frozenset({"query", "branch", "budget_tokens", "limit"})),
        "store_memory": (
            ops.store_memory,
            frozenset(
                {"name", "body", "description", "memory_class", "scope", "type_", "branch", "related_files"}
            ),
        ),
        "forget_memory": (ops.forget_memory, frozenset({"memory_id"})),
        "list_memories": (ops.list_memories, frozenset({"branch", "limit", "include_inactive"})),
        "compact_memories": (ops.compact_memories, frozenset()),
        "index_status": (ops.index_status, frozenset()),
        "refresh": (ops.refresh, frozenset({"paths"})),
    }


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


def result_to_json(result: ContextResult) -> dict[str, Any]:
    return asdict(result)


class HttpSurface:
    """The routes and their handlers (who may call: any authenticated principal, except /healthz and the
    HMAC-signed /hooks/git; each operation decides what that principal may do)."""

    def __init__(self, settings: GatewaySettings, ops: Operations) -> None:
        self.settings, self.ops = settings, ops
        self.hook_deadline = settings.hook_deadline_ms / 1000
        self.operations = _operation_table(ops)
        assert set(self.operations) == PUBLIC_OPERATIONS
        self.injected = InjectedLedger()  # what each session was given, for the PreToolUse hook

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/healthz", self.health),
            Route("/hooks/prompt-context", self.prompt_context, methods=["POST"]),
            Route("/hooks/session-start", self.session_start, methods=["POST"]),
            Route("/hooks/pre-tool-use", pre_tool_use_endpoint(self.injected), methods=["POST"]),
            Route("/api/status", self.status, methods=["GET"]),
            Route("/api/context", self.api_context, methods=["POST"]),
            Route("/api/search", self.api_search, methods=["POST"]),
            Route("/api/ops/{op}", self.api_op, methods=["POST"]),
            Route("/api/repos", self.list_repos, methods=["GET"]),
            Route("/api/repos", self.register_repo, methods=["POST"]),
            Route("/api/repos/{name:path}", self.remove_repo, methods=["DELETE"]),
            Route("/api/repos/{name:path}/status", self.repo_status, methods=["GET"]),
            Route("/api/repos/{name:path}/index", self.index_repo, methods=["POST"]),
            Route("/api/repos/{name:path}/sync", self.sync_repo, methods=["POST"]),
            Route("/hooks/git", self.git_webhook, methods=["POST"]),
        ]

    # -- hooks ----------------------------------------------------------------------------------------

    async def prompt_context(self, request: Request) -> Response:
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
            result = await asyncio.wait_for(self.ops.context(_principal(request), query), self.hook_deadline)
            route = result.route
            _record(result)
            remember_injected(self.injected, _principal(request), query.session_id, result.items)
            if not result.text:
                return _json(200, {})
            return _json(200, _hook_reply("UserPromptSubmit", result.text))
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
            log.warning("hook.deadline", deadline_ms=self.settings.hook_deadline_ms)
            return _json(200, {})
        except Exception:
            metrics.HOOK_FAILURES.labels("UserPromptSubmit", "error").inc()
            log.exception("hook.error")
            return _json(200, {})
        finally:
            metrics.HOOK_SECONDS.labels("UserPromptSubmit", route).observe(time.perf_counter() - started)

    async def session_start(self, request: Request) -> Response:
        """SessionStart, reached by a fail-open `curl` command hook: orientation + conventions."""
        started = time.perf_counter()
        try:
            data = read_json_object(await request.body())
            repo = await self.ops.find_repo(
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
            text = await asyncio.wait_for(
                self.ops.session_orientation(_principal(request), repo), self.hook_deadline
            )
            if not text:
                return _json(200, {})
            return _json(200, _hook_reply("SessionStart", cut_utf16(text, TEXT_CAP)))
        except Exception as exc:  # a hook never fails a session: empty and valid
            metrics.HOOK_FAILURES.labels("SessionStart", type(exc).__name__).inc()
            log.warning("hook.session_start.failed", error=repr(exc))
            return _json(200, {})
        finally:
            metrics.HOOK_SECONDS.labels("SessionStart", "session").observe(time.perf_counter() - started)

    async def git_webhook(self, request: Request) -> Response:
        """A push webhook (GitHub/Gitea style): HMAC-SHA256 of the body in X-Hub-Signature-256 with the
        configured secret; the pushed repository is found by its normalised remote and synced."""
        secret = self.settings.webhook_secret.get_secret_value()
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
        return _json(202, {"syncing": await self.ops.sync_pushed(WEBHOOK, remotes)})

    # -- the JSON API ---------------------------------------------------------------------------------

    async def api_context(self, request: Request) -> Response:
        data = read_json_object(await request.body())
        query = ContextQuery(
            prompt=str_field(data, "prompt"),
            repo=str_field(data, "repo", max_len=LIMITS.repo_name),
            cwd=str_field(data, "cwd", max_len=LIMITS.path),
            budget_tokens=int_field(data, "budget_tokens", 0, 0, LIMITS.budget_tokens),
        )
        result = await self.ops.context(_principal(request), query)
        _record(result)
        return _json(200, result_to_json(result))

    async def _repo(self, data: dict[str, Any]) -> RepoInfo:
        return await self.ops.repo(
            str_field(data, "repo", max_len=LIMITS.repo_name), str_field(data, "cwd", max_len=LIMITS.path)
        )

    async def api_search(self, request: Request) -> Response:
        data = read_json_object(await request.body())
        repo = await self._repo(data)
        return _json(
            200,
            await self.ops.search(
                _principal(request),
                repo,
                data.get("query", ""),  # validated by Operations.search (type, length)
                data.get("limit", 10),
                data.get("mode", "hybrid"),
                data.get("path_prefix", "") or "",
            ),
        )

    async def api_op(self, request: Request) -> Response:
        """POST /api/ops/{op}: one operation of the table by name; JSON body = its arguments + repo/cwd."""
        name = request.path_params["op"]
        if name not in self.operations:
            raise BadInput("op", f"unknown operation; one of {', '.join(sorted(PUBLIC_OPERATIONS))}")
        data = read_json_object(await request.body())
        if "user" in data:
            raise BadInput("user", "is the user of your token; leave it out of the request")
        repo = await self._repo(data)
        data.pop("repo", None)
        data.pop("cwd", None)
        operation, parameters = self.operations[name]
        unknown = sorted(set(data) - parameters)
        if unknown:
            raise BadInput(unknown[0], f"not an argument of {name}")
        try:
            return _json(200, await operation(_principal(request), repo, **data))
        except TypeError as exc:
            raise BadInput("body", f"wrong arguments for {name} ({exc})") from None

    async def status(self, request: Request) -> Response:
        return _json(200, await self.ops.status(_principal(request)))

    async def health(self, request: Request) -> Response:
        return _json(200, {"status": "ok"})

    # -- repositories ---------------------------------------------------------------------------------

    async def list_repos(self, request: Request) -> Response:
        remote = request.query_params.get("remote")
        wanted = wanted_remote(remote) if remote is not None else ""  # bad input: refused before any call
        listing = await self.ops.list_repos(_principal(request))
        return _json(200, repos_with_remote(listing, wanted) if wanted else listing)

    async def register_repo(self, request: Request) -> Response:
        data = read_json_object(await request.body())
        return _json(
            200,
            await self.ops.register_repo(
                _principal(request),
                name=str_field(data, "name", max_len=LIMITS.repo_name),
                path=str_field(data, "path", max_len=LIMITS.path),
                git_url=str_field(data, "git_url", max_len=LIMITS.git_url),
            ),
        )

    async def remove_repo(self, request: Request) -> Response:
        return _json(200, await self.ops.remove_repo(_principal(request), request.path_params["name"]))

    async def sync_repo(self, request: Request) -> Response:
        return _json(200, await self.ops.sync_repo(_principal(request), request.path_params["name"]))

    async def repo_status(self, request: Request) -> Response:
        return _json(200, await self.ops.repo_status(_principal(request), request.path_params["name"]))

    async def index_repo(self, request: Request) -> Response:
        data = read_json_object(await request.body())
        progress = await self.ops.index_repo(
            _principal(request), request.path_params["name"], bool(data.get("full", False))
        )

        async def lines() -> AsyncIterator[bytes]:
            try:
                async for message in progress:
                    yield (json.dumps(message) + "\n").encode()
            except Rejected as exc:
                yield (json.dumps({"error": client_message(exc)}) + "\n").encode()

        return StreamingResponse(lines(), media_type="application/x-ndjson")


def build_http_app(
    settings: GatewaySettings,
    ops: Operations,
    auth: TokenAuthenticator,
    extra_routes: list[Any] | None = None,
    lifespan: Any = None,
) -> ASGIApp:
    """The HTTP surface behind the request middleware; errors mapped once for every route."""
    routes = [*HttpSurface(settings, ops).routes(), *(extra_routes or [])]
    app = Starlette(
        routes=routes,
        exception_handlers={
            BadInput: _bad_request,
            Forbidden: _forbidden,
            Unavailable: _unavailable,
            Rejected: _rejected,
        },
        lifespan=lifespan,
    )
    limiter = RateLimiter(
        settings.rate_limit_per_second, settings.rate_limit_burst, settings.rate_limit_clients
    )
    return RequestContext(app, auth, settings.max_body_bytes, limiter, routes, settings.body_timeout_seconds)


async def _bad_request(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, BadInput)
    return _json(400, {"error": str(exc), "field": exc.field})


async def _forbidden(request: Request, exc: Exception) -> Response:
    return _json(403, {"error": str(exc)})


async def _unavailable(request: Request, exc: Exception) -> Response:
    return _json(503, {"error": str(exc)})


async def _rejected(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, Rejected)
    return _json(http_status(exc.code), {"error": client_message(exc)})


def _hook_reply(event: str, text: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, "additionalContext": text}}


def _principal(request: Request) -> Principal:
    """The principal the middleware authenticated; a request that reached a handler without one is a bug."""
    principal = request.scope.get("state", {}).get("principal")
    if not isinstance(principal, Principal):
        raise RuntimeError(f"{request.url.path} reached a handler without an authenticated principal")
    return principal


def _record(result: ContextResult) -> None:
    # The hook ran under wait_for (its own task): bind its summary here, in the request's log context.
    describe_in_request_log(result)
    metrics.CONTEXT_TOKENS.labels(result.route).observe(result.tokens)
    for backend in result.degraded:
        metrics.DEGRADED_REPLIES.labels(backend).inc()
