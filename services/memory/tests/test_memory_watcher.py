"""The watcher keeps the index in step with hand edits of the memory files."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from services.memory.adapters.memory_folder import folder_name
from services.memory.engine import MemoryEngine, RecallQuery

REPO = "github.com/acme/shop"


def wait_for(condition: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


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
