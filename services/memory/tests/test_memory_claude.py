"""Claude Code's memory folder: found by its path encoding, read, never written, forgotten by tombstone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from services.memory.adapters.claude_memory import find_claude_memory_dir
from services.memory.domain.claude_paths import sanitize_project_path
from services.memory.domain.errors import ReadOnlyMemory
from services.memory.domain.model import MemoryClass, Source, Status
from services.memory.engine import MemoryDraft, MemoryEngine, RecallQuery

REPO = "shop"


@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/home/user/my_example_workspace", "-home-user-my-example-workspace"),
        ("/Users/foo/src/github.com/omnara-ai/omnara", "-Users-foo-src-github-com-omnara-ai-omnara"),
        ("/repo/.claude/worktrees/x", "-repo--claude-worktrees-x"),
        ("C:\\git\\cc-plus", "C--git-cc-plus"),
        ("/Users/j/Open Source/checkmate", "-Users-j-Open-Source-checkmate"),
        ("/u/文档/a", "-u----a"),
        ("/u/\U0001f600", "-u---"),  # outside the BMP: two UTF-16 units, two dashes
    ],
)
def test_project_path_encoding_matches_claude_code(path: str, name: str) -> None:
    assert sanitize_project_path(path) == name


def test_long_paths_are_found_only_when_one_folder_matches(tmp_path: Path) -> None:
    projects = tmp_path / "projects"
    repo_path = "/very/" + "deep/" * 50 + "repo"
    prefix = sanitize_project_path(repo_path)[:200]
    (projects / f"{prefix}-abc123" / "memory").mkdir(parents=True)
    assert find_claude_memory_dir(projects, Path(repo_path)) == projects / f"{prefix}-abc123" / "memory"
    (projects / f"{prefix}-zzz999" / "memory").mkdir(parents=True)
    assert find_claude_memory_dir(projects, Path(repo_path)) is None  # ambiguous: read nothing


@pytest.fixture
def claude_setup(tmp_path: Path) -> tuple[Path, Path, Path]:
    """(projects dir, repo checkout, its Claude memory folder) with two memories and the MEMORY.md index."""
    projects = tmp_path / "claude" / "projects"
    repo_path = tmp_path / "work" / "my_shop.git"
    repo_path.mkdir(parents=True)
    folder = projects / sanitize_project_path(str(repo_path)) / "memory"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text("- [Testing](feedback_testing.md) — how to run tests\n")
    (folder / "feedback_testing.md").write_text(
        "---\nname: Testing\ndescription: run tests with tox\ntype: feedback\n---\n"
        "Always run the tox suite.\n"
    )
    (folder / "project_freeze.md").write_text(
        "---\nname: Release freeze\ndescription: freeze dates\ntype: project\n---\n"
        "Code freeze starts 2025-03-10.\n"
    )
    return projects, repo_path, folder


def test_claude_memories_are_recalled_read_only(
    make_engine: Callable[..., MemoryEngine], claude_setup: tuple[Path, Path, Path]
) -> None:
    projects, repo_path, folder = claude_setup
    engine = make_engine(claude_projects_dir=projects)
    assert engine.attach_claude_memory(REPO, repo_path) == folder
    memories = {m.id: m for m in engine.list_memories(REPO)}
    assert set(memories) == {"claude.feedback_testing", "claude.project_freeze"}  # MEMORY.md is an index
    rule = memories["claude.feedback_testing"]
    assert (rule.source, rule.memory_class) == (Source.CLAUDE, MemoryClass.RULE)
    with pytest.raises(ReadOnlyMemory):
        engine.store(MemoryDraft(repo=REPO, id="claude.feedback_testing", body="changed"), admin=True)


def test_forgotten_claude_memory_stays_forgotten_and_its_file_is_untouched(
    make_engine: Callable[..., MemoryEngine], claude_setup: tuple[Path, Path, Path]
) -> None:
    projects, repo_path, folder = claude_setup
    before = (folder / "feedback_testing.md").read_text()
    engine = make_engine(claude_projects_dir=projects)
    engine.attach_claude_memory(REPO, repo_path)
    assert engine.forget(REPO, "claude.feedback_testing", admin=True)
    assert (folder / "feedback_testing.md").read_text() == before
    engine.rebuild_index()  # re-import from Claude Code's folder
    assert [m.id for m in engine.list_memories(REPO, include_inactive=True)] == ["claude.project_freeze"]
    other = make_engine("other", claude_projects_dir=projects)  # a fresh index sees the tombstone too
    other.attach_claude_memory(REPO, repo_path)
    assert [m.id for m in other.list_memories(REPO, include_inactive=True)] == ["claude.project_freeze"]


def test_promoting_a_claude_memory_supersedes_it_without_writing_its_file(
    make_engine: Callable[..., MemoryEngine], claude_setup: tuple[Path, Path, Path]
) -> None:
    projects, repo_path, folder = claude_setup
    before = {p.name: p.read_text() for p in folder.iterdir()}
    engine = make_engine(claude_projects_dir=projects)
    engine.attach_claude_memory(REPO, repo_path)
    fact = engine.promote(REPO, "claude.project_freeze", admin=True)
    assert fact.source is Source.TEAM and fact.supersedes == ("claude.project_freeze",)
    result = engine.recall(RecallQuery(repo=REPO, query="code freeze", record_use=False))
    assert [r.memory.id for r in result.memories] == [fact.id]
    engine.compact(REPO, admin=True)
    engine.rebuild_index()
    assert engine.get(REPO, "claude.project_freeze").status is Status.SUPERSEDED
    assert {p.name: p.read_text() for p in folder.iterdir()} == before


def test_a_team_duplicate_of_a_claude_memory_survives_compaction(
    make_engine: Callable[..., MemoryEngine], claude_setup: tuple[Path, Path, Path]
) -> None:
    projects, repo_path, _ = claude_setup
    engine = make_engine(claude_projects_dir=projects)
    engine.attach_claude_memory(REPO, repo_path)
    team = engine.store(MemoryDraft(repo=REPO, body="Always run the tox suite."), admin=True)
    assert engine.compact(REPO, admin=True).superseded == 1
    assert engine.get(REPO, "claude.feedback_testing").status is Status.SUPERSEDED
    assert engine.get(REPO, team.id).supersedes == ("claude.feedback_testing",)


def test_reading_claude_memory_can_be_switched_off(
    make_engine: Callable[..., MemoryEngine], claude_setup: tuple[Path, Path, Path]
) -> None:
    _, repo_path, _ = claude_setup
    engine = make_engine(claude_projects_dir=None)
    assert engine.attach_claude_memory(REPO, repo_path) is None
    assert engine.list_memories(REPO) == []
