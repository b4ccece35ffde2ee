"""Load benchmark: N concurrent Claude Code hook clients against a running suite on a 1,000+ file repo.

    .venv/bin/python -m tools.load_test                      # 50 clients x 60 s (the issue-10 figure)
    .venv/bin/python -m tools.load_test --clients 10 --duration 15 --data-dir /tmp/rr-load

It starts the real suite (`reporecall up`, embedded stores), builds a Python monorepo from the sources of
real libraries installed in the venv (no network), indexes it, waits until the vector backfill is done
(so the measured window is steady state, not indexing), issues one token per client (each client is a
user; the per-token rate limit is the production one) and runs closed-loop clients posting
UserPromptSubmit payloads to /hooks/prompt-context. Meanwhile it samples VmRSS of every child process
from /proc and fits a least-squares slope per process after the warm-up.

An error is anything a hook client would not accept: a transport failure, a non-200 status, a body that
is not `{}` or a valid hookSpecificOutput object. Empty replies are counted separately (by the gateway's
own hook-failure metric: `deadline` means the 1.5 s hook deadline cut the answer short).
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import sysconfig
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from gateway.auth import TokenStore, token_store_path  # noqa: E402
from kit.testing import Suite, wait_for  # noqa: E402

# Real, typed, documented Python from the venv: ~1,300 files, ~12 MB, many cross-module calls.
CORPUS_LIBRARIES = (
    "pygments",
    "pip",
    "hypothesis",
    "starlette",
    "httpx",
    "rich",
    "mcp",
    "anyio",
    "jsonschema",
    "neo4j",
    "uvicorn",
    "pydantic",
    "yaml",
    "structlog",
)
SKIP_PARTS = {"_vendor", "__pycache__", "tests", "test"}
HOOK_PATH = "/hooks/prompt-context"


# --- the repository ---------------------------------------------------------------------------------------


def build_corpus(dest: Path, libraries: tuple[str, ...] = CORPUS_LIBRARIES, min_files: int = 1000) -> int:
    """Copy the .py sources of installed libraries under dest/libs and commit them; return the file count."""
    site = Path(sysconfig.get_paths()["purelib"])
    if (dest / ".git").exists():
        return sum(1 for _ in (dest / "libs").rglob("*.py"))
    count = 0
    for name in libraries:
        source = site / name
        if not source.is_dir():
            continue
        for path in source.rglob("*.py"):
            relative = path.relative_to(site)
            if SKIP_PARTS & set(relative.parts):
                continue
            target = dest / "libs" / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            count += 1
    if count < min_files:
        raise SystemExit(f"only {count} source files found under {site}; need {min_files}")
    (dest / "README.md").write_text("# corpus\n\nVendored Python libraries: a load-test repository.\n")
    git = ["git", "-c", "user.email=load@test", "-c", "user.name=load", "-C", str(dest)]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "corpus"], check=True)
    return count


def corpus_symbols(root: Path, limit: int = 400, seed: int = 7) -> list[str]:
    """Public function and class names defined in the corpus, for prompts that name real code."""
    names: set[str] = set()
    for path in sorted(root.rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(errors="replace"))
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            definition = isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            if definition and not node.name.startswith("_") and len(node.name) > 4:  # type: ignore[attr-defined]
                names.add(node.name)  # type: ignore[attr-defined]
    ordered = sorted(names)
    random.Random(seed).shuffle(ordered)
    return ordered[:limit]


PROMPTS = (
    "where is {name} defined?",
    "how does {name} work",
    "who calls {name}?",
    "trace what happens after {name} is called",
    "fix the bug in {name}: it raises a KeyError when the input is empty",
    "add a timeout parameter to {name} and thread it through its callers",
    "why does {name} return None sometimes",
    "write a unit test for {name}",
    "give me an overview of the architecture of this repository",
    "how are HTTP request headers parsed and validated",
    "where do we retry failed network connections",
    "how is the syntax highlighting lexer chosen for a file name",
    "thanks, that works now!",
    "ok",
)


def make_prompts(symbols: list[str], count: int = 2000, seed: int = 11) -> list[tuple[str, str]]:
    """(template, prompt) pairs: real symbol names in lookups, flows, bugs, overviews and chit-chat."""
    rng = random.Random(seed)
    return [
        (template, template.format(name=rng.choice(symbols)))
        for template in (rng.choice(PROMPTS) for _ in range(count))
    ]


# --- the clients -----------------------------------------------------------------------------------------


@dataclass
class Sample:
    started: float
    seconds: float
    status: int
    kind: str  # "context" | "empty" | "error"
    detail: str = ""
    template: str = ""


def classify_reply(status: int, body: bytes) -> tuple[str, str]:
    """What Claude Code would make of a hook reply: context, empty (nothing injected) or an error."""
    if status != 200:
        return "error", f"HTTP {status}: {body[:200]!r}"
    try:
        data = json.loads(body)
    except ValueError:
        return "error", f"not JSON: {body[:200]!r}"
    if data == {}:
        return "empty", ""
    output = data.get("hookSpecificOutput") if isinstance(data, dict) else None
    if (
        isinstance(output, dict)
        and output.get("hookEventName") == "UserPromptSubmit"
        and isinstance(output.get("additionalContext"), str)
        and len(output["additionalContext"]) <= 10_000
    ):
        return "context", ""
    return "error", f"unexpected body: {body[:200]!r}"


@dataclass
class LoadResult:
    samples: list[Sample] = field(default_factory=list)
    duration: float = 0.0

    def of_kind(self, kind: str) -> list[Sample]:
        return [s for s in self.samples if s.kind == kind]

    def percentile(self, q: float) -> float:
        values = sorted(s.seconds for s in self.samples)
        if not values:
            return 0.0
        return values[min(len(values) - 1, int(round(q / 100 * (len(values) - 1))))]

    def by_template(self) -> dict[str, dict[str, int]]:
        table: dict[str, dict[str, int]] = {}
        for sample in self.samples:
            row = table.setdefault(sample.template, {"context": 0, "empty": 0, "error": 0})
            row[sample.kind] += 1
        return dict(sorted(table.items()))

    def summary(self) -> dict[str, Any]:
        errors = self.of_kind("error")
        return {
            "requests": len(self.samples),
            "rps": round(len(self.samples) / self.duration, 1) if self.duration else 0.0,
            "errors": len(errors),
            "error_examples": sorted({e.detail for e in errors})[:5],
            "context_replies": len(self.of_kind("context")),
            "empty_replies": len(self.of_kind("empty")),
            "p50_ms": round(self.percentile(50) * 1000, 1),
            "p95_ms": round(self.percentile(95) * 1000, 1),
            "p99_ms": round(self.percentile(99) * 1000, 1),
            "max_ms": round(max((s.seconds for s in self.samples), default=0.0) * 1000, 1),
        }


async def run_clients(
    url: str,
    tokens: list[str],
    prompts: list[tuple[str, str]],
    cwd: str,
    duration: float,
    think: tuple[float, float] = (0.0, 0.0),
    timeout: float = 10.0,
    stop: threading.Event | None = None,
    result: LoadResult | None = None,
) -> LoadResult:
    """One closed-loop client per token: post a hook, (optionally think), repeat until `duration` passes.

    Samples are appended to `result` (a fresh one by default) as they come, so a caller can watch them.
    """
    result = result if result is not None else LoadResult()
    started = time.monotonic()
    deadline = started + duration

    async def client(index: int, token: str) -> None:
        rng = random.Random(index)
        headers = {"Authorization": f"Bearer {token}"}
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=timeout, limits=limits) as http:
            turn = 0
            while time.monotonic() < deadline and not (stop and stop.is_set()):
                turn += 1
                template, prompt = prompts[(index * 7919 + turn) % len(prompts)]
                payload = {
                    "session_id": f"load-{index}",
                    "transcript_path": f"/tmp/load-{index}.jsonl",
                    "cwd": cwd,
                    "permission_mode": "default",
                    "hook_event_name": "UserPromptSubmit",
                    "prompt": prompt,
                }
                sent = time.monotonic()
                try:
                    reply = await http.post(HOOK_PATH, json=payload)
                    kind, detail = classify_reply(reply.status_code, reply.content)
                    status = reply.status_code
                except httpx.HTTPError as exc:
                    kind, detail, status = "error", f"{type(exc).__name__}: {exc}", 0
                elapsed = time.monotonic() - sent
                result.samples.append(Sample(sent - started, elapsed, status, kind, detail, template))
                if think[1] > 0:
                    await asyncio.sleep(rng.uniform(*think))

    await asyncio.gather(*(client(i, token) for i, token in enumerate(tokens)))
    result.duration = time.monotonic() - started
    return result


# --- memory ----------------------------------------------------------------------------------------------


def rss_kib(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE)
    return int(match.group(1)) if match else None


class MemorySampler:
    """Samples VmRSS of every child (pids re-read from run.json, so restarts are followed) once a period."""

    def __init__(self, pids: Callable[[], dict[str, int]], period: float = 1.0) -> None:
        self._pids, self._period = pids, period
        self.samples: dict[str, list[tuple[float, int, int]]] = {}  # name → (t, pid, kib)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._t0 = time.monotonic()

    def __enter__(self) -> MemorySampler:
        self._t0 = time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while True:
            try:
                pids = self._pids()
            except (OSError, ValueError, KeyError):
                pids = {}
            now = time.monotonic() - self._t0
            for name, pid in pids.items():
                kib = rss_kib(pid)
                if kib is not None:
                    self.samples.setdefault(name, []).append((now, pid, kib))
            if self._stop.wait(self._period):
                return

    def trend(self, warmup: float) -> dict[str, dict[str, Any]]:
        """Per process after `warmup` s: mean, least-squares slope of RSS (MiB/min), fitted growth."""
        report: dict[str, dict[str, Any]] = {}
        for name, rows in self.samples.items():
            last_pid = rows[-1][1]
            steady = [(t, kib / 1024) for t, pid, kib in rows if t >= warmup and pid == last_pid]
            if len(steady) < 3:
                continue
            slope = linear_slope([t for t, _ in steady], [mib for _, mib in steady])
            span = steady[-1][0] - steady[0][0]
            mean = statistics.fmean(m for _, m in steady)
            third = len(steady) // 3
            report[name] = {
                "thirds_mean_mib": [
                    round(statistics.fmean(m for _, m in part), 1)
                    for part in (steady[:third], steady[third:-third], steady[-third:])
                ],
                "mean_mib": round(mean, 1),
                "min_mib": round(min(m for _, m in steady), 1),
                "max_mib": round(max(m for _, m in steady), 1),
                "slope_mib_per_min": round(slope * 60, 2),
                "fitted_growth_mib": round(slope * span, 2),
                "fitted_growth_pct": round(100 * slope * span / mean, 2),
                "samples": len(steady),
            }
        return report


def linear_slope(xs: list[float], ys: list[float]) -> float:
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    denominator = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / denominator if denominator else 0.0


def flat(trend: dict[str, Any], max_growth_pct: float = 5.0, max_growth_mib: float = 8.0) -> bool:
    """No growth trend: the fitted growth over the window is within noise (either bound)."""
    return trend["fitted_growth_pct"] <= max_growth_pct or trend["fitted_growth_mib"] <= max_growth_mib


# --- the suite -------------------------------------------------------------------------------------------


def child_pids(suite: Suite) -> dict[str, int]:
    return {name: int(info["pid"]) for name, info in suite.run_info["children"].items() if info.get("pid")}


def issue_tokens(data_dir: Path, count: int, prefix: str = "load") -> list[str]:
    """One token per simulated user, in the gateway's own token store (what `reporecall token issue` does)."""
    store = TokenStore(token_store_path(data_dir))
    return [store.issue(f"{prefix}-{i}") for i in range(count)]


