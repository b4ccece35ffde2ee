"""`reporecall mcp` initialize, measured against an idle interpreter and the mcp SDK import (issue 14)."""

from __future__ import annotations

import subprocess
import sys
import time

import httpx
import pytest

from tests.e2e.test_claude_mcp_stdio_e2e import INITIALIZE, time_initialize, time_mcp_sdk_import
from tests.suite import Suite

pytestmark = pytest.mark.e2e


def _idle_python() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


def _gateway_initialize(indexed: Suite) -> float:
    headers = indexed.headers(Accept="application/json, text/event-stream")
    started = time.perf_counter()
    reply = httpx.post(f"{indexed.url}/mcp", json=INITIALIZE, headers=headers, timeout=10)
    assert reply.status_code == 200, reply.text
    return time.perf_counter() - started


def test_stdio_initialize_costs_little_more_than_an_idle_interpreter(indexed: Suite) -> None:
    time_initialize(indexed)  # warm the file cache
    stdio = sorted(time_initialize(indexed)[0] for _ in range(5))[2]
    idle = sorted(_idle_python() for _ in range(5))[2]
    gateway = sorted(_gateway_initialize(indexed) for _ in range(5))[2]
    sdk = min(time_mcp_sdk_import() for _ in range(2))
    print(
        f"\nstdio initialize p50 {stdio * 1000:.0f} ms; idle python {idle * 1000:.0f} ms; "
        f"gateway /mcp initialize over HTTP {gateway * 1000:.0f} ms; mcp SDK import {sdk * 1000:.0f} ms"
    )
    assert stdio < sdk / 2  # well under what the SDK import alone would cost
    assert stdio < idle + 0.35  # the bridge adds little to starting the interpreter
