"""The gRPC adapter: enum names read from the generated descriptors; refusals and outages told apart."""

from __future__ import annotations

from typing import Any

import grpc
import pytest

from gateway import operations
from gateway.adapters.grpc_client import (
    MEMORY_CLASS_NAMES,
    MEMORY_CLASSES,
    MEMORY_SCOPES,
    MEMORY_TYPES,
    SEARCH_MODES,
    SYMBOL_MATCHES,
    Breaker,
    ServiceClient,
)
from gateway.ports import Rejected, Unavailable


def test_the_choices_operations_accept_are_the_proto_enums_names() -> None:
    assert set(operations.MODES) == set(SEARCH_MODES)
    assert set(operations.MATCHES) == set(SYMBOL_MATCHES)
    assert set(operations.MEMORY_CLASSES) == set(MEMORY_CLASSES)
    assert set(operations.MEMORY_TYPES) == set(MEMORY_TYPES)
    assert set(operations.MEMORY_SCOPES) == set(MEMORY_SCOPES)
    assert MEMORY_CLASS_NAMES == {1: "rule", 2: "fact", 3: "episode", 4: "working"}


class _Failure(grpc.aio.AioRpcError):
    def __init__(self, code: grpc.StatusCode) -> None:
        super().__init__(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details="repo: unknown")


class _Stub:
    def __init__(self, code: grpc.StatusCode | None) -> None:
        self.code, self.calls = code, 0

    async def Ping(self, request: Any, timeout: float) -> str:  # noqa: N802 - gRPC method name
        self.calls += 1
        if self.code is not None:
            raise _Failure(self.code)
        return "pong"


async def test_a_refusal_is_rejected_and_keeps_the_breaker_closed() -> None:
    client = ServiceClient("search", _Stub(grpc.StatusCode.INVALID_ARGUMENT), Breaker(failures_to_open=1))
    for _ in range(3):
        with pytest.raises(Rejected) as caught:
            await client.call("Ping", None, 1.0)  # type: ignore[arg-type]
    assert (caught.value.code, caught.value.detail, client.breaker.failures) == (
        "INVALID_ARGUMENT",
        "repo: unknown",
        0,
    )


async def test_outages_open_the_breaker_and_then_no_call_is_made() -> None:
    stub = _Stub(grpc.StatusCode.UNAVAILABLE)
    client = ServiceClient("graph", stub, Breaker(failures_to_open=2, reset_seconds=3600))
    for _ in range(2):
        with pytest.raises(Unavailable):
            await client.call("Ping", None, 1.0)  # type: ignore[arg-type]
    with pytest.raises(Unavailable, match="circuit open"):
        await client.call("Ping", None, 1.0)  # type: ignore[arg-type]
    assert stub.calls == 2