def wait_for_tokens(suite: Suite, token: str) -> None:
    """The gateway reloads the token store every few seconds; wait until it accepts the newest token."""
    wait_for(
        lambda: (
            httpx.get(suite.url + "/api/repos", headers={"Authorization": f"Bearer {token}"}).status_code
            == 200
        ),
        30,
        "the gateway to accept the issued tokens",
    )


def index_corpus(suite: Suite, corpus: Path, name: str, say: Callable[[str], None]) -> dict[str, Any]:
    started = time.monotonic()
    result = suite.cli("index", str(corpus), "--name", name, "--json", timeout=1800)
    if result.returncode != 0:
        raise SystemExit(f"indexing failed: {result.stderr}{result.stdout}")
    final = json.loads(result.stdout)
    say(
        f"indexed {final.get('files_scanned')} files, {final.get('chunks', 0)} chunks "
        f"in {time.monotonic() - started:.0f} s"
    )
    return final  # type: ignore[no-any-return]


def search_stats(suite: Suite, repo: str) -> dict[str, Any]:
    reply = suite.post("/api/ops/index_status", {"repo": repo})
    reply.raise_for_status()
    return reply.json()["search"]  # type: ignore[no-any-return]


def wait_for_vectors(suite: Suite, repo: str, timeout: float, say: Callable[[str], None]) -> None:
    """Block until the embedder's backfill is done, so the load window measures serving, not indexing."""
    deadline = time.monotonic() + timeout
    last_print = 0.0
    while time.monotonic() < deadline:
        stats = search_stats(suite, repo)
        backlog = int(stats.get("embed_backlog", 0))
        if backlog == 0:
            return
        if time.monotonic() - last_print > 15:
            say(f"  vector backfill: {stats.get('vectors', 0)} vectors, {backlog} to go")
            last_print = time.monotonic()
        time.sleep(2)
    raise SystemExit(f"the vector backfill did not finish within {timeout:.0f} s")


