"""Prometheus config, alert rules and Grafana dashboards: valid for promtool, fresh, and about real metrics.

The live check (every expression returns data from a Prometheus scraping the suite) is in
test_deploy_prometheus_live.py; these run without starting anything.
"""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from prometheus_client import REGISTRY

from tests.deploy.deploy_support import (
    DASHBOARDS,
    DEPLOY,
    PROMETHEUS_CONFIG,
    RULES,
    alert_rules,
    as_signal,
    dashboard_expressions,
    dashboard_files,
    grafana_to_promql,
    grouping_labels,
    prometheus_binaries,
    recording_rules,
    selectors,
)

ROOT = DEPLOY.parent
# Labels Prometheus adds to every scraped series, and the bucket label of histograms.
TARGET_LABELS = {"job", "instance"}


@pytest.fixture(scope="module")
def promtool() -> str:
    return prometheus_binaries()[1]


def test_promtool_accepts_the_config_and_its_rule_file(promtool: str) -> None:
    result = subprocess.run(
        [promtool, "check", "config", str(PROMETHEUS_CONFIG)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 rule files found" in result.stdout


def test_promtool_accepts_the_rules(promtool: str) -> None:
    result = subprocess.run([promtool, "check", "rules", str(RULES)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(alert_rules()) + len(recording_rules())} rules found" in result.stdout


def test_promtool_rejects_a_broken_rule(promtool: str, tmp_path: Path) -> None:
    # Guards the two tests above: promtool here really parses PromQL.
    broken = tmp_path / "broken.yml"
    rule = {"alert": "X", "expr": "sum(up"}
    broken.write_text(yaml.safe_dump({"groups": [{"name": "x", "rules": [rule]}]}))
    result = subprocess.run([promtool, "check", "rules", str(broken)], capture_output=True, text=True)
    assert result.returncode != 0


def test_scrape_config_has_a_job_per_process_on_its_metrics_port() -> None:
    config = yaml.safe_load(PROMETHEUS_CONFIG.read_text())
    targets = {
        job["job_name"]: [t for sc in job["static_configs"] for t in sc["targets"]]
        for job in config["scrape_configs"]
    }
    for process in ("gateway", "indexer", "search", "graph", "memory"):
        assert targets[process] == [f"{process}:9100"]


def test_dashboards_are_what_build_dashboards_writes() -> None:
    result = subprocess.run(
        [sys.executable, str(DEPLOY / "grafana" / "build_dashboards.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr


def test_dashboards_cover_overview_indexing_grpc_and_stores() -> None:
    titles = {json.loads(path.read_text())["title"] for path in dashboard_files()}
    assert titles == {
        "RepoRecall / Overview",
        "RepoRecall / Indexing",
        "RepoRecall / gRPC traffic",
        "RepoRecall / Stores and resources",
    }


def test_every_panel_uses_the_provisioned_datasource() -> None:
    provisioned = yaml.safe_load((DEPLOY / "grafana/provisioning/datasources/prometheus.yml").read_text())
    uid = provisioned["datasources"][0]["uid"]
    text = "".join(path.read_text() for path in dashboard_files())
    own = {json.loads(path.read_text())["uid"] for path in dashboard_files()}
    uids = set(re.findall(r'"uid": "([^"]+)"', text)) - own
    assert uids == {uid}


def test_provisioning_loads_the_dashboards_folder_compose_mounts() -> None:
    provider = yaml.safe_load((DEPLOY / "grafana/provisioning/dashboards/reporecall.yml").read_text())
    compose = (ROOT / "docker-compose.yml").read_text()
    path = provider["providers"][0]["options"]["path"]
    assert f"./deploy/grafana/dashboards:{path}:ro" in compose
    assert DASHBOARDS.is_dir()


def _exported_metrics() -> dict[str, set[str]]:
    """Every series name the code can export, with its label names (histogram/counter suffixes included)."""
    for module in (
        "kit.metrics",
        "gateway.metrics",
        *(f"services.{p.parent.name}.metrics" for p in sorted((ROOT / "services").glob("*/metrics.py"))),
    ):
        importlib.import_module(module)
    exported: dict[str, set[str]] = {"up": set()}
    for collector, names in REGISTRY._collector_to_names.items():  # noqa: SLF001 - no public listing
        labels = set(getattr(collector, "_labelnames", ()))
        for name in names:
            exported[name] = labels | ({"le"} if name.endswith("_bucket") else set())
    for rule in recording_rules():
        exported[rule["record"]] = grouping_labels(rule["expr"])
    return exported


def _all_expressions() -> list[tuple[str, str]]:
    from_rules = [
        (f"rules.yml › {rule.get('alert') or rule.get('record')}", rule["expr"])
        for rule in recording_rules() + alert_rules()
    ]
    return [(e.where, grafana_to_promql(e.promql)) for e in dashboard_expressions()] + from_rules


def test_every_metric_and_label_in_dashboards_and_rules_is_exported_by_the_code() -> None:
    exported = _exported_metrics()
    problems = []
    for where, expr in _all_expressions():
        found = selectors(expr)
        assert found, f"{where}: no metric found in {expr!r}"
        available = set(TARGET_LABELS)
        for name, matched in found:
            if name not in exported:
                problems.append(f"{where}: {name} is not exported by any process")
                continue
            available |= exported[name]
            unknown = matched - exported[name] - TARGET_LABELS
            if unknown:
                problems.append(f"{where}: {name} has no label {sorted(unknown)}")
        missing = grouping_labels(expr) - available
        if missing:
            problems.append(f"{where}: groups by {sorted(missing)}, which none of its metrics carry")
    assert not problems, "\n".join(problems)


def test_every_alert_has_a_severity_a_summary_and_a_runbook_section() -> None:
    runbook = (DEPLOY / "README.md").read_text()
    headings = {
        re.sub(r"[^a-z0-9-]", "", h.strip().lower().replace(" ", "-"))
        for h in re.findall(r"^#+ (.+)$", runbook, re.M)
    }
    for rule in alert_rules():
        assert rule["labels"]["severity"] in {"warning", "critical"}, rule["alert"]
        assert rule["annotations"]["summary"], rule["alert"]
        anchor = rule["annotations"]["runbook"].split("#", 1)[1]
        assert anchor == rule["alert"].lower(), rule["alert"]
        assert anchor in headings, f"deploy/README.md has no section for {rule['alert']}"


def test_the_alerts_the_issue_asks_for_exist() -> None:
    exprs = {rule["alert"]: " ".join(rule["expr"].split()) for rule in alert_rules()}
    assert exprs["ReporecallServiceDown"] == "up == 0"
    assert "histogram_quantile(0.99" in exprs["ReporecallHookLatencyOverBudget"]
    assert exprs["ReporecallHookLatencyOverBudget"].endswith("> 0.08")
    assert "deriv(reporecall_index_backlog_files" in exprs["ReporecallIndexBacklogGrowing"]
    assert "rate(reporecall_embedded_chunks_total[15m]) == 0" in exprs["ReporecallEmbedBacklogStuck"]
    assert "predict_linear(reporecall_data_dir_free_bytes" in exprs["ReporecallDiskFillingUp"]
    assert "< 0.10" in exprs["ReporecallDiskAlmostFull"]
    assert {"ReporecallGrpcErrorRatioHigh", "ReporecallHttpErrorRatioHigh"} <= set(exprs)


@pytest.mark.parametrize(
    ("expr", "signal"),
    [
        ("up == 0", "up == bool 0"),
        ('x{a!="b", c=~"d>e"} > 0.08', 'x{a!="b", c=~"d>e"} > bool 0.08'),
        ("a >= 1 and rate(b[5m]) != 0", "a >= bool 1 and rate(b[5m]) != bool 0"),
        ("a < bool 1", "a < bool 1"),
        ('label_replace(a, "x", ">", "y", "<")', 'label_replace(a, "x", ">", "y", "<")'),
    ],
)
def test_alert_comparisons_become_bool_outside_matchers_and_strings(expr: str, signal: str) -> None:
    assert as_signal(expr) == signal


def test_grafana_variables_become_all_and_fixed_intervals() -> None:
    assert (
        grafana_to_promql('rate(x{job=~"$job", r=~"${repo}"}[$__rate_interval])')
        == 'rate(x{job=~".*", r=~".*"}[1m])'
    )
    assert (
        grafana_to_promql("label_values(reporecall_index_backlog_files, repo)")
        == "count by (repo) (reporecall_index_backlog_files)"
    )
