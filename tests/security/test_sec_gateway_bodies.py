"""Issue 18, gateway: body caps on every route (/mcp included, chunked too) answer a clean 413; slow
clients are cut off — a request head that never completes, a body that never arrives."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import uvicorn
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from gateway.slow_clients import header_deadline_protocol
from kit.testing import eventually
from tests.security.sec_gateway_support import harness

MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def _chunks(total: int, size: int = 64 * 1024) -> AsyncIterator[bytes]:
    sent = 0
    while sent < total:
        yield b" " * min(size, total - sent)
        sent += size


async def test_mcp_oversize_body_is_413_json_with_or_without_content_length(tmp_path: Path) -> None:
    async with harness(tmp_path, max_body_bytes=100_000) as h, h.client() as client:
        headers = h.headers("alice", **MCP_HEADERS)
        for content in (b" " * 300_000, _chunks(300_000)):  # declared length, then chunked (no length)
            reply = await client.post("/mcp", content=content, headers=headers)
            assert reply.status_code == 413, reply.text
            assert "larger than 100000 bytes" in reply.json()["error"] and "Traceback" not in reply.text
        # chunked over the cap on the API and the hook: 413, and the hook's fail-open empty reply
        reply = await client.post("/api/context", content=_chunks(300_000), headers=h.headers("alice"))
        assert reply.status_code == 413 and "error" in reply.json()
        reply = await client.post(
            "/hooks/prompt-context", content=_chunks(300_000), headers=h.headers("alice")
        )
        assert reply.status_code == 200 and reply.json() == {}

        # under the cap, chunked, still reaches the route whole
        async def small() -> AsyncIterator[bytes]:
            yield b'{"prompt": '
            yield b"5}"

        reply = await client.post("/api/context", content=small(), headers=h.headers("alice"))
        assert reply.status_code == 400 and reply.json()["field"] == "prompt"  # the route read the body


async def test_a_body_that_never_arrives_is_408(tmp_path: Path) -> None:
    never = asyncio.Event()

    async def stalled() -> AsyncIterator[bytes]:
        yield b'{"prompt": '
        await never.wait()  # the client stops sending
        yield b"}"

    async with harness(tmp_path, body_timeout_seconds=0.2) as h, h.client() as client:
        reply = await asyncio.wait_for(  # without a body deadline this waits forever
            client.post("/api/context", content=stalled(), headers=h.headers("alice")), 30
        )
        assert reply.status_code == 408 and "not received" in reply.json()["error"]


async def test_a_request_head_that_never_completes_is_closed(tmp_path: Path) -> None:
    """A real uvicorn server with the gateway's protocol: a trickled header is cut at the deadline, while
    a normal request on the same server is served."""

    async def ok(request: object) -> PlainTextResponse:
        return PlainTextResponse("ok")

    app = Starlette(routes=[Route("/", ok)])
    config = uvicorn.Config(app, log_config=None, access_log=False, http=header_deadline_protocol(0.3))
    server = uvicorn.Server(config)
    server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        await eventually(lambda: server.started, 30, "uvicorn to start")
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        await writer.drain()
        assert b"ok" in await asyncio.wait_for(reader.read(1000), 10)  # served
        writer.close()

        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n")  # ... and the rest never comes
        await writer.drain()
        trickle = asyncio.create_task(_trickle(writer))
        data = await asyncio.wait_for(reader.read(1000), 30)  # b"" once the server closes; else it waits
        trickle.cancel()
        assert data == b""
    finally:
        server.should_exit = True
        await task


async def _trickle(writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(ConnectionError):
        for i in range(1000):
            writer.write(f"X-Slow-{i}: a\r\n".encode())  # every byte used to reset the only timer there was
            await writer.drain()
            await asyncio.sleep(0.05)  # a slow client is the behaviour under test: one header every 50 ms
