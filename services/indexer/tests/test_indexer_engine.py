"""The engine against in-memory sinks: incremental runs, crash safety, retries, backpressure, status."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from kit.testing import eventually
from services.indexer.domain.model import FileStatus, IndexPhase, RepoNotFound
from services.indexer.domain.scanner import PathOutsideRepo
from services.indexer.engine import run as run_module
from services.indexer.ports import SinkUnavailable
from services.indexer.tests.indexer_fakes import (
    FakeGraph,
    FakeSearch,
    Rig,
    SinkFailure,
    fail_on_call,
    make_repo,
    make_rig,
    module_text,
    touch_later,
    unavailable_always,
    write,
)


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    root = tmp_path / "repo"
    make_repo(root, 20, per_dir=5)
    rig = await make_rig(root, tmp_path / "manifest.db")
    yield rig
    await rig.engine.close()


async def clean_state(root: Path, db: Path) -> tuple[dict, dict]:
    """What a single clean run produces for the tree as it is now."""
    clean = await make_rig(root, db)
    final = await clean.engine.run_index("demo")
    assert final.errors == 0
    await clean.engine.close()
    return clean.search.state(), clean.graph.state()


def assert_no_duplicates(search: FakeSearch) -> None:
    ids = search.chunk_ids()
    assert len(ids) == len(set(ids))


async def test_first_run_sends_every_file_to_both_sinks_and_records_it(rig: Rig) -> None:
    final = await rig.engine.run_index("demo")
    assert final.phase is IndexPhase.DONE
    assert (final.files_scanned, final.files_changed, final.files_sent, final.errors) == (20, 20, 20, 0)
    assert final.chunks == 40
    assert sorted(rig.search.log.paths("upsert")) == sorted(rig.graph.log.paths("replace"))
    assert len(rig.search.log.paths("upsert")) == 20
    rows = rig.manifest.files("demo")
    assert len(rows) == 20 and all(r.status is FileStatus.INDEXED and r.chunks == 2 for r in rows.values())
    # The graph gets every chunk as a symbol, plus call sites and resolved imports.
    symbols, calls, _ = rig.graph.files[("demo", "pkg0/mod_0.py")]
    assert [s.name for s in symbols] == ["func_0", "helper_0"]
    assert [c.callee_name for c in calls] == ["helper_0", "func_0"]


async def test_progress_is_streamed_and_ends_with_done(rig: Rig) -> None:
    snapshots = [p async for p in rig.engine.index_repo("demo")]
    assert snapshots[0].phase is IndexPhase.SCANNING
    assert snapshots[-1].phase is IndexPhase.DONE
    assert snapshots[-1].files_sent == 20 and "indexed 20 of 20" in snapshots[-1].message
    sent = [s.files_sent for s in snapshots]
    assert sent == sorted(sent)


async def test_unknown_repo_raises_not_found(rig: Rig) -> None:
    with pytest.raises(RepoNotFound):
        await rig.engine.run_index("nope")
    with pytest.raises(RepoNotFound):
        await rig.engine.status("nope")


async def test_incremental_in_a_1000_file_repo_resends_only_what_changed(tmp_path: Path) -> None:
    root = tmp_path / "big"
    paths = make_repo(root, 1000)
    rig = await make_rig(root, tmp_path / "m.db")
    started = time.perf_counter()
    first = await rig.engine.run_index("demo")
    cold_seconds = time.perf_counter() - started
    assert first.files_sent == 1000 and first.errors == 0
    assert len(rig.search.log.calls) == len(rig.graph.log.calls) == 1000

    def reset() -> None:
        rig.search.log.calls.clear()
        rig.graph.log.calls.clear()

    # Nothing changed: nothing is sent.
    reset()
    again = await rig.engine.run_index("demo")
    assert (again.files_changed, again.files_sent, again.files_deleted) == (0, 0, 0)
    assert rig.search.log.calls == [] and rig.graph.log.calls == []

    # One edit: exactly that file goes to both sinks.
    reset()
    edited = root / paths[123]
    edited.write_text(module_text(123) + "def extra_fn(z):\n    call func_1\n")
    touch_later(edited)
    step = await rig.engine.run_index("demo")
    assert rig.search.log.calls == [("upsert", "demo", paths[123])]
    assert rig.graph.log.calls == [("replace", "demo", paths[123])]
    assert step.files_sent == 1 and step.chunks == 3

    # One deletion: exactly one delete to each sink, nothing upserted.
    reset()
    (root / paths[7]).unlink()
    step = await rig.engine.run_index("demo")
    assert rig.search.log.calls == [("delete", "demo", paths[7])]
    assert rig.graph.log.calls == [("delete", "demo", paths[7])]
    assert step.files_deleted == 1 and paths[7] not in rig.manifest.files("demo")

    # A rename is a delete of the old path plus an upsert of the new one.
    reset()
    (root / paths[8]).rename(root / "pkg0" / "renamed.py")
    await rig.engine.run_index("demo")
    assert sorted(rig.search.log.calls) == [
        ("delete", "demo", paths[8]),
        ("upsert", "demo", "pkg0/renamed.py"),
    ]
    assert sorted(rig.graph.log.calls) == [
        ("delete", "demo", paths[8]),
        ("replace", "demo", "pkg0/renamed.py"),
    ]
    assert len(rig.search.files) == 999
    assert cold_seconds < 30
    await rig.engine.close()


async def test_touched_but_unchanged_file_is_not_resent_and_its_stat_is_recorded(rig: Rig) -> None:
    await rig.engine.run_index("demo")
    rig.search.log.calls.clear()
    target = rig.root / "pkg0/mod_0.py"
    touch_later(target)
    step = await rig.engine.run_index("demo")
    assert rig.search.log.calls == [] and step.files_changed == 0
    assert rig.manifest.files("demo")["pkg0/mod_0.py"].mtime_ns == target.stat().st_mtime_ns


async def test_full_run_resends_every_file(rig: Rig) -> None:
    await rig.engine.run_index("demo")
    rig.search.log.calls.clear()
    final = await rig.engine.run_index("demo", full=True)
    assert final.files_sent == 20 and len(rig.search.log.paths("upsert")) == 20


async def test_a_new_parser_re_chunks_every_file_once(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    await rig.engine.run_index("demo")
    repo = rig.manifest.get_repo("demo")
    assert repo is not None and repo.parser == run_module.parser_fingerprint()
    rig.search.log.calls.clear()
    monkeypatch.setattr(run_module, "parser_fingerprint", lambda: "an-upgraded-parser")
    upgraded = await rig.engine.run_index("demo")  # nothing changed on disk: the chunker did
    assert upgraded.files_sent == 20 and len(rig.search.log.paths("upsert")) == 20
    assert rig.manifest.get_repo("demo").parser == "an-upgraded-parser"  # type: ignore[union-attr]
    rig.search.log.calls.clear()
    again = await rig.engine.run_index("demo")
    assert again.files_changed == 0 and rig.search.log.calls == []


@pytest.mark.parametrize("sink", ["search", "graph"])
@pytest.mark.parametrize("nth", [1, 7, 20])
async def test_failed_send_is_not_recorded_and_next_run_converges_to_a_clean_run(
    tmp_path: Path, sink: str, nth: int
) -> None:
    root = tmp_path / "repo"
    make_repo(root, 20, per_dir=5)
    rig = await make_rig(root, tmp_path / "m.db")
    failing = rig.search if sink == "search" else rig.graph
    failing.log.fail = fail_on_call(nth)
    first = await rig.engine.run_index("demo")
    assert first.errors == 1 and first.files_sent == 19
    failed_path = failing.log.calls[nth - 1][2]
    rows = rig.manifest.files("demo")
    assert rows[failed_path].status is FileStatus.PENDING and rows[failed_path].hash == ""
    assert sum(r.status is FileStatus.INDEXED for r in rows.values()) == 19

    failing.log.fail = None
    rig.search.log.calls.clear()
    second = await rig.engine.run_index("demo")
    assert second.errors == 0
    assert rig.search.log.paths("upsert") == [failed_path]  # only the failed file is retried
    expected_search, expected_graph = await clean_state(root, tmp_path / "clean.db")
    assert rig.search.state() == expected_search
    assert rig.graph.state() == expected_graph
    assert_no_duplicates(rig.search)
    await rig.engine.close()


async def test_cancelled_run_with_changes_in_between_converges(tmp_path: Path) -> None:
    """A run killed mid-way (here: cancelled while sends are blocked) leaves a state the next run repairs."""
    root = tmp_path / "repo"
    paths = make_repo(root, 40, per_dir=10)
    rig = await make_rig(root, tmp_path / "m.db", max_in_flight=4)
    await rig.engine.run_index("demo")
    rig.search.log.calls.clear()
    # Change the tree: edits, a deletion, a new file.
    for index in (1, 2, 3, 30):
        write(root, paths[index], module_text(index) + f"def added_{index}(q):\n    call func_{index}\n")
        touch_later(root / paths[index])
    (root / paths[5]).unlink()
    write(root, "pkg9/new.py", "def brand_new(a):\n    call helper_1\n")
    # Search acknowledges; graph hangs, and the run is "killed" while two files are half-sent.
    rig.graph.log.gate = asyncio.Event()
    progress = rig.engine.index_repo("demo")
    await anext(progress)  # the first snapshot; the run starts on the next step
    # Wait on the condition itself: no snapshot need follow the second hung call, so waiting for one hangs.
    step = asyncio.ensure_future(anext(progress))
    await eventually(lambda: rig.graph.log.in_flight >= 2, 10, "two files half-sent to graph")
    step.cancel()  # the iteration stops while the generator waits: that cancels the run
    await asyncio.gather(step, return_exceptions=True)
    await progress.aclose()
    assert rig.search.log.paths("upsert")  # search holds new state for some files graph never got
    rig.graph.log.gate = None
    # Revert one half-sent file to its old content: only the pending mark forces it out again.
    edited = {paths[i]: i for i in (1, 2, 3, 30)}
    half_sent = next(p for p in rig.search.log.paths("upsert") if p in edited)
    write(root, half_sent, module_text(edited[half_sent]))
    touch_later(root / half_sent)
    final = await rig.engine.run_index("demo")
    assert final.errors == 0
    expected_search, expected_graph = await clean_state(root, tmp_path / "clean.db")
    assert rig.search.state() == expected_search
    assert rig.graph.state() == expected_graph
    assert_no_duplicates(rig.search)
    assert all(r.status is FileStatus.INDEXED for r in rig.manifest.files("demo").values())
    await rig.engine.close()


async def test_unavailable_downstream_is_retried_with_backoff(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_repo(root, 3, per_dir=5)
    delays: list[float] = []

    async def fake_sleep(seconds: float) -> None:  # injected: the backoff is recorded, not waited
        delays.append(seconds)

    rig = await make_rig(root, tmp_path / "m.db", send_attempts=4, retry_initial_seconds=0.1)
    rig.engine._sleep = fake_sleep
    failures = {1, 2}  # the first two graph calls find the service down
    rig.graph.log.fail = lambda op, n: SinkUnavailable("down") if n in failures else None
    final = await rig.engine.run_index("demo")
    assert final.errors == 0 and final.files_sent == 3
    assert len(delays) == 2 and all(0.07 < d < 0.3 for d in delays)
    assert len(rig.graph.state()) == 3


async def test_downstream_down_stops_the_run_and_leaves_files_pending(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_repo(root, 50, per_dir=10)
    rig = await make_rig(root, tmp_path / "m.db", send_attempts=2, max_in_flight=4)
    rig.search.log.fail = unavailable_always()
    final = await rig.engine.run_index("demo")
    assert final.phase is IndexPhase.DONE and "unavailable" in final.message
    assert final.files_sent == 0 and final.errors <= 4  # stopped after the files already in flight
    assert rig.manifest.counts("demo").pending == 50
    assert (rig.manifest.get_repo("demo") or pytest.fail()).indexed_commit == ""
    rig.search.log.fail = None
    assert (await rig.engine.run_index("demo")).files_sent == 50


async def test_slow_downstream_applies_backpressure(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    make_repo(root, 60, per_dir=20)
    rig = await make_rig(root, tmp_path / "m.db", max_in_flight=5)
    rig.search.log.gate = asyncio.Event()
    run = asyncio.create_task(rig.engine.run_index("demo"))
    await eventually(lambda: rig.search.log.in_flight >= 5, 5, "five calls in flight")
    for _ in range(20):  # a negative check needs a window: give the engine every chance to overrun the bound
        await asyncio.sleep(0.005)
    assert rig.search.log.in_flight == 5 and len(rig.search.log.calls) == 5
    rig.search.log.gate.set()
    final = await run
    assert final.files_sent == 60 and rig.search.log.max_in_flight == 5


async def test_binary_and_generated_files_are_skipped_and_a_file_turning_binary_is_emptied(rig: Rig) -> None:
    write(rig.root, "gen.py", "# Code generated by tool. DO NOT EDIT.\ndef x(a):\n")
    (rig.root / "blob.py").write_bytes(b"def a\x00\x01\x02")
    await rig.engine.run_index("demo")
    assert ("demo", "gen.py") not in rig.search.files and ("demo", "blob.py") not in rig.search.files
    assert rig.manifest.files("demo")["blob.py"].status is FileStatus.SKIPPED
    assert rig.manifest.counts("demo").skipped == 2
    rig.search.log.calls.clear()
    assert (await rig.engine.run_index("demo")).files_changed == 0  # skipped files are not re-read
    target = rig.root / "pkg0/mod_0.py"
    target.write_bytes(b"\x00binary now")
    touch_later(target)
    await rig.engine.run_index("demo")
    assert rig.search.log.calls == [("upsert", "demo", "pkg0/mod_0.py")]  # replaced with nothing
    assert ("demo", "pkg0/mod_0.py") not in rig.search.files and (
        "demo",
        "pkg0/mod_0.py",
    ) not in rig.graph.files


async def test_newly_ignored_and_too_large_files_are_deleted_downstream(rig: Rig) -> None:
    await rig.engine.run_index("demo")
    write(rig.root, ".gitignore", "pkg1/\n")
    write(rig.root, "pkg0/mod_0.py", "def big(x):\n" + "#" * 2_000_000)
    final = await rig.engine.run_index("demo")
    assert final.files_deleted == 6  # five under pkg1/ and the oversized file
    assert not any(p.startswith("pkg1/") for (_, p) in rig.search.files)
    assert ("demo", "pkg0/mod_0.py") not in rig.graph.files


async def test_index_paths_reindexes_deletes_and_rejects(rig: Rig) -> None:
    await rig.engine.run_index("demo")
    rig.search.log.calls.clear()
    write(rig.root, "pkg0/mod_1.py", "def changed(a):\n")
    (rig.root / "pkg0/mod_2.py").unlink()
    write(rig.root, "node_modules/x.js", "x")
    result = await rig.engine.index_paths(
        "demo",
        ["pkg0/mod_1.py", "pkg0/mod_2.py", str(rig.root / "pkg0/mod_3.py"), "node_modules/x.js", "nope.py"],
    )
    assert (result.files_sent, result.files_deleted) == (1, 1)  # mod_3 is unchanged: read, not resent
    assert sorted(result.rejected) == ["node_modules/x.js: ignored", "nope.py: missing"]
    assert [c.name for c in rig.search.files[("demo", "pkg0/mod_1.py")]] == ["changed"]
    assert ("demo", "pkg0/mod_2.py") not in rig.search.files


async def test_index_paths_expands_folders_and_removes_a_vanished_folder(rig: Rig) -> None:
    await rig.engine.run_index("demo")
    rig.search.log.calls.clear()
    write(rig.root, "pkg1/extra.py", "def extra(a):\n")
    result = await rig.engine.index_paths("demo", ["pkg1"])
    assert result.files_sent == 1  # the folder's other files are read but unchanged
    assert rig.search.log.paths("upsert") == ["pkg1/extra.py"]
    for child in sorted((rig.root / "pkg2").iterdir()):
        child.unlink()
    (rig.root / "pkg2").rmdir()
    result = await rig.engine.index_paths("demo", ["pkg2"])
    assert result.files_deleted == 5 and not any(p.startswith("pkg2/") for p in rig.manifest.files("demo"))


@pytest.mark.parametrize("bad", ["../outside.py", "/etc/passwd", "pkg0/../../x.py"])
async def test_index_paths_refuses_paths_outside_the_root_before_doing_anything(rig: Rig, bad: str) -> None:
    with pytest.raises(PathOutsideRepo):
        await rig.engine.index_paths("demo", ["pkg0/mod_0.py", bad])
    assert rig.search.log.calls == []


async def test_status_reports_counts_commits_and_dirty_files(rig: Rig) -> None:
    sha = "0123456789abcdef0123456789abcdef01234567"
    write(rig.root, ".git/HEAD", "ref: refs/heads/main\n")
    write(rig.root, ".git/refs/heads/main", sha + "\n")
    before = await rig.engine.status("demo")
    assert before.files == 0 and len(before.dirty_files) == 20 and before.head_commit == sha
    await rig.engine.run_index("demo")
    write(rig.root, "pkg0/mod_0.py", "def edited(a):\n")
    touch_later(rig.root / "pkg0/mod_0.py")
    write(rig.root, "fresh.py", "def fresh(a):\n")
    (rig.root / "pkg3/mod_15.py").unlink()
    status = await rig.engine.status("demo")
    assert (status.files, status.chunks, status.pending_files, status.running) == (20, 40, 0, False)
    assert status.indexed_commit == sha and status.head_commit == sha
    assert status.dirty_files == ("fresh.py", "pkg0/mod_0.py", "pkg3/mod_15.py")
    repo = status.repo
    assert repo.last_run_started is not None and repo.last_run_finished is not None


async def test_concurrent_status_calls_share_one_walk_of_the_tree(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    import services.indexer.engine.status as engine_module

    walks = []
    walk = engine_module._walk_list

    def counted(*args: Any) -> Any:
        walks.append(1)
        time.sleep(0.1)  # the behaviour under test: a slow walk (a large tree) that other status calls join
        return walk(*args)

    monkeypatch.setattr(engine_module, "_walk_list", counted)
    statuses = await asyncio.gather(*(rig.engine.status("demo") for _ in range(16)))
    assert len(walks) == 1
    assert {len(s.dirty_files) for s in statuses} == {20}


async def test_status_reports_running_while_a_run_is_in_progress(rig: Rig) -> None:
    rig.search.log.gate = asyncio.Event()
    run = asyncio.create_task(rig.engine.run_index("demo"))
    await eventually(lambda: rig.search.log.calls, 5, "the run's first downstream call")
    status = await rig.engine.status("demo")
    assert status.running and status.pending_files == 20
    rig.search.log.gate.set()
    await run
    assert not (await rig.engine.status("demo")).running


async def test_register_derives_name_from_git_remote_and_rejects_bad_paths(tmp_path: Path, rig: Rig) -> None:
    other = tmp_path / "checkout"
    write(other, ".git/config", '[remote "origin"]\n\turl = git@github.com:Acme/Widget.git\n')
    record = await rig.engine.register_repo(str(other))
    assert record.name == "github.com/Acme/Widget" and record.remote == "github.com/Acme/Widget"
    plain = tmp_path / "plain-dir"
    plain.mkdir()
    assert (await rig.engine.register_repo(str(plain))).name == "plain-dir"
    from services.indexer.domain.model import InvalidRepoPath

    with pytest.raises(InvalidRepoPath):
        await rig.engine.register_repo("relative/path")
    with pytest.raises(InvalidRepoPath):
        await rig.engine.register_repo(str(tmp_path / "missing"))


async def test_remove_repo_deletes_downstream_then_forgets(rig: Rig) -> None:
    await rig.engine.run_index("demo")
    assert await rig.engine.remove_repo("demo") is True
    assert rig.search.files == {} and rig.graph.files == {}
    assert rig.manifest.get_repo("demo") is None and rig.manifest.files("demo") == {}
    assert await rig.engine.remove_repo("demo") is False


async def test_remove_repo_keeps_the_repo_when_downstream_refuses(rig: Rig) -> None:
    rig.graph.log.fail = lambda op, n: SinkFailure("no") if op == "delete_repo" else None
    with pytest.raises(SinkFailure):
        await rig.engine.remove_repo("demo")
    assert rig.manifest.get_repo("demo") is not None


async def test_parse_crash_counts_an_error_and_leaves_the_file_pending(tmp_path: Path) -> None:
    from services.indexer.tests import indexer_fakes

    root = tmp_path / "repo"
    write(root, "ok.py", "def fine(a):\n")
    write(root, "bad.py", "def boom(a):\n")
    rig = await make_rig(root, tmp_path / "m.db")

    def parse(repo: str, path: str, source: bytes) -> object:
        if path == "bad.py":
            raise RecursionError("grammar blew up")
        return indexer_fakes.fake_parse(repo, path, source)

    rig.engine._parse = parse
    final = await rig.engine.run_index("demo")
    assert (final.files_sent, final.errors) == (1, 1) and "bad.py" in final.message
    assert rig.manifest.files("demo")["bad.py"].status is FileStatus.PENDING


async def test_two_repos_are_independent(tmp_path: Path) -> None:
    search, graph = FakeSearch(), FakeGraph()
    root_a, root_b = tmp_path / "a", tmp_path / "b"
    make_repo(root_a, 3)
    make_repo(root_b, 4)
    rig = await make_rig(root_a, tmp_path / "m.db", search=search, graph=graph)
    await rig.engine.register_repo(str(root_b), "other")
    await rig.engine.run_index("demo")
    await rig.engine.run_index("other")
    assert len(search.state("demo")) == 3 and len(search.state("other")) == 4
    await rig.engine.remove_repo("other")
    assert len(search.state("demo")) == 3 and search.state("other") == {}


async def test_a_missing_working_tree_is_an_error_not_a_mass_deletion(rig: Rig) -> None:
    from services.indexer.domain.model import InvalidRepoPath

    await rig.engine.run_index("demo")
    rig.root.rename(rig.root.with_name("moved"))
    with pytest.raises(InvalidRepoPath, match="missing"):
        await rig.engine.run_index("demo")
    assert len(rig.search.files) == 20 and rig.search.log.paths("delete") == []


@pytest.mark.parametrize("executor", ["thread", "process"])
async def test_real_parser_in_a_pool_sends_chunks_calls_and_resolved_imports(
    tmp_path: Path, executor: str
) -> None:
    from services.indexer.adapters.sqlite_manifest import SqliteManifest
    from services.indexer.bootstrap import build_parse_executor, indexer_engine
    from services.indexer.engine import EngineConfig

    root = tmp_path / "repo"
    write(root, "app/__init__.py", "")
    write(root, "app/util.py", "def helper(x):\n    return x + 1\n")
    write(root, "app/main.py", "from .util import helper\n\n\ndef run(v):\n    return helper(v)\n")
    write(root, "web/index.ts", "import { f } from './lib';\nexport function go(): number { return f(); }\n")
    write(root, "web/lib.ts", "export function f(): number { return 1; }\n")
    write(root, "README.md", "# Demo\n\nSome words.\n")
    search, graph = FakeSearch(), FakeGraph()
    engine = indexer_engine(
        SqliteManifest(tmp_path / "m.db"),
        search,
        graph,
        config=EngineConfig(send_attempts=1),
        executor_factory=build_parse_executor(executor, 1),
    )
    try:
        await engine.register_repo(str(root), "demo")
        final = await engine.run_index("demo")
        assert final.errors == 0 and final.files_sent == 6
        names = {c.qualified_name for chunks in search.files.values() for c in chunks}
        assert {"helper", "run", "go", "f"} <= names
        _, calls, imports = graph.files[("demo", "app/main.py")]
        assert [c.callee_name for c in calls] == ["helper"]
        assert [(i.target, i.resolved_path) for i in imports] == [(".util", "app/util.py")]
        _, _, ts_imports = graph.files[("demo", "web/index.ts")]
        assert [i.resolved_path for i in ts_imports] == ["web/lib.ts"]
        assert ("demo", "README.md") in search.files
    finally:
        await engine.close()


async def test_registration_is_confined_to_the_configured_repo_roots(tmp_path: Path) -> None:
    from services.indexer.adapters.sqlite_manifest import SqliteManifest
    from services.indexer.bootstrap import indexer_engine
    from services.indexer.domain.model import InvalidRepoPath
    from services.indexer.engine import EngineConfig

    allowed, elsewhere = tmp_path / "repos", tmp_path / "secrets"
    (allowed / "shop").mkdir(parents=True)
    elsewhere.mkdir()
    engine = indexer_engine(
        SqliteManifest(tmp_path / "m.db"),
        FakeSearch(),
        FakeGraph(),
        config=EngineConfig(repo_roots=(allowed.resolve(),)),
    )
    try:
        assert (await engine.register_repo(str(allowed / "shop"), "shop")).name == "shop"
        for outside in (elsewhere, tmp_path, allowed / "shop" / ".." / ".." / "secrets", Path("/etc")):
            with pytest.raises(InvalidRepoPath, match="outside the allowed roots"):
                await engine.register_repo(str(outside), "x")
        assert [r.name for r in await engine.list_repos()] == ["shop"]
    finally:
        await engine.close()
