"""The real Claude Code CLI (npm, pinned; tools/install_claude_code.sh) against the suite and a fake model API."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.claude_fake_anthropic import FakeAnthropic
from tests.suite import ROOT, Suite

pytestmark = pytest.mark.e2e
CLAUDE = ROOT / ".cache/claude-code/node_modules/.bin/claude"


@pytest.fixture(scope="module")
def claude_bin() -> Path:
    done = subprocess.run(
        ["bash", str(ROOT / "tools/install_claude_code.sh")], capture_output=True, text=True
    )
    if done.returncode != 0 or not CLAUDE.exists():
        pytest.skip(
            f"Claude Code could not be installed from npm (tools/install_claude_code.sh): {done.stderr[-300:]}"
        )
    return CLAUDE


@pytest.mark.parametrize("mode", ["local", "team"])
def test_prompt_hook_and_session_start_context_reach_the_model_request(
    indexed: Suite, claude_bin: Path, tmp_path: Path, mode: str
) -> None:
    """local: init against the suite (http prompt hook). team: init against a team host name that only
    $REPORECALL_URL makes reachable — the committed files name no local URL, the prompt hook is the curl
    command form, and both hooks and MCP find the server through the environment."""
    project = tmp_path / "shop"
    shutil.copytree(ROOT / "tests/fixtures/spine", project)
    server = ["--server", "http://reporecall.team.invalid:7878"] if mode == "team" else []
    done = indexed.cli("init", "--dir", str(project), "--repo", "shop", *server)
    assert done.returncode == 0, done.stderr
    local = project / ".claude/settings.local.json"
    local.write_text(json.dumps({"enableAllProjectMcpServers": True}))
    search = {"name": "mcp__reporecall__search_code", "input": {"query": "bulk discount for large orders"}}
    fake = FakeAnthropic(tool_use=search)
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": fake.url,
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "ENABLE_TOOL_SEARCH": "false",  # MCP tools in the request's tools array, not deferred behind ToolSearch
        "REPORECALL_TOKEN": indexed.token,
        **({"REPORECALL_URL": indexed.url} if mode == "team" else {}),
    }
    committed = (project / ".claude/settings.json").read_text() + (project / ".mcp.json").read_text()
    if mode == "team":
        assert indexed.url not in committed and '"type": "command"' in committed
    try:
        run = subprocess.run(
            [
                str(claude_bin),
                "-p",
                "how is the bulk discount applied",
                "--output-format",
                "json",
                "--debug",
                "--allowedTools",
                "mcp__reporecall__search_code",
            ],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        fake.close()
    (tmp_path / "claude.out").write_text(run.stdout + "\n---\n" + run.stderr)
    print(
        f"\nclaude exit {run.returncode}; requests {[r['path'] for r in fake.requests]}; log {tmp_path / 'claude.out'}"
    )
    messages = [
        r["body"] for r in fake.requests if r["path"].startswith("/v1/messages") and "messages" in r["body"]
    ]
    assert messages, run.stderr[-2000:]
    sent = json.dumps(messages[-1])
    assert "apply_bulk_discount" in sent  # the UserPromptSubmit hook's context
    assert "RepoRecall indexes this repository" in sent  # SessionStart's
    tools = {t.get("name") for t in messages[-1].get("tools", [])}
    print(f"tools sent: {sorted(t for t in tools if t and t.startswith('mcp__'))}")
    assert any(t and t.startswith("mcp__reporecall__") for t in tools)
    # The model's tool_use of search_code came back as the matching tool_result with the tool's hits.
    results = [
        block
        for body in messages
        for message in body["messages"]
        if isinstance(message.get("content"), list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert results and results[0]["tool_use_id"] == "toolu_rr1", json.dumps(messages[-1])[-1500:]
    assert "apply_bulk_discount" in json.dumps(results[0]["content"])
