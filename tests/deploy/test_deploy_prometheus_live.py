"""A real Prometheus scrapes a real suite: every dashboard and alert expression parses and returns data.

The suite is `reporecall up` (tests/suite.py); Prometheus is Debian's binary, run on a free port with
deploy/prometheus/prometheus.yml rewritten only where it must be (targets → the suite's metrics ports,
1 s intervals) and deploy/prometheus/rules.yml loaded as is. Traffic: index the spine fixture, answer
hooks, one malformed hook, and one backend frozen (SIGSTOP) long enough to be seen down and to make the
gateway answer degraded — so the failure metrics have series too.
"""

from __future__ import annotations

import math
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from tests.deploy.deploy_support import (
    PROMETHEUS_CONFIG,
    RULES,
    Expression,
    alert_rules,
    as_signal,
    dashboard_expressions,
    grafana_to_promql,
    prometheus_binaries,
    recording_rules,
)
from tests.suite import FIXTURES, Suite, wait_for

pytestmark = pytest.mark.e2e

SPINE = FIXTURES / "spine"
PROCESSES = {"gateway", "indexer", "search", "graph", "memory"}
PROMPTS = (
    "where is apply_bulk_discount defined?",
    "how does checkout compute the order total with VAT?",
    "why does vat_for_country fail for an unknown country?",
    "give me an overview of the architecture of this shop",
    "fix the bug in estimateShipping",
    "thanks, that works",
)
# Alerts whose own signal has no series in a short healthy run, and what the test evaluates instead: the
# metric selector the alert reads, so a renamed metric or label still fails the test.
SILENT_ALERTS = {
    # Only the malformed hook fails in this run, and the alert deliberately ignores bad requests.
    "ReporecallHookFailures": "sum by (event, reason) (rate(reporecall_hook_failures_total[5m]))",
}
DATA_DEADLINE = 20.0


@dataclass
class Prometheus:
    url: str
    process: subprocess.Popen[bytes]
    log: Path

    def api(self, path: str, **params: str) -> Any:
        reply = httpx.get(f"{self.url}/api/v1/{path}", params=params, timeout=10)
        body = reply.json()
        if body.get("status") != "success":
            raise PromQLError(f"{body.get('errorType')}: {body.get('error')}")
        return body["data"]

    def query(self, promql: str) -> list[dict[str, Any]]:
        data = self.api("query", query=promql)
        if data["resultType"] == "scalar":
            return [{"metric": {}, "value": data["result"]}]
        return list(data["result"])


class PromQLError(Exception):
    """Prometheus refused a query (bad_data: it does not parse)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def hook_payload(prompt: str) -> dict[str, str]:
    return {
        "session_id": "8d3c1f7e-5b0a-4c52-9f4e-2f6a7d9b1c30",
        "transcript_path": "/home/dev/.claude/projects/-src-shop/8d3c1f7e.jsonl",
        "cwd": str(SPINE / "src"),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }


def scrape_config_for(children: dict[str, dict[str, Any]], interval: str = "1s") -> dict[str, Any]:
    """deploy/prometheus/prometheus.yml pointed at the suite's metrics ports, scraping every `interval`."""
    config = yaml.safe_load(PROMETHEUS_CONFIG.read_text())
    config["global"].update(scrape_interval=interval, scrape_timeout=interval, evaluation_interval=interval)
    config["rule_files"] = [str(RULES)]
    jobs = []
    for job in config["scrape_configs"]:
        if job["job_name"] in children:  # store jobs (qdrant) have nothing to scrape here
            port = children[job["job_name"]]["metrics_port"]
            jobs.append({**job, "static_configs": [{"targets": [f"127.0.0.1:{port}"]}]})
    config["scrape_configs"] = jobs
    return config


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Suite]:
    suite = Suite.start(tmp_path_factory.mktemp("deploy-suite"))
    yield suite
    suite.stop()


