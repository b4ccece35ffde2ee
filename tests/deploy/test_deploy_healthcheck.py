"""kit.healthcheck, the containers' healthcheck command: exit 0 only for SERVING, one line of output."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from kit import healthcheck
from tests.deploy.deploy_support import ROOT


@pytest.fixture
def health_server() -> Iterator[tuple[str, health.HealthServicer]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield f"127.0.0.1:{port}", servicer
    server.stop(None)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_serving_server_is_healthy_with_exit_code_0(health_server, capsys) -> None:
    address, servicer = health_server
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    assert healthcheck.main([address]) == 0
    assert capsys.readouterr().out == f"healthy {address}: SERVING\n"


def test_not_serving_server_is_unhealthy(health_server, capsys) -> None:
    address, servicer = health_server
    servicer.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
    assert healthcheck.main([address]) == 1
    assert capsys.readouterr().out == f"unhealthy {address}: NOT_SERVING\n"


def test_a_named_service_is_checked_when_given(health_server, capsys) -> None:
    address, servicer = health_server
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    assert healthcheck.main([address, "reporecall.search.v1.SearchService"]) == 1
    assert "NOT_FOUND" in capsys.readouterr().out


def test_nothing_listening_is_unhealthy_at_once(capsys) -> None:
    started = time.monotonic()
    assert healthcheck.main([f"127.0.0.1:{closed_port()}"]) == 1
    assert time.monotonic() - started < healthcheck.TIMEOUT_SECONDS
    out = capsys.readouterr().out
    assert out.startswith("unhealthy 127.0.0.1:") and "UNAVAILABLE" in out and out.count("\n") == 1


def test_a_server_that_never_answers_is_unhealthy_after_the_timeout(capsys) -> None:
    # A socket that accepts connections but never speaks HTTP/2: the check must give up on its own.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        started = time.monotonic()
        assert healthcheck.main([f"127.0.0.1:{silent.getsockname()[1]}"]) == 1
        elapsed = time.monotonic() - started
    assert healthcheck.TIMEOUT_SECONDS - 0.2 < elapsed < healthcheck.TIMEOUT_SECONDS + 1.5
    assert "DEADLINE_EXCEEDED" in capsys.readouterr().out


def test_without_an_address_it_checks_its_own_listen_setting_on_loopback(health_server, monkeypatch) -> None:
    address, servicer = health_server
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    monkeypatch.setenv("REPORECALL_LISTEN", "0.0.0.0:" + address.rsplit(":", 1)[1])
    assert healthcheck.default_address() == address
    assert healthcheck.main([]) == 0


@pytest.mark.parametrize("listen", [None, "127.0.0.1:0"])
def test_without_a_fixed_address_it_is_unhealthy(listen: str | None, monkeypatch, capsys) -> None:
    if listen is None:
        monkeypatch.delenv("REPORECALL_LISTEN", raising=False)
    else:
        monkeypatch.setenv("REPORECALL_LISTEN", listen)
    assert healthcheck.main([]) == 1
    assert "REPORECALL_LISTEN" in capsys.readouterr().out


def test_runs_as_the_compose_healthcheck_command(health_server) -> None:
    address, servicer = health_server
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    command = [sys.executable, "-m", "kit.healthcheck", address]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=30)
    assert (result.returncode, result.stdout) == (0, f"healthy {address}: SERVING\n")
