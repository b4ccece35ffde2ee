"""Watch mode: saved edits reach index_paths within a deadline, bursts are batched, ignored paths dropped."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from kit.testing import eventually
from services.indexer.adapters.fs_tree import RepoScanner
from services.indexer.tests.indexer_fakes import make_repo, make_rig, write
from services.indexer.watch import RepoWatcher

DEADLINE_SECONDS = 10.0


async def wait_for(condition: Callable[[], bool], what: str) -> None:
    await eventually(condition, DEADLINE_SECONDS, what, interval=0.02)


class Recorder:
    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.reindexed: list[str] = []

    async def index_paths(self, repo: str, paths: Sequence[str]) -> None:
        self.batches.append(list(paths))

    async def reindex(self, repo: str) -> None:
        self.reindexed.append(repo)

    @property
    def paths(self) -> set[str]:
        return {p for batch in self.batches for p in batch}


@pytest.fixture
async def watched(tmp_path: Path):
    write(tmp_path, "src/app.py", "x = 1\n")
    write(tmp_path, ".gitignore", "*.log\n")
    recorder = Recorder()
    watcher = RepoWatcher(
        index_paths=recorder.index_paths, reindex=recorder.reindex, make_scanner=RepoScanner, debounce_ms=100
    )
    await watcher.watch("demo", tmp_path)
    yield tmp_path, recorder, watcher
    await watcher.close()


async def test_a_saved_edit_triggers_index_paths_within_the_deadline(watched) -> None:
    root, recorder, _ = watched
    write(root, "src/app.py", "x = 2\n")
    await wait_for(lambda: "src/app.py" in recorder.paths, "the edit to reach index_paths")


async def test_a_burst_of_changes_is_batched(watched) -> None:
    root, recorder, _ = watched
    for i in range(50):
        write(root, f"src/gen_{i}.py", f"v = {i}\n")
    await wait_for(lambda: len(recorder.paths) >= 50, "all 50 files")
    assert len(recorder.batches) <= 3  # one debounced batch, or a few if the burst straddled a boundary


async def test_ignored_paths_are_dropped_and_deletions_pass_through(watched) -> None:
    root, recorder, _ = watched
    write(root, "debug.log", "noise\n")
    write(root, "node_modules/pkg/index.js", "x\n")
    (root / "src/app.py").unlink()
    write(root, "src/marker.py", "m = 1\n")
    await wait_for(
        lambda: "src/marker.py" in recorder.paths and "src/app.py" in recorder.paths, "the changes"
    )
    assert not any(p.endswith(".log") or p.startswith("node_modules") for p in recorder.paths)


async def test_an_ignore_file_change_triggers_a_rescan(watched) -> None:
    root, recorder, _ = watched
    write(root, ".gitignore", "*.log\nsrc/\n")
    await wait_for(lambda: recorder.reindexed == ["demo"], "a rescan")


async def test_unwatch_stops_reporting(watched) -> None:
    root, recorder, watcher = watched
    await watcher.unwatch("demo")
    assert watcher.watched == []
    write(root, "src/late.py", "y = 1\n")
    await asyncio.sleep(0.4)  # a negative check needs a window; the debounce is 100 ms
    assert "src/late.py" not in recorder.paths


async def test_engine_watch_makes_a_saved_edit_reach_the_sinks(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_repo(root, 5)
    rig = await make_rig(root, tmp_path / "m.db")
    await rig.engine.run_index("demo")
    await rig.engine.start_watching()
    try:
        assert rig.engine.watching == frozenset({"demo"})
        write(root, "pkg0/mod_2.py", "def watched_edit(a):\n")
        await wait_for(
            lambda: [c.name for c in rig.search.files.get(("demo", "pkg0/mod_2.py"), ())] == ["watched_edit"],
            "the edit to be indexed",
        )
        assert rig.manifest.files("demo")["pkg0/mod_2.py"].chunks == 1
    finally:
        await rig.engine.close()
    assert rig.engine.watching == frozenset()
