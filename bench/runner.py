"""`python -m bench run`: fetch corpora, start a suite in a temp data dir, index, wait for vectors, run the
quality sets against our system and the baselines, measure speed, write bench/results/<date>.{json,md}.

The corpora share ONE store, as repos do on a team server: every corpus of the store is indexed first
(one after another, each waiting for its vectors), then each evaluated corpus is scored and timed against
that store. `--store all` (the default of a full run) holds every corpus in corpora.yaml, so a
`--corpus X` run is scored with the others indexed beside it; `--store run` holds only the corpora being
evaluated (the default of `--quick`). The results record which (`store`)."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

import httpx

from bench import speed
from bench.baselines import BaselineIndex, build_baselines
from bench.corpora import ROOT, SELF, Corpus, fetch, load_corpora
from bench.offtopic import by_set, shared_prompts, shared_routing
from bench.report import OURS, render_markdown
from bench.scoring import (
    Gold,
    QueryScores,
    Retrieved,
    latency_summary,
    mean_scores,
    ratio,
    score_files,
    score_symbols,
    skip_scores,
    within_tokens,
)
from bench.sets import SETS_DIR, Prompt, load_commit_set, load_set, resolve_spans

RESULTS_DIR = Path(__file__).resolve().parent / "results"
SEARCH_MODES = ("hybrid", "keyword", "vector")
QUICK_CORPUS = "rxjs"
VECTOR_TIMEOUT = 1800.0
# Edited (and restored) to measure the incremental update; a copy of the corpus, never the pinned archive.
INCREMENTAL_FILES = {
    "rxjs": "src/internal/util/noop.ts",
    "fastify": "lib/noop-set.js",
    "pytest": "src/_pytest/timing.py",
}


def say(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


class Gateway:
    """The CLI's own HTTP API (what `reporecall search/explain --json` call), without a process per query."""

    def __init__(self, url: str, token: str) -> None:
        self.client = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=120)

    def explain(self, prompt: str, repo: str, cwd: str) -> dict[str, Any]:
        from cli.cmd_search import explain_json

        reply = self.client.post("/api/context", json={"prompt": prompt, "repo": repo, "cwd": cwd})
        reply.raise_for_status()
        return explain_json(reply.json())

    def search(self, query: str, repo: str, mode: str, limit: int = 10) -> list[dict[str, Any]]:
        reply = self.client.post(
            "/api/search", json={"query": query, "repo": repo, "limit": limit, "mode": mode}
        )
        reply.raise_for_status()
        return list(reply.json().get("hits", []))


def _hits_to_retrieved(hits: list[dict[str, Any]]) -> list[Retrieved]:
    return [
        Retrieved(
            h["chunk"]["path"],
            h["chunk"].get("qualified_name", ""),
            int(h["chunk"].get("start_line", 0)),
            int(h["chunk"].get("end_line", 0)),
        )
        for h in hits
    ]


def _injected_to_retrieved(injected: list[dict[str, Any]]) -> list[Retrieved]:
    return [
        Retrieved(i["file"], i.get("symbol", ""), int(i.get("start_line", 0)), int(i.get("end_line", 0)))
        for i in injected
    ]


def _summ(scores: list[QueryScores]) -> dict[str, Any]:
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in mean_scores(scores).items()}


def _label(items: list[Retrieved]) -> list[str]:
    return [f"{r.file}:{r.symbol or '-'}" for r in items[:10]]


