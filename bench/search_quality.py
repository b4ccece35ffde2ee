"""Search ranking on a bench store, in-process: symbol NDCG@10 of every set per search mode, in seconds.

`python -m bench run` starts the whole suite and scores the hook too; tuning the search service's ranking
needs only its stores. This opens a copy of a bench data dir's keyword and vector stores (read as they
are; never run it on a store a suite is using) with the service's own `SearchEngine`, runs each code
prompt of the sets in keyword, vector and hybrid mode, and scores the top 10 as the bench does
(bench.scoring), so a ranking change can be judged on all corpora in ~10 s before a full run confirms it.

    .venv/bin/python -m bench.search_quality --data-dir /work/wt/me_store [--corpus pytest] [--mode hybrid]
        [--prompts]   (one line per prompt, for reading the misses)
        [--commits]   (the bug-fix commit sets instead)
        [--probes]    (file MRR@10 on the blind probes' code prompts that name their answer file: ~108 per
                       corpus, written by sessions that had not read the router)

CPU per search (thread time, which other jobs on the machine disturb less than wall time) is printed
beside the scores: a ranking change that costs speed shows here first.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from bench.corpora import load_corpora
from bench.offtopic import corpus_probes
from bench.scoring import Gold, Retrieved, score_files, score_symbols
from bench.sets import Prompt, load_commit_set, load_sets, resolve_spans
from services.search.domain.model import SearchMode
from services.search.engine import SearchEngine

MODES = ("keyword", "vector", "hybrid")


def open_engine(data_dir: Path, vectors: bool) -> SearchEngine:
    """The bench store's keyword index, plus its vectors and the query embedder when asked for."""
    from services.search.adapters.sqlite_keyword_index import SqliteKeywordIndex

    search = data_dir / "data" / "search" if (data_dir / "data").is_dir() else data_dir / "search"
    keyword = SqliteKeywordIndex(search / "keyword.db")
    if not vectors:
        return SearchEngine(keyword)
    from services.search.adapters.numpy_vector_index import NumpyVectorIndex
    from services.search.adapters.onnx_embedder import OnnxEmbedder
    from services.search.adapters.sqlite_embedding_store import SqliteEmbeddingStore
    from services.search.bootstrap import QUERY_TOKENS

    embedder = OnnxEmbedder(threads=1, max_tokens=QUERY_TOKENS)
    return SearchEngine(
        keyword,
        NumpyVectorIndex(search / "vectors.db", embedder.dimension),
        embedder,
        SqliteEmbeddingStore(search / "embeddings.db"),
    )


def source_root(data_dir: Path, corpus: str) -> Path:
    """The corpus as the store indexed it: the data dir's copy, or this checkout for the self corpus."""
    copy = data_dir / "src" / corpus
    return copy if copy.is_dir() else load_corpora()[corpus].path


def score_prompts(
    engine: SearchEngine, corpus: str, prompts: list[Prompt], mode: str
) -> tuple[dict[str, float], list[float]]:
    """Symbol NDCG@10 per code prompt (as bench.scoring counts it), and the CPU milliseconds of each search.
    A prompt naming only its answer file (`Prompt.answer`, the blind probes) is scored by that file's MRR@10
    over the distinct files of the ranking instead."""
    scores: dict[str, float] = {}
    cpu: list[float] = []
    for p in prompts:
        if p.should_skip:
            continue
        started = time.thread_time()
        hits = engine.search(p.prompt, corpus, limit=10, mode=SearchMode[mode.upper()]).hits
        cpu.append((time.thread_time() - started) * 1000)
        ranked = [
            Retrieved(h.chunk.path, h.chunk.qualified_name, h.chunk.start_line, h.chunk.end_line)
            for h in hits
        ]
        if p.answer:
            scores[p.id] = score_files(ranked, (Gold(p.answer, "", 3),)).mrr_10 or 0.0
        else:
            scores[p.id] = score_symbols(ranked, p.gold).ndcg_10
    return scores, cpu


def answered_probes(corpus: str) -> list[Prompt]:
    """The corpus's blind probe code prompts that name their answer file, over every probe set."""
    return [p for p in corpus_probes(corpus) if p.answer]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.search_quality", description=__doc__)
    parser.add_argument("--data-dir", type=Path, required=True, help="a bench data dir (a copy)")
    parser.add_argument("--corpus", action="append", help="only these corpora (repeatable)")
    parser.add_argument("--mode", action="append", choices=MODES, help="only these modes (repeatable)")
    parser.add_argument("--prompts", action="store_true", help="one line per prompt")
    chosen_set = parser.add_mutually_exclusive_group()
    chosen_set.add_argument(
        "--commits",
        action="store_true",
        help="the bug-fix commit sets (sets/commits) instead of the corpus sets",
    )
    chosen_set.add_argument(
        "--probes",
        action="store_true",
        help="file MRR@10 on the blind probes' code prompts that name their answer file",
    )
    args = parser.parse_args(argv)
    modes = args.mode or list(MODES)
    metric = "file MRR@10" if args.probes else "sym NDCG@10"
    sets = load_sets()
    corpora = args.corpus or [c for c in sets if c in load_corpora()]
    engine = open_engine(args.data_dir, vectors=any(m != "keyword" for m in modes))
    for mode in modes:
        means = []
        for corpus in corpora:
            if args.probes:
                chosen = answered_probes(corpus)
            else:
                chosen = load_commit_set(corpus) if args.commits else sets[corpus]
            if not chosen:
                continue
            prompts = resolve_spans(chosen, source_root(args.data_dir, corpus))
            scores, cpu = score_prompts(engine, corpus, prompts, mode)
            means.append(statistics.fmean(scores.values()))
            print(f"{mode:8s} {corpus:12s} {metric} {means[-1]:.3f}  CPU p50 {statistics.median(cpu):.1f} ms")
            for prompt_id, score in scores.items() if args.prompts else ():
                print(f"    {prompt_id:28s} {score:.3f}")
        print(f"{mode:8s} {'mean':12s} {metric} {statistics.fmean(means):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
