"""One real suite per test session, shared by the end-to-end modules (starting one costs ~10 s)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.suite import FIXTURES, Suite

SPINE = FIXTURES / "spine"


@pytest.fixture(scope="session")
def claude_projects(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stand-in for ~/.claude/projects holding Claude Code's own memory of the spine fixture."""
    root = tmp_path_factory.mktemp("claude-projects")
    folder = root / re.sub(r"[^A-Za-z0-9]", "-", str(SPINE)) / "memory"
    folder.mkdir(parents=True)
    (folder / "shipping_note.md").write_text(
        "---\nname: express shipping surcharge\ndescription: why express costs 9.50\ntype: project\n---\n"
        "The express shipping surcharge of 9.50 comes from the courier contract signed in 2024.\n")
    return root


@pytest.fixture(scope="session")
def suite(tmp_path_factory: pytest.TempPathFactory, claude_projects: Path):
    suite = Suite.start(tmp_path_factory.mktemp("suite"),
                        env={"REPORECALL_CLAUDE_PROJECTS_DIR": str(claude_projects)})
    yield suite
    assert suite.stop() == 0, suite.log()


@pytest.fixture(scope="session")
def indexed(suite: Suite) -> Suite:
    result = suite.cli("index", str(SPINE), "--name", "shop", "--json")
    assert result.returncode == 0, result.stderr + result.stdout
    final = json.loads(result.stdout)
    assert final["repo"] == "shop" and final["files_sent"] >= 4, final
    return suite
