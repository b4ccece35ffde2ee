"""One service's stub behind a circuit breaker, per-call deadlines, the refusal/outage split, and the
lower-case names of the generated enums (read from the descriptors, not written out).

A breaker opens after consecutive failures so a dead service costs nothing per prompt; it lets one
probe through after `reset_seconds` and closes on success. A refusal (the service answered that the
request is wrong) is `Rejected`, not a breaker failure; anything else is `Unavailable`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from google.protobuf.json_format import MessageToDict
from google.protobuf.message import Message

from gateway.ports import JSON, Rejected, Unavailable
from reporecall.memory.v1 import memory_pb2
from reporecall.search.v1 import search_pb2

T = TypeVar("T")

# Codes that mean the service answered (the request was wrong or not supported): no breaker failure.
_SERVICE_IS_UP = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.NOT_FOUND,
        grpc.StatusCode.ALREADY_EXISTS,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.UNIMPLEMENTED,
        grpc.StatusCode.OUT_OF_RANGE,
    }
)


def _enum_names(enum: Any, prefix: str) -> dict[str, int]:
    """Lower-case names of a generated enum without its prefix and UNSPECIFIED: {"rule": 1, …}."""
    return {
        name.removeprefix(prefix).lower(): number
        for name, number in enum.items()
        if not name.endswith("_UNSPECIFIED")
    }


SEARCH_MODES = _enum_names(search_pb2.SearchMode, "SEARCH_MODE_")
SYMBOL_MATCHES = _enum_names(search_pb2.SymbolMatch, "SYMBOL_MATCH_")
MEMORY_CLASSES = _enum_names(memory_pb2.MemoryClass, "MEMORY_CLASS_")
MEMORY_TYPES = _enum_names(memory_pb2.MemoryType, "MEMORY_TYPE_")
MEMORY_SCOPES = _enum_names(memory_pb2.MemoryScope, "MEMORY_SCOPE_")
MEMORY_CLASS_NAMES = {number: name for name, number in MEMORY_CLASSES.items()}


def to_json(message: Message) -> JSON:
    return MessageToDict(message, preserving_proto_field_name=True)


@dataclass
class Breaker:
    failures_to_open: int = 3
    reset_seconds: float = 2.0
    failures: int = 0
    opened_at: float = 0.0

    def allow(self) -> bool:
        if self.failures < self.failures_to_open:
            return True
        return time.monotonic() - self.opened_at >= self.reset_seconds  # half-open: one probe

    def record(self, ok: bool) -> None:
        if ok:
            self.failures = 0
        else:
            self.failures += 1
            if self.failures >= self.failures_to_open:
                self.opened_at = time.monotonic()


class ServiceClient:
    """One service's stub behind its breaker."""

    def __init__(self, service: str, stub: Any, breaker: Breaker) -> None:
        self.service, self.stub, self.breaker = service, stub, breaker

    async def call(self, method: str, request: Message, timeout: float) -> Any:
        """`stub.method(request)` with a deadline; Unavailable or Rejected (never a raw gRPC error)."""
        if not self.breaker.allow():
            raise Unavailable(self.service, "circuit open")
        try:
            result = await getattr(self.stub, method)(request, timeout=timeout)
        except grpc.aio.AioRpcError as exc:
            if exc.code() in _SERVICE_IS_UP:
                self.breaker.record(True)  # the service is up; the request was wrong
                raise Rejected(self.service, exc.code().name, exc.details() or "") from None
            self.breaker.record(False)
            raise Unavailable(self.service, exc.code().name) from exc
        self.breaker.record(True)
        return result
