"""MCP tools, served at /mcp (streamable HTTP, bearer auth) and bridged to stdio by `reporecall mcp`.

A few consolidated tools with bounded output; every path is repo-relative and confined to the repo.
The repository is the `repo` argument, else the `X-Reporecall-Repo` header the client config sends.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from gateway.authorization import Forbidden, Principal
from gateway.context import ContextQuery
from gateway.errors import client_message
from gateway.operations import Operations
from gateway.ports import Rejected, Unavailable
from gateway.repos import RepoInfo
from gateway.validation import LIMITS, BadInput, bounded_int, text_arg

INSTRUCTIONS = (
    "RepoRecall indexes this repository (AST chunks, call graph, import graph) and the team's memories. "
    "Prefer these tools over grep and reading whole files: search_code finds code by behaviour or name, "
    "get_context returns a ready, token-budgeted block for a question, code_graph navigates callers/callees/"
    "imports, file_summary describes a file without reading it, memory recalls and stores team notes."
)


def principal_of(ctx: Context) -> Principal:
    """The principal the HTTP middleware authenticated for this MCP request (never a header re-read here)."""
    request = getattr(ctx.request_context, "request", None)
    scope = getattr(request, "scope", None) or {}
    principal = (scope.get("state") or {}).get("principal")
    if not isinstance(principal, Principal):
        raise ToolError("not authenticated: send Authorization: Bearer <token> to /mcp")
    return principal


def build_mcp(ops: Operations) -> MCPServer:
    """The MCP server with its tools (who may call: any principal the HTTP middleware authenticated;
    each operation decides what it may do)."""
    mcp = MCPServer("reporecall", instructions=INSTRUCTIONS)
    tools = McpTools(ops)
    for tool, description in (
        (tools.search_code, SEARCH_CODE),
        (tools.get_context, GET_CONTEXT),
        (tools.code_graph, CODE_GRAPH),
        (tools.file_summary, FILE_SUMMARY),
        (tools.memory, MEMORY),
        (tools.feedback, FEEDBACK),
        (tools.index, INDEX),
    ):
        mcp.tool(name=tool.__name__, description=description)(tool)
    return mcp


SEARCH_CODE = (
    "Search the repository's code by behaviour or by name. Returns ranked chunks "
    "(path:lines, kind, qualified name, score, code). mode: hybrid|keyword|vector."
)
GET_CONTEXT = (
    "The assembled, token-budgeted context for a question: where things are defined, "
    "callers and callees, the most relevant code, and team memories."
)
CODE_GRAPH = (
    "Navigate the call and import graph. action: symbol (where a name is defined), "
    "callers, callees, call_tree, call_path (from symbol to target), imports, importers "
    "(of path), communities (the architecture's main clusters)."
)
FILE_SUMMARY = (
    "Summary of one file from the index (purpose, declarations with line ranges, "
    "imports, importers) — cheaper than reading the file."
)
MEMORY = (
    "Team and personal memories. action: recall (by query), store (name + body; "
    "memory_class rule|fact|episode|working; scope project|branch|user|global), "
    "forget (by id), list."
)
FEEDBACK = "Tell RepoRecall whether a returned chunk was useful (feeds ranking)."
INDEX = (
    "Index status (indexed commit, counts, dirty files, vector backlog) or refresh "
    "(re-index the given repo-relative paths now)."
)


class McpTools:
    """Each tool translates its arguments and calls one operation; errors become tool errors."""

    def __init__(self, ops: Operations) -> None:
        self.ops = ops

    async def _run(
        self, ctx: Context, repo: str, work: Callable[[RepoInfo, Principal], Awaitable[Any]]
    ) -> Any:
        who = principal_of(ctx)
        headers = {k.lower(): v for k, v in (ctx.headers or {}).items()}
        try:
            info = await self.ops.repo(repo or headers.get("x-reporecall-repo", "")[:256])
            return await work(info, who)
        except BadInput as exc:
            raise ToolError(f"invalid {exc.field}: {exc.problem}") from None
        except Forbidden as exc:
            raise ToolError(str(exc)) from None
        except Unavailable as exc:
            raise ToolError(
                f"the {exc.service} service is unavailable right now; try again shortly"
            ) from None
        except Rejected as exc:
            raise ToolError(client_message(exc)) from None

    async def search_code(
        self,
        query: str,
        ctx: Context,
        repo: str = "",
        limit: int = 8,
        mode: Literal["hybrid", "keyword", "vector"] = "hybrid",
        path_prefix: str = "",
        language: str = "",
    ) -> dict[str, Any]:
        async def work(info: RepoInfo, who: Principal) -> dict[str, Any]:
            reply = await self.ops.search(who, info, query, limit, mode, path_prefix, language)
            return {"repo": info.name, "hits": [_compact_hit(h) for h in reply.get("hits", [])]}

        return await self._run(ctx, repo, work)  # type: ignore[no-any-return]

    async def get_context(
        self, question: str, ctx: Context, repo: str = "", budget_tokens: int = 2500
    ) -> dict[str, Any]:
        async def work(info: RepoInfo, who: Principal) -> dict[str, Any]:
            budget = bounded_int(budget_tokens, "budget_tokens", 0, LIMITS.budget_tokens)
            query = ContextQuery(prompt=text_arg(question, "question"), repo=info.name, budget_tokens=budget)
            result = await self.ops.context(who, query)
            return {
                "route": result.route,
                "partial": result.partial,
                "context": result.text,
                "items": [f"{i.path}:{i.start_line}-{i.end_line} {i.symbol}" for i in result.items],
            }

        return await self._run(ctx, repo, work)  # type: ignore[no-any-return]

    async def code_graph(
        self,
        action: Literal[
            "symbol", "callers", "callees", "call_tree", "call_path", "imports", "importers", "communities"
        ],
        ctx: Context,
        symbol: str = "",
        target: str = "",
        path: str = "",
        depth: int = 1,
        repo: str = "",
    ) -> dict[str, Any]:
        ops = self.ops

        async def work(info: RepoInfo, who: Principal) -> dict[str, Any]:
            if action == "symbol":
                return await ops.find_symbol(who, info, text_arg(symbol, "symbol", 500), "exact")
            if action == "callers":
                return await ops.callers(who, info, symbol, depth)
            if action == "callees":
                return await ops.callees(who, info, symbol, depth)
            if action == "call_tree":
                return await ops.call_tree(who, info, symbol, depth, depth)
            if action == "call_path":
                return await ops.call_path(who, info, symbol, target)
            if action == "imports":
                return await ops.imports(who, info, path)
            if action == "importers":
                return await ops.importers(who, info, path)
            return await ops.communities(who, info)

        return await self._run(ctx, repo, work)  # type: ignore[no-any-return]

    async def file_summary(self, path: str, ctx: Context, repo: str = "") -> dict[str, Any]:
        return await self._run(ctx, repo, lambda info, who: self.ops.file_summary(who, info, path))  # type: ignore[no-any-return]

    async def memory(
        self,
        action: Literal["recall", "store", "forget", "list"],
        ctx: Context,
        query: str = "",
        name: str = "",
        body: str = "",
        description: str = "",
        id: str = "",
        memory_class: Literal["rule", "fact", "episode", "working"] = "fact",
        scope: Literal["global", "project", "branch", "user"] = "project",
        branch: str = "",
        repo: str = "",
    ) -> dict[str, Any]:
        ops = self.ops

        async def work(info: RepoInfo, who: Principal) -> dict[str, Any]:
            if action == "recall":
                return await ops.recall(who, info, query, branch)
            if action == "store":
                return await ops.store_memory(
                    who, info, name, body, description, memory_class, scope, branch=branch
                )
            if action == "forget":
                return await ops.forget_memory(who, info, id)
            return await ops.list_memories(who, info, branch)

        return await self._run(ctx, repo, work)  # type: ignore[no-any-return]

    async def feedback(
        self, chunk_id: str, useful: bool, ctx: Context, query: str = "", repo: str = ""
    ) -> dict[str, Any]:
        return await self._run(  # type: ignore[no-any-return]
            ctx, repo, lambda info, who: self.ops.feedback(who, info, chunk_id, useful, query)
        )

    async def index(
        self,
        action: Literal["status", "refresh"],
        ctx: Context,
        paths: list[str] | None = None,
        repo: str = "",
    ) -> dict[str, Any]:
        async def work(info: RepoInfo, who: Principal) -> dict[str, Any]:
            if action == "status":
                return await self.ops.index_status(who, info)
            return await self.ops.refresh(who, info, paths or [])

        return await self._run(ctx, repo, work)  # type: ignore[no-any-return]


def _compact_hit(hit: dict[str, Any], max_chars: int = 2500) -> dict[str, Any]:
    chunk = hit.get("chunk", {})
    content = chunk.get("content", "")
    if len(content) > max_chars:
        content = content[:max_chars] + "\n… (truncated)"
    return {
        "location": f"{chunk.get('path')}:{chunk.get('start_line', 0)}-{chunk.get('end_line', 0)}",
        "kind": chunk.get("kind", "").removeprefix("CHUNK_KIND_").lower(),
        "symbol": chunk.get("qualified_name", ""),
        "chunk_id": chunk.get("id", ""),
        "score": round(hit.get("score", 0.0), 4),
        "code": content,
    }
