"""What the gateway can do, once: the JSON API, the MCP tools and the CLI all call these.

Each operation validates its input (raising BadInput naming the field), calls the owning service with a
deadline, and returns plain JSON-ready data with repo-relative paths and bounded size.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from gateway.backends import Backends
from gateway.repos import RepoDirectory, RepoInfo
from kit.convert import kind_from_pb
from reporecall.graph.v1 import graph_pb2
from reporecall.indexer.v1 import indexer_pb2
from reporecall.memory.v1 import memory_pb2
from reporecall.search.v1 import search_pb2

MODES = {
    "hybrid": search_pb2.SEARCH_MODE_HYBRID,
    "keyword": search_pb2.SEARCH_MODE_KEYWORD,
    "vector": search_pb2.SEARCH_MODE_VECTOR,
}
MATCHES = {
    "exact": search_pb2.SYMBOL_MATCH_EXACT,
    "prefix": search_pb2.SYMBOL_MATCH_PREFIX,
    "fuzzy": search_pb2.SYMBOL_MATCH_FUZZY,
}
MEMORY_CLASSES = {"rule": 1, "fact": 2, "episode": 3, "working": 4}
MEMORY_TYPES = {"user": 1, "feedback": 2, "project": 3, "reference": 4}
MEMORY_SCOPES = {"global": 1, "project": 2, "branch": 3, "user": 4}


class BadInput(Exception):
    """A client sent something unusable. `field` names the argument; the message says what is wrong."""

    def __init__(self, field: str, problem: str) -> None:
        self.field, self.problem = field, problem
        super().__init__(f"{field}: {problem}")


def to_json(message: Message) -> dict[str, Any]:
    return MessageToDict(message, preserving_proto_field_name=True)


def confine_path(path: str, field: str = "path") -> str:
    """A repo-relative POSIX path, or BadInput for anything that could leave the repository."""
    if not isinstance(path, str) or not path.strip():
        raise BadInput(field, "must be a non-empty repo-relative path")
    if "\x00" in path or "\\" in path or "%" in path:
        raise BadInput(field, "must not contain NUL, backslashes or percent-encoding")
    if path.startswith("/") or (len(path) > 1 and path[1] == ":"):
        raise BadInput(field, "must be relative to the repository root, not absolute")
    normal = posixpath.normpath(path)
    if normal == ".." or normal.startswith("../"):
        raise BadInput(field, "must stay inside the repository")
    return normal


def bounded_int(value: Any, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput(field, "must be an integer")
    if not low <= value <= high:
        raise BadInput(field, f"must be between {low} and {high}")
    return value


def text_arg(value: Any, field: str, max_len: int = 20_000, required: bool = True) -> str:
    if value is None:
        value = ""
    if not isinstance(value, str):
        raise BadInput(field, "must be a string")
    if required and not value.strip():
        raise BadInput(field, "must not be empty")
    if len(value) > max_len:
        raise BadInput(field, f"longer than {max_len} characters")
    return value


@dataclass
class Operations:
    backends: Backends
    repos: RepoDirectory
    deadline: float = 10.0

    async def repo(self, name: str | None, cwd: str | None = None) -> RepoInfo:
        info = await self.repos.resolve(name or None, cwd or None)
        if info is None:
            raise BadInput(
                "repo",
                f"no registered repository named {name!r}"
                if name
                else "name a repository (no registered repository contains this directory)",
            )
        return info

    # --- search -------------------------------------------------------------------------------------

    async def search(
        self,
        repo: RepoInfo,
        query: str,
        limit: int = 10,
        mode: str = "hybrid",
        path_prefix: str = "",
        language: str = "",
    ) -> dict[str, Any]:
        if not isinstance(mode, str) or mode not in MODES:
            raise BadInput("mode", "must be hybrid, keyword or vector")
        filters = search_pb2.SearchFilters(
            path_prefix=confine_path(path_prefix, "path_prefix") if path_prefix else "",
            languages=[language] if language else [],
        )
        reply = await self.backends.call(
            "search",
            self.backends.search.Search,
            search_pb2.SearchRequest(
                query=text_arg(query, "query"),
                repo=repo.name,
                limit=bounded_int(limit, "limit", 1, 100),
                mode=MODES[mode],
                filters=filters,
            ),
            self.deadline,
        )
        return to_json(reply)

    async def find_symbol(
        self, repo: RepoInfo, name: str, match: str = "exact", limit: int = 20
    ) -> dict[str, Any]:
        if not isinstance(match, str) or match not in MATCHES:
            raise BadInput("match", "must be exact, prefix or fuzzy")
        reply = await self.backends.call(
            "search",
            self.backends.search.FindSymbols,
            search_pb2.FindSymbolsRequest(
                repo=repo.name,
                name=text_arg(name, "name", 500),
                match=MATCHES[match],
                limit=bounded_int(limit, "limit", 1, 100),
            ),
            self.deadline,
        )
        return to_json(reply)

    async def file_summary(self, repo: RepoInfo, path: str) -> dict[str, Any]:
        """Purpose, declarations, imports and importers of a file — from the index, not the disk."""
        path = confine_path(path)
        chunks = await self.backends.call(
            "search",
            self.backends.search.FileChunks,
            search_pb2.FileChunksRequest(repo=repo.name, path=path),
            self.deadline,
        )
        if not chunks.chunks:
            raise BadInput("path", f"{path} is not indexed in {repo.name}")
        imports = await self.backends.call(
            "graph",
            self.backends.graph.Imports,
            graph_pb2.ImportsRequest(repo=repo.name, path=path),
            self.deadline,
        )
        importers = await self.backends.call(
            "graph",
            self.backends.graph.Importers,
            graph_pb2.ImportersRequest(repo=repo.name, path=path),
            self.deadline,
        )
        first = chunks.chunks[0]
        purpose = next((c.doc for c in chunks.chunks if c.doc), "")
        return {
            "path": path,
            "language": first.language,
            "lines": max(c.end_line for c in chunks.chunks),
            "purpose": purpose.strip().split("\n\n")[0][:500],
            "declarations": [
                {
                    "kind": search_kind(c.kind),
                    "name": c.qualified_name,
                    "lines": f"{c.start_line}-{c.end_line}",
                    "signature": c.signature[:300],
                }
                for c in chunks.chunks
                if search_kind(c.kind) != "module"
            ][:200],
            "imports": [
                {"target": i.target, "resolved_path": i.resolved_path, "external": i.external}
                for i in imports.imports
            ][:200],
            "imported_by": sorted({i.path for i in importers.imports})[:200],
        }

    async def feedback(self, repo: RepoInfo, chunk_id: str, useful: bool, query: str = "") -> dict[str, Any]:
        reply = await self.backends.call(
            "search",
            self.backends.search.Feedback,
            search_pb2.FeedbackRequest(
                repo=repo.name,
                chunk_id=text_arg(chunk_id, "chunk_id", 200),
                useful=bool(useful),
                query=text_arg(query, "query", 2000, required=False),
            ),
            self.deadline,
        )
        return to_json(reply)

    # --- graph --------------------------------------------------------------------------------------

    def _ref(self, symbol: str) -> graph_pb2.SymbolRef:
        """A symbol by name (short or qualified), or by chunk id when written `id:<chunk id>`."""
        symbol = text_arg(symbol, "symbol", 500)
        if symbol.startswith("id:"):
            return graph_pb2.SymbolRef(id=symbol[3:])
        return graph_pb2.SymbolRef(name=symbol)

    async def callers(self, repo: RepoInfo, symbol: str, depth: int = 1) -> dict[str, Any]:
        reply = await self.backends.call(
            "graph",
            self.backends.graph.Callers,
            graph_pb2.CallersRequest(
                repo=repo.name, symbol=self._ref(symbol), depth=bounded_int(depth, "depth", 1, 5), limit=50
            ),
            self.deadline,
        )
        return to_json(reply)

    async def callees(self, repo: RepoInfo, symbol: str, depth: int = 1) -> dict[str, Any]:
        reply = await self.backends.call(
            "graph",
            self.backends.graph.Callees,
            graph_pb2.CalleesRequest(
                repo=repo.name, symbol=self._ref(symbol), depth=bounded_int(depth, "depth", 1, 5), limit=50
            ),
            self.deadline,
        )
        return to_json(reply)

    async def call_tree(self, repo: RepoInfo, symbol: str, up: int = 2, down: int = 2) -> dict[str, Any]:
        reply = await self.backends.call(
            "graph",
            self.backends.graph.CallTree,
            graph_pb2.CallTreeRequest(
                repo=repo.name,
                seed=self._ref(symbol),
                up=bounded_int(up, "up", 0, 5),
                down=bounded_int(down, "down", 0, 5),
                branch=8,
            ),
            self.deadline,
        )
        return to_json(reply)

    async def call_path(self, repo: RepoInfo, source: str, target: str) -> dict[str, Any]:
        reply = await self.backends.call(
            "graph",
            self.backends.graph.ShortestPath,
            graph_pb2.ShortestPathRequest(
                repo=repo.name, to=self._ref(target), max_depth=8, **{"from": self._ref(source)}
            ),
            self.deadline,
        )
        return to_json(reply)

    async def imports(self, repo: RepoInfo, path: str) -> dict[str, Any]:
        reply = await self.backends.call(
            "graph",
            self.backends.graph.Imports,
            graph_pb2.ImportsRequest(repo=repo.name, path=confine_path(path)),
            self.deadline,
        )
        return to_json(reply)

    async def importers(self, repo: RepoInfo, path: str) -> dict[str, Any]:
        reply = await self.backends.call(
            "graph",
            self.backends.graph.Importers,
            graph_pb2.ImportersRequest(repo=repo.name, path=confine_path(path)),
            self.deadline,
        )
        return to_json(reply)

    async def communities(self, repo: RepoInfo, limit: int = 10) -> dict[str, Any]:
        reply = await self.backends.call(
            "graph",
            self.backends.graph.Communities,
            graph_pb2.CommunitiesRequest(repo=repo.name, limit=bounded_int(limit, "limit", 1, 50)),
            self.deadline,
        )
        return to_json(reply)

    # --- memory -------------------------------------------------------------------------------------

    async def recall(
        self,
        repo: RepoInfo,
        query: str,
        user: str,
        branch: str = "",
        budget_tokens: int = 800,
        limit: int = 10,
    ) -> dict[str, Any]:
        reply = await self.backends.call(
            "memory",
            self.backends.memory.Recall,
            memory_pb2.RecallRequest(
                repo=repo.name,
                query=text_arg(query, "query"),
                user=user,
                branch=text_arg(branch, "branch", 250, required=False),
                budget_tokens=bounded_int(budget_tokens, "budget_tokens", 1, 20_000),
                limit=bounded_int(limit, "limit", 1, 50),
            ),
            self.deadline,
        )
        return to_json(reply)

    async def store_memory(
        self,
        repo: RepoInfo,
        user: str,
        name: str,
        body: str,
        description: str = "",
        memory_class: str = "fact",
        scope: str = "project",
        type_: str = "project",
        branch: str = "",
        related_files: list[str] | None = None,
        admin: bool = False,
    ) -> dict[str, Any]:
        for field, value, allowed in (
            ("class", memory_class, MEMORY_CLASSES),
            ("scope", scope, MEMORY_SCOPES),
            ("type", type_, MEMORY_TYPES),
        ):
            if not isinstance(value, str) or value not in allowed:
                raise BadInput(field, f"must be one of {', '.join(allowed)}")
        memory = memory_pb2.Memory(
            repo=repo.name,
            name=text_arg(name, "name", 200),
            body=text_arg(body, "body", 20_000),
            description=text_arg(description, "description", 500, required=False),
            type=MEMORY_TYPES[type_],
            scope=MEMORY_SCOPES[scope],
            user=user,
            branch=text_arg(branch, "branch", 250, required=False),
            source="team",
            related_files=[
                confine_path(p, "related_files") for p in _string_list(related_files, "related_files")
            ][:50],
            **{"class": MEMORY_CLASSES[memory_class]},
        )
        reply = await self.backends.call(
            "memory",
            self.backends.memory.Store,
            memory_pb2.StoreRequest(memory=memory, admin=admin),
            self.deadline,
        )
        return to_json(reply)

    async def forget_memory(
        self, repo: RepoInfo, memory_id: str, user: str, admin: bool = False
    ) -> dict[str, Any]:
        """`user` and `admin` are the authenticated principal's (the memory service decides from them)."""
        reply = await self.backends.call(
            "memory",
            self.backends.memory.Forget,
            memory_pb2.ForgetRequest(
                repo=repo.name, id=text_arg(memory_id, "memory_id", 200), user=user, admin=admin
            ),
            self.deadline,
        )
        return to_json(reply)

    async def list_memories(
        self, repo: RepoInfo, user: str, branch: str = "", limit: int = 50, include_inactive: bool = False
    ) -> dict[str, Any]:
        reply = await self.backends.call(
            "memory",
            self.backends.memory.List,
            memory_pb2.ListRequest(
                repo=repo.name,
                user=user,
                branch=text_arg(branch, "branch", 250, required=False),
                limit=bounded_int(limit, "limit", 1, 500),
                include_inactive=bool(include_inactive),
            ),
            self.deadline,
        )
        return to_json(reply)

    async def compact_memories(self, repo: RepoInfo, user: str = "", admin: bool = False) -> dict[str, Any]:
        """Only the memories the principal may change take part (their own; every team one for an admin)."""
        reply = await self.backends.call(
            "memory",
            self.backends.memory.Compact,
            memory_pb2.CompactRequest(repo=repo.name, user=user, admin=admin),
            self.deadline,
        )
        return to_json(reply)

    # --- index --------------------------------------------------------------------------------------

    async def index_status(self, repo: RepoInfo) -> dict[str, Any]:
        status = await self.backends.call(
            "indexer",
            self.backends.indexer.RepoStatus,
            indexer_pb2.RepoStatusRequest(repo=repo.name),
            self.deadline,
        )
        stats = await self.backends.call(
            "search", self.backends.search.Stats, search_pb2.StatsRequest(repo=repo.name), self.deadline
        )
        return {**to_json(status), "search": to_json(stats)}

    async def refresh(self, repo: RepoInfo, paths: list[str]) -> dict[str, Any]:
        if not isinstance(paths, list) or not paths:
            raise BadInput("paths", "give one or more repo-relative paths")
        reply = await self.backends.call(
            "indexer",
            self.backends.indexer.IndexPaths,
            indexer_pb2.IndexPathsRequest(
                repo=repo.name, paths=[confine_path(p, "paths") for p in paths[:1000]]
            ),
            120.0,
        )
        return to_json(reply)


def _string_list(value: Any, field: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise BadInput(field, "must be a list of strings")
    return value


def search_kind(kind: int) -> str:
    return kind_from_pb(kind).value