def gateway_counter(suite: Suite, metric: str, label: str, having: str = "") -> dict[str, float]:
    """A counter of the gateway's Prometheus endpoint by one label (samples containing `having` only)."""
    counts: dict[str, float] = {}
    for line in suite.metrics("gateway").splitlines():
        if line.startswith(metric + "{") and having in line:
            value = re.search(label + r'="([^"]*)"', line)
            counts[value.group(1) if value else "?"] = float(line.rsplit(" ", 1)[1])
    return counts


def gateway_counters(suite: Suite) -> dict[str, dict[str, float]]:
    return {
        # why a hook answered {}: "deadline" (the 1.5 s hook deadline), "error", "bad_request"
        "empty_reasons": gateway_counter(
            suite, "reporecall_hook_failures_total", "reason", 'event="UserPromptSubmit"'
        ),
        # context blocks built without a backend (it was slow or down), by backend
        "degraded_replies": gateway_counter(suite, "reporecall_degraded_replies_total", "backend"),
    }


def counter_delta(after: dict[str, dict[str, float]], before: dict[str, dict[str, float]]) -> dict[str, Any]:
    return {
        name: {k: v - before[name].get(k, 0) for k, v in counts.items() if v - before[name].get(k, 0)}
        for name, counts in after.items()
    }


