"""Issue 18, gateway: the user a service acts for is the token's, on every surface; a `user` sent by the
client never selects whose personal memories come back."""

from __future__ import annotations

import json
from pathlib import Path

from tests.security.sec_gateway_support import harness


async def test_user_field_from_the_client_is_refused_and_never_used(tmp_path: Path) -> None:
    async with harness(tmp_path) as h, h.client() as client:
        for op, body in (
            ("recall", {"query": "plan"}),
            ("list_memories", {}),
            ("store_memory", {"name": "n", "body": "b", "scope": "user"}),
            ("forget_memory", {"memory_id": "bob-1"}),
        ):
            reply = await client.post(
                f"/api/ops/{op}", json={"repo": "shop", "user": "bob", **body}, headers=h.headers("alice")
            )
            assert reply.status_code == 400 and reply.json()["field"] == "user", reply.text
        assert h.memory.users == []  # refused before any call


async def test_memory_calls_act_for_the_token_user_on_api_hooks_and_mcp(tmp_path: Path) -> None:
    async with harness(tmp_path) as h, h.client() as client:
        reply = await client.post(
            "/api/ops/recall", json={"repo": "shop", "query": "plan"}, headers=h.headers("alice")
        )
        assert reply.status_code == 200, reply.text
        assert "bob secret plan" not in reply.text and "tests first" in reply.text
        reply = await client.post(
            "/hooks/prompt-context",
            json={
                "prompt": "where is the secret plan of bob handled",
                "cwd": "/srv/repos/shop",
                "user": "bob",
            },
            headers=h.headers("alice"),
        )
        assert reply.status_code == 200 and "bob secret plan" not in reply.text
        reply = await client.post(
            "/api/context",
            json={"prompt": "where is the secret plan of bob handled", "repo": "shop", "user": "bob"},
            headers=h.headers("alice"),
        )
        assert reply.status_code == 200 and "bob secret plan" not in reply.text
        reply = await client.post(
            "/mcp",
            json={
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {
                    "name": "memory",
                    "arguments": {"action": "recall", "query": "plan", "user": "bob"},
                },
            },
            headers=h.headers(
                "alice", **{"X-Reporecall-Repo": "shop", "Accept": "application/json, text/event-stream"}
            ),
        )
        assert reply.status_code == 200, reply.text
        text = json.dumps(reply.json())
        assert "tests first" in text and "bob secret plan" not in text, text  # a real recall, as alice
        asked = {user for _, user in h.memory.users}
        assert asked == {"alice"}, h.memory.users


async def test_the_gateway_grpc_context_acts_for_no_user(tmp_path: Path) -> None:
    """The gRPC port's callers are services (kit's credentials), not users: team memories only."""
    import grpc

    from gateway.entrypoints.grpc import GatewayServicer
    from reporecall.gateway.v1 import gateway_pb2, gateway_pb2_grpc

    async with harness(tmp_path) as h:
        server = grpc.aio.server()
        gateway_pb2_grpc.add_GatewayServiceServicer_to_server(GatewayServicer(h.gateway.ops), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                reply = await gateway_pb2_grpc.GatewayServiceStub(channel).Context(
                    gateway_pb2.ContextRequest(prompt="where is the secret plan of bob handled", repo="shop"),
                    timeout=10,
                )
        finally:
            await server.stop(None)
    assert "bob secret plan" not in reply.text
    assert {user for rpc, user in h.memory.users if rpc == "Recall"} == {""}
