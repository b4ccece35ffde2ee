"""The real Claude Code CLI: the PreToolUse hook `init` writes answers a Read of a file the prompt hook
already injected with a note, and the note reaches the model's next request (local http hook and team curl
command hook)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.e2e.claude_fake_anthropic import FakeAnthropic
from tests.e2e.test_claude_real_client_e2e import claude_bin  # noqa: F401  (fixture)
from tests.suite import ROOT, Suite

pytestmark = pytest.mark.e2e
NOTE = "RepoRecall: this Read asks for code already in this session's context"


@pytest.mark.parametrize("mode", ["local", "team"])
def test_read_of_injected_file_gets_the_pre_tool_use_note_in_the_next_model_request(
    indexed: Suite,
    claude_bin: Path,  # noqa: F811
    tmp_path: Path,
    mode: str,
) -> None:
    project = tmp_path / "shop"
    shutil.copytree(ROOT / "tests/fixtures/spine", project)
    server = ["--server", "http://reporecall.team.invalid:7878"] if mode == "team" else []
    done = indexed.cli("init", "--dir", str(project), "--repo", "shop", *server)
    assert done.returncode == 0, done.stderr
    (project / ".claude/settings.local.json").write_text(json.dumps({"enableAllProjectMcpServers": True}))
    read = {"name": "Read", "input": {"file_path": str(project / "src/shop/pricing.py")}}
    fake = FakeAnthropic(tool_use=read)
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": fake.url,
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "DISABLE_AUTOUPDATER": "1",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "ENABLE_TOOL_SEARCH": "false",
        "REPORECALL_TOKEN": indexed.token,
        **({"REPORECALL_URL": indexed.url} if mode == "team" else {}),
    }
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
                "Read",
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
    messages = [
        r["body"] for r in fake.requests if r["path"].startswith("/v1/messages") and "messages" in r["body"]
    ]
    assert len(messages) >= 2, run.stderr[-2000:]
    assert "apply_bulk_discount" in json.dumps(messages[0])  # the prompt hook injected pricing.py
    after = json.dumps(messages[-1])
    excerpt = after[max(0, after.find(NOTE) - 200) : after.find(NOTE) + 400]
    print(f"\n[{mode}] next request excerpt: {excerpt}")
    debug = "".join(f.read_text() for f in (home / ".claude/debug").glob("*.txt"))
    for line in debug.splitlines():
        if "PreToolUse" in line:
            print(f"[{mode}] debug: {line[:300]}")
    assert "Hook PreToolUse:Read (PreToolUse) success" in debug
    assert NOTE in after, after[-3000:]
    assert "src/shop/pricing.py:" in excerpt
    assert NOTE not in json.dumps(messages[0])  # the note came with the tool call, not before it
