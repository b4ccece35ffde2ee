"""`reporecall mcp` answers `initialize` before Claude Code gives up on it (issue 14)."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from tests.suite import ROOT, Suite

pytestmark = pytest.mark.e2e

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def time_initialize(indexed: Suite) -> tuple[float, dict]:
    started = time.perf_counter()
    bridge = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "--data-dir", str(indexed.data_dir), "mcp", "--repo", "shop"],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert bridge.stdin and bridge.stdout
        bridge.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
        bridge.stdin.flush()
        reply = json.loads(bridge.stdout.readline())
        return time.perf_counter() - started, reply
    finally:
        bridge.kill()
        bridge.wait()


def time_mcp_sdk_import() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import mcp.client.session, mcp.server.stdio"], check=True)
    return time.perf_counter() - started


def test_stdio_initialize_answers_before_the_mcp_sdk_could_even_be_imported(indexed: Suite) -> None:
    time_initialize(indexed)  # warm the file cache, as a second start in a session would be
    times = sorted(time_initialize(indexed)[0] for _ in range(3))
    sdk_import = min(time_mcp_sdk_import() for _ in range(2))
    _, reply = time_initialize(indexed)
    assert reply["id"] == 0 and reply["result"]["serverInfo"]["name"] == "reporecall"
    assert "tools" in reply["result"]["capabilities"]
    print(f"\nstdio initialize p50 {times[1] * 1000:.0f} ms; bare mcp SDK import {sdk_import * 1000:.0f} ms")
    assert times[1] < sdk_import  # the old bridge needed that import (and more) before it could answer


def test_stdio_bridge_answers_an_error_not_silence_when_the_gateway_is_down(tmp_path) -> None:
    bridge = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli.main",
            "--url",
            "http://127.0.0.1:9",
            "--token",
            "t",
            "mcp",
            "--repo",
            "x",
        ],
        cwd=ROOT,
        input=json.dumps({"jsonrpc": "2.0", "id": 7, "method": "tools/list"}).encode() + b"\n",
        capture_output=True,
        timeout=30,
    )
    reply = json.loads(bridge.stdout.splitlines()[0])
    assert reply["id"] == 7 and "unreachable" in reply["error"]["message"]
