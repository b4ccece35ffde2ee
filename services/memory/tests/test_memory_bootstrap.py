"""Composition root: settings from the environment → engine + servicer, started and stopped by the runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kit.settings import ConfigError
from services.memory.bootstrap import bootstrap, build_memory_index
from services.memory.domain.claude_paths import sanitize_project_path
from services.memory.engine import MemoryDraft, MemoryEngine
from services.memory.settings import MemorySettings


async def test_bootstrap_opens_the_folders_and_attaches_claude_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = tmp_path / "src" / "shop"
    checkout.mkdir(parents=True)
    claude = tmp_path / "claude-projects"
    folder = claude / sanitize_project_path(str(checkout)) / "memory"
    folder.mkdir(parents=True)
    (folder / "project_x.md").write_text("---\nname: X\ntype: project\n---\nThe shop uses Postgres 16.\n")
    monkeypatch.setenv("REPORECALL_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("REPORECALL_CLAUDE_PROJECTS_DIR", str(claude))
    monkeypatch.setenv("REPORECALL_CLAUDE_REPOS", json.dumps({"shop": str(checkout)}))
    monkeypatch.setenv("REPORECALL_READ_CLAUDE_MEMORY", "true")  # what `up` sets; off by default
    monkeypatch.setenv("REPORECALL_MEMORY_WATCH", "false")
    settings = MemorySettings()
    assert settings.memory_root() == (tmp_path / "data" / "memory").resolve()

    parts = bootstrap(settings)
    engine: MemoryEngine = parts.extra["engine"]
    assert parts.on_start is not None and parts.on_stop is not None
    await parts.on_start()
    try:
        assert [m.id for m in engine.list_memories("shop")] == ["claude.project_x"]
        engine.store(MemoryDraft(repo="shop", body="kept on disk"))
    finally:
        await parts.on_stop()
    assert (tmp_path / "data" / "memory" / "index.db").exists()
    assert len(list((tmp_path / "data" / "memory" / "repos" / "shop").glob("*.md"))) == 1


def test_index_url_must_be_sqlite(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="REPORECALL_MEMORY_INDEX_URL"):
        build_memory_index("redis://x", tmp_path)
    index = build_memory_index(f"sqlite:///{tmp_path}/m.db", tmp_path)
    index.close()
    assert (tmp_path / "m.db").exists()
