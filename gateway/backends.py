"""Async clients for the services behind the gateway, with per-call deadlines and circuit breakers.

A breaker opens after consecutive failures so a dead service costs nothing per prompt; it lets one
probe through after `reset_seconds` and closes on success.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import grpc
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc

from kit.grpc_client import open_channel
from reporecall.graph.v1 import graph_pb2_grpc
from reporecall.indexer.v1 import indexer_pb2_grpc
from reporecall.memory.v1 import memory_pb2_grpc
from reporecall.search.v1 import search_pb2_grpc

log = structlog.get_logger("backends")
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


class Unavailable(Exception):
    """A backend call failed, timed out, or its breaker is open."""

    def __init__(self, service: str, reason: str) -> None:
        self.service, self.reason = service, reason
        super().__init__(f"{service}: {reason}")


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


@dataclass
class Backends:
    indexer_addr: str
    search_addr: str
    graph_addr: str
    memory_addr: str
    # The deployment's secret, presented to every service (kit.service_auth).
    service_token: str = ""
    breakers: dict[str, Breaker] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # No transparent retries on the hook path: a retry would blow the deadline; the breaker decides.
        self._channels = {
            "indexer": open_channel(self.indexer_addr, token=self.service_token),
            "search": open_channel(self.search_addr, token=self.service_token, retries=False),
            "graph": open_channel(self.graph_addr, token=self.service_token, retries=False),
            "memory": open_channel(self.memory_addr, token=self.service_token, retries=False),
        }
        self.indexer = indexer_pb2_grpc.IndexerServiceStub(self._channels["indexer"])
        self.search = search_pb2_grpc.SearchServiceStub(self._channels["search"])
        self.graph = graph_pb2_grpc.GraphServiceStub(self._channels["graph"])
        self.memory = memory_pb2_grpc.MemoryServiceStub(self._channels["memory"])
        for name in self._channels:
            self.breakers.setdefault(name, Breaker())

    async def call(self, service: str, fn: Callable[..., Awaitable[T]], request: Any, timeout: float) -> T:
        """Call `fn(request)` with a deadline; raise Unavailable (never a raw gRPC error) on failure."""
        breaker = self.breakers[service]
        if not breaker.allow():
            raise Unavailable(service, "circuit open")
        try:
            result = await fn(request, timeout=timeout)
        except grpc.aio.AioRpcError as exc:
            if exc.code() in _SERVICE_IS_UP:
                breaker.record(True)  # the service is up; the request was wrong
                raise
            breaker.record(False)
            raise Unavailable(service, exc.code().name) from exc
        breaker.record(True)
        return result

    async def health(self) -> dict[str, dict[str, str]]:
        """Standard gRPC health of every backend, checked concurrently."""

        async def check(name: str) -> tuple[str, dict[str, str]]:
            stub = health_pb2_grpc.HealthStub(self._channels[name])
            address = getattr(self, f"{name}_addr")
            try:
                reply = await stub.Check(health_pb2.HealthCheckRequest(), timeout=1.0)
            except grpc.aio.AioRpcError as exc:
                return name, {"status": "DOWN", "address": address, "detail": exc.code().name}
            return name, {
                "status": health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status),
                "address": address,
            }

        return dict(await asyncio.gather(*(check(name) for name in self._channels)))

    async def close(self) -> None:
        for channel in self._channels.values():
            await channel.close()
