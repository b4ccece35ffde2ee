"""`reporecall init` writes the PreToolUse hook for Grep|Glob|Read, fail-open, beside the prompt hooks."""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from cli.client import CliError
from cli.init_cmd import claude_settings, cmd_init, merge_settings
from gateway.repo_lookup import repos_with_remote, wanted_remote


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


class _Server:
    """A GatewayClient stand-in: the team server's repo list, filtered by remote as GET /api/repos does."""

    url = "https://rr.example.com"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def request(self, method: str, path: str, body: Any = None) -> Any:
        self.asked.append(path)
        listing = {
            "repos": [{"name": "github.com/acme/shop", "path": "/srv/shop", "remote": "github.com/acme/shop"}]
        }
        if "?" not in path:
            return listing
        remote = parse_qs(urlsplit(path).query)["remote"][0]
        return repos_with_remote(listing, wanted_remote(remote))


def _checkout(tmp_path: Path, remote: str) -> Path:
    root = tmp_path / "somewhere-else" / "my-shop"
    root.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run(["git", "-C", str(root), "remote", "add", "origin", remote], check=True)
    return root


def test_init_on_a_teammates_checkout_finds_the_repo_by_its_git_remote(tmp_path: Path) -> None:
    root = _checkout(tmp_path, "git@github.com:acme/shop.git")
    server = _Server()
    args = argparse.Namespace(dir=str(root), server=server.url, repo=None, json=True)
    assert cmd_init(args, server) == 0  # type: ignore[arg-type]
    assert any("remote=git%40github.com%3Aacme%2Fshop.git" in p for p in server.asked)
    settings = (root / ".claude/settings.json").read_text()
    assert "X-Reporecall-Repo: github.com/acme/shop" in settings  # committed: works for every teammate
    assert str(root) not in settings and "/srv/shop" not in settings


def test_init_on_an_unknown_remote_says_so_and_writes_nothing(tmp_path: Path) -> None:
    root = _checkout(tmp_path, "https://github.com/acme/other.git")
    args = argparse.Namespace(dir=str(root), server="https://rr.example.com", repo=None, json=True)
    with pytest.raises(CliError, match="nor by its git remote"):
        cmd_init(args, _Server())  # type: ignore[arg-type]
    assert not (root / ".claude").exists() and not (root / ".mcp.json").exists()
