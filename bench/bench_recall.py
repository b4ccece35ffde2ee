"""Recall benchmark: precision/recall per memory class and latency, on an annotated set of memories.

    .venv/bin/python -m bench.bench_recall [--rounds 20] [--scale 2000] [--json]

The memories are bench/memory/memories/*.md (one repo, "shop"); the queries, with the ids they
should recall, are bench/memory/queries.yaml (viewer: branch main, user dev unless stated).
Each query is a hook-style recall: limit 5, the default memory budget, active and visible memories only.

Metrics, per class of the memories involved:
- precision = returned and expected / returned;  recall = returned and expected / expected.
The baseline, measured in the same run on the same files and visibility rules, is plain FTS5 bm25 over
the raw text (no identifier splitting, no stemming, no class/recency/use ranking, no weak-match cut-off),
top 5. Latency is the wall time of `MemoryEngine.recall` (recording use, as the hook does); `--scale N`
adds N synthetic memories to measure it on a larger folder.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from services.memory.adapters.memory_folder import folder_name
from services.memory.adapters.sqlite_index import SqliteMemoryIndex
from services.memory.bootstrap import memory_engine
from services.memory.domain.model import Memory, MemoryClass
from services.memory.domain.query import STOPWORDS
from services.memory.engine import MemoryEngine, RecallQuery

HERE = Path(__file__).parent / "memory"
REPO = "shop"
LIMIT = 5
NOW = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Query:
    text: str
    expected: frozenset[str]
    branch: str = "main"
    user: str = "dev"


def load_queries() -> list[Query]:
    raw = yaml.safe_load((HERE / "queries.yaml").read_text())
    return [
        Query(q["query"], frozenset(q.get("expected") or ()), q.get("branch", "main"), q.get("user", "dev"))
        for q in raw
    ]


def build_engine(root: Path, scale: int) -> MemoryEngine:
    folder = root / "memory" / "repos" / folder_name(REPO)
    folder.mkdir(parents=True)
    for path in sorted((HERE / "memories").glob("*.md")):
        shutil.copy(path, folder / path.name)
    if scale:
        _add_synthetic(folder, scale)
    engine = memory_engine(root / "memory", SqliteMemoryIndex(root / "index.db"), clock=lambda: NOW)
    problems = engine.open()
    if problems:
        raise SystemExit("invalid benchmark memories:\n" + "\n".join(map(str, problems)))
    return engine


def _add_synthetic(folder: Path, count: int) -> None:
    """Filler memories made of the corpus' own vocabulary, so they compete for the same terms."""
    rng = random.Random(7)
    words = sorted(
        {w for p in (HERE / "memories").glob("*.md") for w in re.findall(r"[a-z_]{4,}", p.read_text())}
    )
    classes = ["rule", "fact", "episode"]
    for i in range(count):
        body = " ".join(rng.choice(words) for _ in range(rng.randint(12, 40)))
        text = (
            f"---\nname: filler {i}\nclass: {classes[i % 3]}\nupdated: 2024-0{1 + i % 9}-01\n---\n\n{body}\n"
        )
        (folder / f"filler-{i:05d}.md").write_text(text)


def evaluate(
    results: dict[str, list[str]], queries: list[Query], classes: dict[str, MemoryClass]
) -> dict[str, Any]:
    per_class: dict[str, dict[str, int]] = defaultdict(lambda: {"returned": 0, "hits": 0, "expected": 0})
    reciprocal, exact = [], 0
    for query in queries:
        returned = results[query.text + "\0" + query.branch]
        for memory_id in returned:
            bucket = per_class[classes[memory_id].value]
            bucket["returned"] += 1
            bucket["hits"] += memory_id in query.expected
        for memory_id in query.expected:
            per_class[classes[memory_id].value]["expected"] += 1
        first = next((rank for rank, m in enumerate(returned, 1) if m in query.expected), None)
        if query.expected:
            reciprocal.append(1 / first if first else 0.0)
        exact += set(returned) == set(query.expected)
    table: dict[str, Any] = {}
    totals = {"returned": 0, "hits": 0, "expected": 0}
    for cls in [c.value for c in MemoryClass]:
        bucket = per_class[cls]
        for key in totals:
            totals[key] += bucket[key]
        table[cls] = _pr(bucket)
    table["all"] = _pr(totals)
    table["mrr"] = round(statistics.fmean(reciprocal), 3)
    table["exact_sets"] = f"{exact}/{len(queries)}"
    return table


def _pr(bucket: dict[str, int]) -> dict[str, Any]:
    precision = bucket["hits"] / bucket["returned"] if bucket["returned"] else 1.0
    recall = bucket["hits"] / bucket["expected"] if bucket["expected"] else 1.0
    return {"precision": round(precision, 3), "recall": round(recall, 3), **bucket}


