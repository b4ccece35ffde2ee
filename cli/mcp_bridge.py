"""`reporecall mcp`: MCP over stdio, relayed message for message to the gateway's /mcp endpoint.

The tools live in one place (the gateway); this process only moves JSON-RPC messages between the
client's stdin/stdout and the gateway's streamable-HTTP transport, adding the bearer token and repo.
"""

from __future__ import annotations

import anyio
import httpx2
from mcp.client.streamable_http import streamable_http_client
from mcp.server.stdio import stdio_server


async def _pump(source, sink) -> None:  # type: ignore[no-untyped-def]
    async with source, sink:
        async for message in source:
            if isinstance(message, Exception):  # a line that was not JSON-RPC; the peer already saw an error
                continue
            await sink.send(message)


async def bridge(url: str, token: str, repo: str = "") -> None:
    headers = {"Authorization": f"Bearer {token}"}
    if repo:
        headers["X-Reporecall-Repo"] = repo
    timeout = httpx2.Timeout(30.0, read=300.0)
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout) as http,
        stdio_server() as (stdin_read, stdout_write),
        streamable_http_client(f"{url.rstrip('/')}/mcp", http_client=http) as (http_read, http_write),
        anyio.create_task_group() as tasks,
    ):
        tasks.start_soon(_pump, stdin_read, http_write)
        await _pump(http_read, stdout_write)
        tasks.cancel_scope.cancel()


def run_bridge(url: str, token: str, repo: str = "") -> None:
    anyio.run(bridge, url, token, repo)
