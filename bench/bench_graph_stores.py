"""Graph store benchmark (not a test): Neo4j vs SQLite on the same synthetic corpus, in one run.

    make bench-graph-stores                       # starts a real Neo4j (tools/neo4j/with_neo4j.py)
    REPORECALL_TEST_NEO4J_URL=bolt://127.0.0.1:7687 .venv/bin/python -m bench.bench_graph_stores

For each backend: ReplaceFileGraph throughput (files/s and call sites/s, through the engine as the servicer
does), then CallTree(up=2, down=2, branch=8) p50/p99 over a real grpc.aio server on loopback — once before
any community recompute (every request resolves from the store: this is where the backends differ) and once
settled (the engine's in-memory snapshot). SQLite is the baseline; Neo4j is reported as a ratio to it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench.bench_graph import ServerThread, percentile, synthetic_repo, time_rpcs
from kit.domain import ChunkKind
from reporecall.graph.v1 import graph_pb2
from services.graph.engine import GraphEngine
from services.graph.ports import GraphStore


def measure(label: str, store: GraphStore, repo: str, corpus: list, queries: int, workers: int) -> dict:
    """Load the corpus into `store` under `repo`, time it and CallTree; the repo is removed, the store closed."""
    engine = GraphEngine(store, settle_seconds=3600)
    started = time.perf_counter()
    n_calls = 0
    for path, symbols, calls, imports in corpus:
        engine.replace_file(repo, path, "h", symbols, calls, imports)
        n_calls += len(calls)
    load_s = time.perf_counter() - started
    facts = store.facts(repo)
    rng = random.Random(7)
    seeds = [s for s in facts.symbols if s.kind is not ChunkKind.CLASS]
    picks = [rng.choice(seeds) for _ in range(queries)]
    requests = [
        graph_pb2.CallTreeRequest(repo=repo, seed=graph_pb2.SymbolRef(id=s.id), up=2, down=2, branch=8)
        for s in picks
    ]
    with ServerThread(engine, workers) as server:
        cold = asyncio.run(time_rpcs(server.port, requests, "CallTree"))
        engine.communities(repo, recompute=True)
        settled = asyncio.run(time_rpcs(server.port, requests, "CallTree"))
    store.delete_repo(repo)
    engine.close()  # closes the store too
    row = {
        "backend": label,
        "files_per_s": len(corpus) / load_s,
        "calls_per_s": n_calls / load_s,
        "load_s": load_s,
        "cold_p50": statistics.median(cold),
        "cold_p99": percentile(cold, 99),
        "settled_p50": statistics.median(settled),
        "settled_p99": percentile(settled, 99),
    }
    print(
        f"{label:7s} ReplaceFileGraph {row['files_per_s']:8.1f} files/s ({row['calls_per_s']:9.0f} call sites/s,"
        f" {load_s:.1f} s); CallTree from store p50 {row['cold_p50']:.2f} ms p99 {row['cold_p99']:.2f} ms;"
        f" settled p50 {row['settled_p50']:.2f} ms p99 {row['settled_p99']:.2f} ms",
        flush=True,
    )
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--symbols", type=int, default=10_000)
    parser.add_argument("--calls-per-symbol", type=int, default=4)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args(argv)
    url = os.environ.get("REPORECALL_TEST_NEO4J_URL", "")
    if not url:
        print(
            "bench_graph_stores: set REPORECALL_TEST_NEO4J_URL (or run `make bench-graph-stores`)",
            file=sys.stderr,
        )
        return 2
    from services.graph.adapters.neo4j_graph_store import Neo4jGraphStore
    from services.graph.adapters.sqlite_graph_store import SqliteGraphStore

    corpus = list(synthetic_repo(args.symbols, args.calls_per_symbol))
    n_symbols = sum(len(c[1]) for c in corpus)
    n_calls = sum(len(c[2]) for c in corpus)
    print(
        f"corpus: {len(corpus)} files, {n_symbols} symbols, {n_calls} call sites; {args.queries} CallTree queries"
    )
    with tempfile.TemporaryDirectory(prefix="graph-stores-bench-") as tmp:
        sqlite = SqliteGraphStore(Path(tmp) / "graph.db")
        base = measure("sqlite", sqlite, "bench", corpus, args.queries, args.workers)
    row = measure(
        "neo4j", Neo4jGraphStore(url), f"bench-{uuid.uuid4().hex[:8]}", corpus, args.queries, args.workers
    )
    print(
        f"neo4j / sqlite: ReplaceFileGraph throughput {row['files_per_s'] / base['files_per_s']:.2f}x; "
        f"CallTree from store p50 {row['cold_p50'] / base['cold_p50']:.1f}x, "
        f"p99 {row['cold_p99'] / base['cold_p99']:.1f}x; "
        f"settled p50 {row['settled_p50'] / base['settled_p50']:.1f}x"
    )
    print(f"machine load average while running: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    return 0


if __name__ == "__main__":
    sys.exit(main())
