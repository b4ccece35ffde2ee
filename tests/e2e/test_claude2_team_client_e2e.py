"""The real Claude Code CLI in team mode: `reporecall mcp` (stdio) as its MCP server, sending the user's
token and repo; and a team server whose name resolves to a PRIVATE address, where Claude Code refuses http
hooks and the curl command hook `init` writes still delivers the context.

A recording proxy stands in front of the suite's gateway, so the test asserts what the server saw."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.e2e.claude_fake_anthropic import FakeAnthropic
from tests.e2e.test_claude_real_client_e2e import claude_bin  # noqa: F401  (fixture)
from tests.suite import ROOT, Suite

pytestmark = pytest.mark.e2e
PRIVATE_IP = "10.254.77.1"
PRIVATE_HOST = "rr-team.internal"


@contextmanager
def recording_proxy(target: str, host: str = "127.0.0.1") -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """An HTTP proxy on `host` forwarding to the gateway at `target`; every request's path and headers."""
    seen: list[dict[str, Any]] = []
    upstream = urlsplit(target)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            pass

        def _forward(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            seen.append({"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()}})
            conn = http.client.HTTPConnection(upstream.hostname or "", upstream.port, timeout=60)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection")}
            conn.request(self.command, self.path, body=body or None, headers=headers)
            reply = conn.getresponse()
            data = reply.read()
            self.send_response(reply.status)
            for key, value in reply.getheaders():
                if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            conn.close()

        do_GET = do_POST = do_DELETE = _forward

    server = ThreadingHTTPServer((host, 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://{host}:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def _env(home: Path, fake: FakeAnthropic, token: str, url: str) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": fake.url,
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "ENABLE_TOOL_SEARCH": "false",
        "REPORECALL_TOKEN": token,
        "REPORECALL_URL": url,
    }


def _claude(claude: Path, project: Path, env: dict[str, str], prefix: list[str] | None = None) -> str:
    argv = [str(claude), "-p", "how is the bulk discount applied", "--output-format", "json", "--debug"]
    argv += ["--allowedTools", "mcp__reporecall__search_code"]
    run = subprocess.run(
        [*(prefix or []), *argv], cwd=project, env=env, capture_output=True, text=True, timeout=180
    )
    debug = "".join(f.read_text() for f in (Path(env["HOME"]) / ".claude/debug").glob("*.txt"))
    return run.stdout + "\n---\n" + run.stderr + "\n---debug\n" + debug


def _requests(fake: FakeAnthropic) -> list[dict[str, Any]]:
    return [
        r["body"] for r in fake.requests if r["path"].startswith("/v1/messages") and "messages" in r["body"]
    ]


def test_stdio_mcp_server_tools_reach_the_model_with_the_users_token_and_repo(
    indexed: Suite,
    claude_bin: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    project = tmp_path / "checkout"
    shutil.copytree(ROOT / "tests/fixtures/spine", project)
    with recording_proxy(indexed.url) as (proxy, seen):
        done = indexed.cli(
            "init", "--dir", str(project), "--repo", "shop", "--server", "http://rr.team.invalid:7878"
        )
        assert done.returncode == 0, done.stderr
        stdio = {
            "type": "stdio",
            "command": str(ROOT / ".venv/bin/reporecall"),
            "args": ["mcp", "--repo", "shop"],
            "env": {"REPORECALL_URL": "${REPORECALL_URL}", "REPORECALL_TOKEN": "${REPORECALL_TOKEN}"},
        }
        (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"reporecall": stdio}}))
        (project / ".claude/settings.local.json").write_text(json.dumps({"enableAllProjectMcpServers": True}))
        search = {
            "name": "mcp__reporecall__search_code",
            "input": {"query": "bulk discount for large orders"},
        }
        fake = FakeAnthropic(tool_use=search)
        home = tmp_path / "home"
        home.mkdir()
        try:
            out = _claude(claude_bin, project, _env(home, fake, indexed.token, proxy))
        finally:
            fake.close()
    (tmp_path / "claude.out").write_text(out)
    bodies = _requests(fake)
    assert bodies, out[-2000:]
    tools = sorted(t["name"] for t in bodies[0].get("tools", []) if t.get("name", "").startswith("mcp__"))
    print(f"\nstdio MCP tools in the model request: {tools}")
    assert "mcp__reporecall__search_code" in tools
    mcp_calls = [r for r in seen if r["path"] == "/mcp"]
    assert mcp_calls, seen
    for call in mcp_calls:
        assert call["headers"]["authorization"] == f"Bearer {indexed.token}"
        assert call["headers"]["x-reporecall-repo"] == "shop"
    print(
        f"gateway saw {len(mcp_calls)} /mcp requests, each with the user's bearer token and X-Reporecall-Repo: shop"
    )
    results = [
        b
        for body in bodies
        for m in body["messages"]
        if isinstance(m.get("content"), list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]
    assert results and "apply_bulk_discount" in json.dumps(results[0]["content"])


def _can_fake_a_private_host() -> str:
    if os.geteuid() != 0:
        return "needs root (ip addr add on lo, unshare -m and a bind mount over /etc/hosts)"
    for tool in ("unshare", "ip", "mount"):
        if shutil.which(tool) is None:
            return f"needs {tool}"
    return ""


@pytest.mark.skipif(bool(_can_fake_a_private_host()), reason=_can_fake_a_private_host() or "ok")
def test_team_server_on_a_private_address_http_hook_refused_command_hook_delivers(
    indexed: Suite,
    claude_bin: Path,  # noqa: F811
    tmp_path: Path,
) -> None:
    subprocess.run(["ip", "addr", "add", f"{PRIVATE_IP}/32", "dev", "lo"], check=True)
    try:
        with recording_proxy(indexed.url, host=PRIVATE_IP) as (proxy, seen):
            port = urlsplit(proxy).port
            server = f"http://{PRIVATE_HOST}:{port}"
            hosts = tmp_path / "hosts"
            hosts.write_text(f"127.0.0.1 localhost\n::1 localhost\n{PRIVATE_IP} {PRIVATE_HOST}\n")
            project = tmp_path / "checkout"
            shutil.copytree(ROOT / "tests/fixtures/spine", project)
            done = indexed.cli("init", "--dir", str(project), "--repo", "shop", "--server", server)
            assert done.returncode == 0, done.stderr
            settings = json.loads((project / ".claude/settings.json").read_text())
            assert settings["hooks"]["UserPromptSubmit"][0]["hooks"][0]["type"] == "command"
            # Beside init's command hook, the http form a naive setup would write: Claude Code must refuse it.
            http_hook = {
                "type": "http",
                "url": f"{server}/hooks/prompt-context?form=http",
                "headers": {"Authorization": "Bearer $REPORECALL_TOKEN"},
                "allowedEnvVars": ["REPORECALL_TOKEN"],
                "timeout": 5,
            }
            local = {
                "enableAllProjectMcpServers": True,
                "hooks": {"UserPromptSubmit": [{"hooks": [http_hook]}]},
            }
            (project / ".claude/settings.local.json").write_text(json.dumps(local))
            fake = FakeAnthropic()
            home = tmp_path / "home"
            home.mkdir()
            env = _env(home, fake, indexed.token, server)
            env.pop("REPORECALL_URL")  # the committed server name is what the hooks use
            prefix = ["unshare", "-m", "sh", "-c", f'mount --bind "{hosts}" /etc/hosts && exec "$@"', "sh"]
            try:
                out = _claude(claude_bin, project, env, prefix)
            finally:
                fake.close()
    finally:
        subprocess.run(["ip", "addr", "del", f"{PRIVATE_IP}/32", "dev", "lo"], check=False)
    (tmp_path / "claude.out").write_text(out)
    blocked = [line for line in out.splitlines() if "blocked" in line.lower() and "hook" in line.lower()]
    print("\n" + "\n".join(line[:300] for line in blocked[:3]))
    assert any("HTTP hook blocked" in line for line in blocked), out[-3000:]
    assert not any("form=http" in r["path"] for r in seen)  # the refused hook never reached the server
    curl = [r for r in seen if r["path"] == "/hooks/prompt-context"]
    assert curl and curl[0]["headers"]["user-agent"].startswith("curl/"), seen
    print(f"server saw the command hook: {curl[0]['path']} user-agent {curl[0]['headers']['user-agent']}")
    bodies = _requests(fake)
    assert bodies and "apply_bulk_discount" in json.dumps(bodies[-1])
