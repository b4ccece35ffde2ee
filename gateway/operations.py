"""What the gateway can do, once: the JSON API, the hooks, the MCP tools, the webhook and the CLI all call these.

Each operation takes the authenticated `Principal` first and names the permission it needs
(`@requires`, decided in gateway.authorization); the `user` it passes to a service is the principal's,
never a client field. It validates its input (raising BadInput naming the field), calls the owning
service with a deadline, and returns plain JSON-ready data with repo-relative paths and bounded size.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from gateway.authorization import Permission, Principal, acting_user, allowed, authorize, requires
from gateway.context import ContextQuery, ContextResult, ContextService
from gateway.domain.file_summary import file_summary_json
from gateway.ports import Backends, NewMemory, RecallQuery
from gateway.repos import RepoDirectory, RepoInfo, matching_registration
from gateway.session import SessionStartService
from gateway.validation import BadInput, bounded_int, confine_path, string_list, text_arg

MODES = ("hybrid", "keyword", "vector")
MATCHES = ("exact", "prefix", "fuzzy")
MEMORY_CLASSES = ("rule", "fact", "episode", "working")
MEMORY_TYPES = ("user", "feedback", "project", "reference")
MEMORY_SCOPES = ("global", "project", "branch", "user")


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

    async def find_repo(self, name: str | None, cwd: str | None = None) -> RepoInfo | None:
        """The registered repo named `name` (or by remote), else the one containing `cwd`; None if none."""
        return await self.repos.resolve(name or None, cwd or None)

    async def repo(self, name: str | None, cwd: str | None = None) -> RepoInfo:
        info = await self.find_repo(name, cwd)
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
        return await self.backends.search.search_json(
            repo.name,
            text_arg(query, "query"),
            bounded_int(limit, "limit", 1, 100),
            mode,
            confine_path(path_prefix, "path_prefix") if path_prefix else "",
            language,
            self.deadline,
        )

    @requires(Permission.READ_CODE)
    async def find_symbol(
        self, who: Principal, repo: RepoInfo, name: str, match: str = "exact", limit: int = 20
    ) -> dict[str, Any]:
        if not isinstance(match, str) or match not in MATCHES:
            raise BadInput("match", "must be exact, prefix or fuzzy")
        return await self.backends.search.find_symbols_json(
            repo.name, text_arg(name, "name", 500), match, bounded_int(limit, "limit", 1, 100), self.deadline
        )

    @requires(Permission.READ_CODE)
    async def file_summary(self, who: Principal, repo: RepoInfo, path: str) -> dict[str, Any]:
        """Purpose, declarations, imports and importers of a file — from the index, not the disk."""
        path = confine_path(path)
        chunks = await self.backends.search.file_chunks(repo.name, path, self.deadline)
        if not chunks:
            raise BadInput("path", f"{path} is not indexed in {repo.name}")
        imports = await self.backends.graph.imports(repo.name, path, self.deadline)
        importers = await self.backends.graph.importers(repo.name, path, self.deadline)
        return file_summary_json(path, chunks, imports, importers)

    @requires(Permission.FEEDBACK)
    async def feedback(
        self, who: Principal, repo: RepoInfo, chunk_id: str, useful: bool, query: str = ""
    ) -> dict[str, Any]:
        return await self.backends.search.feedback_json(
            repo.name,
            text_arg(chunk_id, "chunk_id", 200),
            bool(useful),
            text_arg(query, "query", 2000, required=False),
            self.deadline,
        )

    # --- graph --------------------------------------------------------------------------------------

    async def _graph(self, call: str, repo: RepoInfo, **arguments: Any) -> dict[str, Any]:
        return await self.backends.graph.graph_json(call, repo.name, arguments, self.deadline)

    @staticmethod
    def _symbol(symbol: str, field: str = "symbol") -> str:
        """A symbol by name (short or qualified), or by chunk id when written `id:<chunk id>`."""
        return text_arg(symbol, field, 500)

    @requires(Permission.READ_CODE)
    async def callers(self, who: Principal, repo: RepoInfo, symbol: str, depth: int = 1) -> dict[str, Any]:
        return await self._graph(
            "callers", repo, symbol=self._symbol(symbol), depth=bounded_int(depth, "depth", 1, 5)
        )

    @requires(Permission.READ_CODE)
    async def callees(self, who: Principal, repo: RepoInfo, symbol: str, depth: int = 1) -> dict[str, Any]:
        return await self._graph(
            "callees", repo, symbol=self._symbol(symbol), depth=bounded_int(depth, "depth", 1, 5)
        )

    @requires(Permission.READ_CODE)
    async def call_tree(
        self, who: Principal, repo: RepoInfo, symbol: str, up: int = 2, down: int = 2
    ) -> dict[str, Any]:
        return await self._graph(
            "call_tree",
            repo,
            symbol=self._symbol(symbol),
            up=bounded_int(up, "up", 0, 5),
            down=bounded_int(down, "down", 0, 5),
            branch=8,
        )

    @requires(Permission.READ_CODE)
    async def call_path(self, who: Principal, repo: RepoInfo, source: str, target: str) -> dict[str, Any]:
        return await self._graph(
            "call_path",
            repo,
            target=self._symbol(target),
            source=self._symbol(source),
            max_depth=8,
        )

    @requires(Permission.READ_CODE)
    async def imports(self, who: Principal, repo: RepoInfo, path: str) -> dict[str, Any]:
        return await self._graph("imports", repo, path=confine_path(path))

    @requires(Permission.READ_CODE)
    async def importers(self, who: Principal, repo: RepoInfo, path: str) -> dict[str, Any]:
        return await self._graph("importers", repo, path=confine_path(path))

    @requires(Permission.READ_CODE)
    async def communities(self, who: Principal, repo: RepoInfo, limit: int = 10) -> dict[str, Any]:
        return await self._graph("communities", repo, limit=bounded_int(limit, "limit", 1, 50))

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
        return await self.backends.memory.recall_json(
            RecallQuery(
                repo=repo.name,
                query=text_arg(query, "query"),
                user=acting_user(who),
                branch=text_arg(branch, "branch", 250, required=False),
                budget_tokens=bounded_int(budget_tokens, "budget_tokens", 1, 20_000),
                limit=bounded_int(limit, "limit", 1, 50),
            ),
            self.deadline,
        )

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
        memory = NewMemory(
            repo=repo.name,
            name=text_arg(name, "name", 200),
            body=text_arg(body, "body", 20_000),
            description=text_arg(description, "description", 500, required=False),
            memory_class=memory_class,
            scope=scope,
            type=type_,
            user=acting_user(who),
            branch=text_arg(branch, "branch", 250, required=False),
            source="team",
            related_files=tuple(
                confine_path(p, "related_files") for p in string_list(related_files, "related_files")
            )[:50],
        )
        return await self.backends.memory.store_json(memory, who.admin, self.deadline)

    @requires(Permission.WRITE_MEMORY)
    async def forget_memory(self, who: Principal, repo: RepoInfo, memory_id: str) -> dict[str, Any]:
        """The memory service decides from the principal's user and admin flag what it may forget."""
        return await self.backends.memory.forget_json(
            repo.name, text_arg(memory_id, "memory_id", 200), acting_user(who), who.admin, self.deadline
        )

    @requires(Permission.READ_MEMORY)
    async def list_memories(
        self,
        who: Principal,
        repo: RepoInfo,
        branch: str = "",
        limit: int = 50,
        include_inactive: bool = False,
    ) -> dict[str, Any]:
        return await self.backends.memory.list_json(
            repo.name,
            acting_user(who),
            text_arg(branch, "branch", 250, required=False),
            bounded_int(limit, "limit", 1, 500),
            bool(include_inactive),
            self.deadline,
        )

    @requires(Permission.COMPACT_MEMORY)
    async def compact_memories(self, who: Principal, repo: RepoInfo) -> dict[str, Any]:
        """Only the memories the principal may change take part (their own; every team one for an admin)."""
        return await self.backends.memory.compact_json(repo.name, acting_user(who), who.admin, self.deadline)

    # --- index --------------------------------------------------------------------------------------

    @requires(Permission.READ_CODE)
    async def index_status(self, who: Principal, repo: RepoInfo) -> dict[str, Any]:
        status = await self.backends.indexer.repo_status_json(repo.name, self.deadline)
        stats = await self.backends.search.stats_json(repo.name, self.deadline)
        return {**status, "search": stats}

    @requires(Permission.INDEX)
    async def refresh(self, who: Principal, repo: RepoInfo, paths: list[str]) -> dict[str, Any]:
        if not isinstance(paths, list) or not paths:
            raise BadInput("paths", "give one or more repo-relative paths")
        return await self.backends.indexer.index_paths_json(
            repo.name, [confine_path(p, "paths") for p in paths[:1000]], 120.0
        )

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
        return await self.backends.indexer.list_repos_json(5.0)

    @requires(Permission.READ_CODE)
    async def repo_status(self, who: Principal, name: str) -> dict[str, Any]:
        return await self.backends.indexer.repo_status_json(text_arg(name, "name", 256), 10.0)

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
        reply = await self.backends.indexer.register_json(name, path, git_url, 600.0 if git_url else 10.0)
        await self.repos.refresh()
        return reply

    async def _registered_as(self, name: str, path: str, git_url: str) -> dict[str, Any] | None:
        listing = await self.backends.indexer.list_repos_json(5.0)
        return matching_registration(listing.get("repos", []), name, path, git_url)

    @requires(Permission.MANAGE_REPOS)
    async def remove_repo(self, who: Principal, name: str) -> dict[str, Any]:
        """Remove a repository from every service: search and graph (through the indexer), then memory."""
        name = text_arg(name, "name", 256)
        removed = await self.backends.indexer.remove_repo(name, 60.0)
        memories = await self.backends.memory.delete_repo(name, 60.0) if removed else 0
        await self.repos.refresh()
        return {"removed": removed, "memories_deleted": memories}

    @requires(Permission.SYNC_REPO)
    async def sync_repo(self, who: Principal, name: str) -> dict[str, Any]:
        return await self.backends.indexer.sync_json(text_arg(name, "name", 256), 900.0)

    @requires(Permission.SYNC_REPO)
    async def sync_pushed(self, who: Principal, remotes: set[str]) -> list[str]:
        """Start a sync of every registered repo whose remote is one of `remotes`; their names."""
        listing = await self.backends.indexer.list_repos(5.0)
        targets = [r.name for r in listing if r.remote and r.remote in remotes]
        for name in targets:
            self.context_service.spawn(self.backends.indexer.sync_json(name, 900.0))
        return targets

    @requires(Permission.INDEX)
    async def index_repo(
        self, who: Principal, name: str, full: bool = False
    ) -> AsyncIterator[dict[str, Any]]:
        """Start an index run of a registered repository; its progress messages as they come."""
        return self.backends.indexer.index_repo(text_arg(name, "name", 256), bool(full))
