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

from kit.service_auth import load_or_create_token
from kit.settings import restrict_umask

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


class FreePorts:
    """Free loopback ports that stay distinct while this is open: each stays bound until `close`. One
    `free_port()` per child could hand out the same port twice (the first socket is closed at once), and
    the child that bound second failed to start ("cannot listen", seen in `bench hook` runs)."""

    def __init__(self) -> None:
        self._held: list[socket.socket] = []

    def __call__(self) -> int:
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self._held.append(sock)
        return int(sock.getsockname()[1])

    def close(self) -> None:
        for sock in self._held:
            sock.close()
        self._held.clear()


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
        log = os.fdopen(os.open(self.log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600), "ab")
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


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _port_owner(port: int) -> int | None:
    """The pid listening on a loopback TCP port, read from /proc (None when unknown or not Linux)."""
    inodes: set[str] = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as handle:
            for line in list(handle)[1:]:
                fields = line.split()
                if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # 0A = LISTEN
                    inodes.add(fields[9])
    if not inodes:
        return None
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            for fd in (proc / "fd").iterdir():
                target = os.readlink(fd)
                if target.startswith("socket:[") and target[8:-1] in inodes:
                    return int(proc.name)
    return None


def port_in_use(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return True
    return False


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
    _stop_requested: bool = False  # set by `request_stop`, from a signal handler

    def refuse_if_taken(self) -> None:
        """Another suite on this data dir or these ports: one line naming its pid and port, nothing touched."""
        with contextlib.suppress(OSError, ValueError):
            info = json.loads((self.data_dir / "run.json").read_text())
            pids = [info.get("supervisor_pid")] + [c.get("pid") for c in info.get("children", {}).values()]
            live = [pid for pid in pids if _alive(pid)]
            if live:
                raise StartupError(
                    f"another suite is running on {self.data_dir} (pid {live[0]}, gateway "
                    f"{info.get('gateway_url', '?')}); stop it first (kill {live[0]}) or use another --data-dir"
                )
        if not self.base_port:
            return
        settings = {self.base_port + HTTP_OFFSET: "REPORECALL_HTTP_PORT="}
        settings |= {self.base_port + offset: "REPORECALL_LISTEN=127.0.0.1:" for _, _, offset in CHILDREN}
        for port, setting in sorted(settings.items()):
            if port_in_use(port):
                owner = _port_owner(port)
                held = f"by pid {owner}" if owner else "by another process"
                raise StartupError(
                    f"{setting}{port}: the port is already in use {held} — stop it (kill {owner or 'PID'}) "
                    "or choose other ports (reporecall up --base-port N)"
                )

    def prepare(self) -> None:
        self.refuse_if_taken()
        restrict_umask()  # the children inherit it: everything under the data dir is owner-only
        (self.data_dir / "logs").mkdir(mode=0o700, parents=True, exist_ok=True)
        self.token = self._local_token()
        service_token = load_or_create_token(self.data_dir)
        free = FreePorts()  # released once every child's ports are chosen, before any child starts
        try:
            self._plan_children(free, service_token)
        finally:
            free.close()

    def _plan_children(self, free: FreePorts, service_token: str) -> None:
        port = (lambda offset: self.base_port + offset) if self.base_port else (lambda offset: free())
        self.http_port = port(HTTP_OFFSET)
        addresses = {name: f"127.0.0.1:{port(offset)}" for name, _, offset in CHILDREN}
        base_env = {
            **os.environ,
            **self.extra_env,
            "REPORECALL_DATA_DIR": str(self.data_dir),
            "REPORECALL_LOG_FORMAT": "json",
            "REPORECALL_SERVICE_TOKEN": service_token,
            # Children stop when this process dies, even by SIGKILL (kit.lifetime).
            "REPORECALL_PARENT_PID": str(os.getpid()),
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
                env.setdefault("REPORECALL_READ_CLAUDE_MEMORY", "true")  # single-user install: the user's own
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

    def request_stop(self) -> None:
        """Make `supervise` return within its 0.2 s tick; safe in a signal handler. It takes no lock: the
        handler runs on the main thread, which may be inside `supervise`'s `_stop.wait`, holding the
        Event's own lock (not reentrant) — setting the Event there would wait for itself forever (a suite
        that ignored SIGTERM, once in four CI runs)."""
        self._stop_requested = True

    def supervise(self) -> None:
        """Restart crashed children with exponential backoff until stop() or request_stop() is called."""
        while not self._stop_requested and not self._stop.wait(0.2):
            now = time.monotonic()
            for child in self.children:
                if child.alive():
                    if now - child.started_at > HEALTHY_RESET:
                        child.backoff = 1.0
                    continue
                if child.next_start == 0.0:
                    code = child.process.returncode if child.process else None
                    child.next_start = now + child.backoff
                    reason = child.last_log_line()
                    self.say(
                        f"  {child.name} exited (code {code}); restarting in {child.backoff:.0f} s"
                        + (f"; last error: {reason[:300]}" if reason else "")
                    )
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
        self._remove_run_file()

    def _remove_run_file(self) -> None:
        """Only our own run.json: another suite's (a refused start) is left alone."""
        path = self.data_dir / "run.json"
        with contextlib.suppress(OSError, ValueError):
            if json.loads(path.read_text()).get("supervisor_pid") == os.getpid():
                path.unlink()
