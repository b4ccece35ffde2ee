"""The spine end to end: five real processes, a fixture repo indexed, a Claude Code hook answered."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
from pathlib import Path

import pytest

from cli.supervisor import port_in_use
from tests.e2e.conftest import SPINE
from tests.suite import Suite, wait_for

pytestmark = pytest.mark.e2e


def hook_payload(prompt: str, cwd: Path) -> dict[str, str]:
    """What Claude Code sends a UserPromptSubmit hook (its stdin JSON, as an http hook's body)."""
    return {
        "session_id": "2f0c6a57-2f2b-4a7e-9a47-4f4c1d7b0c11",
        "transcript_path": "/home/dev/.claude/projects/-src-shop/2f0c6a57.jsonl",
        "cwd": str(cwd),
        "permission_mode": "default",
        "hook_event_name": "UserPromptSubmit",
        "prompt": prompt,
    }


def test_status_reports_every_process_serving(suite: Suite) -> None:
    result = suite.cli("status", "--json")
    assert result.returncode == 0, result.stdout + result.stderr
    status = json.loads(result.stdout)
    assert status["gateway"]["status"] == "SERVING"
    assert {name: s["status"] for name, s in status["services"].items()} == {
        "indexer": "SERVING",
        "search": "SERVING",
        "graph": "SERVING",
        "memory": "SERVING",
    }


def test_search_computes_on_one_blas_thread(suite: Suite) -> None:
    """Many requests at once, each product small: BLAS threads would only spin (kit.service
    `single_threaded_blas`). The search process loads numpy's OpenBLAS; it must run at one thread."""
    started = next(
        (json.loads(x) for x in suite.service_log("search").splitlines() if '"service.started"' in x), None
    )
    assert started is not None, suite.service_log("search")
    assert started["blas_threads"] and set(started["blas_threads"]) == {1}


def test_hook_returns_the_function_the_prompt_is_about(indexed: Suite) -> None:
    reply = indexed.post(
        "/hooks/prompt-context",
        hook_payload("how is the bulk discount applied to the unit price?", SPINE / "src"),
    )
    assert reply.status_code == 200
    body = reply.json()
    assert set(body) == {"hookSpecificOutput"}
    output = body["hookSpecificOutput"]
    assert output["hookEventName"] == "UserPromptSubmit"
    context = output["additionalContext"]
    assert "def apply_bulk_discount(unit_price: float, quantity: int) -> float:" in context
    assert "return round(unit_price * 0.85, 2)" in context
    assert len(context) <= 10_000

    # The request id minted by the gateway reaches the search service's log lines for this request.
    request_id = reply.headers["x-request-id"]
    assert re.fullmatch(r"[0-9a-f]{32}", request_id)

    def logged(service: str, key: str, value: str) -> bool:
        # Each process writes its line when the request is finished, which may be just after the reply.
        lines = [json.loads(x) for x in indexed.service_log(service).splitlines() if request_id in x]
        return any(line.get(key) == value for line in lines)

    wait_for(lambda: logged("gateway", "path", "/hooks/prompt-context"), 5, "the gateway's request log line")
    wait_for(
        lambda: logged("search", "rpc", "reporecall.search.v1.SearchService/Search"),
        5,
        "the search service's log line with the gateway's request id",
    )


def test_hook_for_team_install_names_the_repo_in_a_header(indexed: Suite) -> None:
    reply = indexed.post(
        "/hooks/prompt-context",
        hook_payload("where is the shipping estimate computed", Path("/nowhere")),
        **{"X-Reporecall-Repo": "shop"},
    )
    context = reply.json()["hookSpecificOutput"]["additionalContext"]
    assert "export function estimateShipping" in context


def test_search_command_finds_a_function(indexed: Suite) -> None:
    result = indexed.cli("search", "vat rate for a country", "--repo", "shop", "--json")
    assert result.returncode == 0, result.stderr
    hits = json.loads(result.stdout)["hits"]
    assert hits[0]["chunk"]["qualified_name"] == "vat_for_country"


def test_every_process_exposes_metrics_of_the_rpcs_it_served(indexed: Suite) -> None:
    indexed.post("/hooks/prompt-context", hook_payload("order total with VAT", SPINE))
    expectations = {
        "search": ['grpc_method="UpsertFile"', 'grpc_method="Search"'],
        "graph": ['grpc_method="ReplaceFileGraph"'],
        "indexer": ['grpc_method="IndexRepo"', 'grpc_method="RegisterRepo"'],
        "memory": ['grpc_service="grpc.health.v1.Health"'],
        "gateway": [
            "reporecall_hook_seconds_count",
            'grpc_client_handled_total{grpc_code="OK",grpc_method="Search"',
        ],
    }
    for name, needles in expectations.items():
        text = indexed.metrics(name)
        served = [line for line in text.splitlines() if line.startswith("grpc_server_handled_total")]
        for needle in needles:
            assert needle in text, f"{name} /metrics lacks {needle}:\n" + "\n".join(served)


def test_killed_child_is_restarted_and_the_hook_keeps_answering(indexed: Suite) -> None:
    old_pid = indexed.pid("search")
    os.kill(old_pid, signal.SIGKILL)
    # While search is down the hook still answers promptly (empty or degraded, never an error).
    reply = indexed.post("/hooks/prompt-context", hook_payload("bulk discount", SPINE), timeout=5)
    assert reply.status_code == 200
    assert reply.elapsed.total_seconds() < 3
    wait_for(lambda: indexed.pid("search") != old_pid, 20, "the supervisor to restart search")
    assert "search exited" in indexed.log()

    def full_answer() -> bool:
        body = indexed.post("/hooks/prompt-context", hook_payload("bulk discount unit price", SPINE)).json()
        return "apply_bulk_discount" in body.get("hookSpecificOutput", {}).get("additionalContext", "")

    wait_for(full_answer, 30, "full answers after the restart", interval=0.5)


def _up(data_dir: Path, *args: str, env: dict[str, str] | None = None):
    import subprocess
    import sys

    from tests.suite import ROOT

    return subprocess.run(
        [sys.executable, "-m", "cli.main", "--data-dir", str(data_dir), "up", *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_unknown_store_url_scheme_stops_startup_with_one_clear_line(tmp_path: Path) -> None:
    result = _up(tmp_path, "--base-port", "0", env={"REPORECALL_KEYWORD_URL": "mongodb://db:27017"})
    assert result.returncode != 0
    lines = [
        line for line in (result.stderr + result.stdout).splitlines() if "REPORECALL_KEYWORD_URL" in line
    ]
    assert lines and "unknown store URL scheme 'mongodb'" in lines[0] and "sqlite://" in lines[0], (
        result.stderr
    )


def _blocked_base() -> tuple[socket.socket, int]:
    """A listening socket on base+3 (the search service's port) where the suite's other ports (base…base+15)
    are free: on a busy machine an ephemeral port's neighbours may be taken, and then `up` rightly names
    another setting first."""
    for _ in range(50):  # bounded
        blocker = socket.socket()
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        base = blocker.getsockname()[1] - 3
        if base > 1024 and not any(port_in_use(port) for port in range(base, base + 16) if port != base + 3):
            return blocker, base
        blocker.close()
    pytest.fail("no block of 16 free ports around an ephemeral port in 50 tries")


def test_port_in_use_stops_startup_naming_the_setting(tmp_path: Path) -> None:
    blocker, base = _blocked_base()
    with blocker:
        result = _up(tmp_path, "--base-port", str(base))
    assert result.returncode != 0
    assert f"REPORECALL_LISTEN=127.0.0.1:{base + 3}" in result.stderr and "in use" in result.stderr, (
        result.stderr
    )


def test_unusable_data_dir_stops_startup_naming_the_setting(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "file"
    not_a_dir.write_text("x")
    result = _up(not_a_dir / "data", "--base-port", "0")
    assert result.returncode != 0
    assert "REPORECALL_DATA_DIR=" in result.stderr and "--data-dir" in result.stderr, result.stderr
