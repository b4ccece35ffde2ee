"""`reporecall init` writes the PreToolUse hook for Grep|Glob|Read, fail-open, beside the prompt hooks."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from cli.client import CliError
from cli.init_cmd import claude_settings, cmd_init, merge_settings
from gateway.entrypoints.repo_lookup import repos_with_remote, wanted_remote


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


def test_the_light_data_dir_lookup_agrees_with_kit_settings(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from cli.client import local_data_dir
    from kit.settings import default_data_dir

    monkeypatch.delenv("REPORECALL_DATA_DIR", raising=False)
    for xdg in (None, str(tmp_path / "xdg")):
        if xdg is None:
            monkeypatch.delenv("XDG_DATA_HOME", raising=False)
        else:
            monkeypatch.setenv("XDG_DATA_HOME", xdg)
        assert local_data_dir() == default_data_dir()
    monkeypatch.setenv("REPORECALL_DATA_DIR", str(tmp_path / "d"))
    assert local_data_dir() == tmp_path / "d"


def test_mcp_start_imports_neither_pydantic_nor_the_other_commands(tmp_path: Path) -> None:
    code = (
        "import sys, cli.main\n"
        "try:\n"
        "    cli.main.main(['--data-dir', sys.argv[1], 'mcp', '--repo', 'shop'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('pydantic', 'httpx', 'mcp', 'cli.cmd_doctor', 'cli.init_cmd')\n"
        "bad = sorted(m for m in sys.modules if m.startswith(heavy))\n"
        "print(bad)\n"
    )
    (tmp_path / "run.json").write_text(json.dumps({"gateway_url": "http://127.0.0.1:1", "token": "t"}))
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], input=b"", capture_output=True, timeout=60, check=False
    )
    assert done.stdout.decode().strip().splitlines()[-1] == "[]", done.stderr.decode()[-2000:]
