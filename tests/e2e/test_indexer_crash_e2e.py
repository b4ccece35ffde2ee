"""Crash safety with real processes: SIGKILL the indexer mid-run, let the supervisor restart it, re-run,
and compare what search and graph hold with a clean run of an identical copy of the repository."""

from __future__ import annotations

import json
import os
import shutil
import signal
from pathlib import Path

import httpx
import pytest

from reporecall.graph.v1 import graph_pb2, graph_pb2_grpc
from reporecall.search.v1 import search_pb2, search_pb2_grpc
from tests.suite import Suite, wait_for

pytestmark = pytest.mark.e2e

FILES = 400


def make_repo(root: Path) -> None:
    """A package whose modules call each other (resolved edges) and an unimported `normalise` that two
    modules define (ambiguous edges)."""
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for twin in ("alpha", "beta"):
        (pkg / f"{twin}.py").write_text("def normalise(value):\n    return abs(value)\n")
    for i in range(FILES):
        nxt = (i + 1) % FILES
        (pkg / f"m{i}.py").write_text(
            f'"""Module {i}."""\n\nfrom .m{nxt} import step_{nxt}\n\n\n'
            f"def helper(value):\n    return value + {i}\n\n\n"
            f'def step_{i}(value):\n    """Step {i} of the chain."""\n'
            f"    if value > {i * 10}:\n        return helper(value)\n    return step_{nxt}(helper(value))\n\n\n"
            f"class Worker{i}:\n    def run(self, value):\n        return normalise(step_{i}(value)) * 2\n"
        )


def register(suite: Suite, name: str, path: Path) -> None:
    reply = suite.post("/api/repos", {"name": name, "path": str(path)})
    assert reply.status_code == 200, reply.text


def index_and_kill(suite: Suite, name: str, fraction: float) -> bool:
    """Stream an index run; SIGKILL the indexer once `fraction` of the changed files were sent."""
    with httpx.stream(
        "POST", f"{suite.url}/api/repos/{name}/index", json={}, headers=suite.headers(), timeout=120
    ) as reply:
        for line in reply.iter_lines():
            if not line.strip():
                continue
            progress = json.loads(line)
            changed, sent = progress.get("files_changed", 0), progress.get("files_sent", 0)
            if changed and sent >= fraction * changed and progress.get("phase") != "INDEX_PHASE_DONE":
                os.kill(suite.pid("indexer"), signal.SIGKILL)
                return True
    return False


def wait_for_indexer(suite: Suite, old_pid: int) -> None:
    wait_for(lambda: suite.pid("indexer") != old_pid, 30, "the indexer to be restarted")
    wait_for(lambda: suite.get("/api/repos").status_code == 200, 30, "the restarted indexer to serve")


def contents(suite: Suite, name: str, root: Path) -> dict[str, object]:
    with (
        suite.service_channel("search") as s,
        suite.service_channel("graph") as g,
    ):
        search = search_pb2_grpc.SearchServiceStub(s)
        graph = graph_pb2_grpc.GraphServiceStub(g)
        chunks: list[tuple[object, ...]] = []
        ids: list[str] = []
        for path in sorted(str(p.relative_to(root)) for p in root.rglob("*.py")):
            for c in search.FileChunks(search_pb2.FileChunksRequest(repo=name, path=path)).chunks:
                chunks.append((c.path, c.kind, c.qualified_name, c.start_line, c.end_line, c.content_hash))
                ids.append(c.id)
        stats = search.Stats(search_pb2.StatsRequest(repo=name))
        gstats = graph.Stats(graph_pb2.StatsRequest(repo=name))
    assert len(ids) == len(set(ids)), "duplicate chunk ids"
    return {
        "chunks": sorted(chunks),  # type: ignore[type-var]
        "search_chunks": stats.chunks,
        "search_files": stats.files,
        "graph": (
            gstats.symbols,
            gstats.resolved_edges,
            gstats.ambiguous_edges,
            gstats.external_calls,
            gstats.imports,
        ),
    }


def test_sigkill_at_several_points_converges_to_a_clean_run(indexed: Suite, tmp_path: Path) -> None:
    crashy, clean = tmp_path / "crashy", tmp_path / "clean"
    make_repo(crashy)
    shutil.copytree(crashy, clean)
    register(indexed, "crashy", crashy)
    kills = 0
    for fraction in (0.1, 0.5, 0.9):
        old_pid = indexed.pid("indexer")
        if index_and_kill(indexed, "crashy", fraction):
            kills += 1
            wait_for_indexer(indexed, old_pid)
        # Touch a few files between crashes, as a developer would keep working.
        target = crashy / "pkg" / f"m{int(fraction * FILES)}.py"
        target.write_text(target.read_text() + f"\n\ndef added_{kills}():\n    return helper({kills})\n")
        shutil.copy(target, clean / target.relative_to(crashy))
    assert kills >= 2, "the runs finished before the indexer could be killed"
    final = indexed.cli("index", str(crashy), "--name", "crashy", "--json")
    assert final.returncode == 0, final.stderr + final.stdout
    register(indexed, "clean", clean)
    reference = indexed.cli("index", str(clean), "--name", "clean", "--json")
    assert reference.returncode == 0, reference.stderr

    got, want = contents(indexed, "crashy", crashy), contents(indexed, "clean", clean)
    assert got["chunks"] == want["chunks"]
    assert got["search_chunks"] == want["search_chunks"] == len(want["chunks"])  # nothing orphaned
    assert got["search_files"] == want["search_files"]
    # Graph edge counts are "as of the last recompute" (GraphService.Stats): a repo's report is refreshed once
    # it has been quiet for the settle window (5 s), so wait for both reports to settle on the same counts.
    graphs = wait_for(
        lambda: (
            (g := contents(indexed, "crashy", crashy)["graph"])
            == (w := contents(indexed, "clean", clean)["graph"])
            and (g, w)
        ),
        timeout=60,
        what="the crashy and clean graphs' settled edge counts to agree",
        interval=1.0,
    )
    want["graph"] = graphs[1]
    assert want["graph"][1] > FILES and want["graph"][2] > 0  # resolved and ambiguous edges exist
