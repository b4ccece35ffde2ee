"""Graph benchmark (not a test): community recompute on a large synthetic graph, CallTree latency over gRPC.

    .venv/bin/python -m bench.bench_graph [--symbols 50000] [--calls-per-symbol 4] [--queries 500]

Builds a synthetic repository in an embedded (SQLite) store under a temporary folder: packages of files of
functions and methods, most calls inside the package, some across, some external, some names shared by
several definitions (ambiguous). Then measures

* recompute: load every fact, resolve every call, run Louvain (target ≤ 10 s for ≥ 50k symbols / ~200k calls);
* CallTree(up=2, down=2, branch=8) over a real grpc.aio server on loopback (target p99 ≤ 20 ms), against a
  baseline of the cheapest RPC (Imports of one file) measured in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import grpc

from kit.domain import CallSite, ChunkKind, Import, Symbol
from reporecall.graph.v1 import graph_pb2, graph_pb2_grpc
from services.graph.adapters.sqlite_graph_store import SqliteGraphStore
from services.graph.domain.communities import count_edges, detect_communities, resolve_all
from services.graph.engine import GraphEngine
from services.graph.servicer import GraphServicer

REPO = "bench"
EXTERNAL_NAMES = ["print", "len", "append", "join", "format", "isinstance", "getattr", "sorted"]


def synthetic_repo(n_symbols: int, calls_per_symbol: int, seed: int = 42):
    """Yields (path, symbols, call_sites, imports) per file; ~20 symbols per file, 50 files per package."""
    rng = random.Random(seed)
    per_file, files_per_pkg = 20, 50
    n_files = max(1, n_symbols // per_file)
    shared = [f"get_{i}" for i in range(max(1, n_symbols // 200))]  # names defined in several places
    files: list[tuple[str, list[Symbol]]] = []
    for f in range(n_files):
        pkg = f // files_per_pkg
        path = f"src/pkg{pkg}/mod{f}.py"
        symbols: list[Symbol] = []
        cls = f"Service{f}"
        symbols.append(Symbol(f"{path}#{cls}", path, cls, cls, ChunkKind.CLASS, 1, 200))
        for k in range(per_file - 1):
            method = k % 3 == 0
            name = rng.choice(shared) if rng.random() < 0.1 else f"fn_{f}_{k}"
            qname = f"{cls}.{name}" if method else name
            kind = ChunkKind.METHOD if method else ChunkKind.FUNCTION
            symbols.append(
                Symbol(
                    f"{path}#{qname}#{k}",
                    path,
                    name,
                    qname,
                    kind,
                    10 * k + 2,
                    10 * k + 9,
                    is_test=pkg % 10 == 9,
                )
            )
        files.append((path, symbols))
    by_pkg: dict[int, list[int]] = {}
    for f in range(n_files):
        by_pkg.setdefault(f // files_per_pkg, []).append(f)
    for f, (path, symbols) in enumerate(files):
        pkg_files = by_pkg[f // files_per_pkg]
        imported = rng.sample(pkg_files, min(3, len(pkg_files)))
        imports = [
            Import(path, files[i][0].replace("/", ".")[:-3], files[i][0], False, (), n + 1)
            for n, i in enumerate(imported)
        ]
        calls: list[CallSite] = []
        for s in symbols:
            for c in range(calls_per_symbol):
                roll = rng.random()
                if roll < 0.1:
                    name, receiver = rng.choice(EXTERNAL_NAMES), ""
                elif roll < 0.7:
                    target_file = files[rng.choice(imported)][1]
                    name, receiver = rng.choice(target_file[1:]).name, ""
                elif roll < 0.8 and s.kind is ChunkKind.METHOD:
                    name, receiver = rng.choice(symbols[1:]).name, "self"
                else:
                    name, receiver = rng.choice(files[rng.randrange(n_files)][1][1:]).name, ""
                calls.append(CallSite(s.id, name, s.start_line + c + 1, receiver))
        yield path, symbols, calls, imports


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


class ServerThread:
    """A grpc.aio server with the graph servicer on its own event loop thread (as in the real process)."""

    def __init__(self, engine: GraphEngine, workers: int) -> None:
        self.port = 0
        self._engine = engine
        self._workers = workers
        self._ready = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.run_until_complete(self._start())
        self._ready.set()
        self._loop.run_forever()

    async def _start(self) -> None:
        self.servicer = GraphServicer(self._engine, workers=self._workers)
        self.server = grpc.aio.server()
        graph_pb2_grpc.add_GraphServiceServicer_to_server(self.servicer, self.server)
        self.port = self.server.add_insecure_port("127.0.0.1:0")
        await self.server.start()

    def __enter__(self) -> ServerThread:
        self._thread.start()
        self._ready.wait(30)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(None), self._loop).result(30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
        self.servicer.close()


async def time_rpcs(port: int, requests: list, method: str) -> list[float]:
    async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
        stub = graph_pb2_grpc.GraphServiceStub(channel)
        call = getattr(stub, method)
        for request in requests[:20]:  # warm-up: connection, caches, thread pool
            await call(request)
        out = []
        for request in requests:
            started = time.perf_counter()
            await call(request)
            out.append((time.perf_counter() - started) * 1000)
        return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--symbols", type=int, default=50_000)
    parser.add_argument("--calls-per-symbol", type=int, default=4)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="graph-bench-") as tmp:
        store = SqliteGraphStore(Path(tmp) / "graph.db")
        engine = GraphEngine(store, settle_seconds=0)
        started = time.perf_counter()
        n_files = n_calls = 0
        for path, symbols, calls, imports in synthetic_repo(args.symbols, args.calls_per_symbol):
            engine.replace_file(REPO, path, "h", symbols, calls, imports)
            n_files += 1
            n_calls += len(calls)
        load_s = time.perf_counter() - started
        counts = store.counts(REPO)
        print(
            f"synthetic repo: {counts.symbols} symbols, {counts.call_sites} call sites, "
            f"{counts.imports} imports, "
            f"{n_files} files; ReplaceFileGraph (engine, embedded) {n_files / load_s:.0f} files/s"
        )

        t0 = time.perf_counter()
        facts = store.facts(REPO)
        t1 = time.perf_counter()
        edges = resolve_all(facts)
        t2 = time.perf_counter()
        report = detect_communities(
            facts, generation=store.generation(REPO), now=datetime.now(UTC), edges=edges
        )
        t3 = time.perf_counter()
        cpu = time.process_time()
        engine.communities(REPO, recompute=True)
        t4 = time.perf_counter()
        recompute_cpu = time.process_time() - cpu
        edge_counts = count_edges(edges)
        print(
            f"edges: {edge_counts.resolved} resolved, {edge_counts.ambiguous} ambiguous calls, "
            f"{edge_counts.external} external; {len(report.communities)} communities, "
            f"modularity {report.modularity:.3f}"
        )
        print(
            f"recompute (engine, end to end): {t4 - t3:.2f} s wall, {recompute_cpu:.2f} s CPU "
            "[target ≤ 10 s]; "
            "phases measured separately: "
            f"load facts {t1 - t0:.2f} s, resolve {t2 - t1:.2f} s, Louvain + describe {t3 - t2:.2f} s"
        )

        rng = random.Random(7)
        seeds = [s for s in facts.symbols if s.kind is not ChunkKind.CLASS]
        picks = [rng.choice(seeds) for _ in range(args.queries)]
        tree_requests = [
            graph_pb2.CallTreeRequest(
                repo=REPO,
                seed=graph_pb2.SymbolRef(id=s.id) if i % 2 else graph_pb2.SymbolRef(name=s.qualified_name),
                up=2,
                down=2,
                branch=8,
            )
            for i, s in enumerate(picks)
        ]
        import_requests = [graph_pb2.ImportsRequest(repo=REPO, path=s.path) for s in picks]
        with ServerThread(engine, args.workers) as server:
            baseline = asyncio.run(time_rpcs(server.port, import_requests, "Imports"))
            trees = asyncio.run(time_rpcs(server.port, tree_requests, "CallTree"))
        # The same queries before any recompute (as while indexing): resolved from the store per request.
        cold_engine = GraphEngine(store, settle_seconds=3600)
        with ServerThread(cold_engine, args.workers) as server:
            cold = asyncio.run(time_rpcs(server.port, tree_requests, "CallTree"))
        b50, t50, t99 = statistics.median(baseline), statistics.median(trees), percentile(trees, 99)
        print(f"baseline Imports RPC: p50 {b50:.2f} ms, p99 {percentile(baseline, 99):.2f} ms")
        print(
            f"CallTree(up=2, down=2, branch=8) over gRPC, settled (in-memory graph): p50 {t50:.2f} ms, "
            f"p99 {t99:.2f} ms [target p99 ≤ 20 ms]; p50 = {t50 / b50:.1f}× baseline"
        )
        print(
            f"CallTree before the first recompute (resolved from SQLite per request): "
            f"p50 {statistics.median(cold):.2f} ms, p99 {percentile(cold, 99):.2f} ms"
        )
        engine.close()
        # CPU time is what the recompute costs on a free core; wall time also counts other processes' load.
        print(f"machine load average while running: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        ok = recompute_cpu <= 10 and t99 <= 20
        print("targets met" if ok else "TARGETS MISSED")
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
