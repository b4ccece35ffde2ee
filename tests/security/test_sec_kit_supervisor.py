"""Attack/accident: SIGKILL of `reporecall up` used to orphan all five children, which kept their ports; a new `up`
then reported them ready while its own children crash-looped with the reason only in a log, and deleted the
other suite's run.json. Now children die with the supervisor, a second `up` refuses with one line naming the pid
and port, and a crash-looping child's last error line is printed by `up`.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from cli.supervisor import Child, Supervisor
from tests.suite import ROOT, Suite, wait_for

pytestmark = pytest.mark.e2e


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie waiting for its (dead) parent's reaper counts as gone.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def test_sigkill_of_up_leaves_no_child_alive_and_a_second_up_is_refused(tmp_path: Path) -> None:
    suite = Suite.start(tmp_path / "data")
    children = [c["pid"] for c in suite.run_info["children"].values()]
    try:
        assert all(_alive(pid) for pid in children)
        second = subprocess.run(
            [sys.executable, "-m", "cli.main", "--data-dir", str(suite.data_dir), "up", "--base-port", "0"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert second.returncode != 0
        assert f"pid {suite.process.pid}" in second.stderr + second.stdout
        assert (suite.data_dir / "run.json").exists()  # the running suite's file is left alone
        assert json.loads((suite.data_dir / "run.json").read_text())["supervisor_pid"] == suite.process.pid
    finally:
        suite.process.send_signal(signal.SIGKILL)
        suite.process.wait(30)
    wait_for(lambda: not any(_alive(pid) for pid in children), 30, "every child to die with `up`")


def test_up_refuses_ports_held_by_another_process_naming_pid_and_port(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        base = holder.getsockname()[1]  # the gateway's HTTP port is base + 0
        done = subprocess.run(
            [sys.executable, "-m", "cli.main", "--data-dir", str(tmp_path), "up", "--base-port", str(base)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
    output = done.stderr + done.stdout
    assert done.returncode != 0 and "Traceback" not in output
    assert f"REPORECALL_HTTP_PORT={base}" in output and f"pid {os.getpid()}" in output
    assert not (tmp_path / "logs").exists()  # refused before anything was started or written


def test_a_crash_looping_child_has_its_last_error_printed(tmp_path: Path) -> None:
    said: list[str] = []
    seen = threading.Event()

    def say(line: str) -> None:
        said.append(line)
        if "last error" in line:
            seen.set()

    supervisor = Supervisor(data_dir=tmp_path, say=say)
    child = Child("search", "services.no_such_module", 0, 0, dict(os.environ), tmp_path / "search.log")
    supervisor.children.append(child)
    child.spawn()
    loop = threading.Thread(target=supervisor.supervise, daemon=True)
    loop.start()
    try:
        assert seen.wait(30), said
    finally:
        supervisor.stop()
        loop.join(10)
    line = next(line for line in said if "last error" in line)
    assert "search exited" in line and "No module named services.no_such_module" in line


def test_free_ports_are_distinct_while_held_and_free_again_once_released() -> None:
    from cli.supervisor import FreePorts

    free = FreePorts()
    ports = [free() for _ in range(12)]  # as many as one suite asks for
    assert len(set(ports)) == len(ports)
    with socket.socket() as other, pytest.raises(OSError):
        other.bind(("127.0.0.1", ports[0]))  # still held: nobody else gets it meanwhile
    free.close()
    with socket.socket() as other:
        other.bind(("127.0.0.1", ports[0]))  # released before the children start


def test_a_suite_on_free_ports_plans_every_child_on_a_distinct_port(tmp_path: Path) -> None:
    supervisor = Supervisor(data_dir=tmp_path, base_port=0)
    supervisor.prepare()
    ports = [supervisor.http_port] + [p for c in supervisor.children for p in (c.grpc_port, c.metrics_port)]
    assert len(set(ports)) == len(ports) == 11
