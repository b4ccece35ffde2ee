"""Team server repositories: registered by git URL, cloned by the server, named by the normalised remote,
kept fresh by a signed push webhook (and `sync`). The "remote" is a local bare repository reached through
git's insteadOf, so the URL is a real https:// remote while nothing leaves the machine."""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import SPINE
from tests.suite import Suite, wait_for

pytestmark = pytest.mark.e2e

URL = "https://git.example.test/Team/Shop.git"
SECRET = "webhook-s3cret"


def git(*args: str, cwd: Path) -> str:
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "PATH": "/usr/bin:/bin",
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory):
    base = tmp_path_factory.mktemp("team")
    work, bare = base / "work", base / "shop.git"
    shutil.copytree(SPINE, work)
    git("init", "-q", "-b", "main", cwd=work)
    git("add", ".", cwd=work)
    git("commit", "-q", "-m", "first", cwd=work)
    git("clone", "-q", "--bare", str(work), str(bare), cwd=base)
    git("remote", "add", "origin", str(bare), cwd=work)
    gitconfig = base / "gitconfig"
    gitconfig.write_text(f'[url "file://{bare}"]\n\tinsteadOf = {URL}\n[safe]\n\tdirectory = *\n')
    suite = Suite.start(
        base / "data",
        env={
            "REPORECALL_WEBHOOK_SECRET": SECRET,
            "GIT_CONFIG_GLOBAL": str(gitconfig),
            # the admin's insteadOf points at a local bare repository: git must be allowed file://
            "REPORECALL_GIT_ALLOW_PROTOCOLS": "https,ssh,file",
        },
    )
    yield suite, work
    suite.stop()


def push_function(work: Path, name: str) -> None:
    (work / "src/shop/extra.py").write_text(f"def {name}(order):\n    return order['id']\n")
    git("add", ".", cwd=work)
    git("commit", "-q", "-m", f"add {name}", cwd=work)
    git("push", "-q", "origin", "main", cwd=work)


def found(suite: Suite, repo: str, symbol: str) -> bool:
    reply = suite.post("/api/search", {"query": symbol, "repo": repo, "mode": "keyword", "limit": 5})
    return reply.status_code == 200 and any(
        h["chunk"]["qualified_name"] == symbol for h in reply.json()["hits"]
    )


def test_repo_registered_by_git_url_is_cloned_and_named_by_its_remote(team) -> None:
    suite, _ = team
    result = suite.cli("index", URL, "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["repo"] == "git.example.test/Team/Shop"
    repos = suite.get("/api/repos").json()["repos"]
    assert repos[0]["managed"] is True and repos[0]["remote"] == "git.example.test/Team/Shop"
    assert found(suite, "git.example.test/Team/Shop", "apply_bulk_discount")
    # A laptop's clone of the same remote (ssh form) resolves to the same repo name.
    reply = suite.post(
        "/hooks/prompt-context",
        {"prompt": "bulk discount", "cwd": "/laptop/shop"},
        **{"X-Reporecall-Repo": "git.example.test/Team/Shop"},
    )
    assert "apply_bulk_discount" in reply.json()["hookSpecificOutput"]["additionalContext"]


def test_sync_pulls_new_commits(team) -> None:
    suite, work = team
    push_function(work, "refund_order")
    reply = suite.post("/api/repos/git.example.test%2FTeam%2FShop/sync", {}, timeout=120)
    assert reply.status_code == 200, reply.text
    assert reply.json()["pulled"] is True
    assert found(suite, "git.example.test/Team/Shop", "refund_order")


def test_signed_push_webhook_syncs_and_unsigned_is_refused(team) -> None:
    suite, work = team
    push_function(work, "cancel_order")
    body = json.dumps({"ref": "refs/heads/main", "repository": {"clone_url": URL}}).encode()
    bad = httpx.post(suite.url + "/hooks/git", content=body, headers={"X-Hub-Signature-256": "sha256=00"})
    assert bad.status_code == 401
    signature = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    good = httpx.post(suite.url + "/hooks/git", content=body, headers={"X-Hub-Signature-256": signature})
    assert good.status_code == 202 and good.json()["syncing"] == ["git.example.test/Team/Shop"]
    wait_for(lambda: found(suite, "git.example.test/Team/Shop", "cancel_order"), 60, "the webhook's sync")
