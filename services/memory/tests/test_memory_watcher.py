"""The watcher keeps the index in step with hand edits of the memory files."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from kit.testing import wait_for as kit_wait_for
from services.memory.adapters.memory_folder import folder_name
from services.memory.engine import MemoryEngine, RecallQuery

REPO = "github.com/acme/shop"


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    return bool(kit_wait_for(condition, timeout, "the watcher to update the index", interval=0.05))


def recalled(engine: MemoryEngine, query: str) -> list[str]:
    result = engine.recall(RecallQuery(repo=REPO, query=query, record_use=False))
    return [r.memory.id for r in result.memories]


def test_created_edited_and_deleted_files_reach_the_index(engine: MemoryEngine, memory_root: Path) -> None:
    engine.start_watching()
    folder = memory_root / "repos" / folder_name(REPO)
    folder.mkdir(parents=True)
    path = folder / "deploys.md"
    path.write_text("---\nname: Deploys\n---\nWe deploy with Argo rollouts.\n")
    assert wait_for(lambda: recalled(engine, "argo rollouts") == ["deploys"])

    path.write_text("---\nname: Deploys\nstatus: archived\n---\nWe deploy with Argo rollouts.\n")
    assert wait_for(lambda: recalled(engine, "argo rollouts") == [])

    path.write_text("---\nname: Deploys\n---\nWe deploy with Spinnaker pipelines.\n")
    assert wait_for(lambda: recalled(engine, "spinnaker") == ["deploys"])

    path.unlink()
    assert wait_for(lambda: recalled(engine, "spinnaker") == [])
    engine.stop_watching()


def test_a_changed_memory_file_is_synced_alone_and_other_changes_resync_the_folder(
    engine: MemoryEngine, memory_root: Path, monkeypatch
) -> None:
    from services.memory.adapters.memory_folder import MemoryFolder

    folder = memory_root / "repos" / folder_name(REPO)
    folder.mkdir(parents=True)
    for i in range(30):
        (folder / f"note-{i}.md").write_text(f"---\nname: Note {i}\n---\nThe body of note {i}.\n")
    engine.sync_all()
    walks: list[Path] = []
    entries = MemoryFolder.entries

    def counted(self: MemoryFolder) -> list:
        walks.append(self.path)
        return entries(self)

    monkeypatch.setattr(MemoryFolder, "entries", counted)

    (folder / "note-3.md").write_text("---\nname: Note 3\n---\nRotate the kafka credentials monthly.\n")
    (folder / "note-4.md").unlink()
    engine._on_paths_changed({folder / "note-3.md", folder / "note-4.md", folder / "note-5.md"})
    assert recalled(engine, "kafka credentials") == ["note-3"]
    assert "note-4" not in recalled(engine, "body of note 4")
    assert walks == []  # three file events: three files looked at, not the whole folder

    engine._on_paths_changed({folder / ".usage.json"})
    assert walks == [folder]
