"""A teammate's `reporecall init` on a checkout at another path finds the repo through the server by its
normalised git remote: no --repo, and the committed config names the repo, not a path."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.suite import ROOT, Suite

pytestmark = pytest.mark.e2e


def _git_checkout(path: Path, remote: str) -> Path:
    shutil.copytree(ROOT / "tests/fixtures/spine", path)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    subprocess.run(["git", "-C", str(path), "remote", "add", "origin", remote], check=True)
    return path


def test_init_in_a_teammates_checkout_finds_the_repo_by_its_remote(indexed: Suite, tmp_path: Path) -> None:
    server_side = _git_checkout(tmp_path / "server" / "spine", "https://github.com/acme/spine-c2.git")
    reply = indexed.post("/api/repos", {"path": str(server_side)})
    assert reply.status_code == 200, reply.text
    name = reply.json()["repo"]["name"]
    assert name == "github.com/acme/spine-c2"
    try:
        laptop = _git_checkout(tmp_path / "laptop" / "work" / "my-spine", "git@github.com:acme/spine-c2.git")
        done = indexed.cli("init", "--dir", str(laptop), "--json")
        assert done.returncode == 0, done.stderr
        settings = (laptop / ".claude/settings.json").read_text() + (laptop / ".mcp.json").read_text()
        assert f"X-Reporecall-Repo: {name}" in settings and str(server_side) not in settings
        print(f"\ninit without --repo at {laptop} -> repo {name!r}")
    finally:
        httpx.delete(f"{indexed.url}/api/repos/{name}", headers=indexed.headers(), timeout=30)
