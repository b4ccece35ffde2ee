"""Attack: calling the services directly, bypassing the gateway (anyone on the host or the compose network).

Before: every gRPC port took any caller (`Memory.Recall` with another user's name, `Indexer.RemoveRepo` without
admin). Now each one refuses callers without the deployment's secret with UNAUTHENTICATED; health stays open.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from kit.service_auth import METADATA_KEY
from reporecall.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from reporecall.graph.v1 import graph_pb2, graph_pb2_grpc
from reporecall.indexer.v1 import indexer_pb2, indexer_pb2_grpc
from reporecall.memory.v1 import memory_pb2, memory_pb2_grpc
from reporecall.search.v1 import search_pb2, search_pb2_grpc
from tests.suite import ROOT, Suite

pytestmark = pytest.mark.e2e

# One harmless call per service: (stub, method, request).
CALLS = {
    "search": (search_pb2_grpc.SearchServiceStub, "Stats", search_pb2.StatsRequest(repo="none")),
    "graph": (graph_pb2_grpc.GraphServiceStub, "Stats", graph_pb2.StatsRequest(repo="none")),
    "memory": (memory_pb2_grpc.MemoryServiceStub, "List", memory_pb2.ListRequest(repo="none", user="bob")),
    "indexer": (indexer_pb2_grpc.IndexerServiceStub, "ListRepos", indexer_pb2.ListReposRequest()),
    "gateway": (
        gateway_pb2_grpc.GatewayServiceStub,
        "Context",
        gateway_pb2.ContextRequest(prompt="where is the total computed", repo="none"),
    ),
}


@pytest.fixture(scope="module")
def suite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Suite]:
    running = Suite.start(tmp_path_factory.mktemp("service-auth"))
    try:
        yield running
    finally:
        running.stop()


def _call(suite: Suite, service: str, metadata: tuple[tuple[str, str], ...] | None) -> grpc.StatusCode:
    stub_cls, method, request = CALLS[service]
    with grpc.insecure_channel(suite.run_info["children"][service]["address"]) as channel:
        try:
            getattr(stub_cls(channel), method)(request, timeout=10, metadata=metadata)
        except grpc.RpcError as exc:
            return exc.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


@pytest.mark.parametrize("service", sorted(CALLS))
def test_a_call_without_the_suites_credentials_is_unauthenticated(suite: Suite, service: str) -> None:
    assert _call(suite, service, None) is grpc.StatusCode.UNAUTHENTICATED
    wrong = ((METADATA_KEY, suite.service_token[:-1] + "x"),)
    assert _call(suite, service, wrong) is grpc.StatusCode.UNAUTHENTICATED


@pytest.mark.parametrize("service", sorted(CALLS))
def test_the_suites_own_credentials_are_accepted(suite: Suite, service: str) -> None:
    code = _call(suite, service, ((METADATA_KEY, suite.service_token),))
    # The call is let through: whatever it answers, it is not refused for want of credentials.
    assert code not in (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.UNIMPLEMENTED)


def test_health_stays_open_and_reflection_does_not(suite: Suite) -> None:
    address = suite.run_info["children"]["memory"]["address"]
    with grpc.insecure_channel(address) as channel:
        reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        stream = reflection_pb2_grpc.ServerReflectionStub(channel).ServerReflectionInfo(
            iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=10
        )
        with pytest.raises(grpc.RpcError) as refused:
            next(iter(stream))
        assert refused.value.code() is grpc.StatusCode.UNAUTHENTICATED


def test_the_secret_file_is_owner_only(suite: Suite) -> None:
    assert (Path(suite.data_dir) / "service-token").stat().st_mode & 0o777 == 0o600


@pytest.mark.parametrize("module", ["services.search", "gateway"])
def test_a_service_without_a_secret_refuses_to_start_with_one_line(tmp_path: Path, module: str) -> None:
    env = {k: v for k, v in os.environ.items() if k != "REPORECALL_SERVICE_TOKEN"}
    env |= {
        "REPORECALL_DATA_DIR": str(tmp_path),
        "REPORECALL_METRICS_PORT": "-1",
        "REPORECALL_HTTP_PORT": "0",
    }
    done = subprocess.run(
        [sys.executable, "-m", module], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "REPORECALL_SERVICE_TOKEN" in done.stderr and "Traceback" not in done.stderr


def test_everything_under_the_data_dir_is_owner_only(suite: Suite) -> None:
    """Before: data dir 0755, tokens.db and memory files 0644 — readable by every account on the server."""
    issued = subprocess.run(
        [sys.executable, "-m", "cli.main", "--data-dir", str(suite.data_dir), "token", "issue", "mallory"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert issued.returncode == 0, issued.stderr
    suite.post("/api/ops/store_memory", {"repo": "none", "name": "n", "body": "the invoice total is rounded"})
    root = Path(suite.data_dir)
    assert root.stat().st_mode & 0o777 == 0o700
    loose = [
        f"{path.relative_to(root)} {oct(path.stat().st_mode & 0o777)}"
        for path in root.rglob("*")
        if not path.is_symlink() and path.stat().st_mode & 0o077 and path.name != "up.log"
    ]
    assert not loose, loose
    for name in ("gateway/tokens.db", "run.json", "local-token", "service-token"):
        assert (root / name).stat().st_mode & 0o777 == 0o600, name


def test_a_token_store_made_by_the_cli_under_a_loose_umask_is_owner_only(tmp_path: Path) -> None:
    from gateway.auth import TokenStore

    previous = os.umask(0o022)
    try:
        TokenStore(tmp_path / "gateway" / "tokens.db").issue("alice")
    finally:
        os.umask(previous)
    assert (tmp_path / "gateway").stat().st_mode & 0o777 == 0o700
    assert (tmp_path / "gateway" / "tokens.db").stat().st_mode & 0o777 == 0o600
