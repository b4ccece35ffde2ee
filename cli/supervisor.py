"""`reporecall up`: run the five processes on embedded stores, restart crashed ones, stop them cleanly.

Children are started in dependency order (stores first, gateway last) and are ready when their gRPC
health service reports SERVING. Each child's stdout/stderr goes to <data-dir>/logs/<name>.log.
<data-dir>/run.json (mode 0600) says where everything listens and holds the local token.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

# (name, python module, offset from the base port for its gRPC listener)
CHILDREN = (
    ("search", "services.search", 3),
    ("graph", "services.graph", 4),
    ("memory", "services.memory", 5),
    ("indexer", "services.indexer", 2),
    ("gateway", "gateway", 1),
)
HTTP_OFFSET = 0
METRICS_OFFSET = 10
READY_TIMEOUT = 90.0
MAX_BACKOFF = 30.0
HEALTHY_RESET = 60.0


class StartupError(Exception):
    """A child could not start; the message is the child's own one-line reason."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Child:
    name: str
    module: str
    grpc_port: int
    metrics_port: int
    env: dict[str, str]
    log_path: Path
    process: subprocess.Popen[bytes] | None = None
    restarts: int = 0
    started_at: float = 0.0
    next_start: float = 0.0
    backoff: float = 1.0

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.grpc_port}"

    def spawn(self) -> None:
        log = open(self.log_path, "ab")  # noqa: SIM115 - handed to the child
        self.process = subprocess.Popen(
            [sys.executable, "-m", self.module],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        log.close()
        self.started_at = time.monotonic()

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def last_log_line(self) -> str:
        try:
            lines = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        for line in reversed(lines):
            if line.startswith(f"reporecall-{self.name}:"):
                return line
        return lines[-1] if lines else ""


def is_serving(address: str, timeout: float = 0.5) -> bool:
    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(), timeout=timeout
            )
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


@dataclass
class Supervisor:
    data_dir: Path
    base_port: int = 7870
    extra_env: dict[str, str] = field(default_factory=dict)
    say: Callable[[str], None] = print
    children: list[Child] = field(default_factory=list)
    token: str = ""
    http_port: int = 0
    repo_roots: list[Path] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def prepare(self) -> None:
        (self.data_dir / "logs").mkdir(parents=True, exist_ok=True)
        self.token = self._local_token()
        port = (lambda offset: self.base_port + offset) if self.base_port else (lambda offset: free_port())
        self.http_port = port(HTTP_OFFSET)
        addresses = {name: f"127.0.0.1:{port(offset)}" for name, _, offset in CHILDREN}
        base_env = {
            **os.environ,
            **self.extra_env,
            "REPORECALL_DATA_DIR": str(self.data_dir),
            "REPORECALL_LOG_FORMAT": "json",
            "PYTHONUNBUFFERED": "1",
        }
        for index, (name, module, _) in enumerate(CHILDREN):
            env = {
                **base_env,
                "REPORECALL_LISTEN": addresses[name],
                "REPORECALL_METRICS_PORT": str(port(METRICS_OFFSET + index)),
                **{f"REPORECALL_{other.upper()}_ADDR": addr for other, addr in addresses.items()},
            }
            if name == "indexer":
                env.setdefault("REPORECALL_WATCH", "true")  # a local suite follows edits as they are saved
                # Working trees only under these (the folder `up` started in, its --index path), never "/".
                env.setdefault("REPORECALL_REPO_ROOTS", ",".join(str(r) for r in self.repo_roots))
            if name == "memory":
                env.setdefault("REPORECALL_CLAUDE_PROJECTS_DIR", str(Path.home() / ".claude" / "projects"))
            if name == "gateway":
                env |= {"REPORECALL_HTTP_PORT": str(self.http_port), "REPORECALL_LOCAL_TOKEN": self.token}
            self.children.append(
                Child(
                    name,
                    module,
                    int(addresses[name].rsplit(":", 1)[1]),
                    int(env["REPORECALL_METRICS_PORT"]),
                    env,
                    self.data_dir / "logs" / f"{name}.log",
                )
            )

    def _local_token(self) -> str:
        path = self.data_dir / "local-token"
        if path.exists():
            return path.read_text().strip()
        token = "rr_" + secrets.token_urlsafe(32)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(token + "\n")
        return token

    @property
    def gateway_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def start(self) -> None:
        for child in self.children:
            child.spawn()
            self._wait_ready(child)
            self.say(f"  {child.name:<8} serving on {child.address} (pid {child.process.pid})")  # type: ignore[union-attr]
        self.write_run_file()

    def _wait_ready(self, child: Child) -> None:
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if not child.alive():
                raise StartupError(child.last_log_line() or f"{child.name} exited during start-up")
            if is_serving(child.address):
                return
            time.sleep(0.1)
        raise StartupError(
            f"{child.name} did not report SERVING within {READY_TIMEOUT:.0f} s; see {child.log_path}"
        )

    def write_run_file(self) -> None:
        info = {
            "gateway_url": self.gateway_url,
            "token": self.token,
            "supervisor_pid": os.getpid(),
            "children": {
                c.name: {
                    "pid": c.process.pid if c.process else None,
                    "address": c.address,
                    "metrics_port": c.metrics_port,
                    "restarts": c.restarts,
                    "log": str(c.log_path),
                }
                for c in self.children
            },
        }
        path = self.data_dir / "run.json"
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            json.dump(info, handle, indent=2)
        os.replace(tmp, path)

    def supervise(self) -> None:
        """Restart crashed children with exponential backoff until stop() is called."""
        while not self._stop.wait(0.2):
            now = time.monotonic()
            for child in self.children:
                if child.alive():
                    if now - child.started_at > HEALTHY_RESET:
                        child.backoff = 1.0
                    continue
                if child.next_start == 0.0:
                    code = child.process.returncode if child.process else None
                    child.next_start = now + child.backoff
                    self.say(f"  {child.name} exited (code {code}); restarting in {child.backoff:.0f} s")
                    child.backoff = min(child.backoff * 2, MAX_BACKOFF)
                elif now >= child.next_start:
                    child.next_start = 0.0
                    child.restarts += 1
                    child.spawn()
                    self.write_run_file()

    def stop(self) -> None:
        self._stop.set()
        for child in reversed(self.children):
            if child.alive():
                with contextlib.suppress(ProcessLookupError):
                    child.process.send_signal(signal.SIGTERM)  # type: ignore[union-attr]
        deadline = time.monotonic() + 10
        for child in reversed(self.children):
            if child.process is None:
                continue
            try:
                child.process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.process.kill()
                child.process.wait()
        with contextlib.suppress(FileNotFoundError):
            (self.data_dir / "run.json").unlink()
