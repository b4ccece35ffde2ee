# ruff: noqa: F811 - the fixtures are imported from sec_memory_support by name
"""Issue 18: the server user's Claude Code memory is never served by a team server (nor for repos of
another user), and memory files and the memory index are owner-only."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from reporecall.memory.v1 import memory_pb2 as pb
from services.memory.bootstrap import bootstrap
from services.memory.domain.claude_paths import sanitize_project_path
from services.memory.domain.model import Scope
from services.memory.engine import MemoryDraft, MemoryEngine, Observation, RecallQuery
from services.memory.servicer import MemoryServicer
from services.memory.settings import MemorySettings

from .sec_memory_support import REPO, EngineFactory, clock, make_engine, memory_root  # noqa: F401

CLAUDE_NOTE = (
    "---\nname: Server user's note\ntype: project\n---\nThe zqserver staging password lives in 1Password.\n"
)


def claude_folder_for(projects: Path, checkout: Path) -> Path:
    folder = projects / sanitize_project_path(str(checkout)) / "memory"
    folder.mkdir(parents=True)
    (folder / "project_staging.md").write_text(CLAUDE_NOTE)
    return folder


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The server user's home: ~/.claude/projects and a checkout of theirs."""
    (tmp_path / "home" / ".claude" / "projects").mkdir(parents=True)
    (tmp_path / "home" / "src" / "shop").mkdir(parents=True)
    return tmp_path / "home"


async def started(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, home: Path, **env: str) -> MemoryEngine:
    checkout = home / "src" / "shop"
    claude_folder_for(home / ".claude" / "projects", checkout)
    monkeypatch.setenv("REPORECALL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("REPORECALL_CLAUDE_PROJECTS_DIR", str(home / ".claude" / "projects"))
    monkeypatch.setenv("REPORECALL_CLAUDE_REPOS", json.dumps({REPO: str(checkout)}))
    monkeypatch.setenv("REPORECALL_MEMORY_WATCH", "false")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    parts = bootstrap(MemorySettings())
    assert parts.on_start is not None
    await parts.on_start()
    engine: MemoryEngine = parts.extra["engine"]
    return engine


def claude_ids(engine: MemoryEngine) -> list[str]:
    return [m.id for m in engine.list_memories(REPO) if m.id.startswith("claude.")]


async def test_a_team_server_never_reads_the_server_users_claude_memory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, home: Path
) -> None:
    """The default configuration (a team server): neither the configured repos nor a Recall's repo_path
    attach the server user's Claude Code folder."""
    monkeypatch.delenv("REPORECALL_READ_CLAUDE_MEMORY", raising=False)
    engine = await started(monkeypatch, tmp_path, home)
    try:
        assert claude_ids(engine) == []
        servicer = MemoryServicer(engine, workers=1)

        class Context:
            async def abort(self, code: object, details: str) -> None:
                raise AssertionError(details)

        request = pb.RecallRequest(
            repo=REPO, query="zqserver staging password", repo_path=str(home / "src" / "shop")
        )
        reply = await servicer.Recall(request, Context())  # type: ignore[arg-type]
        assert "zqserver" not in str(reply)
        assert claude_ids(engine) == []
        servicer.close()
    finally:
        engine.close()


async def test_up_reads_it_for_the_users_own_checkouts_only(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, home: Path
) -> None:
    engine = await started(monkeypatch, tmp_path, home, REPORECALL_READ_CLAUDE_MEMORY="true")
    try:
        assert claude_ids(engine) == ["claude.project_staging"]  # the user's own checkout
        # Another user's checkout on the machine does not get it.
        if os.geteuid() != 0:
            pytest.skip("making a folder of another user needs root")
        elsewhere = tmp_path / "srv" / "shop"
        elsewhere.mkdir(parents=True)
        os.chown(elsewhere, 65534, 65534)  # nobody
        claude_folder_for(home / ".claude" / "projects", elsewhere)
        assert engine.attach_claude_memory("srv-shop", elsewhere) is None
        assert [m.id for m in engine.list_memories("srv-shop")] == []
    finally:
        engine.close()


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_memory_files_folders_and_index_are_owner_only(
    make_engine: EngineFactory, memory_root: Path, umask_022: None
) -> None:
    engine = make_engine()
    team = engine.store(MemoryDraft(repo=REPO, body="Team rule: prices in cents", user="ann"))
    engine.store(MemoryDraft(repo=REPO, body="I like terse answers", scope=Scope.USER, user="ann"))
    engine.store(MemoryDraft(repo="", body="Everywhere: UTC", scope=Scope.GLOBAL, user="ann"))
    engine.observe(Observation(repo=REPO, session_id="s1", prompt="p", user="ann", hit_paths=("a.py",)))
    engine.recall(RecallQuery(repo=REPO, query="prices cents"))
    engine.flush_usage()
    assert engine.forget(REPO, team.id, user="ann")  # a tombstone
    engine.close()
    files = [p for p in memory_root.rglob("*") if p.is_file()]
    folders = [memory_root, *(p for p in memory_root.rglob("*") if p.is_dir())]
    names = {p.name for p in files}
    assert {".usage.json", "index-0.db"} <= names and any(p.parent.name == ".tombstones" for p in files)
    assert any(p.suffix == ".lock" for p in files) and any(p.name.startswith("working-") for p in files)
    wrong = [
        (str(p.relative_to(memory_root.parent)), oct(stat.S_IMODE(p.stat().st_mode)))
        for p in files
        if stat.S_IMODE(p.stat().st_mode) != 0o600
    ]
    wrong += [
        (str(p.relative_to(memory_root.parent)), oct(stat.S_IMODE(p.stat().st_mode)))
        for p in folders
        if stat.S_IMODE(p.stat().st_mode) != 0o700
    ]
    assert wrong == []


def test_a_root_left_open_by_an_older_version_is_tightened(
    make_engine: EngineFactory, memory_root: Path, umask_022: None
) -> None:
    memory_root.mkdir(mode=0o755)
    os.chmod(memory_root, 0o755)
    make_engine()
    assert stat.S_IMODE(memory_root.stat().st_mode) == 0o700