def evaluate(
    prompts: list[Prompt], systems: dict[str, Callable[[Prompt], list[Retrieved]]]
) -> dict[str, Any]:
    """Symbol- and file-level metrics per system, overall and per category, plus per-prompt rankings."""
    code = [p for p in prompts if not p.should_skip]
    out: dict[str, Any] = {
        "systems": {},
        "prompts": {
            p.id: {"category": p.category, "prompt": p.prompt, "gold": [asdict(g) for g in p.gold]}
            for p in code
        },
    }
    for name, system in systems.items():
        sym: dict[str, QueryScores] = {}
        fil: dict[str, QueryScores] = {}
        for p in code:
            ranked = system(p)
            sym[p.id], fil[p.id] = score_symbols(ranked, p.gold), score_files(ranked, p.gold)
            out["prompts"][p.id].setdefault("ranked", {})[name] = _label(ranked)
            out["prompts"][p.id].setdefault("symbol_ndcg", {})[name] = round(sym[p.id].ndcg_10, 4)
        categories = sorted({p.category for p in code})
        out["systems"][name] = {
            "symbol": _summ(list(sym.values())),
            "file": _summ(list(fil.values())),
            "by_category": {c: _summ([sym[p.id] for p in code if p.category == c]) for c in categories},
        }
    return out


def _block_tokens(root: Path, item: Retrieved, cache: dict[str, list[str]]) -> int:
    """What showing `item` costs: its lines (the whole file for a file-level item) plus a heading."""
    from kit.tokens import count_tokens

    if item.file not in cache:
        try:
            cache[item.file] = (root / item.file).read_text(errors="replace").splitlines()
        except OSError:
            cache[item.file] = []
    lines = cache[item.file]
    body = lines[item.start_line - 1 : item.end_line] if item.start_line > 0 else lines
    return count_tokens("\n".join(body)) + 12


def equal_token_quality(
    prompts: list[Prompt],
    systems: dict[str, Callable[[Prompt], list[Retrieved]]],
    explained: dict[str, dict[str, Any]],
    root: Path,
) -> dict[str, Any]:
    """Symbol NDCG@10 of every system cut to the code tokens the hook injected for the same prompt,
    beside each system's default (top-10) NDCG and mean code tokens."""
    cache: dict[str, list[str]] = {}
    out: dict[str, Any] = {}
    code = [p for p in prompts if not p.should_skip]
    for name, system in systems.items():
        default, equal, tokens = [], [], []
        for p in code:
            ranked = system(p)[:10]
            if name == OURS:
                costs = [int(i.get("tokens", 0)) for i in explained[p.id]["injected"]][: len(ranked)]
            else:
                costs = [_block_tokens(root, r, cache) for r in ranked]
            budget = sum(int(i.get("tokens", 0)) for i in explained[p.id]["injected"])
            default.append(score_symbols(ranked, p.gold).ndcg_10)
            equal.append(score_symbols(within_tokens(ranked, costs, budget), p.gold).ndcg_10)
            tokens.append(sum(costs))
        out[name] = {
            "ndcg_10": round(statistics.fmean(default), 4) if default else None,
            "ndcg_10_at_hook_tokens": round(statistics.fmean(equal), 4) if equal else None,
            "mean_code_tokens": round(statistics.fmean(tokens), 1) if tokens else None,
        }
    return out


def _with_hook(
    explained: dict[str, dict[str, Any]], systems: dict[str, Callable[[Prompt], list[Retrieved]]]
) -> dict[str, Callable[[Prompt], list[Retrieved]]]:
    """The systems, the hook's being the list it injected for each prompt (`explained`, already asked)."""
    hook = {OURS: lambda p: _injected_to_retrieved(explained[p.id]["injected"])}
    return {**hook, **{name: system for name, system in systems.items() if name != OURS}}


def commit_quality(
    prompts: list[Prompt],
    gateway: Gateway,
    repo: str,
    root: Path,
    systems: dict[str, Callable[[Prompt], list[Retrieved]]],
) -> dict[str, Any]:
    """The systems on bug-fix commit messages (the message as the prompt, the changed functions as gold),
    with the hook's routes and injected tokens: what a judge replaying real fixes sees."""
    explained = {p.id: gateway.explain(p.prompt, repo, str(root)) for p in prompts}
    out = evaluate(prompts, _with_hook(explained, systems))
    for p in prompts:
        out["prompts"][p.id].update(route=explained[p.id]["route"], tokens=explained[p.id]["tokens"])
    out["false_skips"] = [p.id for p in prompts if explained[p.id]["route"] == "skip"]
    out["mean_tokens"] = round(statistics.fmean(explained[p.id]["tokens"] for p in prompts), 1)
    return out


