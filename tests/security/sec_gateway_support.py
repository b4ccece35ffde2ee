"""Fakes for the gateway's security tests: an indexer and a memory service on real in-process gRPC servers
(port 0), so the gateway's own clients, deadlines and error mapping are what is tested, and nothing
depends on another branch's services. The fake indexer refuses a taken name as the real one does
(ALREADY_EXISTS naming the fix); the fake memory service returns personal memories only to their owner.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import httpx

from gateway.auth import TokenAuthenticator, TokenStore
from gateway.bootstrap import Gateway, bootstrap
from gateway.settings import GatewaySettings
from reporecall.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from reporecall.memory.v1 import memory_pb2, memory_pb2_grpc

NOWHERE = "127.0.0.1:1"  # search and graph: refused at once, the gateway degrades around them
TAKEN = "is already registered"


class FakeIndexer(indexer_pb2_grpc.IndexerServiceServicer):
    def __init__(self) -> None:
        self.repos: dict[str, indexer_pb2.Repo] = {
            "shop": indexer_pb2.Repo(name="shop", path="/srv/repos/shop", remote="github.com/acme/shop"),
        }
        self.calls: list[tuple[str, Any]] = []

    async def RegisterRepo(self, request: Any, context: grpc.aio.ServicerContext) -> Any:  # noqa: N802
        self.calls.append(("RegisterRepo", request))
        if request.path.startswith("/etc"):
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "path: /etc is outside the repository roots"
            )
        if request.git_url.startswith("file:"):
            await context.abort(
                grpc.StatusCode.FAILED_PRECONDITION, "git_url: only https:// and ssh:// are allowed"
            )
        name = request.name or Path(request.path).name
        existing = self.repos.get(name)
        if existing is not None and existing.path != request.path:
            await context.abort(
                grpc.StatusCode.ALREADY_EXISTS,
                f"name: {name!r} {TAKEN} at another path; choose another name or remove it first",
            )
        repo = indexer_pb2.Repo(name=name, path=request.path)
        self.repos[name] = repo
        return indexer_pb2.RegisterRepoResponse(repo=repo)

    async def ListRepos(self, request: Any, context: grpc.aio.ServicerContext) -> Any:  # noqa: N802
        return indexer_pb2.ListReposResponse(repos=list(self.repos.values()))

    async def RemoveRepo(self, request: Any, context: grpc.aio.ServicerContext) -> Any:  # noqa: N802
        self.calls.append(("RemoveRepo", request))
        return indexer_pb2.RemoveRepoResponse(removed=self.repos.pop(request.repo, None) is not None)

    async def SyncRepo(self, request: Any, context: grpc.aio.ServicerContext) -> Any:  # noqa: N802
        self.calls.append(("SyncRepo", request))
        return indexer_pb2.SyncRepoResponse(pulled=True)

    async def IndexRepo(self, request: Any, context: grpc.aio.ServicerContext) -> Any:  # noqa: N802
        self.calls.append(("IndexRepo", request))
        yield indexer_pb2.IndexRepoResponse(files_scanned=1, message="done")

    async def RepoStatus(self, request: Any, context: grpc.aio.ServicerContext) -> Any:  # noqa: N802
        return indexer_pb2.RepoStatusResponse(repo=self.repos.get(request.repo))

    def mutations(self) -> list[str]:
        return [name for name, _ in self.calls if name in ("RegisterRepo", "RemoveRepo", "SyncRepo")]


class FakeMemory(memory_pb2_grpc.MemoryServiceServicer):
    """Team memory for everyone; bob's personal note only for bob (as the real scope rules say)."""

    def __init__(self) -> None:
        self.users: list[tuple[str, str]] = []  # (rpc, user it was asked for)
        self.memories = [
            memory_pb2.Memory(id="team-1", repo="shop", name="team rule", body="tests first", scope=2),
            memory_pb2.Memory(
                id="bob-1", repo="shop", name="bob's note", body="bob secret plan", scope=4, user="bob"
            ),
        ]

    def _visible(self, user: str) -> list[Any]:
        return [m for m in self.memories if m.scope != 4 or (m.user and m.user == user)]

    async def Recall(self, request: Any, context: grpc.aio.ServicerContext) -> Any:  # noqa: N802
        self.users.append(("Recall", request.user))
        return memory_pb2.RecallResponse(
            memories=[
                memory_pb2.RecalledMemory(memory=m, score=1.0, tokens=5) for m in self._visible(request.user)
            ]
        )

    async def List(self, request: Any, context: grpc.aio.ServicerContext) -> Any:  # noqa: N802
        self.users.append(("List", request.user))
        return memory_pb2.ListResponse(memories=self._visible(request.user))

    async def Store(self, request: Any, context: grpc.aio.ServicerContext) -> Any:  # noqa: N802
        self.users.append(("Store", request.memory.user))
        return memory_pb2.StoreResponse(id="new-1")

    async def Forget(self, request: Any, context: grpc.aio.ServicerContext) -> Any:  # noqa: N802
        self.users.append(("Forget", request.user))
        return memory_pb2.ForgetResponse(forgotten=False)

    async def Observe(self, request: Any, context: grpc.aio.ServicerContext) -> Any:  # noqa: N802
        self.users.append(("Observe", request.user))
        return memory_pb2.ObserveResponse(kept=1)

    async def Compact(self, request: Any, context: grpc.aio.ServicerContext) -> Any:  # noqa: N802
        self.users.append(("Compact", ""))
        return memory_pb2.CompactResponse()

    async def DeleteRepo(self, request: Any, context: grpc.aio.ServicerContext) -> Any:  # noqa: N802
        return memory_pb2.DeleteRepoResponse(deleted=0)


@dataclass
class Harness:
    gateway: Gateway
    indexer: FakeIndexer
    memory: FakeMemory
    store: TokenStore
    tokens: dict[str, str] = field(default_factory=dict)  # alice, bob (members), root (admin), local

    def headers(self, who: str, **extra: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[who]}", **extra}

    def client(self, address: str = "127.0.0.1") -> httpx.AsyncClient:
        transport = httpx.ASGITransport(app=self.gateway.app, client=(address, 40000))
        return httpx.AsyncClient(transport=transport, base_url="http://gw")


@asynccontextmanager
async def harness(tmp_path: Path, **settings: Any) -> AsyncIterator[Harness]:
    indexer, memory = FakeIndexer(), FakeMemory()
    server = grpc.aio.server()
    indexer_pb2_grpc.add_IndexerServiceServicer_to_server(indexer, server)
    memory_pb2_grpc.add_MemoryServiceServicer_to_server(memory, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    address = f"127.0.0.1:{port}"
    config = GatewaySettings(
        data_dir=tmp_path,
        indexer_addr=address,
        memory_addr=address,
        search_addr=NOWHERE,
        graph_addr=NOWHERE,
        **settings,
    )
    store = TokenStore(tmp_path / "tokens.db")
    auth = TokenAuthenticator(local_token="local-secret", store=store, reload_seconds=0)
    gateway = bootstrap(config, auth)
    tokens = {
        "alice": store.issue("alice"),
        "bob": store.issue("bob"),
        "root": store.issue("root", admin=True),
        "local": "local-secret",
    }
    try:
        async with gateway.mcp.session_manager.run():  # what the app's lifespan does in the process
            yield Harness(gateway, indexer, memory, store, tokens)
    finally:
        await gateway.backends.close()
        await server.stop(None)