def engine_results(engine: MemoryEngine, queries: list[Query]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for query in queries:
        result = engine.recall(
            RecallQuery(
                repo=REPO,
                query=query.text,
                branch=query.branch,
                user=query.user,
                limit=LIMIT,
                record_use=False,
            )
        )
        out[query.text + "\0" + query.branch] = [r.memory.id for r in result.memories]
    return out


def baseline_results(engine: MemoryEngine, queries: list[Query]) -> dict[str, list[str]]:
    """Plain bm25 over raw text, restricted to the memories the viewer may see (same visibility rules)."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, name, description, body)")
    out: dict[str, list[str]] = {}
    for query in queries:
        visible = engine.list_memories(REPO, branch=query.branch, user=query.user, limit=100_000)
        db.execute("DELETE FROM t")
        db.executemany(
            "INSERT INTO t VALUES (?, ?, ?, ?)", [(m.id, m.name, m.description, m.body) for m in visible]
        )
        words = [w for w in re.findall(r"\w+", query.text.lower()) if w not in STOPWORDS]
        if not words:
            out[query.text + "\0" + query.branch] = []
            continue
        match = " OR ".join(f'"{w}"' for w in dict.fromkeys(words))
        rows = db.execute(
            "SELECT id FROM t WHERE t MATCH ? ORDER BY bm25(t) LIMIT ?", (match, LIMIT)
        ).fetchall()
        out[query.text + "\0" + query.branch] = [r[0] for r in rows]
    return out


def latency(engine: MemoryEngine, queries: list[Query], rounds: int) -> dict[str, float]:
    """Wall and CPU time per call (on a shared machine wall time includes waiting for a core)."""
    wall, cpu = [], []
    for _ in range(rounds):
        for query in queries:
            request = RecallQuery(
                repo=REPO, query=query.text, branch=query.branch, user=query.user, limit=LIMIT
            )
            start, start_cpu = time.perf_counter(), time.thread_time()
            engine.recall(request)
            cpu.append((time.thread_time() - start_cpu) * 1000)
            wall.append((time.perf_counter() - start) * 1000)
    wall.sort()
    cpu.sort()

    def pct(times: list[float], p: float) -> float:
        return round(times[min(len(times) - 1, int(p * len(times)))], 3)

    return {
        "calls": len(wall),
        "p50_ms": pct(wall, 0.50),
        "p95_ms": pct(wall, 0.95),
        "p99_ms": pct(wall, 0.99),
        "max_ms": round(wall[-1], 3),
        "cpu_p50_ms": pct(cpu, 0.50),
        "cpu_p99_ms": pct(cpu, 0.99),
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }


def class_of_every_memory(engine: MemoryEngine) -> dict[str, MemoryClass]:
    everything: list[Memory] = []
    for branch, user in (("main", "dev"), ("feature/gift-cards", "dev"), ("main", "alice")):
        everything += engine.list_memories(
            REPO, branch=branch, user=user, include_inactive=True, limit=100_000
        )
    return {m.id: m.memory_class for m in everything}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20, help="latency rounds over all queries")
    parser.add_argument("--scale", type=int, default=0, help="also measure latency with N filler memories")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    queries = load_queries()
    report: dict[str, Any] = {"queries": len(queries)}
    with tempfile.TemporaryDirectory() as tmp:
        engine = build_engine(Path(tmp), 0)
        classes = class_of_every_memory(engine)
        report["memories"] = len(classes)
        report["per_class_counts"] = {c.value: sum(v is c for v in classes.values()) for c in MemoryClass}
        unknown = {m for q in queries for m in q.expected} - set(classes)
        if unknown:
            raise SystemExit(f"queries.yaml names unknown memories: {sorted(unknown)}")
        report["engine"] = evaluate(engine_results(engine, queries), queries, classes)
        report["baseline"] = evaluate(baseline_results(engine, queries), queries, classes)
        report["latency"] = latency(engine, queries, args.rounds)
        engine.close()
    if args.scale:
        with tempfile.TemporaryDirectory() as tmp:
            engine = build_engine(Path(tmp), args.scale)
            report[f"latency_with_{args.scale}_more"] = latency(engine, queries, max(1, args.rounds // 4))
            engine.close()
    if args.json:
        print(json.dumps(report, indent=2))
        return
    _print(report)


def _print(report: dict[str, Any]) -> None:
    print(
        f"memories: {report['memories']} {report['per_class_counts']}   queries: {report['queries']}   "
        f"limit: {LIMIT}"
    )
    print(
        f"{'class':<9} {'engine P':>9} {'engine R':>9} {'base P':>8} {'base R':>8}  (hits/returned/expected)"
    )
    for cls in [*[c.value for c in MemoryClass], "all"]:
        e, b = report["engine"][cls], report["baseline"][cls]
        print(
            f"{cls:<9} {e['precision']:>9.3f} {e['recall']:>9.3f} {b['precision']:>8.3f} {b['recall']:>8.3f}"
            f"  ({e['hits']}/{e['returned']}/{e['expected']} vs {b['hits']}/{b['returned']}/{b['expected']})"
        )
    e, b = report["engine"], report["baseline"]
    print(
        f"MRR: engine {e['mrr']} vs baseline {b['mrr']} (×{e['mrr'] / b['mrr']:.2f});  exact result sets: "
        f"engine {e['exact_sets']} vs baseline {b['exact_sets']}"
    )
    for key, value in report.items():
        if key.startswith("latency"):
            print(f"{key}: {value}")
    p99 = report["latency"]["p99_ms"]
    print(f"p99 target ≤ 10 ms: {'met' if p99 <= 10 else 'MISSED'} ({p99} ms)")


if __name__ == "__main__":
    main()
