"""Agent and editor configuration (what `reporecall init` writes, and its kin) is never indexed."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.indexer.adapters.fs_tree import RepoScanner
from services.indexer.domain.scanner import is_never_indexed
from services.indexer.tests.indexer_fakes import write

AGENT_FILES = [
    ".claude/settings.json",
    ".claude/settings.local.json",
    ".claude/commands/review.md",
    ".mcp.json",
    ".cursor/mcp.json",
    ".vscode/settings.json",
    ".idea/workspace.xml",
    ".codex/config.toml",
    ".windsurf/rules.md",
    "sub/project/.claude/settings.json",
    "sub/.mcp.json",
]


def test_agent_and_editor_config_is_not_walked_even_when_re_included(tmp_path: Path) -> None:
    write(tmp_path, "app.py", "def a():\n")
    for rel in AGENT_FILES:
        write(tmp_path, rel, "{}\n")
    # A user's negation re-includes ordinary built-ins, never these.
    write(tmp_path, ".gitignore", "!.claude/\n!.mcp.json\n!.vscode/\n")
    walked = {f.path for f in RepoScanner(tmp_path, accept=lambda p: True).walk()}
    assert walked == {"app.py", ".gitignore"}


@pytest.mark.parametrize("rel", AGENT_FILES)
def test_single_paths_of_agent_config_are_ignored_for_watch_and_index_paths(tmp_path: Path, rel: str) -> None:
    write(tmp_path, rel, "{}\n")
    scanner = RepoScanner(tmp_path, accept=lambda p: True)
    assert is_never_indexed(rel)
    assert scanner.skip_reason(rel) == "ignored" and scanner.is_ignored(rel)
    assert list(scanner.walk(under=rel.rpartition("/")[0])) == [] or "/" not in rel


def test_ordinary_dotfiles_and_claude_md_stay_indexable(tmp_path: Path) -> None:
    for rel in ("CLAUDE.md", ".github/workflows/ci.yml", "docs/claude.md", "src/mcp.json"):
        write(tmp_path, rel, "x: 1\n")
        assert not is_never_indexed(rel)
    walked = {f.path for f in RepoScanner(tmp_path, accept=lambda p: True).walk()}
    assert {"CLAUDE.md", ".github/workflows/ci.yml", "docs/claude.md", "src/mcp.json"} <= walked
