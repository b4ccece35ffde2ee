"""`reporecall init` writes the PreToolUse hook for Grep|Glob|Read, fail-open, beside the prompt hooks."""

from __future__ import annotations

import json
import subprocess

from cli.init_cmd import claude_settings, merge_settings


def test_loopback_gets_an_http_pre_tool_use_hook_with_a_short_timeout() -> None:
    hooks, _ = claude_settings("http://127.0.0.1:7878", "shop")
    [entry] = hooks["PreToolUse"]
    assert entry["matcher"] == "Grep|Glob|Read"
    [hook] = entry["hooks"]
    assert hook["type"] == "http" and hook["url"] == "http://127.0.0.1:7878/hooks/pre-tool-use"
    assert hook["timeout"] <= 2 and hook["headers"]["X-Reporecall-Repo"] == "shop"


def test_team_server_gets_a_fail_open_command_hook() -> None:
    hooks, _ = claude_settings("https://rr.example.com", "shop")
    [hook] = hooks["PreToolUse"][0]["hooks"]
    assert hook["type"] == "command" and "/hooks/pre-tool-use" in hook["command"]
    assert "--max-time 1" in hook["command"] and hook["timeout"] <= 2
    # The server is down (nothing listens on port 1): the hook still prints valid JSON and exits 0.
    command = hook["command"].replace("https://rr.example.com", "http://127.0.0.1:1")
    done = subprocess.run(
        ["sh", "-c", command], input=b'{"tool_name":"Read"}', capture_output=True, timeout=10, check=False
    )
    assert done.returncode == 0 and json.loads(done.stdout) == {}


def test_init_again_replaces_our_pre_tool_use_hook_and_keeps_others() -> None:
    theirs = {"matcher": "Bash", "hooks": [{"type": "command", "command": "audit.sh"}]}
    hooks, _ = claude_settings("http://127.0.0.1:7878", "shop")
    once = merge_settings({"hooks": {"PreToolUse": [theirs]}}, hooks)
    twice = merge_settings(once, hooks)
    assert twice["hooks"]["PreToolUse"] == [theirs, *hooks["PreToolUse"]]
