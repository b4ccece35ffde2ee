"""Many writers at once (threads on two engines, another process) leave every file whole and lose nothing."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from services.memory.adapters.memory_folder import read_memory
from services.memory.domain.frontmatter import parse_memory_text
from services.memory.domain.model import MemoryClass, Source, Status
from services.memory.engine import MemoryDraft, MemoryEngine, Observation

REPO = "stress"
THREADS = 8
OPS_PER_THREAD = 20
DUPLICATES = [f"duplicate fact number {i} about the cache" for i in range(4)]

_CHILD = r"""
import json, sys
from pathlib import Path
from services.memory.adapters.sqlite_index import SqliteMemoryIndex
from services.memory.bootstrap import memory_engine
from services.memory.engine import MemoryDraft
root, index, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
engine = memory_engine(root, SqliteMemoryIndex(index))
engine.open()
stored = {}
for i in range(25):
    body = f"child process memory {i}"
    stored[engine.store(MemoryDraft(repo="stress", body=body)).id] = body
    if i % 5 == 0:
        engine.compact("stress")
    if i % 7 == 0:
        engine.store(MemoryDraft(repo="stress", body="duplicate fact number 1 about the cache"))
engine.close()
out.write_text(json.dumps(stored))
"""


@pytest.mark.e2e  # a second engine in a child process
def test_concurrent_store_forget_compact_observe_keep_every_file_whole(
    make_engine: Callable[..., MemoryEngine], memory_root: Path, tmp_path: Path
) -> None:
    engines = [make_engine("a"), make_engine("b")]
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _CHILD,
            str(memory_root),
            str(tmp_path / "index-child.db"),
            str(tmp_path / "child.json"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[3],
    )
    expected: dict[str, str] = {}  # id → body it must have at the end
    forgotten: dict[str, str] = {}  # id → fingerprint
    duplicates: list[str] = []
    archived: set[str] = set()
    lock = threading.Lock()
    errors: list[BaseException] = []
    barrier = threading.Barrier(THREADS)

    def worker(n: int) -> None:
        rng = random.Random(n)
        engine = engines[n % 2]
        mine: list[str] = []
        try:
            barrier.wait()
            for op in range(OPS_PER_THREAD):
                roll = rng.random()
                if roll < 0.45 or not mine:
                    body = f"thread {n} note {op} about module_{op % 7}"
                    memory = engine.store(
                        MemoryDraft(repo=REPO, body=body, memory_class=MemoryClass.FACT), admin=True
                    )
                    mine.append(memory.id)
                    with lock:
                        expected[memory.id] = body
                elif roll < 0.55:
                    duplicate = engine.store(MemoryDraft(repo=REPO, body=rng.choice(DUPLICATES)), admin=True)
                    with lock:
                        duplicates.append(duplicate.id)
                elif roll < 0.6 and duplicates:
                    # read-modify-write of a file that compaction may be rewriting at the same moment
                    with lock:
                        memory_id = rng.choice(duplicates)
                    engine.archive(REPO, memory_id, reason="archived by the test", admin=True)
                    with lock:
                        archived.add(memory_id)
                elif roll < 0.68:
                    memory_id = mine.pop(rng.randrange(len(mine)))
                    fingerprint = engine.get(REPO, memory_id).fingerprint
                    assert engine.forget(REPO, memory_id, admin=True)
                    with lock:
                        expected.pop(memory_id)
                        forgotten[memory_id] = fingerprint
                elif roll < 0.78:
                    memory_id = rng.choice(mine)
                    body = f"thread {n} note {memory_id} updated at {op}"
                    engine.store(MemoryDraft(repo=REPO, id=memory_id, body=body), admin=True)
                    with lock:
                        expected[memory_id] = body
                elif roll < 0.9:
                    engine.compact(REPO, admin=True)
                else:
                    engine.observe(
                        Observation(repo=REPO, session_id=f"s{n}", prompt=f"prompt {op}", branch="main")
                    )
        except BaseException as exc:  # surfaced below with the thread's traceback
            errors.append(exc)
            raise

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    _, err = child.communicate(timeout=60)
    assert not errors, errors
    assert child.returncode == 0, err
    expected.update(json.loads((tmp_path / "child.json").read_text()))
    engines[0].compact(REPO, admin=True)

    folder = memory_root / "repos" / REPO
    assert not list(folder.glob(".*.tmp")), "temp files left behind"
    on_disk = {}
    for path in folder.glob("*.md"):
        memory = read_memory(path, repo=REPO, source=Source.TEAM)  # raises if anything is half-written
        on_disk[memory.id] = memory
    for memory_id, body in expected.items():
        assert memory_id in on_disk, f"{memory_id} was lost"
        assert on_disk[memory_id].body == body
    tombstones = {p.stem for p in (folder / ".tombstones").glob("*.json")}
    for memory_id, fingerprint in forgotten.items():
        assert memory_id not in on_disk
        assert fingerprint in tombstones
    for memory_id in archived:
        assert on_disk[memory_id].status is Status.ARCHIVED, f"archive of {memory_id} was lost"
    for memory in on_disk.values():
        if memory.reason.startswith("duplicate of "):
            survivor = on_disk.get(memory.reason.split()[2])
            assert survivor is None or memory.id in survivor.supersedes, f"{survivor} lost {memory.id}"
    active_duplicates = [m for m in on_disk.values() if m.body in DUPLICATES and m.status is Status.ACTIVE]
    assert len({m.fingerprint for m in active_duplicates}) == len(active_duplicates)
    usage = folder / ".usage.json"
    assert not usage.exists() or isinstance(json.loads(usage.read_text()), dict)

    fresh = make_engine("fresh")
    assert fresh.problems == []
    listed = {m.id for m in fresh.list_memories(REPO, branch="main", include_inactive=True, limit=1000)}
    assert set(expected) <= listed
    assert not listed & set(forgotten)
    for engine in engines:
        engine.sync_all()
        assert {
            m.id for m in engine.list_memories(REPO, branch="main", include_inactive=True, limit=1000)
        } == listed


def test_atomic_writes_never_expose_a_partial_file(
    memory_root: Path, make_engine: Callable[..., MemoryEngine]
) -> None:
    engine = make_engine()
    memory = engine.store(MemoryDraft(repo=REPO, body="x" * 20_000), admin=True)
    path = memory_root / "repos" / REPO / f"{memory.id}.md"
    stop = threading.Event()
    seen_bad: list[str] = []

    def reader() -> None:
        while not stop.is_set():
            text = path.read_text()
            parsed = parse_memory_text(text)
            if len(parsed.body) not in (20_000, 30_000):
                seen_bad.append(text[-50:])

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for i in range(12):
            body = ("y" if i % 2 else "x") * (20_000 + 10_000 * (i % 2))
            engine.store(MemoryDraft(repo=REPO, id=memory.id, body=body), admin=True)
    finally:
        stop.set()
        thread.join()
    assert seen_bad == []
