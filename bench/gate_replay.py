"""The skip decision on a bench store, in-process: every routing prompt × corpus through the gateway's own
router and relevance gate, fed by the search service's own engine, in about a minute.

`python -m bench run` scores skips through the running suite; changing the router, the gate or the
off-topic model needs only the search stores. This opens a copy of a bench data dir's stores (never one a
suite is using) with `SearchEngine` and the bundled off-topic model, and for each prompt does what the hook
does before it assembles anything: sanitise, `classify`, search (the hook's limit), resolve the prompt's
names as `Pipeline.resolve_seeds` does, then `Pipeline.relevance_gate` on those hits and definitions (no
memories: the bench store has none worth reading). Each shared
set (and each corpus's own set) is scored as the bench scores it, its bug-fix commit messages (`commits`) by
their false skips; `--misses` lists every missed skip and
false skip with the model's probability, the cue and the gate's reason.

    .venv/bin/python -m bench.gate_replay --data-dir /work/store/copy [--corpus chi] [--misses] [--model F | --no-model]
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.corpora import load_corpora
from bench.offtopic import by_set, scored, shared_prompts
from bench.search_quality import open_engine
from bench.sets import Prompt, load_commit_set, load_sets
from gateway.domain.context_types import Staleness
from gateway.domain.routing import Route, RouteName, classify
from gateway.domain.routing.seeds import lookup_limit
from gateway.domain.sanitize import sanitize_prompt
from gateway.pipeline import DEFAULT_POLICY, Evidence, Pipeline, Request, seed_definitions
from gateway.ports import RepoInfo, SearchHit
from kit.domain import Symbol
from services.search.domain.topicality import OffTopicModel
from services.search.engine import SearchEngine

INDEXED = Staleness(indexed_commit="bench")


def decide(engine: SearchEngine, pipeline: Pipeline, corpus: str, text: str) -> tuple[str, dict[str, Any]]:
    """The route the hook would take before assembly, and why."""
    clean = sanitize_prompt(text).text
    route = classify(clean)
    if route.name is RouteName.SKIP:
        return "skip", {"reason": "router", "cue": route.off_topic}
    found = engine.search(clean, corpus, limit=DEFAULT_POLICY.search_limit)
    hits = tuple(
        SearchHit(
            h.chunk,
            h.score,
            h.signals.keyword_rank,
            h.signals.vector_rank,
            vector_score=h.signals.vector_score,
        )
        for h in found.hits
    )
    request = Request(RepoInfo(corpus, "", ""), route, clean, 0)
    evidence = Evidence(
        search=hits,
        seeds=_seeds(engine, corpus, route),
        off_topic_reading=found.off_topic,
        search_partial=found.partial,
    )
    verdict = pipeline.relevance_gate(request, evidence, INDEXED)
    why = {"p": found.off_topic, "cue": route.off_topic, "reason": verdict.reason if verdict else ""}
    return ("skip" if verdict is not None and verdict.skip else route.name.value), why


def _seeds(engine: SearchEngine, corpus: str, route: Route) -> tuple[Symbol, ...]:
    """The prompt's names resolved as the pipeline resolves them (`Pipeline.resolve_seeds`)."""
    names, limit = (
        route.symbol_seeds[: DEFAULT_POLICY.seed_names],
        lookup_limit(DEFAULT_POLICY.symbol_candidates),
    )
    answers = [engine.find_symbols(corpus, name, limit=limit) for name in names]
    return seed_definitions(DEFAULT_POLICY, names, answers)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--corpus", action="append", default=[])
    parser.add_argument("--misses", action="store_true", help="list missed skips and false skips")
    parser.add_argument("--model", type=Path, help="an off-topic model file (default: the bundled one)")
    parser.add_argument(
        "--no-model",
        action="store_true",
        help="no off-topic model (as under another embedder): the rules alone",
    )
    args = parser.parse_args(argv)
    engine = open_engine(args.data_dir, vectors=True)
    engine.off_topic_model = OffTopicModel.load(args.model) if args.model else OffTopicModel.load()
    if args.no_model:
        engine.off_topic_model = None
    pipeline = Pipeline(None, 1.0)  # type: ignore[arg-type]  # the gate calls no backend
    own = load_sets()
    totals: dict[str, list[float]] = defaultdict(list)
    for corpus in args.corpus or list(load_corpora()):
        commits = load_commit_set(corpus)
        prompts: list[Prompt] = shared_prompts(corpus=corpus) + own.get(corpus, []) + commits
        routes, why = {}, {}
        for prompt in prompts:
            routes[prompt.id], why[prompt.id] = decide(engine, pipeline, corpus, prompt.prompt)
        results = {"own set": scored(own.get(corpus, []), routes)}
        if commits:  # bug-fix commit messages: every one is about the code (false skips only)
            results["commits"] = scored(commits, routes)
        judged = {pid for result in results.values() for pid in result["routes"]}
        results.update(by_set({"routes": routes}, [p for p in prompts if p.id not in judged]))
        line = []
        for name, result in results.items():
            totals[name].append(result["accuracy"])
            line.append(
                f"{name.removeprefix('offtopic_')} {result['accuracy']:.3f}/{len(result['false_skips'])}"
            )
        print(f"{corpus:<11} " + "  ".join(line), flush=True)
        if args.misses:
            text = {p.id: p.prompt for p in prompts}
            for result in results.values():
                for kind in ("false_skips", "missed_skips"):
                    for pid in result[kind]:
                        w = why[pid]
                        reading = f"{w['p']:.2f}" if w.get("p") is not None else "  - "
                        print(
                            f"    {kind[:5]} {reading} [{w['cue'] or '-'}] {text[pid][:70]!r} :: {w['reason'][:70]}"
                        )
    print(
        "mean        "
        + "  ".join(f"{n.removeprefix('offtopic_')} {sum(v) / len(v):.3f}" for n, v in totals.items())
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
