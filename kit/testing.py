"""Start the real suite (`reporecall up`) as a subprocess and talk to it, and wait on a condition with a
deadline (`wait_for`, `eventually`): for tests, benchmarks and tools."""

from __future__ import annotations

import ast
import asyncio
import inspect
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import grpc
import httpx

from kit.service_auth import authorized_channel, read_token

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
T = TypeVar("T")


def adapter_imports(service: Path, packages: tuple[str, ...] = ("engine", "domain")) -> dict[str, list[str]]:
    """Modules of `service`'s `packages` that import a concrete adapter (any import naming "adapters"),
    with what they import: empty when the engine and domain depend on ports only."""
    offenders: dict[str, list[str]] = {}
    modules = [path for package in packages for path in sorted((service / package).glob("*.py"))]
    assert len(modules) > 5, f"too few modules under {service} to judge: {modules}"
    for path in modules:
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                names.add("." * node.level + (node.module or ""))
            elif isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
        bad = sorted(name for name in names if "adapters" in name)
        if bad:
            offenders[str(path.relative_to(service))] = bad
    return offenders


def wait_for(predicate: Callable[[], T], timeout: float, what: str, interval: float = 0.1) -> T:
    """Poll until `predicate()` is truthy; fail with `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        try:
            last = predicate()
        except Exception as exc:  # keep polling through transient failures
            last = exc
        if last and not isinstance(last, Exception):
            return last  # type: ignore[no-any-return]
        time.sleep(interval)  # the poll interval of a wait with a deadline
    raise AssertionError(f"timed out after {timeout} s waiting for {what} (last: {last!r})")


async def eventually(
    predicate: Callable[[], T | Awaitable[T]], timeout: float, what: str, interval: float = 0.01
) -> T:
    """`wait_for` for async tests: poll `predicate()` (awaited when it returns an awaitable) without blocking
    the event loop until it is truthy, and return it; fail naming `what` after `timeout` seconds. Exceptions
    from the predicate propagate (unlike `wait_for`): an in-process condition that raises is a bug."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        last = await value if inspect.isawaitable(value) else value
        if last:
            return last  # type: ignore[return-value]
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what} (last: {last!r})")
        await asyncio.sleep(interval)  # the poll interval of a wait with a deadline


@dataclass
class Suite:
    data_dir: Path
    process: subprocess.Popen[str]
    output: list[str]

    @classmethod
    def start(cls, data_dir: Path, env: dict[str, str] | None = None, timeout: float = 120) -> Suite:
        data_dir.mkdir(parents=True, exist_ok=True)
        log = open(data_dir / "up.log", "w")  # noqa: SIM115
        process = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "--data-dir", str(data_dir), "up", "--base-port", "0"],
            cwd=ROOT,
            env={**os.environ, "REPORECALL_REPO_ROOTS": f"{ROOT},{tempfile.gettempdir()}", **(env or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
        )
        suite = cls(data_dir, process, [])
        wait_for(lambda: "ready" in suite.log() or process.poll() is not None, timeout, "the suite to start")
        if process.poll() is not None:
            raise AssertionError(f"reporecall up exited {process.returncode}:\n{suite.log()}")
        return suite

    def log(self) -> str:
        return (self.data_dir / "up.log").read_text()

    @property
    def service_token(self) -> str:
        """The suite's service credentials (what its processes present to each other)."""
        return read_token(self.data_dir)

    def service_channel(self, name: str) -> grpc.Channel:
        """A blocking channel straight to one service's gRPC listener, with the suite's credentials."""
        return authorized_channel(self.run_info["children"][name]["address"], self.service_token)

    @property
    def run_info(self) -> dict[str, Any]:
        return json.loads((self.data_dir / "run.json").read_text())

    @property
    def url(self) -> str:
        return str(self.run_info["gateway_url"])

    @property
    def token(self) -> str:
        return str(self.run_info["token"])

    def headers(self, **extra: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", **extra}

    def post(self, path: str, body: Any, timeout: float = 10, **headers: str) -> httpx.Response:
        return httpx.post(self.url + path, json=body, headers=self.headers(**headers), timeout=timeout)

    def get(self, path: str, timeout: float = 10) -> httpx.Response:
        return httpx.get(self.url + path, headers=self.headers(), timeout=timeout)

    def cli(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "cli.main", "--data-dir", str(self.data_dir), *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def service_log(self, name: str) -> str:
        return (self.data_dir / "logs" / f"{name}.log").read_text(errors="replace")

    def metrics(self, name: str) -> str:
        port = self.run_info["children"][name]["metrics_port"]
        return httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=5).text

    def pid(self, name: str) -> int:
        return int(self.run_info["children"][name]["pid"])

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode
