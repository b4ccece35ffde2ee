"""The real Claude Code CLI: the PreToolUse hook `init` writes answers a Read of a file the prompt hook
already injected with a note, and the note reaches the model's next request (local http hook and team curl
command hook)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
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


def test_the_command_hook_costs_about_a_bare_curl_and_the_server_time_is_small(
    indexed: Suite, tmp_path: Path
) -> None:
    """The curl command hook `init` writes for team servers, timed against a bare curl of /healthz in the
    same shell shape (the baseline, measured here in turn with it); the gateway's own server time for each
    call comes from its log."""
    project = tmp_path / "shop"
    shutil.copytree(ROOT / "tests/fixtures/spine", project)
    done = indexed.cli(
        "init", "--dir", str(project), "--repo", "shop", "--server", "http://rr.team.invalid:7878"
    )
    assert done.returncode == 0, done.stderr
    settings = json.loads((project / ".claude/settings.json").read_text())
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    env = {"PATH": os.environ["PATH"], "REPORECALL_TOKEN": indexed.token, "REPORECALL_URL": indexed.url}
    prompt = {"prompt": "how is apply_bulk_discount computed", "session_id": "c2-timing", "cwd": str(project)}
    assert (
        "hookSpecificOutput"
        in indexed.post("/hooks/prompt-context", prompt, **{"X-Reporecall-Repo": "shop"}).json()
    )
    body = json.dumps(
        {"session_id": "c2-timing", "tool_name": "Read", "tool_input": {"file_path": "src/shop/pricing.py"}}
    )

    def timed(argv: list[str], stdin: str) -> tuple[float, str]:
        started = time.perf_counter()
        run = subprocess.run(
            argv, input=stdin, env=env, capture_output=True, text=True, timeout=10, check=True
        )
        return time.perf_counter() - started, run.stdout

    # The baseline is the same shell shape (sh, a command substitution, curl, printf) around a bare GET of
    # /healthz, run in turn with the hook so both see the same load: only the request and the server differ.
    bare_command = f"out=$(curl -sS '{indexed.url}/healthz') && printf '%s' \"$out\""
    runs = [(timed(["sh", "-c", command], body), timed(["sh", "-c", bare_command], "")[0]) for _ in range(7)]
    hook = sorted(h for h, _ in runs)
    bare = sorted(b for _, b in runs)
    assert "RepoRecall: this Read" in hook[3][1]
    server_ms = [
        json.loads(line)["server_ms"]
        for line in indexed.service_log("gateway").splitlines()
        if '"hook.pre_tool_use"' in line and '"server_ms"' in line
    ]
    print(
        f"\ncommand PreToolUse hook p50 {hook[3][0] * 1000:.1f} ms; bare curl p50 {bare[3] * 1000:.1f} ms; "
        f"gateway server_ms p50 {sorted(server_ms)[len(server_ms) // 2] if server_ms else 'n/a'}"
    )
    assert hook[3][0] < bare[3] * 3
