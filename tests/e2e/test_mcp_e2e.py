"""The MCP tools through real processes, called by the MCP Python SDK's own client (HTTP and stdio)."""

from __future__ import annotations

import json
import sys

import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.suite import ROOT, Suite

pytestmark = pytest.mark.e2e

TOOLS = {"search_code", "get_context", "code_graph", "file_summary", "memory", "feedback", "index"}


def _payload(result) -> dict:  # type: ignore[no-untyped-def]
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content  # type: ignore[no-any-return]
    return json.loads(result.content[0].text)  # type: ignore[no-any-return]


async def test_tools_over_streamable_http_with_bearer_auth(indexed: Suite) -> None:
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {indexed.token}", "X-Reporecall-Repo": "shop"}
    )
    async with http, Client(streamable_http_client(indexed.url + "/mcp", http_client=http)) as client:
        tools = await client.list_tools()
        assert {t.name for t in tools.tools} == TOOLS
        assert all(t.description and len(t.description) > 30 for t in tools.tools)
        found = _payload(await client.call_tool("search_code", {"query": "bulk discount for large orders"}))
        assert any(h["symbol"] == "apply_bulk_discount" for h in found["hits"])
        bad = await client.call_tool("file_summary", {"path": "../../etc/passwd"})
        assert bad.is_error and "path" in bad.content[0].text


async def test_mcp_refuses_requests_without_a_token(indexed: Suite) -> None:
    reply = httpx2.post(indexed.url + "/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert reply.status_code == 401


async def test_tools_over_stdio_bridge(indexed: Suite) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "cli.main", "--data-dir", str(indexed.data_dir), "mcp", "--repo", "shop"],
        cwd=str(ROOT),
    )
    async with Client(params) as client:
        tools = await client.list_tools()
        assert {t.name for t in tools.tools} == TOOLS
        found = _payload(
            await client.call_tool("search_code", {"query": "VAT rate of a country", "limit": 3})
        )
        assert found["repo"] == "shop" and found["hits"]
