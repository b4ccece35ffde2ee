"""Write the Grafana dashboards in deploy/grafana/dashboards/ from the panels below, or check they are fresh.

    python deploy/grafana/build_dashboards.py          # rewrite the JSON files
    python deploy/grafana/build_dashboards.py --check  # exit 1 when a JSON file differs from what this writes

Edit the panels here, not the JSON: one place says which PromQL each panel runs, and tests/deploy/ runs every
expression of the written files against a Prometheus scraping a live suite.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "dashboards"
DATASOURCE = {"type": "prometheus", "uid": "reporecall-prometheus"}
PROCESSES = "gateway|indexer|search|graph|memory"
HOOK_BUDGET_SECONDS = 0.08


@dataclass
class Query:
    expr: str
    legend: str = ""
    instant: bool = False


@dataclass
class Panel:
    title: str
    queries: list[Query]
    unit: str = "short"
    kind: str = "timeseries"  # or "stat"
    width: int = 12
    height: int = 8
    description: str = ""
    thresholds: list[tuple[float | None, str]] = field(default_factory=lambda: [(None, "green")])
    repeat_row: str = ""  # for kind == "row": the variable the row repeats over


def rate(metric: str, selector: str = "", window: str = "$__rate_interval") -> str:
    return f"rate({metric}{{{selector}}}[{window}])" if selector else f"rate({metric}[{window}])"


def quantile(q: float, metric: str, by: str, selector: str = "", window: str = "$__rate_interval") -> str:
    return f"histogram_quantile({q}, sum by (le, {by}) ({rate(metric + '_bucket', selector, window)}))"


def hook_stats() -> list[Panel]:
    return [
        Panel(
            "Hook p99 (5 min)",
            [
                Query(
                    "histogram_quantile(0.99, sum by (le) (rate(reporecall_hook_seconds_bucket"
                    '{event="UserPromptSubmit"}[5m])))'
                )
            ],
            unit="s",
            kind="stat",
            width=6,
            height=4,
            description="UserPromptSubmit hook latency, 99th percentile; the budget is 80 ms.",
            thresholds=[(None, "green"), (HOOK_BUDGET_SECONDS, "red")],
        ),
        Panel(
            "Hooks / s",
            [Query("sum(rate(reporecall_hook_seconds_count[5m]))")],
            unit="reqps",
            kind="stat",
            width=6,
            height=4,
        ),
        Panel(
            "HTTP 5xx ratio",
            [Query("max(job:reporecall_http_errors:ratio_rate5m)")],
            unit="percentunit",
            kind="stat",
            width=6,
            height=4,
            thresholds=[(None, "green"), (0.05, "red")],
        ),
        Panel(
            "Processes up",
            [Query(f'sum(up{{job=~"{PROCESSES}"}})')],
            kind="stat",
            width=6,
            height=4,
            description="RepoRecall processes Prometheus can scrape, of 5.",
            thresholds=[(None, "red"), (5, "green")],
        ),
    ]


def overview() -> list[Panel]:
    return [
        *hook_stats(),
        Panel(
            "Hook latency by route (p50, p99)",
            [
                Query(quantile(0.5, "reporecall_hook_seconds", "event, route"), "p50 {{event}} {{route}}"),
                Query(quantile(0.99, "reporecall_hook_seconds", "event, route"), "p99 {{event}} {{route}}"),
            ],
            unit="s",
            thresholds=[(None, "green"), (HOOK_BUDGET_SECONDS, "red")],
        ),
        Panel(
            "Hooks / s by route",
            [
                Query(
                    f"sum by (event, route) ({rate('reporecall_hook_seconds_count')})", "{{event}} {{route}}"
                )
            ],
            unit="reqps",
        ),
        Panel(
            "HTTP requests / s by route and status",
            [
                Query(
                    f"sum by (route, status) ({rate('reporecall_http_requests_total')})",
                    "{{route}} {{status}}",
                )
            ],
            unit="reqps",
        ),
        Panel(
            "HTTP latency p99 by route",
            [Query(quantile(0.99, "reporecall_http_request_seconds", "route"), "{{route}}")],
            unit="s",
        ),
        Panel(
            "Error ratios (5 min)",
            [
                Query("job:grpc_server_errors:ratio_rate5m", "gRPC {{job}}"),
                Query("job:reporecall_http_errors:ratio_rate5m", "HTTP {{job}}"),
            ],
            unit="percentunit",
            thresholds=[(None, "green"), (0.05, "red")],
            description="Server-side gRPC failures per process, and the gateway's 5xx share.",
        ),
        Panel(
            "Hook failures / s by reason",
            [
                Query(
                    f"sum by (event, reason) ({rate('reporecall_hook_failures_total')})",
                    "{{event}} {{reason}}",
                )
            ],
            unit="reqps",
            description="Hooks answered with no context: bad request, deadline or error.",
        ),
        Panel(
            "Degraded replies / s by missing backend",
            [Query(f"sum by (backend) ({rate('reporecall_degraded_replies_total')})", "{{backend}}")],
            unit="reqps",
            description="Context replies built without one backend (down or past its deadline).",
        ),
        Panel(
            "Context size by route (p50, p95)",
            [
                Query(quantile(0.5, "reporecall_context_tokens", "route"), "p50 {{route}}"),
                Query(quantile(0.95, "reporecall_context_tokens", "route"), "p95 {{route}}"),
            ],
            description="Tokens injected per context block.",
        ),
        Panel(
            "Average context tokens by route",
            [
                Query(
                    f"sum by (route) ({rate('reporecall_context_tokens_sum')})"
                    f" / sum by (route) ({rate('reporecall_context_tokens_count')})",
                    "{{route}}",
                )
            ],
        ),
    ]


def indexing() -> list[Panel]:
    repo = 'repo=~"$repo"'
    hits = rate("reporecall_embed_cache_hits_total")
    return [
        Panel(
            "Files / s by outcome",
            [
                Query(
                    f"sum by (repo, outcome) ({rate('reporecall_index_files_total', repo)})",
                    "{{repo}} {{outcome}}",
                )
            ],
            unit="ops",
        ),
        Panel(
            "Chunks sent / s",
            [Query(f"sum by (repo) ({rate('reporecall_index_chunks_total', repo)})", "{{repo}}")],
            unit="ops",
        ),
        Panel(
            "Index backlog (files)",
            [Query(f"sum by (repo) (reporecall_index_backlog_files{{{repo}}})", "{{repo}}")],
            description="Changed files not yet acknowledged by search and graph.",
        ),
        Panel(
            "Embedding backlog (chunks)",
            [Query("sum(reporecall_embed_backlog_chunks)", "waiting")],
            description="Chunks stored for keyword search that still wait for a vector.",
        ),
        Panel(
            "Embedding throughput",
            [
                Query(f"sum({rate('reporecall_embedded_chunks_total')})", "embedded / s"),
                Query(f"sum({rate('reporecall_embed_cache_hits_total')})", "cache hits / s"),
            ],
            unit="ops",
        ),
        Panel(
            "Embedding cache hit ratio",
            [
                Query(
                    f"sum({hits}) / (sum({hits}) + sum({rate('reporecall_embedded_chunks_total')}))",
                    "hit ratio",
                )
            ],
            unit="percentunit",
        ),
        Panel(
            "Time since last run",
            [
                Query(
                    f"time() - max by (repo) (reporecall_index_last_run_timestamp_seconds{{{repo}}})",
                    "{{repo}}",
                    instant=True,
                )
            ],
            unit="s",
            kind="stat",
            width=8,
        ),
        Panel(
            "Last run duration",
            [
                Query(
                    f"max by (repo) (reporecall_index_last_run_duration_seconds{{{repo}}})",
                    "{{repo}}",
                    instant=True,
                )
            ],
            unit="s",
            kind="stat",
            width=8,
        ),
        Panel(
            "Chunks in the keyword index",
            [Query("sum(reporecall_search_chunks)", "chunks", instant=True)],
            kind="stat",
            width=8,
        ),
    ]


def grpc_traffic() -> list[Panel]:
    job = 'job=~"$job"'
    return [
        Panel("$job", [], kind="row", width=24, height=1, repeat_row="job"),
        Panel(
            "Served RPCs / s by method",
            [
                Query(
                    f"sum by (grpc_service, grpc_method) ({rate('grpc_server_started_total', job)})",
                    "{{grpc_service}}/{{grpc_method}}",
                )
            ],
            unit="reqps",
            width=8,
        ),
        Panel(
            "Served latency p99 by method",
            [Query(quantile(0.99, "grpc_server_handling_seconds", "grpc_method", job), "{{grpc_method}}")],
            unit="s",
            width=8,
        ),
        Panel(
            "Served RPCs / s by code",
            [Query(f"sum by (grpc_code) ({rate('grpc_server_handled_total', job)})", "{{grpc_code}}")],
            unit="reqps",
            width=8,
        ),
        Panel(
            "Server error ratio (5 min)",
            [
                Query(f"job:grpc_server_errors:ratio_rate5m{{{job}}}", "{{job}}"),
            ],
            unit="percentunit",
            width=8,
            thresholds=[(None, "green"), (0.05, "red")],
        ),
        Panel(
            "Outgoing calls / s by method and code",
            [
                Query(
                    f"sum by (grpc_service, grpc_method, grpc_code) ({rate('grpc_client_handled_total', job)})",
                    "{{grpc_service}}/{{grpc_method}} {{grpc_code}}",
                )
            ],
            unit="reqps",
            width=8,
            description="Calls this process makes to the other services.",
        ),
        Panel(
            "Outgoing call latency p99",
            [
                Query(
                    quantile(0.99, "grpc_client_handling_seconds", "grpc_service, grpc_method", job),
                    "{{grpc_service}}/{{grpc_method}}",
                )
            ],
            unit="s",
            width=8,
        ),
    ]


def stores() -> list[Panel]:
    processes = f'job=~"{PROCESSES}"'
    store_op = "{{job}} {{store}} {{op}}"
    return [
        Panel(
            "Store operations / s",
            [Query(f"sum by (job, store, op) ({rate('reporecall_store_seconds_count')})", store_op)],
            unit="ops",
        ),
        Panel(
            "Store latency p50",
            [Query(quantile(0.5, "reporecall_store_seconds", "job, store, op"), store_op)],
            unit="s",
        ),
        Panel(
            "Store latency p99",
            [Query(quantile(0.99, "reporecall_store_seconds", "job, store, op"), store_op)],
            unit="s",
        ),
        Panel(
            "Data volume free",
            [Query("reporecall_data_dir_free_bytes / reporecall_data_dir_size_bytes", "{{job}}")],
            unit="percentunit",
            thresholds=[(None, "red"), (0.1, "orange"), (0.4, "green")],
        ),
        Panel("Data volume free bytes", [Query("reporecall_data_dir_free_bytes", "{{job}}")], unit="bytes"),
        Panel(
            "Days until a data volume is full (6 h trend)",
            [
                Query(
                    "reporecall_data_dir_free_bytes / clamp_min(-deriv(reporecall_data_dir_free_bytes[6h]), 1e-9)"
                    " / 86400",
                    "{{job}}",
                )
            ],
            unit="d",
            description="Free bytes over the rate they disappear at; very large while usage is flat.",
        ),
        Panel(
            "Resident memory",
            [Query(f"process_resident_memory_bytes{{{processes}}}", "{{job}}")],
            unit="bytes",
        ),
        Panel(
            "CPU",
            [Query(f"rate(process_cpu_seconds_total{{{processes}}}[$__rate_interval])", "{{job}}")],
            unit="percentunit",
            description="CPU seconds per second (1 = one core).",
        ),
    ]


def variable(name: str, query: str, label: str) -> dict[str, Any]:
    return {
        "name": name,
        "label": label,
        "type": "query",
        "datasource": DATASOURCE,
        "query": {"query": query, "refId": f"{name}-variable"},
        "definition": query,
        "includeAll": True,
        "multi": True,
        "allValue": ".*",
        "refresh": 2,
        "sort": 1,
        "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
    }


def layout(panels: list[Panel]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    x = y = row_height = 0
    for index, panel in enumerate(panels, start=1):
        if x + panel.width > 24:
            x, y, row_height = 0, y + row_height, 0
        grid = {"x": x, "y": y, "w": panel.width, "h": panel.height}
        x, row_height = x + panel.width, max(row_height, panel.height)
        if panel.kind == "row":
            out.append(
                {
                    "id": index,
                    "type": "row",
                    "title": panel.title,
                    "gridPos": grid,
                    "collapsed": False,
                    "panels": [],
                    "repeat": panel.repeat_row,
                }
            )
            continue
        steps = [{"color": color, "value": value} for value, color in panel.thresholds]
        defaults = {"unit": panel.unit, "thresholds": {"mode": "absolute", "steps": steps}}
        item: dict[str, Any] = {
            "id": index,
            "type": panel.kind,
            "title": panel.title,
            "description": panel.description,
            "datasource": DATASOURCE,
            "gridPos": grid,
            "fieldConfig": {"defaults": defaults, "overrides": []},
            "targets": [
                {
                    "refId": chr(ord("A") + n),
                    "datasource": DATASOURCE,
                    "expr": q.expr,
                    "legendFormat": q.legend,
                    "instant": q.instant,
                    "range": not q.instant,
                }
                for n, q in enumerate(panel.queries)
            ],
        }
        if panel.kind == "timeseries":
            item["options"] = {
                "legend": {"displayMode": "list", "placement": "bottom"},
                "tooltip": {"mode": "multi", "sort": "desc"},
            }
            if len(panel.thresholds) > 1:
                item["fieldConfig"]["defaults"]["custom"] = {"thresholdsStyle": {"mode": "line"}}
        else:
            item["options"] = {
                "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
                "colorMode": "value",
                "graphMode": "area",
                "textMode": "value_and_name",
            }
        out.append(item)
    return out


def dashboard(
    uid: str, title: str, description: str, panels: list[Panel], variables: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return {
        "uid": uid,
        "title": title,
        "description": description,
        "tags": ["reporecall"],
        "editable": False,
        "graphTooltip": 1,
        "schemaVersion": 39,
        "version": 1,
        "time": {"from": "now-6h", "to": "now"},
        "refresh": "30s",
        "timezone": "",
        "templating": {"list": variables or []},
        "annotations": {"list": []},
        "links": [{"type": "dashboards", "tags": ["reporecall"], "asDropdown": True, "title": "RepoRecall"}],
        "panels": layout(panels),
    }


def dashboards() -> dict[str, dict[str, Any]]:
    return {
        "reporecall-overview.json": dashboard(
            "reporecall-overview",
            "RepoRecall / Overview",
            "Hook latency by route, traffic, errors, degraded replies and context size.",
            overview(),
        ),
        "reporecall-indexing.json": dashboard(
            "reporecall-indexing",
            "RepoRecall / Indexing",
            "Files and chunks indexed, backlogs, embeddings and the last run of each repository.",
            indexing(),
            [variable("repo", "label_values(reporecall_index_backlog_files, repo)", "Repository")],
        ),
        "reporecall-grpc.json": dashboard(
            "reporecall-grpc",
            "RepoRecall / gRPC traffic",
            "Each process's served and outgoing RPCs: rate, latency, status codes.",
            grpc_traffic(),
            [variable("job", "label_values(grpc_server_started_total, job)", "Process")],
        ),
        "reporecall-stores.json": dashboard(
            "reporecall-stores",
            "RepoRecall / Stores and resources",
            "Store operation latency, data volumes, memory and CPU of each process.",
            stores(),
        ),
    }


def render(board: dict[str, Any]) -> str:
    return json.dumps(board, indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a written file is stale")
    args = parser.parse_args(argv)
    stale = []
    for name, board in dashboards().items():
        path, text = OUT / name, render(board)
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            OUT.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if stale:
        print(
            f"stale dashboards: {', '.join(stale)}; run python deploy/grafana/build_dashboards.py",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