def restarts(suite: Suite) -> dict[str, int]:
    return {name: int(info.get("restarts", 0)) for name, info in suite.run_info["children"].items()}


FAULT_SERVICES = ("search", "graph", "memory", "indexer")


class FaultInjector:
    """SIGKILLs each backend in turn at the given offsets into the run; measures how long until the supervisor
    has it serving again and until /api/context answers with nothing degraded (full answers are back)."""

    def __init__(self, suite: Suite, repo: str, offsets: list[float], say: Callable[[str], None]) -> None:
        self._suite, self._repo, self._offsets, self._say = suite, repo, offsets, say
        self.faults: list[dict[str, Any]] = []
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._t0 = 0.0

    def __enter__(self) -> FaultInjector:
        self._t0 = time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._thread.join()

    def _full_answer(self) -> bool:
        prompt = "how are HTTP request headers parsed"
        reply = self._suite.post("/api/context", {"repo": self._repo, "prompt": prompt}, timeout=10)
        return reply.status_code == 200 and not reply.json()["degraded"]

    def _restarted(self, service: str, old_pid: int) -> bool:
        from cli.supervisor import is_serving

        child = self._suite.run_info["children"][service]
        return bool(child["pid"] != old_pid and is_serving(child["address"]))

    def _run(self) -> None:
        for service, offset in zip(FAULT_SERVICES, self._offsets, strict=False):
            time.sleep(max(0.0, self._t0 + offset - time.monotonic()))
            old_pid = self._suite.pid(service)
            os.kill(old_pid, signal.SIGKILL)
            killed = time.monotonic()
            wait_for(partial(self._restarted, service, old_pid), 120, f"{service} to be restarted")
            serving = time.monotonic()
            wait_for(self._full_answer, 120, f"full answers after {service} was restarted", interval=0.25)
            fault = {
                "service": service,
                "killed_at_s": round(killed - self._t0, 1),
                "serving_after_s": round(serving - killed, 1),
                "full_answers_after_s": round(time.monotonic() - killed, 1),
            }
            self.faults.append(fault)
            self._say(f"  fault: {fault}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    parser.add_argument(
        "--warmup",
        type=float,
        default=20.0,
        help="seconds of load before the measured window (caches, allocator arenas, the "
        "sessions' working memory fill up); excluded from every figure",
    )
    parser.add_argument(
        "--think",
        type=float,
        nargs=2,
        default=(0.0, 0.0),
        metavar=("MIN", "MAX"),
        help="seconds a client waits between prompts (default: none, closed loop)",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=Path("/tmp/reporecall-load"),
        help="suite data dir; reused between runs so the corpus is indexed and embedded once",
    )
    parser.add_argument("--json", type=Path, help="also write the report here")
    parser.add_argument(
        "--faults",
        action="store_true",
        help="SIGKILL search, graph, memory and indexer in turn during the run (the "
        "supervisor restarts them); report recovery times and replies slower than 2 s",
    )
    parser.add_argument(
        "--prepare-only",
        action="store_true",
        help="build, index and embed the corpus, then stop (the slow part, done once)",
    )
    args = parser.parse_args(argv)

    def say(text: str) -> None:
        print(text, flush=True)

    corpus = args.data_dir / "corpus"
    files = build_corpus(corpus)
    say(f"corpus: {files} Python files from {len(CORPUS_LIBRARIES)} libraries at {corpus}")
    suite = Suite.start(args.data_dir / "suite")
    try:
        index_corpus(suite, corpus, "corpus", say)
        wait_for_vectors(suite, "corpus", 3600, say)
        stats = search_stats(suite, "corpus")
        say(
            f"search holds {stats.get('files')} files, {stats.get('chunks')} chunks, "
            f"{stats.get('vectors')} vectors"
        )
        if args.prepare_only:
            return 0
        tokens = issue_tokens(suite.data_dir, args.clients)
        wait_for_tokens(suite, tokens[-1])
        prompts = make_prompts(corpus_symbols(corpus))
        before_restarts = restarts(suite)
        say(
            f"load: {args.clients} clients x ({args.warmup:.0f} s warm-up + {args.duration:.0f} s measured) ..."
        )
        offsets = [
            args.warmup + args.duration * (i + 1) / (len(FAULT_SERVICES) + 2)
            for i in range(len(FAULT_SERVICES))
        ]
        gateway_pid = suite.pid("gateway")
        with MemorySampler(lambda: child_pids(suite)) as sampler, contextlib.ExitStack() as stack:
            injector = FaultInjector(suite, "corpus", offsets, say) if args.faults else None
            if injector:
                stack.enter_context(injector)
            counters: dict[str, dict[str, dict[str, float]]] = {}
            timer = threading.Timer(args.warmup, lambda: counters.update(before=gateway_counters(suite)))
            timer.start()
            everything = asyncio.run(
                run_clients(
                    suite.url, tokens, prompts, str(corpus), args.warmup + args.duration, tuple(args.think)
                )
            )  # type: ignore[arg-type]
            timer.join()
        result = LoadResult(
            [s for s in everything.samples if s.started >= args.warmup], everything.duration - args.warmup
        )
        report = {
            "clients": args.clients,
            "think_s": list(args.think),
            "warmup_s": args.warmup,
            "duration_s": round(result.duration, 1),
            "corpus_files": files,
            "corpus_chunks": stats.get("chunks"),
            **result.summary(),
            "errors_during_warmup": len(everything.of_kind("error")) - len(result.of_kind("error")),
            **counter_delta(gateway_counters(suite), counters["before"]),
            "restarts": {k: v - before_restarts.get(k, 0) for k, v in restarts(suite).items()},
            "slower_than_2s": sum(1 for sample in result.samples if sample.seconds >= 2.0),
            "faults": injector.faults if injector else [],
            "gateway_restarted": suite.pid("gateway") != gateway_pid,
            "by_prompt": result.by_template(),
            "memory": sampler.trend(args.warmup),
            "rss_samples_mib": {
                name: [(round(t, 1), round(kib / 1024, 1)) for t, _, kib in rows]
                for name, rows in sampler.samples.items()
            },
        }
    finally:
        suite.stop()
    say(json.dumps({k: v for k, v in report.items() if k != "rss_samples_mib"}, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    growing = [] if args.faults else [name for name, trend in report["memory"].items() if not flat(trend)]
    expected_restarts = dict.fromkeys(FAULT_SERVICES, 1) if args.faults else {}
    unexpected = {k: v for k, v in report["restarts"].items() if v != expected_restarts.get(k, 0)}
    ok = (
        report["errors"] == 0
        and report["errors_during_warmup"] == 0
        and not growing
        and not unexpected
        and not report["gateway_restarted"]
    )
    if args.faults:
        ok = ok and len(report["faults"]) == len(FAULT_SERVICES)
    say(
        "PASS"
        if ok
        else f"FAIL: errors={report['errors']} growing={growing} restarts={report['restarts']} "
        f"gateway_restarted={report['gateway_restarted']}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
