"""Helpers shared by the reliability tests: repositories with known content, gRPC stubs, hook payloads."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import subprocess
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reporecall.gateway.v1 import gateway_pb2_grpc
from reporecall.graph.v1 import graph_pb2, graph_pb2_grpc
from reporecall.indexer.v1 import indexer_pb2_grpc
from reporecall.memory.v1 import memory_pb2, memory_pb2_grpc
from reporecall.search.v1 import search_pb2, search_pb2_grpc
from tests.suite import Suite

HOOK = "/hooks/prompt-context"
FUZZ_CASES: Counter[str] = Counter()  # fuzz cases tried per surface, printed in the terminal summary


def prompt_payload(prompt: str, cwd: str | Path = "/nowhere", session: str = "rel-1") -> dict[str, str]:
    """What Claude Code's http hook posts for UserPromptSubmit."""
    return {
        "session_id": session,
        "transcript_path": "/tmp/t.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }


def hook_text(reply: Any) -> str:
    """additionalContext of a hook reply ('' for the empty reply); fails on anything Claude Code would reject."""
    assert reply.status_code == 200, reply.text
    data = reply.json()
    if data == {}:
        return ""
    output = data["hookSpecificOutput"]
    assert output["hookEventName"] == "UserPromptSubmit" and len(output["additionalContext"]) <= 10_000
    return str(output["additionalContext"])


def git_commit(root: Path) -> None:
    git = ["git", "-c", "user.email=rel@test", "-c", "user.name=rel", "-C", str(root)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "fixture"], check=True)


def make_marker_repo(root: Path, marker: str, modules: int = 3) -> Path:
    """A small Python package whose every symbol, docstring and comment carries `marker` (to spot leaks)."""
    pkg = root / "src" / marker
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(f'"""The {marker} package."""\n')
    for i in range(modules):
        nxt = (i + 1) % modules
        (pkg / f"mod{i}.py").write_text(
            f'"""Module {i} of {marker}: computes the {marker} checksum."""\n\n'
            f"from .mod{nxt} import {marker}_step_{nxt}\n\n\n"
            f"def {marker}_step_{i}(value):\n"
            f'    """Step {i} of the {marker} checksum."""\n'
            f"    return {marker}_step_{nxt}(value + {i}) if value < {10 * (i + 1)} else value\n\n\n"
            f"class {marker.capitalize()}Ledger{i}:\n"
            f'    """Ledger {i} keeping the {marker} totals."""\n\n'
            f"    def record_{marker}(self, amount):\n"
            f"        return {marker}_step_{i}(amount)\n"
        )
    (root / "README.md").write_text(f"# {marker}\n\nThe {marker} repository.\n")
    git_commit(root)
    return root


def make_chain_repo(root: Path, files: int) -> Path:
    """`files` modules that call each other (resolved edges) and share a `helper` name (ambiguous ones)."""
    pkg = root / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for i in range(files):
        nxt = (i + 1) % files
        (pkg / f"m{i}.py").write_text(
            f'"""Module {i}."""\n\nfrom .m{nxt} import step_{nxt}\n\n\n'
            f"def helper(value):\n    return value + {i}\n\n\n"
            f'def step_{i}(value):\n    """Step {i} of the chain."""\n'
            f"    if value > {i * 10}:\n        return helper(value)\n    return step_{nxt}(helper(value))\n"
        )
    return root


def index(suite: Suite, path: Path, name: str) -> dict[str, Any]:
    result = suite.cli("index", str(path), "--name", name, "--json")
    assert result.returncode == 0, result.stderr + result.stdout
    return json.loads(result.stdout)  # type: ignore[no-any-return]


@dataclass
class Stubs:
    search: search_pb2_grpc.SearchServiceStub
    graph: graph_pb2_grpc.GraphServiceStub
    memory: memory_pb2_grpc.MemoryServiceStub
    indexer: indexer_pb2_grpc.IndexerServiceStub
    gateway: gateway_pb2_grpc.GatewayServiceStub


@contextlib.contextmanager
def stubs(suite: Suite) -> Iterator[Stubs]:
    """Synchronous stubs straight to every service's gRPC listener (bypassing the gateway)."""
    children = suite.run_info["children"]
    channels = {name: suite.service_channel(name) for name in children}
    try:
        yield Stubs(
            search_pb2_grpc.SearchServiceStub(channels["search"]),
            graph_pb2_grpc.GraphServiceStub(channels["graph"]),
            memory_pb2_grpc.MemoryServiceStub(channels["memory"]),
            indexer_pb2_grpc.IndexerServiceStub(channels["indexer"]),
            gateway_pb2_grpc.GatewayServiceStub(channels["gateway"]),
        )
    finally:
        for channel in channels.values():
            channel.close()


def restarts(suite: Suite) -> dict[str, int]:
    return {name: int(info["restarts"]) for name, info in suite.run_info["children"].items()}


def holdings(suite: Suite, repo: str) -> dict[str, int]:
    """What every service holds for `repo`: search files/chunks, graph symbols/edges/imports, memories."""
    with stubs(suite) as s:
        search = s.search.Stats(search_pb2.StatsRequest(repo=repo), timeout=10)
        graph = s.graph.Stats(graph_pb2.StatsRequest(repo=repo), timeout=10)
        memories = s.memory.List(
            memory_pb2.ListRequest(repo=repo, limit=500, include_inactive=True), timeout=10
        )
    return {
        "search_files": search.files,
        "search_chunks": search.chunks,
        "graph_symbols": graph.symbols,
        "graph_edges": graph.resolved_edges + graph.ambiguous_edges,
        "graph_imports": graph.imports,
        # Working notes are the hooks' own per-session observations (written after each prompt, possibly
        # just after a run ended), not data of the repository,
        # and global memories stored from another repo are listed for every repo: count only this repo's own.
        "memories": sum(
            1
            for m in memories.memories
            if m.memory_class != memory_pb2.MEMORY_CLASS_WORKING and m.repo == repo
        ),
    }


def file_chunks(suite: Suite, repo: str, path: str) -> list[Any]:
    with stubs(suite) as s:
        return list(
            s.search.FileChunks(search_pb2.FileChunksRequest(repo=repo, path=path), timeout=10).chunks
        )


def sqlite_integrity(data_dir: Path) -> dict[str, str]:
    """`PRAGMA integrity_check` of every SQLite database under data_dir (run after the suite stopped)."""
    results: dict[str, str] = {}
    for path in sorted(data_dir.rglob("*.db")):
        with contextlib.closing(sqlite3.connect(path)) as db:
            results[str(path.relative_to(data_dir))] = db.execute("PRAGMA integrity_check").fetchone()[0]
    return results
