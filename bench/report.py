"""The short markdown summary of a results JSON (bench/results/<date>.md)."""

from __future__ import annotations

from collections import Counter
from typing import Any

OURS = "reporecall (hook)"
BASELINE = "bm25-chunk"
TARGET_NDCG_GAIN = 0.15
TARGET_SKIP_ACCURACY = 0.95
TARGET_HOOK_P50_MS = 25.0


def _f(value: Any, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _ok(passed: bool) -> str:
    return "met" if passed else "**missed**"


NOTE = (
    "Symbol level: a result matches a gold definition by qualified-name suffix or line overlap; NDCG gain "
    "2^g−1; recall/MRR count grade ≥ 2. `reporecall (hook)` is the exact list the hook injects "
    "(`explain --json`); the others are top-10 rankings. bm25-file results span whole files, so by the "
    "overlap rule one file hit covers every gold symbol in that file (a generous baseline)."
)


def render_markdown(results: dict[str, Any]) -> str:
    machine = results["machine"]
    lines = [
        f"# RepoRecall benchmark — {results['date']}" + (" (quick)" if results.get("quick") else ""),
        "",
        f"Commit `{results.get('commit', '')[:12]}`, {machine['cpus']} CPUs, Python {machine['python']}, "
        f"load average at start {machine['load_avg_at_start'][0]:.2f}; "
        f"{results.get('elapsed_s', 0):.0f} s in all. " + NOTE,
        "",
    ]
    if results.get("store"):  # which corpora shared the one store the numbers were measured on
        store = results["store"]
        lines += [f"One store held {', '.join(store['repos'])} ({store.get('chunks', '?')} chunks).", ""]
    for name, corpus in results["corpora"].items():
        info, quality, routing = corpus["corpus"], corpus["quality"]["systems"], corpus["routing"]
        lines += [
            f"## {name} {info['version']} ({info['language']})",
            "",
            "| system | sym NDCG@10 | sym R@10 | sym R@5 | sym MRR@10 | file NDCG@10 | file R@10 |",
            "|---|---|---|---|---|---|---|",
        ]
        for system, scores in quality.items():
            s, f = scores["symbol"], scores["file"]
            label = f"**{system}**" if system == OURS else system
            lines.append(
                f"| {label} | {_f(s['ndcg_10'])} | {_f(s['recall_10'])} | {_f(s['recall_5'])} | "
                f"{_f(s['mrr_10'])} | {_f(f['ndcg_10'])} | {_f(f['recall_10'])} |"
            )
        gain = quality[OURS]["symbol"]["ndcg_10"] - quality[BASELINE]["symbol"]["ndcg_10"]
        lines += [
            "",
            f"- symbol NDCG@10 gain over {BASELINE}: {gain:+.3f} (target +{TARGET_NDCG_GAIN}: "
            f"{_ok(gain >= TARGET_NDCG_GAIN)})",
            _skip_line(routing),
            *(
                ["- shared off-topic set: " + _skip_line(corpus["routing_shared"])[2:]]
                if "routing_shared" in corpus
                else []
            ),
            *(
                f"  - shared set `{name}`: " + _skip_line(routing_set)[2:]
                for name, routing_set in corpus.get("routing_shared_by_set", {}).items()
            ),
            _route_line(corpus),
            _hook_line(corpus)
            if "hook" in corpus
            else f"- mean injected tokens {corpus['injected_tokens']['mean']:.0f} (no speed runs)",
        ]
        lines += _equal_token_lines(corpus)
        lines += [
            "",
            "| category | n | hook sym NDCG@10 | bm25-chunk sym NDCG@10 | search hybrid sym NDCG@10 |",
            "|---|---|---|---|---|",
        ]
        for category, scores in quality[OURS]["by_category"].items():
            base = quality[BASELINE]["by_category"][category]["ndcg_10"]
            hybrid = quality.get("search hybrid", {}).get("by_category", {}).get(category, {}).get("ndcg_10")
            row = [category, str(scores["n"]), _f(scores["ndcg_10"]), _f(base), _f(hybrid)]
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
        if "commits" in corpus:
            lines += _commit_lines(corpus["commits"])
        if corpus.get("probe_files", {}).get("n"):
            lines += _probe_lines(corpus["probe_files"])

    lines += [
        "## Speed (ratios are ours ÷ the BM25-chunk baseline measured in the same run)",
        "",
        "| corpus | files | chunks | cold files/s | cold chunks/s | ×BM25 build files/s | "
        "vectors done after | backfill chunks/s | incremental p50 | Search p50/p99 | CallTree p50/p99 | "
        "BM25 query p50/p99 |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, c in results["corpora"].items():
        if "grpc" not in c:  # `bench run --no-speed`
            continue
        idx, grpc, back = c["index"], c["grpc"], c["index"]["backfill"]
        inc = c.get("incremental")
        bq = c["baselines"]["bm25-chunk"]["query"]
        row = [
            name,
            str(idx["files"]),
            str(idx["chunks"]),
            f"{idx['files_per_s']:.0f}",
            f"{idx['chunks_per_s']:.0f}",
            _f(c["ratios"]["cold_index_files_per_s_vs_bm25_chunk_build"], 2),
            f"{back['seconds_from_index_start']:.0f} s",
            _f(back["chunks_per_s"], 1),
            f"{inc['p50_ms']:.0f} ms" if inc and inc["n"] else "–",
            f"{grpc['search']['p50_ms']:.1f}/{grpc['search']['p99_ms']:.1f} ms",
            f"{grpc['call_tree']['p50_ms']:.1f}/{grpc['call_tree']['p99_ms']:.1f} ms",
            f"{bq['p50_ms']:.2f}/{bq['p99_ms']:.2f} ms",
        ]
        lines.append("| " + " | ".join(row) + " |")
    rss = ", ".join(f"{name} {info['peak_rss_mib']}" for name, info in results.get("processes", {}).items())
    postings = ", ".join(
        f"{n} {c['baselines']['bm25-chunk'].get('postings_mib', '–')}" for n, c in results["corpora"].items()
    )
    lines += [
        "",
        f"Peak RSS (VmHWM) per process, MiB: {rss}; bench process (BM25 baselines + client) "
        f"{results.get('bench_process_peak_rss_mib', '–')}; BM25-chunk postings arrays, MiB: {postings}.",
        "",
    ]
    return "\n".join(lines)


def _commit_lines(commits: dict[str, Any]) -> list[str]:
    """The systems on the corpus's bug-fix commit messages (sets/commits), apart from its own set."""
    systems = commits["systems"]
    lines = [
        f"Bug-fix commit messages (`sets/commits`, {systems[OURS]['symbol']['n']} prompts; the message is the "
        "prompt, the changed functions the gold):",
        "",
        "| system | sym NDCG@10 | sym R@10 | sym MRR@10 | file R@10 |",
        "|---|---|---|---|---|",
    ]
    for system, scores in systems.items():
        s, f = scores["symbol"], scores["file"]
        label = f"**{system}**" if system == OURS else system
        lines.append(
            f"| {label} | {_f(s['ndcg_10'])} | {_f(s['recall_10'])} | {_f(s['mrr_10'])} | {_f(f['recall_10'])} |"
        )
    gain = systems[OURS]["symbol"]["ndcg_10"] - systems[BASELINE]["symbol"]["ndcg_10"]
    skipped = ", ".join(commits["false_skips"]) or "none"
    lines += [
        "",
        f"- commit messages: hook {gain:+.3f} over {BASELINE}; mean injected tokens {commits['mean_tokens']:.0f}; "
        f"skipped: {skipped}",
        "",
    ]
    return lines


def _probe_lines(probes: dict[str, Any]) -> list[str]:
    """File-level metrics on the blind probes' code prompts (`sets/probe*/<corpus>.yaml`, `answer`)."""
    lines = [
        f"Blind probe prompts (`sets/probe*`, {probes['n']} code prompts written by sessions that had not read "
        "the router; the file named as the answer is the gold, distinct files in order):",
        "",
        "| system | file MRR@10 | file R@5 | file R@10 |",
        "|---|---|---|---|",
    ]
    for system, s in probes["systems"].items():
        label = f"**{system}**" if system == OURS else system
        lines.append(f"| {label} | {_f(s['mrr_10'])} | {_f(s['recall_5'])} | {_f(s['recall_10'])} |")
    return [*lines, "", f"- mean injected tokens on these prompts {probes['mean_tokens']:.0f}", ""]


def _skip_line(routing: dict[str, Any]) -> str:
    line = (
        f"- skip accuracy {_f(routing['accuracy'])} (target ≥ {TARGET_SKIP_ACCURACY}: "
        f"{_ok(routing['accuracy'] >= TARGET_SKIP_ACCURACY)}), false-skip rate "
        f"{_f(routing['false_skip_rate'])} (target 0: {_ok(routing['false_skip_rate'] == 0)})"
    )
    if routing["false_skips"]:
        line += f"; false skips {', '.join(routing['false_skips'])}"
    if routing["missed_skips"]:
        line += f"; missed skips {', '.join(routing['missed_skips'])}"
    return line


def _route_line(corpus: dict[str, Any]) -> str:
    """How each labelled category was routed (the set's category is the expected route)."""
    prompts = corpus["quality"]["prompts"]
    table: dict[str, Counter[str]] = {}
    for prompt_id, route in corpus["routing"]["routes"].items():
        category = prompts[prompt_id]["category"] if prompt_id in prompts else "skip"
        table.setdefault(category, Counter())[route] += 1
    parts = [
        f"{category} → " + ", ".join(f"{route} {n}" for route, n in routes.most_common())
        for category, routes in sorted(table.items())
    ]
    return "- routes by labelled category: " + "; ".join(parts)


def _hook_line(corpus: dict[str, Any]) -> str:
    one, many = corpus["hook"]["clients_1"], corpus["hook"]["clients_16"]
    return (
        f"- hook p50 {one['p50_ms']:.1f} ms / p99 {one['p99_ms']:.1f} ms at 1 client, "
        f"p50 {many['p50_ms']:.1f} ms / p99 {many['p99_ms']:.1f} ms at 16 clients "
        f"(target p50 ≤ {TARGET_HOOK_P50_MS:.0f} ms: {_ok(one['p50_ms'] <= TARGET_HOOK_P50_MS)}); "
        f"mean injected tokens {corpus['injected_tokens']['mean']:.0f}; server-side context build p50 "
        f"{corpus['explain_latency']['p50_ms']:.1f} ms (the rest of the hook time is HTTP)"
    )


def _equal_token_lines(corpus: dict[str, Any]) -> list[str]:
    """Quality at the default budget beside quality at the hook's own injected code tokens per prompt."""
    equal = corpus.get("equal_tokens")
    if not equal:
        return []
    lines = [
        "",
        "| system | sym NDCG@10 (top 10) | mean code tokens (top 10) | sym NDCG@10 at the hook's tokens |",
        "|---|---|---|---|",
    ]
    for system, e in equal.items():
        label = f"**{system}**" if system == OURS else system
        lines.append(
            f"| {label} | {_f(e['ndcg_10'])} | {_f(e['mean_code_tokens'], 0)} | {_f(e['ndcg_10_at_hook_tokens'])} |"
        )
    return lines
