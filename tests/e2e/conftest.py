"""One real suite per test session, shared by the end-to-end modules (starting one costs ~10 s)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.suite import FIXTURES, Suite

SPINE = FIXTURES / "spine"

# Every end-to-end test runs as on an air-gapped server: any attempt to reach the network goes to a dead
# proxy (and model hubs are told to stay offline), so a download at run time would fail the tests.
DEAD = "http://127.0.0.1:9"
OFFLINE = {
    "HTTP_PROXY": DEAD,
    "HTTPS_PROXY": DEAD,
    "ALL_PROXY": DEAD,
    "http_proxy": DEAD,
    "https_proxy": DEAD,
    "NO_PROXY": "127.0.0.1,localhost",
    "no_proxy": "127.0.0.1,localhost",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "TIKTOKEN_CACHE_DIR": "/nonexistent-reporecall-cache",
}


@pytest.fixture(scope="session")
def claude_projects(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stand-in for ~/.claude/projects holding Claude Code's own memory of the spine fixture."""
    root = tmp_path_factory.mktemp("claude-projects")
    folder = root / re.sub(r"[^A-Za-z0-9]", "-", str(SPINE)) / "memory"
    folder.mkdir(parents=True)
    (folder / "shipping_note.md").write_text(
        "---\nname: express shipping surcharge\ndescription: why express costs 9.50\ntype: project\n---\n"
        "The express shipping surcharge of 9.50 comes from the courier contract signed in 2024.\n"
    )
    return root


@pytest.fixture(scope="session")
def suite(tmp_path_factory: pytest.TempPathFactory, claude_projects: Path):
    suite = Suite.start(
        tmp_path_factory.mktemp("suite"),
        env={"REPORECALL_CLAUDE_PROJECTS_DIR": str(claude_projects), **OFFLINE},
    )
    yield suite
    assert suite.stop() == 0, suite.log()


@pytest.fixture(scope="session")
def indexed(suite: Suite) -> Suite:
    result = suite.cli("index", str(SPINE), "--name", "shop", "--json")
    assert result.returncode == 0, result.stderr + result.stdout
    final = json.loads(result.stdout)
    assert final["repo"] == "shop" and final["files_sent"] >= 4, final
    return suite
