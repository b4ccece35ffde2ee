"""What the gateway can do, once: the JSON API, the hooks, the MCP tools, the webhook and the CLI all call these.

Each operation takes the authenticated `Principal` first and names the permission it needs
(`@requires`, decided in gateway.authorization); the `user` it passes to a service is the principal's,
never a client field. It validates its input (raising BadInput naming the field), calls the owning
service with a deadline, and returns plain JSON-ready data with repo-relative paths and bounded size.
"""

from __future__ import annotations

import dataclasses
import posixpath
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from gateway.authorization import Permission, Principal, acting_user, allowed, authorize, requires
from gateway.backends import Backends
from gateway.context import ContextQuery, ContextResult, ContextService
from gateway.repos import RepoDirectory, RepoInfo
from gateway.session import SessionStartService
from gateway.validation import BadInput, bounded_int, confine_path, string_list, text_arg
from kit.convert import kind_from_pb
from kit.remotes import normalise_remote
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


def to_json(message: Message) -> dict[str, Any]:
    return MessageToDict(message, preserving_proto_field_name=True)


@dataclass
class Operations:
    backends: Backends
    repos: RepoDirectory
    context_service: ContextService
    session: SessionStartService
    deadline: float = 10.0

    @classmethod
    def build(
        cls, backends: Backends, repos: RepoDirectory, context_service: ContextService, deadline: float = 10.0
    ) -> Operations:
        session = SessionStartService(backends, context_service.deadline * 2)
        return cls(backends, repos, context_service, session, deadline)

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

    @requires(Permission.READ_CODE)
    async def search(
        self,
        who: Principal,
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

    @requires(Permission.READ_CODE)
    async def find_symbol(
        self, who: Principal, repo: RepoInfo, name: str, match: str = "exact", limit: int = 20
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

    @requires(Permission.READ_CODE)
    async def file_summary(self, who: Principal, repo: RepoInfo, path: str) -> dict[str, Any]:
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

    @requires(Permission.FEEDBACK)
    async def feedback(
        self, who: Principal, repo: RepoInfo, chunk_id: str, useful: bool, query: str = ""
    ) -> dict[str, Any]:
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

    @requires(Permission.READ_CODE)
    async def callers(self, who: Principal, repo: RepoInfo, symbol: str, depth: int = 1) -> dict[str, Any]:
        reply = await self.backends.call(
            "graph",
            self.backends.graph.Callers,
            graph_pb2.CallersRequest(
                repo=repo.name, symbol=self._ref(symbol), depth=bounded_int(depth, "depth", 1, 5), limit=50
            ),
            self.deadline,
        )
        return to_json(reply)

    @requires(Permission.READ_CODE)
    async def callees(self, who: Principal, repo: RepoInfo, symbol: str, depth: int = 1) -> dict[str, Any]:
        reply = await self.backends.call(
            "graph",
            self.backends.graph.Callees,
            graph_pb2.CalleesRequest(
                repo=repo.name, symbol=self._ref(symbol), depth=bounded_int(depth, "depth", 1, 5), limit=50
            ),
            self.deadline,
        )
        return to_json(reply)

    @requires(Permission.READ_CODE)
    async def call_tree(
        self, who: Principal, repo: RepoInfo, symbol: str, up: int = 2, down: int = 2
    ) -> dict[str, Any]:
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

    @requires(Permission.READ_CODE)
    async def call_path(self, who: Principal, repo: RepoInfo, source: str, target: str) -> dict[str, Any]:
        reply = await self.backends.call(
            "graph",
            self.backends.graph.ShortestPath,
            graph_pb2.ShortestPathRequest(
                repo=repo.name, to=self._ref(target), max_depth=8, **{"from": self._ref(source)}
            ),
            self.deadline,
        )
        return to_json(reply)

    @requires(Permission.READ_CODE)
    async def imports(self, who: Principal, repo: RepoInfo, path: str) -> dict[str, Any]:
        reply = await self.backends.call(
            "graph",
            self.backends.graph.Imports,
            graph_pb2.ImportsRequest(repo=repo.name, path=confine_path(path)),
            self.deadline,
        )
        return to_json(reply)

    @requires(Permission.READ_CODE)
    async def importers(self, who: Principal, repo: RepoInfo, path: str) -> dict[str, Any]:
        reply = await self.backends.call(
            "graph",
            self.backends.graph.Importers,
            graph_pb2.ImportersRequest(repo=repo.name, path=confine_path(path)),
            self.deadline,
        )
        return to_json(reply)

    @requires(Permission.READ_CODE)
    async def communities(self, who: Principal, repo: RepoInfo, limit: int = 10) -> dict[str, Any]:
        reply = await self.backends.call(
            "graph",
            self.backends.graph.Communities,
            graph_pb2.CommunitiesRequest(repo=repo.name, limit=bounded_int(limit, "limit", 1, 50)),
            self.deadline,
        )
        return to_json(reply)

    # --- memory -------------------------------------------------------------------------------------

    @requires(Permission.READ_MEMORY)
    async def recall(
        self,
        who: Principal,
        repo: RepoInfo,
        query: str,
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
                user=acting_user(who),
                branch=text_arg(branch, "branch", 250, required=False),
                budget_tokens=bounded_int(budget_tokens, "budget_tokens", 1, 20_000),
                limit=bounded_int(limit, "limit", 1, 50),
            ),
            self.deadline,
        )
        return to_json(reply)

    @requires(Permission.WRITE_MEMORY)
    async def store_memory(
        self,
        who: Principal,
        repo: RepoInfo,
        name: str,
        body: str,
        description: str = "",
        memory_class: str = "fact",
        scope: str = "project",
        type_: str = "project",
        branch: str = "",
        related_files: list[str] | None = None,
    ) -> dict[str, Any]:
        for field, value, choices in (
            ("class", memory_class, MEMORY_CLASSES),
            ("scope", scope, MEMORY_SCOPES),
            ("type", type_, MEMORY_TYPES),
        ):
            if not isinstance(value, str) or value not in choices:
                raise BadInput(field, f"must be one of {', '.join(choices)}")
        memory = memory_pb2.Memory(
            repo=repo.name,
            name=text_arg(name, "name", 200),
            body=text_arg(body, "body", 20_000),
            description=text_arg(description, "description", 500, required=False),
            type=MEMORY_TYPES[type_],
            scope=MEMORY_SCOPES[scope],
            user=acting_user(who),
            branch=text_arg(branch, "branch", 250, required=False),
            source="team",
            related_files=[
                confine_path(p, "related_files") for p in string_list(related_files, "related_files")
            ][:50],
            **{"class": MEMORY_CLASSES[memory_class]},
        )
        reply = await self.backends.call(
            "memory",
            self.backends.memory.Store,
            memory_pb2.StoreRequest(memory=memory, admin=who.admin),
            self.deadline,
        )
        return to_json(reply)

    @requires(Permission.WRITE_MEMORY)
    async def forget_memory(self, who: Principal, repo: RepoInfo, memory_id: str) -> dict[str, Any]:
        """The memory service decides from the principal's user and admin flag what it may forget."""
        reply = await self.backends.call(
            "memory",
            self.backends.memory.Forget,
            memory_pb2.ForgetRequest(
                repo=repo.name,
                id=text_arg(memory_id, "memory_id", 200),
                user=acting_user(who),
                admin=who.admin,
            ),
            self.deadline,
        )
        return to_json(reply)

    @requires(Permission.READ_MEMORY)
    async def list_memories(
        self,
        who: Principal,
        repo: RepoInfo,
        branch: str = "",
        limit: int = 50,
        include_inactive: bool = False,
    ) -> dict[str, Any]:
        reply = await self.backends.call(
            "memory",
            self.backends.memory.List,
            memory_pb2.ListRequest(
                repo=repo.name,
                user=acting_user(who),
                branch=text_arg(branch, "branch", 250, required=False),
                limit=bounded_int(limit, "limit", 1, 500),
                include_inactive=bool(include_inactive),
            ),
            self.deadline,
        )
        return to_json(reply)

    @requires(Permission.COMPACT_MEMORY)
    async def compact_memories(self, who: Principal, repo: RepoInfo) -> dict[str, Any]:
        """Only the memories the principal may change take part (their own; every team one for an admin)."""
        reply = await self.backends.call(
            "memory",
            self.backends.memory.Compact,
            memory_pb2.CompactRequest(repo=repo.name, user=acting_user(who), admin=who.admin),
            self.deadline,
        )
        return to_json(reply)

    # --- index --------------------------------------------------------------------------------------

    @requires(Permission.READ_CODE)
    async def index_status(self, who: Principal, repo: RepoInfo) -> dict[str, Any]:
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

    @requires(Permission.INDEX)
    async def refresh(self, who: Principal, repo: RepoInfo, paths: list[str]) -> dict[str, Any]:
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

    # --- context (the hooks, get_context, explain, the gRPC Context call) ----------------------------

    @requires(Permission.READ_CODE)
    async def context(self, who: Principal, query: ContextQuery) -> ContextResult:
        """The assembled context, with memories recalled (and the session observed) as `who`."""
        return await self.context_service.build(dataclasses.replace(query, user=acting_user(who)))

    @requires(Permission.READ_CODE)
    async def session_orientation(self, who: Principal, repo: RepoInfo) -> str:
        return await self.session.orientation(repo)

    @requires(Permission.READ_CODE)
    async def status(self, who: Principal) -> dict[str, Any]:
        """The suite's health and the context savings since this gateway started."""
        services = await self.backends.health()
        return {
            "gateway": {"status": "SERVING"},
            "services": services,
            "savings": self.context_service.savings,
        }

    # --- repositories -------------------------------------------------------------------------------

    @requires(Permission.READ_CODE)
    async def list_repos(self, who: Principal) -> dict[str, Any]:
        reply = await self.backends.call(
            "indexer", self.backends.indexer.ListRepos, indexer_pb2.ListReposRequest(), 5.0
        )
        return to_json(reply)

    @requires(Permission.READ_CODE)
    async def repo_status(self, who: Principal, name: str) -> dict[str, Any]:
        reply = await self.backends.call(
            "indexer",
            self.backends.indexer.RepoStatus,
            indexer_pb2.RepoStatusRequest(repo=text_arg(name, "name", 256)),
            10.0,
        )
        return to_json(reply)

    @requires(Permission.INDEX)
    async def register_repo(
        self, who: Principal, name: str = "", path: str = "", git_url: str = ""
    ) -> dict[str, Any]:
        """Register a repository (admin). Anyone else who may index gets the existing repo back when it is
        already registered exactly so (`reporecall index` registers before every run), and nothing changes."""
        name = text_arg(name, "name", 256, required=False)
        path = text_arg(path, "path", 4096, required=False)
        git_url = text_arg(git_url, "git_url", 2048, required=False)
        if not path and not git_url:
            raise BadInput("path", "give the repository's path on the server, or a git_url to clone")
        if not allowed(who, Permission.MANAGE_REPOS):
            existing = await self._registered_as(name, path, git_url)
            if existing is not None:
                return {"repo": existing}
            authorize(who, Permission.MANAGE_REPOS)
        reply = await self.backends.call(
            "indexer",
            self.backends.indexer.RegisterRepo,
            indexer_pb2.RegisterRepoRequest(name=name, path=path, git_url=git_url),
            600.0 if git_url else 10.0,
        )
        await self.repos.refresh()
        return to_json(reply)

    async def _registered_as(self, name: str, path: str, git_url: str) -> dict[str, Any] | None:
        """The listed repo that already is exactly this registration (same name if given, same path or
        remote), else None."""
        listing = await self.backends.call(
            "indexer", self.backends.indexer.ListRepos, indexer_pb2.ListReposRequest(), 5.0
        )
        remote = normalise_remote(git_url) if git_url else ""
        for repo in listing.repos:
            if name and repo.name != name:
                continue
            if (
                path
                and not git_url
                and repo.path
                and posixpath.normpath(repo.path) == posixpath.normpath(path)
            ):
                return to_json(repo)
            if remote and repo.managed and repo.remote == remote:
                return to_json(repo)
        return None

    @requires(Permission.MANAGE_REPOS)
    async def remove_repo(self, who: Principal, name: str) -> dict[str, Any]:
        """Remove a repository from every service: search and graph (through the indexer), then memory."""
        name = text_arg(name, "name", 256)
        reply = await self.backends.call(
            "indexer", self.backends.indexer.RemoveRepo, indexer_pb2.RemoveRepoRequest(repo=name), 60.0
        )
        memories = 0
        if reply.removed:
            deleted = await self.backends.call(
                "memory", self.backends.memory.DeleteRepo, memory_pb2.DeleteRepoRequest(repo=name), 60.0
            )
            memories = deleted.deleted
        await self.repos.refresh()
        return {"removed": reply.removed, "memories_deleted": memories}

    @requires(Permission.SYNC_REPO)
    async def sync_repo(self, who: Principal, name: str) -> dict[str, Any]:
        reply = await self.backends.call(
            "indexer",
            self.backends.indexer.SyncRepo,
            indexer_pb2.SyncRepoRequest(repo=text_arg(name, "name", 256)),
            900.0,
        )
        return to_json(reply)

    @requires(Permission.SYNC_REPO)
    async def sync_pushed(self, who: Principal, remotes: set[str]) -> list[str]:
        """Start a sync of every registered repo whose remote is one of `remotes`; their names."""
        listing = await self.backends.call(
            "indexer", self.backends.indexer.ListRepos, indexer_pb2.ListReposRequest(), 5.0
        )
        targets = [r.name for r in listing.repos if r.remote and r.remote in remotes]
        for name in targets:
            self.context_service.spawn(
                self.backends.call(
                    "indexer", self.backends.indexer.SyncRepo, indexer_pb2.SyncRepoRequest(repo=name), 900.0
                )
            )
        return targets

    @requires(Permission.INDEX)
    async def index_repo(
        self, who: Principal, name: str, full: bool = False
    ) -> AsyncIterator[dict[str, Any]]:
        """Start an index run of a registered repository; its progress messages as they come."""
        call = self.backends.indexer.IndexRepo(
            indexer_pb2.IndexRepoRequest(repo=text_arg(name, "name", 256), full=bool(full))
        )

        async def progress() -> AsyncIterator[dict[str, Any]]:
            async for message in call:
                yield to_json(message)

        return progress()


def search_kind(kind: int) -> str:
    return kind_from_pb(kind).value
