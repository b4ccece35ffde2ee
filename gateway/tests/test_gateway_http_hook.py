"""The prompt hook through the real HTTP app over in-memory backends: the reply Claude Code reads, and
the request's one log line with the context's route, repo, tokens injected and degraded services."""

from __future__ import annotations

from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import httpx
import structlog
from structlog.testing import capture_logs

from gateway.auth import TokenAuthenticator
from gateway.context import ContextService
from gateway.entrypoints.http import build_http_app
from gateway.operations import Operations
from gateway.repos import RepoDirectory
from gateway.settings import GatewaySettings
from gateway.tests.fakes import FakeBackends
from gateway.tests.test_gateway_pipeline import shop

TOKEN = "local-test-token"
LogLines = list[MutableMapping[str, Any]]


async def _hook(tmp_path: Path, backends: FakeBackends, prompt: str) -> tuple[httpx.Response, LogLines]:
    settings = GatewaySettings(data_dir=tmp_path, local_token=TOKEN)
    repos = RepoDirectory(backends.indexer)
    ops = Operations.build(backends, repos, ContextService(backends, repos, 2500, 0.05))  # type: ignore[arg-type]
    app = build_http_app(settings, ops, TokenAuthenticator(local_token=TOKEN))
    transport = httpx.ASGITransport(app=app)
    with capture_logs(processors=[structlog.contextvars.merge_contextvars]) as logs:
        async with httpx.AsyncClient(transport=transport, base_url="http://gw") as client:
            reply = await client.post(
                "/hooks/prompt-context",
                json={"prompt": prompt, "cwd": "/src/shop/src"},
                headers={"Authorization": f"Bearer {TOKEN}"},
            )
    return reply, [entry for entry in logs if entry.get("event") == "http"]


async def test_the_hook_reply_and_its_log_line_name_route_repo_tokens_and_degraded(tmp_path: Path) -> None:
    backends = FakeBackends(shop())
    backends.down.add("memory")
    reply, lines = await _hook(tmp_path, backends, "who calls charge_card?")
    context = reply.json()["hookSpecificOutput"]["additionalContext"]
    assert reply.status_code == 200 and "charge_card" in context
    assert len(lines) == 1
    line = lines[0]
    assert (line["route"], line["context_route"], line["repo"]) == ("/hooks/prompt-context", "flow", "shop")
    assert line["tokens_injected"] > 0 and line["degraded"] == ["memory"]


async def test_a_skipped_prompt_replies_empty_and_logs_no_tokens(tmp_path: Path) -> None:
    backends = FakeBackends(shop())
    reply, lines = await _hook(tmp_path, backends, "thanks!")
    assert reply.json() == {} and backends.calls == []
    assert (lines[0]["context_route"], lines[0]["tokens_injected"], lines[0]["degraded"]) == ("skip", 0, [])