@pytest.fixture(scope="module")
def prometheus(suite: Suite, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Prometheus]:
    binary, promtool = prometheus_binaries()
    workdir = tmp_path_factory.mktemp("prometheus")
    config = workdir / "prometheus.yml"
    config.write_text(yaml.safe_dump(scrape_config_for(suite.run_info["children"]), sort_keys=False))
    check = subprocess.run([promtool, "check", "config", str(config)], capture_output=True, text=True)
    assert check.returncode == 0, check.stdout + check.stderr
    port, log = free_port(), workdir / "prometheus.log"
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [
                binary,
                f"--config.file={config}",
                f"--storage.tsdb.path={workdir / 'data'}",
                f"--web.listen-address=127.0.0.1:{port}",
                "--storage.tsdb.retention.time=1h",
                "--log.level=warn",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
    live = Prometheus(f"http://127.0.0.1:{port}", process, log)
    try:
        wait_for(
            lambda: process.poll() is not None or httpx.get(f"{live.url}/-/ready", timeout=1).is_success,
            30,
            "Prometheus to be ready",
        )
        assert process.poll() is None, log.read_text()
        yield live
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@dataclass
class Traffic:
    down_while_frozen: list[dict[str, Any]]
    pending_while_frozen: list[dict[str, Any]]


@pytest.fixture(scope="module")
def traffic(suite: Suite, prometheus: Prometheus) -> Traffic:
    wait_for(lambda: _targets_up(prometheus) == PROCESSES, 30, "Prometheus to scrape every process")
    indexed = suite.cli("index", str(SPINE), "--name", "shop", "--json")
    assert indexed.returncode == 0, indexed.stdout + indexed.stderr
    for prompt in PROMPTS:
        assert suite.post("/hooks/prompt-context", hook_payload(prompt)).status_code == 200
    # A malformed body: the hook answers empty and counts a failure (reason bad_request).
    bad = httpx.post(
        suite.url + "/hooks/prompt-context", content=b"{not json", headers=suite.headers(), timeout=10
    )
    assert bad.status_code < 500, bad.text
    # Let Prometheus see the first samples, so the second wave shows up in rate() windows.
    wait_for(lambda: prometheus.query("reporecall_hook_seconds_count"), 10, "the first hooks to be scraped")
    for prompt in PROMPTS:
        assert suite.post("/hooks/prompt-context", hook_payload(prompt)).status_code == 200

    # Freeze search: its scrape fails (up == 0, the ServiceDown alert goes pending) and the gateway,
    # past its per-backend deadline, answers without it (a degraded reply).
    pid = suite.pid("search")
    os.kill(pid, signal.SIGSTOP)
    try:
        down = wait_for(lambda: prometheus.query('up{job="search"} == 0'), 15, "search to be seen down")
        pending = wait_for(
            lambda: prometheus.query('ALERTS{alertname="ReporecallServiceDown"}'),
            15,
            "ReporecallServiceDown to go pending",
        )
        reply = suite.post("/hooks/prompt-context", hook_payload(PROMPTS[1]), timeout=10)
        assert reply.status_code == 200
    finally:
        os.kill(pid, signal.SIGCONT)
    wait_for(lambda: _targets_up(prometheus) == PROCESSES, 30, "search to be scraped again")
    suite.post("/hooks/prompt-context", hook_payload(PROMPTS[0]))
    return Traffic(down, pending)


def _targets_up(prometheus: Prometheus) -> set[str]:
    targets = prometheus.api("targets")["activeTargets"]
    return {t["labels"]["job"] for t in targets if t["health"] == "up"}


def _has_data(result: list[dict[str, Any]]) -> bool:
    return bool(result)


def _evaluate_all(prometheus: Prometheus, expressions: list[Expression]) -> list[str]:
    """Run each expression until it returns data or DATA_DEADLINE passes; the ones that never did, and why."""
    pending = {e.where: e for e in expressions}
    problems: dict[str, str] = {}
    deadline = time.monotonic() + DATA_DEADLINE
    while pending:
        for where, expression in list(pending.items()):
            try:
                result = prometheus.query(expression.promql)
            except PromQLError as exc:  # a parse error does not get better by waiting
                problems[where] = f"{where}: {exc}\n    {expression.promql}"
                del pending[where]
                continue
            if _has_data(result):
                del pending[where]
        if not pending or time.monotonic() > deadline:
            break
        time.sleep(1)  # the poll interval of this wait with a deadline (DATA_DEADLINE): one scrape/evaluation
    for where, expression in pending.items():
        problems[where] = f"{where}: no data\n    {expression.promql}"
    return sorted(problems.values())


def test_prometheus_scrapes_every_process_of_the_suite(prometheus: Prometheus, traffic: Traffic) -> None:
    assert _targets_up(prometheus) == PROCESSES


def test_service_down_alert_fires_on_a_frozen_process(traffic: Traffic) -> None:
    assert [series["metric"]["job"] for series in traffic.down_while_frozen] == ["search"]
    assert {series["metric"]["job"] for series in traffic.pending_while_frozen} == {"search"}
    states = {series["metric"]["alertstate"] for series in traffic.pending_while_frozen}
    assert states <= {"pending", "firing"}


def test_every_rule_loads_and_evaluates_without_error(prometheus: Prometheus, traffic: Traffic) -> None:
    def evaluated() -> list[dict[str, Any]] | None:
        loaded = [rule for group in prometheus.api("rules")["groups"] for rule in group["rules"]]
        done = all(rule.get("lastEvaluation", "").startswith(("1", "2")) for rule in loaded)
        return loaded if done else None

    loaded = wait_for(evaluated, 15, "every rule to be evaluated once")
    names = sorted(rule["name"] for rule in loaded)
    assert names == sorted(r.get("alert") or r["record"] for r in alert_rules() + recording_rules())
    broken = {rule["name"]: rule.get("lastError") for rule in loaded if rule["health"] != "ok"}
    assert not broken


def test_every_dashboard_query_returns_data(prometheus: Prometheus, traffic: Traffic) -> None:
    expressions = [Expression(e.where, grafana_to_promql(e.promql)) for e in dashboard_expressions()]
    problems = _evaluate_all(prometheus, expressions)
    summary = f"{len(problems)} of {len(expressions)} dashboard queries failed:\n"
    assert not problems, summary + "\n".join(problems)


def test_every_recording_rule_and_alert_signal_returns_data(prometheus: Prometheus, traffic: Traffic) -> None:
    expressions = [Expression(f"record {r['record']}", r["record"]) for r in recording_rules()]
    for rule in alert_rules():
        # The alert's expression with its comparisons made `bool`: a series per alert candidate, 0 or 1.
        expressions.append(Expression(f"alert {rule['alert']}", as_signal(rule["expr"])))
    problems = _evaluate_all(prometheus, expressions)
    silent = {f"alert {name}" for name in SILENT_ALERTS}
    fallback = [
        Expression(f"alert {name} (its metric)", SILENT_ALERTS[name])
        for name in SILENT_ALERTS
        if any(p.startswith(f"alert {name}:") for p in problems)
    ]
    problems = [p for p in problems if p.split(":", 1)[0] not in silent] + _evaluate_all(prometheus, fallback)
    assert not problems, "\n".join(problems)


def test_hook_latency_quantiles_are_numbers(prometheus: Prometheus, traffic: Traffic) -> None:
    # NaN for every route would mean the histogram's rate was empty and the dashboard would draw nothing.
    # The window spans the whole run, which answered hooks after Prometheus had scraped the first ones.
    result = prometheus.query(
        "histogram_quantile(0.99, sum by (le, event, route) (rate(reporecall_hook_seconds_bucket[5m])))"
    )
    values = {series["metric"]["route"]: float(series["value"][1]) for series in result}
    assert any(not math.isnan(v) and 0 < v < 2 for v in values.values()), values
