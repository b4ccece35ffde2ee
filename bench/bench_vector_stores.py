"""Compare embedded vector stores for the search service (a benchmark, not a test).

Each candidate runs in its own subprocess so RSS is its own. Random unit vectors (384-d), 4 repos
(the queried one holds half the points), top-50 queries with and without a payload filter.

    .venv/bin/python -m bench.bench_vector_stores --points 20000 --queries 200
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

DIM = 384
TOP_K = 50
REPOS = ("main", "other-a", "other-b", "other-c")


def _dataset(points: int, queries: int) -> tuple[np.ndarray, list[str], np.ndarray]:
    rng = np.random.default_rng(7)
    vectors = rng.standard_normal((points, DIM), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    # Half the points in "main", the rest spread over the others.
    repos = [REPOS[0] if i % 2 == 0 else REPOS[1 + (i // 2) % 3] for i in range(points)]
    query_vectors = rng.standard_normal((queries, DIM), dtype=np.float32)
    query_vectors /= np.linalg.norm(query_vectors, axis=1, keepdims=True)
    return vectors, repos, query_vectors


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _percentiles(samples: list[float]) -> dict[str, float]:
    ordered = np.sort(np.asarray(samples)) * 1000
    return {"p50_ms": float(np.percentile(ordered, 50)), "p99_ms": float(np.percentile(ordered, 99))}


def _time_queries(run, query_vectors: np.ndarray) -> dict[str, float]:
    run(query_vectors[0])  # warm-up
    samples = []
    for q in query_vectors:
        start = time.perf_counter()
        run(q)
        samples.append(time.perf_counter() - start)
    return _percentiles(samples)


def bench_numpy(points: int, queries: int, folder: Path) -> dict[str, object]:
    from services.search.adapters.numpy_vector_index import NumpyVectorIndex
    from services.search.domain.model import SearchFilters, TestFilter, VectorEntry

    vectors, repos, query_vectors = _dataset(points, queries)
    base_rss = _rss_mb()
    start = time.perf_counter()
    index = NumpyVectorIndex(folder / "vectors.db")
    batch = 1000
    for lo in range(0, points, batch):
        index.upsert(
            [
                VectorEntry(
                    chunk_id=f"c{i}",
                    repo=repos[i],
                    path=f"src/f{i // 10}.py",
                    language="python",
                    kind="function",
                    is_test=i % 7 == 0,
                    vector=vectors[i],
                )
                for i in range(lo, min(points, lo + batch))
            ]
        )
    build = time.perf_counter() - start
    unfiltered = _time_queries(lambda q: index.search("main", q, SearchFilters(), TOP_K), query_vectors)
    filtered = _time_queries(
        lambda q: index.search(
            "main", q, SearchFilters(path_prefix="src/f1", tests=TestFilter.EXCLUDE), TOP_K
        ),
        query_vectors,
    )
    index.close()
    start = time.perf_counter()
    reopened = NumpyVectorIndex(folder / "vectors.db")
    reopened.search("main", query_vectors[0], SearchFilters(), TOP_K)
    load = time.perf_counter() - start
    reopened.close()
    return {
        "store": "numpy (per-repo matrix, sqlite-persisted)",
        "build_s": build,
        "reopen_s": load,
        "repo_query": unfiltered,
        "repo+payload_filter": filtered,
        "rss_mb": _rss_mb() - base_rss,
    }


def bench_qdrant_local(points: int, queries: int, folder: Path) -> dict[str, object]:
    from qdrant_client import QdrantClient, models

    vectors, repos, query_vectors = _dataset(points, queries)
    base_rss = _rss_mb()
    start = time.perf_counter()
    client = QdrantClient(path=str(folder / "qdrant"))
    client.create_collection(
        "chunks", vectors_config=models.VectorParams(size=DIM, distance=models.Distance.COSINE)
    )
    batch = 1000
    for lo in range(0, points, batch):
        hi = min(points, lo + batch)
        client.upsert(
            "chunks",
            points=models.Batch(
                ids=list(range(lo, hi)),
                vectors=vectors[lo:hi].tolist(),
                payloads=[{"repo": repos[i]} for i in range(lo, hi)],
            ),
        )
    build = time.perf_counter() - start
    repo_filter = models.Filter(
        must=[models.FieldCondition(key="repo", match=models.MatchValue(value="main"))]
    )
    unfiltered = _time_queries(
        lambda q: client.query_points("chunks", query=q.tolist(), limit=TOP_K), query_vectors
    )
    filtered = _time_queries(
        lambda q: client.query_points("chunks", query=q.tolist(), limit=TOP_K, query_filter=repo_filter),
        query_vectors,
    )
    client.close()
    return {
        "store": "qdrant-client local mode",
        "build_s": build,
        "no_filter": unfiltered,
        "repo_filter": filtered,
        "rss_mb": _rss_mb() - base_rss,
    }


def bench_qdrant_edge(points: int, queries: int, folder: Path, optimize: bool) -> dict[str, object]:
    import qdrant_edge as qe

    vectors, repos, query_vectors = _dataset(points, queries)
    base_rss = _rss_mb()
    start = time.perf_counter()
    shard = qe.EdgeShard.create(
        str(folder / "edge"),
        qe.EdgeConfig(vectors={"v": qe.EdgeVectorParams(size=DIM, distance=qe.Distance.Cosine)}),
    )
    shard.update(qe.UpdateOperation.create_field_index("repo", qe.PayloadSchemaType.Keyword))
    batch = 1000
    for lo in range(0, points, batch):
        hi = min(points, lo + batch)
        shard.update(
            qe.UpdateOperation.upsert_points(
                [qe.Point(i, {"v": vectors[i].tolist()}, {"repo": repos[i]}) for i in range(lo, hi)]
            )
        )
    if optimize:
        shard.optimize()
    build = time.perf_counter() - start
    repo_filter = qe.Filter(must=[qe.FieldCondition("repo", match=qe.MatchValue("main"))])

    def run(q: np.ndarray, flt: qe.Filter | None) -> None:
        shard.query(qe.QueryRequest(limit=TOP_K, query=qe.Query.Nearest(q.tolist(), using="v"), filter=flt))

    unfiltered = _time_queries(lambda q: run(q, None), query_vectors)
    filtered = _time_queries(lambda q: run(q, repo_filter), query_vectors)
    shard.close()
    return {
        "store": f"qdrant-edge-py ({'optimized/HNSW' if optimize else 'unoptimized segments'})",
        "build_s": build,
        "no_filter": unfiltered,
        "repo_filter": filtered,
        "rss_mb": _rss_mb() - base_rss,
    }


def _child(store: str, points: int, queries: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if store == "numpy":
            result = bench_numpy(points, queries, folder)
        elif store == "qdrant-local":
            result = bench_qdrant_local(points, queries, folder)
        elif store == "qdrant-edge":
            result = bench_qdrant_edge(points, queries, folder, optimize=False)
        else:
            result = bench_qdrant_edge(points, queries, folder, optimize=True)
    result["points"] = points
    print(json.dumps(result))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--points", type=int, default=20_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--stores",
        default="numpy,qdrant-edge,qdrant-edge-optimized,qdrant-local",
        help="comma-separated: numpy, qdrant-edge, qdrant-edge-optimized, qdrant-local",
    )
    parser.add_argument("--child", default="")
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.points, args.queries)
        return
    for store in args.stores.split(","):
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "bench.bench_vector_stores",
                "--child",
                store,
                "--points",
                str(args.points),
                "--queries",
                str(args.queries),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        if out.returncode != 0:
            print(f"{store}: failed\n{out.stderr[-2000:]}")
            continue
        print(out.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    main()
