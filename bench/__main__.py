"""Benchmarks: `python -m bench run [--quick] [--corpus NAME ...]`, `... hook|fetch|check|report`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="fetch, start a suite, index, score the sets, measure speed")
    run.add_argument("--quick", action="store_true", help="one small corpus (rxjs), 11 prompts, short loads")
    run.add_argument("--corpus", action="append", help="only these corpora (repeatable)")
    run.add_argument("--out", type=Path, help="results folder (default bench/results)")
    run.add_argument("--keep", action="store_true", help="keep the temp data dir (logs) afterwards")
    run.add_argument("--data-dir", type=Path, help="keep the suite's data here (reused by the next run)")
    run.add_argument(
        "--no-speed", action="store_true", help="quality and routing only (no latency or throughput runs)"
    )
    run.add_argument(
        "--store",
        choices=("all", "run"),
        help="what the one shared store holds: every corpus (default; quick: run) or only those scored",
    )
    hook = commands.add_parser("hook", help="hook p50/p99 at 1 and 16 clients, CPU per hook per process")
    hook.add_argument("--src", type=Path, help="a source tree of ≥ 1,000 files (default: Django 5.2.8)")
    hook.add_argument("--data-dir", type=Path, help="keep the suite's data here (reused by the next run)")
    hook.add_argument("--clients", default="1,16", help="comma-separated client counts")
    hook.add_argument("--per-client", type=int, default=24, help="prompts each client posts")
    hook.add_argument(
        "--profile", type=Path, help="py-spy every process in the largest run, into this folder"
    )
    ctags = commands.add_parser("ctags", help="definition recall of the chunks against Universal Ctags")
    ctags.add_argument("--corpus", action="append", help="only these corpora (repeatable)")
    ctags.add_argument("--misses", type=int, default=0, help="list this many misses per corpus and language")
    ctags.add_argument("--out", type=Path, help="also write <date>-ctags.md into this folder")
    edges = commands.add_parser(
        "edges", help="call-edge precision: sample resolved edges, score the judged file"
    )
    edges.add_argument("action", choices=["sample", "score"])
    edges.add_argument("--per-corpus", type=int, default=60, help="edges drawn per library")
    edges.add_argument("--inherited", type=int, default=0, help="extra edges resolved through class bases")
    edges.add_argument("--seed", type=int, default=17)
    commands.add_parser("fetch", help="download, verify and unpack the pinned corpora")
    commands.add_parser("check", help="validate every set against its corpus")
    report = commands.add_parser("report", help="re-render the markdown summary of a results JSON")
    report.add_argument("json", type=Path)
    args = parser.parse_args(argv)

    from bench.corpora import fetch, load_corpora

    if args.command == "fetch":
        for corpus in load_corpora().values():
            print(f"{corpus.name}: {fetch(corpus)}")
        return 0
    if args.command == "ctags":
        from bench.ctags import run as run_ctags

        return run_ctags(args.corpus, args.misses, args.out)
    if args.command == "edges":
        from bench.edges import sample, score

        if args.action == "sample":
            sample(args.per_corpus, args.seed, args.inherited)
            return 0
        return score()
    if args.command == "report":
        import json

        from bench.report import render_markdown

        args.json.with_suffix(".md").write_text(render_markdown(json.loads(args.json.read_text())))
        return 0
    if args.command == "check":
        from bench.offtopic import corpus_probes
        from bench.sets import (
            SETS_DIR,
            answer_problems,
            load_commit_set,
            load_set,
            load_shared_sets,
            problems,
        )

        corpora, failed = load_corpora(), False
        for name, corpus in corpora.items():
            root = fetch(corpus)
            found = problems(load_set(SETS_DIR / f"{name}.yaml"), root)
            failed |= bool(found)
            print(f"{name}: {'ok' if not found else chr(10).join(found)}")
            probes = corpus_probes(name)
            found = answer_problems(probes, root)
            failed |= bool(found)
            answered = sum(bool(p.answer) for p in probes)
            print(f"{name} probes ({answered} answer files): {'ok' if not found else chr(10).join(found)}")
            commits = load_commit_set(name)
            if commits:
                found = problems(commits, corpus.path)
                failed |= bool(found)
                print(f"{name} commits: {'ok' if not found else chr(10).join(found)}")
        for name, shared in load_shared_sets().items():
            found = problems(shared, None)
            failed |= bool(found)
            print(f"{name} (shared, every corpus): {'ok' if not found else chr(10).join(found)}")
        return 1 if failed else 0
    if args.command == "hook":
        from bench.bench_index import DEFAULT_PACKAGE, fetch_package
        from bench.hook import run as run_hook

        clients = [int(c) for c in args.clients.split(",")]
        run_hook(
            args.src or fetch_package(DEFAULT_PACKAGE), args.data_dir, clients, args.per_client, args.profile
        )
        return 0
    from bench.runner import RESULTS_DIR
    from bench.runner import run as run_bench

    run_bench(
        quick=args.quick,
        only=args.corpus,
        out_dir=args.out or RESULTS_DIR,
        keep=args.keep,
        store=args.store,
        data_dir=args.data_dir,
        speed_too=not args.no_speed,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