def probe_file_quality(
    prompts: list[Prompt],
    explained: dict[str, dict[str, Any]],
    systems: dict[str, Callable[[Prompt], list[Retrieved]]],
) -> dict[str, Any]:
    """File-level metrics on the blind probes' code prompts that name their answer file (`Prompt.answer`):
    many more prompts than the graded sets, written by sessions that had not read the router. The hook's
    list is what it injected for the routing run (`explained`); the others rank anew."""
    answered = [p for p in prompts if p.answer and not p.should_skip]
    out: dict[str, Any] = {"n": len(answered), "systems": {}}
    for name, system in _with_hook(explained, systems).items():
        scores = [score_files(system(p), (Gold(p.answer, "", 3),)) for p in answered]
        out["systems"][name] = _summ(scores)
    out["mean_tokens"] = (
        round(statistics.fmean(explained[p.id]["tokens"] for p in answered), 1) if answered else 0.0
    )
    return out


STORE_MODES = ("all", "run")


def index_corpus(corpus: Corpus, suite: Any, workdir: Path) -> tuple[Path, dict[str, Any]]:
    """Index one corpus into the shared store and wait for its vectors: (its source root, index numbers)."""
    search_addr = suite.run_info["children"]["search"]["address"]
    if corpus.registry == SELF:
        root = corpus.path
    else:
        root = workdir / "src" / corpus.name
        if not root.is_dir():  # a reused data dir (`--data-dir`) has its copy already
            shutil.copytree(corpus.path, root)

    # --- cold index (keyword ready), then the vector backfill -------------------------------------------
    from cli.client import GatewayClient
    from cli.cmd_index import run_index

    say(f"{corpus.name}: indexing {root}")
    started = time.perf_counter()
    final = run_index(
        GatewayClient(suite.url, suite.token, timeout=600),
        str(root),
        corpus.name,
        full=False,
        show_progress=False,
    )
    index_s = time.perf_counter() - started
    files, chunks = int(final.get("files_sent", 0)), int(final.get("chunks", 0))
    say(f"{corpus.name}: {files} files, {chunks} chunks in {index_s:.1f} s; waiting for vectors")
    vectors = speed.wait_for_vectors(search_addr, suite.service_token, corpus.name, VECTOR_TIMEOUT)
    backfill_s = time.perf_counter() - started
    say(f"{corpus.name}: vectors {vectors['vectors']}/{vectors['chunks']} after {backfill_s:.1f} s")
    return root, {
        "files": files,
        "chunks": chunks,
        "errors": int(final.get("errors", 0)),
        "seconds": round(index_s, 2),
        "files_per_s": round(files / index_s, 1),
        "chunks_per_s": round(chunks / index_s, 1),
        "backfill": {
            **vectors,
            "seconds_from_index_start": round(backfill_s, 1),
            "chunks_per_s": round(vectors["vectors"] / backfill_s, 1) if vectors["done"] else None,
        },
    }


