"""Hook latency through the real processes, with the CPU each process spends per hook (issue 7).

    python -m bench hook                      # Django 5.2.8 (pinned wheel), vectors on, 1 and 16 clients
    python -m bench hook --data-dir /tmp/rr   # keep the index between runs (the second run starts at once)

Starts `reporecall up` on embedded stores, indexes the source (≥ 1,000 files), waits until every chunk
has its vector, then posts prompts to `/hooks/prompt-context` from 1 and from 16 concurrent
clients (closed loop: each client posts its next prompt as soon as the reply arrives). Besides p50/p99 it
prints each process's CPU milliseconds per hook, read from /proc, so a change to the hot path can be
judged by the CPU it saves, which the machine's other load does not distort. Not a test.
"""

from __future__ import annotations

import ast
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import speed

TARGET_P50_MS, TARGET_P99_MS = 25.0, 80.0
MIN_FILES = 1000


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _cpu_by_process(children: dict[str, Any]) -> dict[str, float]:
    cpu = {name: _cpu_seconds(int(info["pid"])) for name, info in children.items() if info.get("pid")}
    cpu["bench client"] = time.process_time()
    return cpu


def prompts_for(root: Path, count: int, seed: int = 7) -> list[str]:
    """Prompts as developers write them about this code, for every route, from its Python definitions."""
    rng = random.Random(seed)
    named: list[tuple[str, str, str]] = []  # (path, name, first docstring sentence)
    for file in sorted(root.rglob("*.py")):
        try:
            tree = ast.parse(file.read_text(errors="replace"))
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and len(node.name) > 4:
                doc = (ast.get_docstring(node) or "").split(".")[0]
                named.append((file.relative_to(root).as_posix(), node.name, " ".join(doc.split()[:14])))
    named = [n for n in named if not n[1].startswith("_")]
    documented = [n for n in named if len(n[2].split()) >= 5]
    shapes = [
        lambda p, n, d: f"where is {n} defined and what does it return?",
        lambda p, n, d: f"who calls {n}? I want to change its signature",
        lambda p, n, d: f"how does {d.lower()} work, step by step?",
        lambda p, n, d: f"{n} raises a KeyError when the settings are missing, why?",
        lambda p, n, d: f"explain the flow from {n} down to the database in {p}",
        lambda p, n, d: f"give me an overview of the architecture around {p.split('/')[1]}",
        lambda p, n, d: "thanks, that works now",
    ]
    prompts: list[str] = []
    while len(prompts) < count:
        shape = shapes[len(prompts) % len(shapes)]
        prompts.append(shape(*rng.choice(documented)))
    return prompts


def _settle(children: dict[str, Any], timeout: float = 180.0) -> None:
    """Wait until the suite is idle (start-up work such as community detection has finished)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        before = _cpu_by_process(children)
        time.sleep(1.0)
        after = _cpu_by_process(children)
        if sum(after[k] - before[k] for k in children if k in before) < 0.05:
            return


def _profile(children: dict[str, Any], folder: Path) -> list[subprocess.Popen[bytes]]:
    """py-spy (if installed) on every process, folded stacks to `folder/<name>.txt`."""
    spy = shutil.which("py-spy")
    if spy is None:
        raise SystemExit("--profile needs py-spy on PATH (pip install py-spy)")
    folder.mkdir(parents=True, exist_ok=True)
    return [
        subprocess.Popen(
            [
                spy,
                "record",
                "--format",
                "raw",
                "--nonblocking",
                "-r",
                "200",
                "-o",
                str(folder / f"{name}.txt"),
                "-p",
                str(info["pid"]),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name, info in children.items()
        if info.get("pid")
    ]


def run(
    source: Path, data_dir: Path | None, clients: list[int], per_client: int, profile: Path | None = None
) -> None:
    from cli.client import GatewayClient
    from cli.cmd_index import run_index
    from kit.testing import Suite

    root = source
    repo = "bench-hook"
    # Distinct prompts for every request: a repeated prompt would be served from the query caches.
    prompts = prompts_for(root, sum(clients) * per_client + 32)
    chat = frozenset(p for p in prompts if p.startswith("thanks"))
    folder = data_dir or Path(tempfile.mkdtemp(prefix="reporecall-bench-hook-"))
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores)", flush=True)
    suite = Suite.start(folder, env={"REPORECALL_RATE_LIMIT_PER_SECOND": "0"}, timeout=180)
    try:
        started = time.perf_counter()
        final = run_index(GatewayClient(suite.url, suite.token, timeout=600), str(root), repo, False, False)
        search_addr = suite.run_info["children"]["search"]["address"]
        vectors = speed.wait_for_vectors(search_addr, suite.service_token, repo, timeout=3600)
        stats = speed.search_stats(search_addr, suite.service_token, repo)
        print(
            f"{root}: {final.get('files_scanned', 0)} files scanned, {stats.files} with chunks, "
            f"{stats.chunks} chunks, {vectors['vectors']} vectors "
            f"({vectors['embedder']}, {vectors['vector_backend']}); ready after "
            f"{time.perf_counter() - started:.0f} s",
            flush=True,
        )
        if int(final.get("files_scanned", 0)) < MIN_FILES or not vectors["done"]:
            raise SystemExit(f"need ≥ {MIN_FILES} files with every vector in place")
        children = suite.run_info["children"]
        _settle(children)
        results = {}
        offset = 32  # the first prompts are left for the warm-up request of each run
        for n in clients:
            batch = prompts[offset : offset + n * per_client]
            offset += n * per_client
            spies = _profile(children, profile) if profile and n == max(clients) else []
            before = _cpu_by_process(children)
            result = speed.hook_latency(suite.url, suite.token, repo, str(root), batch, n, per_client, chat)
            after = _cpu_by_process(children)
            for spy in spies:
                spy.send_signal(signal.SIGINT)
                spy.wait(30)
            hooks = n * per_client + n  # the warm-up requests too
            per_hook = {k: (after[k] - before[k]) * 1000 / hooks for k in before}
            results[n] = result
            print(
                f"{n:>2} client(s): p50 {result['p50_ms']:6.1f} ms  p99 {result['p99_ms']:6.1f} ms  "
                f"{result['requests_per_second']:6.1f} hooks/s  statuses {result['statuses']}  "
                f"empty code replies {result['empty_code_replies']}",
                flush=True,
            )
            print(
                "    CPU ms per hook: "
                + ", ".join(f"{k} {v:.1f}" for k, v in per_hook.items())
                + f"; all {sum(per_hook.values()):.1f}",
                flush=True,
            )
    finally:
        suite.stop()
        if data_dir is None:
            shutil.rmtree(folder, ignore_errors=True)
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    one, many = results.get(1), results.get(16)
    if one and many:
        ok = lambda good: "OK" if good else "MISSED"  # noqa: E731
        print(
            f"targets: p50 ≤ {TARGET_P50_MS} ms at 1 client {one['p50_ms']:.1f} {ok(one['p50_ms'] <= TARGET_P50_MS)}, "
            f"at 16 clients {many['p50_ms']:.1f} {ok(many['p50_ms'] <= TARGET_P50_MS)}; "
            f"p99 ≤ {TARGET_P99_MS} ms at 16 clients {many['p99_ms']:.1f} {ok(many['p99_ms'] <= TARGET_P99_MS)}"
        )
