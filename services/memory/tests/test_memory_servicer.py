"""MemoryService over a real in-process grpc.aio server on port 0."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest

from reporecall.memory.v1 import memory_pb2 as pb
from reporecall.memory.v1 import memory_pb2_grpc
from services.memory.engine import MemoryEngine
from services.memory.servicer import MemoryServicer

REPO = "github.com/acme/shop"


@pytest.fixture
async def stub(engine: MemoryEngine) -> AsyncIterator[memory_pb2_grpc.MemoryServiceStub]:
    servicer = MemoryServicer(engine, workers=2)
    server = grpc.aio.server()
    memory_pb2_grpc.add_MemoryServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield memory_pb2_grpc.MemoryServiceStub(channel)
    await server.stop(None)
    servicer.close()


def new_memory(body: str, **fields: object) -> pb.Memory:
    return pb.Memory(repo=REPO, body=body, **fields)  # type: ignore[arg-type]


async def test_store_recall_list_forget_round_trip(stub: memory_pb2_grpc.MemoryServiceStub) -> None:
    stored = (
        await stub.Store(
            pb.StoreRequest(
                memory=new_memory(
                    "Use the retryWithBackoff helper for HTTP calls",
                    type=pb.MEMORY_TYPE_FEEDBACK,
                    related_files=["shop/http.py"],
                )
            )
        )
    ).memory
    assert stored.id and stored.memory_class == pb.MEMORY_CLASS_RULE
    assert stored.scope == pb.MEMORY_SCOPE_PROJECT and stored.status == pb.MEMORY_STATUS_ACTIVE
    assert stored.source == "team" and stored.created.seconds > 0 and stored.repo == REPO

    recalled = await stub.Recall(
        pb.RecallRequest(repo=REPO, query="retry_with_backoff http", budget_tokens=200)
    )
    assert [r.memory.id for r in recalled.memories] == [stored.id]
    assert 0 < recalled.tokens <= 200 and recalled.memories[0].score > 0

    only_facts = await stub.Recall(pb.RecallRequest(repo=REPO, query="retry", classes=[pb.MEMORY_CLASS_FACT]))
    assert list(only_facts.memories) == []

    listed = await stub.List(pb.ListRequest(repo=REPO))
    assert [m.id for m in listed.memories] == [stored.id]

    assert (await stub.Forget(pb.ForgetRequest(repo=REPO, id=stored.id, admin=True))).forgotten
    assert not (await stub.Forget(pb.ForgetRequest(repo=REPO, id=stored.id, admin=True))).forgotten
    assert list((await stub.List(pb.ListRequest(repo=REPO, include_inactive=True))).memories) == []


async def test_bad_ids_are_invalid_argument_naming_the_field(stub: memory_pb2_grpc.MemoryServiceStub) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.Forget(pb.ForgetRequest(repo=REPO, id="../../etc/passwd"))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT and info.value.details().startswith("id:")

    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.Store(pb.StoreRequest(memory=new_memory("x", id="a/b")))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "memory.id" in info.value.details()

    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.Store(pb.StoreRequest(memory=new_memory("x", confidence=3.0)))
    assert "memory.confidence" in info.value.details()

    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.Store(pb.StoreRequest())
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT and info.value.details().startswith(
        "memory:"
    )

    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.Recall(pb.RecallRequest(repo=REPO, query="x", budget_tokens=-1))
    assert "budget_tokens" in info.value.details()


async def test_user_scoped_memory_is_private_over_grpc(stub: memory_pb2_grpc.MemoryServiceStub) -> None:
    stored = (
        await stub.Store(
            pb.StoreRequest(memory=new_memory("I like terse answers", scope=pb.MEMORY_SCOPE_USER, user="ann"))
        )
    ).memory
    for user, expected in (("ann", [stored.id]), ("bob", []), ("", [])):
        reply = await stub.Recall(pb.RecallRequest(repo=REPO, query="terse answers", user=user))
        assert [r.memory.id for r in reply.memories] == expected
    assert not (await stub.Forget(pb.ForgetRequest(repo=REPO, id=stored.id, user="bob"))).forgotten
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.Store(pb.StoreRequest(memory=new_memory("mine now", id=stored.id, user="bob")))
    assert info.value.code() == grpc.StatusCode.NOT_FOUND
    assert (await stub.Forget(pb.ForgetRequest(repo=REPO, id=stored.id, user="ann"))).forgotten


async def test_branch_scope_observe_and_compact(stub: memory_pb2_grpc.MemoryServiceStub) -> None:
    await stub.Store(
        pb.StoreRequest(
            memory=new_memory("flaky test in cart_spec", scope=pb.MEMORY_SCOPE_BRANCH, branch="fix/cart")
        )
    )
    on_main = await stub.Recall(pb.RecallRequest(repo=REPO, query="flaky cart", branch="main"))
    on_branch = await stub.Recall(pb.RecallRequest(repo=REPO, query="flaky cart", branch="fix/cart"))
    assert (len(on_main.memories), len(on_branch.memories)) == (0, 1)

    kept = await stub.Observe(
        pb.ObserveRequest(
            repo=REPO,
            session_id="s1",
            branch="main",
            user="ann",
            prompt="where is the cart total computed",
            route="lookup",
            hit_paths=["shop/cart.py"],
        )
    )
    assert kept.kept == 1

    for _ in range(2):
        await stub.Store(pb.StoreRequest(memory=new_memory("Prices are stored in cents")))
    compacted = await stub.Compact(pb.CompactRequest(repo=REPO, admin=True))
    assert (compacted.superseded, compacted.archived) == (1, 0)

    deleted = await stub.DeleteRepo(pb.DeleteRepoRequest(repo=REPO))
    assert deleted.deleted == 4
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await stub.DeleteRepo(pb.DeleteRepoRequest(repo=""))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