def run_corpus(
    corpus: Corpus,
    prompts: list[Prompt],
    suite: Any,
    gateway: Gateway,
    indexed: tuple[Path, dict[str, Any]],
    quick: bool,
    speed_too: bool = True,
    commits: list[Prompt] | None = None,
) -> dict[str, Any]:
    run_info = suite.run_info
    search_addr = run_info["children"]["search"]["address"]
    graph_addr = run_info["children"]["graph"]["address"]
    root, index_numbers = indexed
    prompts = resolve_spans(prompts, corpus.path)
    result: dict[str, Any] = {
        "corpus": {
            "name": corpus.name,
            "language": corpus.language,
            "version": corpus.version or "working tree",
            "sha256": corpus.sha256,
        },
        "index": index_numbers,
    }

    # --- baselines, built now so they do not compete with the embedder for the CPU ----------------------
    bm25_file, bm25_chunk = build_baselines(root)
    result["baselines"] = {
        b.name: {
            "documents": len(b.items),
            "build_seconds": round(b.build_seconds, 2),
            "files_per_s": round(b.files / b.build_seconds, 1),
            "chunks_per_s": round(len(b.items) / b.build_seconds, 1) if b.name == "bm25-chunk" else None,
            "postings_mib": round(b.bm25.nbytes() / 2**20, 1),
        }
        for b in (bm25_file, bm25_chunk)
    }

    # --- quality ------------------------------------------------------------------------------------------
    say(f"{corpus.name}: {len(prompts)} prompts")
    explained: dict[str, dict[str, Any]] = {}
    for p in prompts:
        explained[p.id] = gateway.explain(p.prompt, corpus.name, str(root))

    def ours(p: Prompt) -> list[Retrieved]:
        return _injected_to_retrieved(explained[p.id]["injected"])

    def mode(m: str) -> Callable[[Prompt], list[Retrieved]]:
        return lambda p: _hits_to_retrieved(gateway.search(p.prompt, corpus.name, m))

    def bm25(index: BaselineIndex) -> Callable[[Prompt], list[Retrieved]]:
        return lambda p: index.search(p.prompt)

    systems = {
        OURS: ours,
        **{f"search {m}": mode(m) for m in SEARCH_MODES},
        "bm25-chunk": bm25(bm25_chunk),
        "bm25-file": bm25(bm25_file),
    }
    memo: dict[tuple[str, str], list[Retrieved]] = {}

    def remembered(
        name: str, system: Callable[[Prompt], list[Retrieved]]
    ) -> Callable[[Prompt], list[Retrieved]]:
        def call(p: Prompt) -> list[Retrieved]:
            if (name, p.id) not in memo:
                memo[name, p.id] = system(p)
            return memo[name, p.id]

        return call

    systems = {name: remembered(name, system) for name, system in systems.items()}
    result["quality"] = evaluate(prompts, systems)
    result["equal_tokens"] = equal_token_quality(prompts, systems, explained, root)
    for p in prompts:
        if p.id in result["quality"]["prompts"]:
            e = explained[p.id]
            result["quality"]["prompts"][p.id].update(route=e["route"], seeds=e["seeds"], tokens=e["tokens"])
    skips = skip_scores([(p.should_skip, explained[p.id]["route"] == "skip") for p in prompts])
    code = [p for p in prompts if not p.should_skip]
    result["routing"] = {
        **asdict(skips),
        "routes": {p.id: explained[p.id]["route"] for p in prompts},
        "false_skips": [p.id for p in code if explained[p.id]["route"] == "skip"],
        "missed_skips": [p.id for p in prompts if p.should_skip and explained[p.id]["route"] != "skip"],
    }
    shared = shared_prompts(quick, corpus.name)
    explained_shared = {p.id: gateway.explain(p.prompt, corpus.name, str(root)) for p in shared}
    routes_by_text = {p.prompt: str(explained_shared[p.id]["route"]) for p in shared}
    result["routing_shared"] = shared_routing(routes_by_text.__getitem__, shared)
    result["routing_shared_by_set"] = by_set(result["routing_shared"], shared)
    result["probe_files"] = probe_file_quality(shared, explained_shared, systems)
    tokens = [explained[p.id]["tokens"] for p in code]
    result["injected_tokens"] = {
        "mean": round(statistics.fmean(tokens), 1) if tokens else 0.0,
        "max": max(tokens, default=0),
    }
    result["explain_latency"] = latency_summary([float(explained[p.id]["elapsed_ms"]) for p in prompts])
    if commits:
        result["commits"] = commit_quality(
            resolve_spans(commits, corpus.path), gateway, corpus.name, root, systems
        )
    if not speed_too:
        return result

    # --- speed --------------------------------------------------------------------------------------------
    texts = [p.prompt for p in prompts]
    per_client_1, per_client_16 = (len(texts), 6) if quick else (2 * len(texts), 12)
    say(f"{corpus.name}: hook latency")
    chat = frozenset(p.prompt for p in prompts if p.should_skip)
    result["hook"] = {
        "clients_1": speed.hook_latency(
            suite.url, suite.token, corpus.name, str(root), texts, 1, per_client_1, chat
        ),
        "clients_16": speed.hook_latency(
            suite.url, suite.token, corpus.name, str(root), texts, 16, per_client_16, chat
        ),
    }
    code_texts = [p.prompt for p in code]
    seeds = sorted({g.symbol.split(".")[-1] for p in code for g in p.gold if g.grade == 3})
    rounds = 1 if quick else 3
    result["grpc"] = {
        "search": speed.grpc_search_latency(
            search_addr, suite.service_token, corpus.name, code_texts, rounds
        ),
        "call_tree": speed.grpc_call_tree_latency(
            graph_addr, suite.service_token, corpus.name, seeds, rounds
        ),
    }
    bm25_ms: list[float] = []
    for _ in range(rounds):
        for q in code_texts:
            t = time.perf_counter()
            bm25_chunk.search(q)
            bm25_ms.append((time.perf_counter() - t) * 1000)
    result["baselines"]["bm25-chunk"]["query"] = latency_summary(bm25_ms)
    if corpus.name in INCREMENTAL_FILES:
        say(f"{corpus.name}: incremental update")
        result["incremental"] = speed.incremental_latency(
            lambda token: gateway.search(token, corpus.name, "keyword", limit=5),
            root / INCREMENTAL_FILES[corpus.name],
            trials=2 if quick else 3,
        )

    b = result["baselines"]
    result["ratios"] = {
        "cold_index_files_per_s_vs_bm25_chunk_build": ratio(
            result["index"]["files_per_s"], b["bm25-chunk"]["files_per_s"]
        ),
        "cold_index_chunks_per_s_vs_bm25_chunk_build": ratio(
            result["index"]["chunks_per_s"], b["bm25-chunk"]["chunks_per_s"] or 0
        ),
        "hook_p50_vs_bm25_query_p50": ratio(
            result["hook"]["clients_1"]["p50_ms"], b["bm25-chunk"]["query"]["p50_ms"]
        ),
        "search_p99_vs_bm25_query_p99": ratio(
            result["grpc"]["search"]["p99_ms"], b["bm25-chunk"]["query"]["p99_ms"]
        ),
    }
    if "incremental" in result:
        result["ratios"]["incremental_p50_vs_bm25_chunk_rebuild"] = ratio(
            result["incremental"]["p50_ms"], b["bm25-chunk"]["build_seconds"] * 1000
        )
    return result


