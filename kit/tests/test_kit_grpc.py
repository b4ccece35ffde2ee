"""Server and client plumbing over a real grpc.aio server on port 0."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import grpc
import pytest
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import REGISTRY

from gateway.context import ContextQuery, ContextResult
from gateway.entrypoints.grpc import GatewayServicer
from kit.grpc_client import open_channel
from kit.logging import current_request_id
from kit.service import start_grpc_server
from kit.settings import ServiceSettings
from kit.testing import eventually
from reporecall.gateway.v1 import gateway_pb2, gateway_pb2_grpc


class EchoRequestId:
    """Stands in for the context service: answers with the request id the server saw."""

    async def build(self, query: ContextQuery) -> ContextResult:
        return ContextResult(text=current_request_id() or "", route="lookup")

    async def context(self, who: object, query: ContextQuery) -> ContextResult:  # the Operations call
        return await self.build(query)


@pytest.fixture
async def server(tmp_path: Path):
    settings = ServiceSettings(data_dir=tmp_path, listen="127.0.0.1:0")
    servicer: Any = GatewayServicer(EchoRequestId())  # type: ignore[arg-type]
    srv, health, port = await start_grpc_server(
        "test",
        settings,
        [
            (
                gateway_pb2_grpc.add_GatewayServiceServicer_to_server,
                servicer,
                "reporecall.gateway.v1.GatewayService",
            )
        ],
    )
    yield f"127.0.0.1:{port}"
    await srv.stop(None)


def _value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


async def test_request_id_travels_in_metadata_and_metrics_use_standard_names(server: str) -> None:
    labels = {
        "grpc_type": "unary",
        "grpc_service": "reporecall.gateway.v1.GatewayService",
        "grpc_method": "Context",
    }
    before = _value("grpc_server_handled_total", **labels, grpc_code="OK")
    channel = open_channel(server)
    stub = gateway_pb2_grpc.GatewayServiceStub(channel)
    structlog.contextvars.bind_contextvars(request_id="feedfacecafe")
    try:
        reply = await stub.Context(gateway_pb2.ContextRequest(prompt="x", repo="r"), timeout=5)
    finally:
        structlog.contextvars.clear_contextvars()
    assert reply.text == "feedfacecafe"
    assert _value("grpc_server_handled_total", **labels, grpc_code="OK") == before + 1
    assert _value("grpc_server_handling_seconds_count", **labels) >= 1
    assert _value("grpc_client_handled_total", **labels, grpc_code="OK") >= 1
    await channel.close()


async def test_invalid_argument_is_counted_with_its_code(server: str) -> None:
    labels = {
        "grpc_type": "unary",
        "grpc_service": "reporecall.gateway.v1.GatewayService",
        "grpc_method": "Context",
    }
    before = _value("grpc_server_handled_total", **labels, grpc_code="INVALID_ARGUMENT")
    async with grpc.aio.insecure_channel(server) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await gateway_pb2_grpc.GatewayServiceStub(channel).Context(gateway_pb2.ContextRequest(prompt=""))
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "prompt" in (error.value.details() or "")
    # The server finishes its bookkeeping just after the client has the status: poll briefly.
    await eventually(
        lambda: _value("grpc_server_handled_total", **labels, grpc_code="INVALID_ARGUMENT") == before + 1,
        10,
        "the server to count the refusal",
    )
    assert _value("grpc_server_handled_total", **labels, grpc_code="INVALID_ARGUMENT") == before + 1


async def test_health_service_reports_serving(server: str) -> None:
    async with grpc.aio.insecure_channel(server) as channel:
        reply = await health_pb2_grpc.HealthStub(channel).Check(
            health_pb2.HealthCheckRequest(service="reporecall.gateway.v1.GatewayService")
        )
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


async def test_an_undecodable_request_is_rejected_as_invalid_argument_not_unknown(server: str) -> None:
    # Field 1 (prompt, a string) holding invalid UTF-8: protobuf refuses to parse it.
    raw = bytes([(1 << 3) | 2, 4]) + b"\xff\xfe\xc3\x28"
    async with grpc.aio.insecure_channel(server) as channel:
        call = channel.unary_unary(
            "/reporecall.gateway.v1.GatewayService/Context",
            request_serializer=lambda b: b,
            response_deserializer=lambda b: b,
        )
        with pytest.raises(grpc.aio.AioRpcError) as raised:
            await call(raw, timeout=5)
        reply = await gateway_pb2_grpc.GatewayServiceStub(channel).Context(
            gateway_pb2.ContextRequest(prompt="still serving", repo="r"), timeout=5
        )
    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert raised.value.details().startswith("request: ")
    assert reply.text  # the next, well-formed call is served normally (the echo of its request id)