def store_corpora(evaluated: list[str], every: list[str], store: str) -> list[str]:
    """The corpora the shared store holds: the evaluated ones first (in order), then the others."""
    if store not in STORE_MODES:
        raise ValueError(f"store {store!r}: use one of {', '.join(STORE_MODES)}")
    others = [n for n in every if n not in evaluated] if store == "all" else []
    return [*evaluated, *others]


def run(
    quick: bool = False,
    only: list[str] | None = None,
    out_dir: Path = RESULTS_DIR,
    keep: bool = False,
    store: str | None = None,
    data_dir: Path | None = None,
    speed_too: bool = True,
) -> Path:
    """Score the sets on a fresh suite; with `data_dir` the suite's data (and the corpora's copies) live
    there and a later run reuses them (indexing is then incremental); `speed_too` false leaves out the
    latency and throughput measurements (quality and routing only, for iteration)."""
    from kit.testing import Suite  # the e2e helper: `reporecall up --base-port 0` as a subprocess

    corpora = load_corpora()
    names = only or ([QUICK_CORPUS] if quick else list(corpora))
    unknown = [n for n in names if n not in corpora]
    if unknown:
        raise SystemExit(f"bench: unknown corpus {', '.join(unknown)}; known: {', '.join(corpora)}")
    store = store or ("run" if quick else "all")
    held = store_corpora(names, list(corpora), store)
    sets = {n: load_set(SETS_DIR / f"{n}.yaml") for n in names}
    if quick:
        sets = {n: _quick_subset(ps) for n, ps in sets.items()}
    for n in held:
        fetch(corpora[n], say)
    workdir = data_dir or Path(tempfile.mkdtemp(prefix="reporecall-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    say(f"starting the suite in {workdir / 'data'}")
    # The bench drives many requests from one token: lift the per-token rate limit for this local suite.
    # Repositories may live under this checkout (the own-repo corpus) and the work dir (the corpora's copies).
    env = {"REPORECALL_RATE_LIMIT_PER_SECOND": "0", "REPORECALL_REPO_ROOTS": f"{ROOT},{workdir}"}
    suite = Suite.start(workdir / "data", env=env, timeout=180)
    started = time.time()
    results: dict[str, Any] = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "quick": quick,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_avg_at_start": os.getloadavg(),
        },
        "commit": _git_head(),
        "store": {"mode": store, "repos": held},
        "corpora": {},
    }
    try:
        gateway = Gateway(suite.url, suite.token)
        say(f"one store for {len(held)} corpora ({store}): {', '.join(held)}")
        indexed = {n: index_corpus(corpora[n], suite, workdir) for n in held}
        results["store"]["chunks"] = sum(numbers["chunks"] for _, numbers in indexed.values())
        for n in names:
            commits = [] if quick else load_commit_set(n)
            results["corpora"][n] = run_corpus(
                corpora[n], sets[n], suite, gateway, indexed[n], quick, speed_too, commits
            )
        results["processes"] = {
            name: {"peak_rss_mib": speed.peak_rss_mib(int(info["pid"]))}
            for name, info in suite.run_info["children"].items()
        }
        results["bench_process_peak_rss_mib"] = speed.peak_rss_mib(os.getpid())
    finally:
        suite.stop()
        if not keep and data_dir is None:
            shutil.rmtree(workdir, ignore_errors=True)
    results["elapsed_s"] = round(time.time() - started, 1)
    out_dir.mkdir(parents=True, exist_ok=True)
    stem = dt.date.today().isoformat() + ("-quick" if quick else "")
    json_path = out_dir / f"{stem}.json"
    json_path.write_text(json.dumps(results, indent=2) + "\n")
    (out_dir / f"{stem}.md").write_text(render_markdown(results))
    say(f"wrote {json_path} and {json_path.with_suffix('.md')}")
    return json_path


def _quick_subset(prompts: list[Prompt]) -> list[Prompt]:
    """Two prompts of each code category and three skips."""
    picked: list[Prompt] = []
    for category in ("lookup", "flow", "bug", "architecture"):
        picked += [p for p in prompts if p.category == category][:2]
    return picked + [p for p in prompts if p.should_skip][:3]


def _git_head() -> str:
    """The checked-out commit; a worktree's `.git` is a file pointing at its own git dir."""
    dot_git = ROOT / ".git"
    try:
        git_dir = dot_git
        if dot_git.is_file():
            git_dir = (ROOT / dot_git.read_text().strip().removeprefix("gitdir: ")).resolve()
        ref = (git_dir / "HEAD").read_text().strip()
        if not ref.startswith("ref: "):
            return ref
        common = git_dir / "commondir"
        shared = (git_dir / common.read_text().strip()).resolve() if common.is_file() else git_dir
        for folder in (git_dir, shared):
            if (folder / ref[5:]).is_file():
                return (folder / ref[5:]).read_text().strip()
        for line in (shared / "packed-refs").read_text().splitlines():
            if line.endswith(" " + ref[5:]):
                return line.split()[0]
        return ""
    except OSError:
        return ""
