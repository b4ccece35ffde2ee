"""Prometheus metrics for grpc.aio servers and clients, under the standard go-grpc-prometheus names.

`grpc_server_started_total`, `grpc_server_handled_total{grpc_code}` and `grpc_server_handling_seconds`
(and the `grpc_client_*` equivalents) carry the labels grpc_type, grpc_service, grpc_method, so the
dashboards written for any gRPC service work unchanged. The interceptors also carry the request id
(metadata `x-request-id`) into structlog's context and write one log line per RPC.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import structlog
from prometheus_client import Counter, Gauge, Histogram, start_http_server

from kit.logging import REQUEST_ID_HEADER, current_request_id, new_request_id

_LABELS = ("grpc_type", "grpc_service", "grpc_method")
_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)

SERVER_STARTED = Counter("grpc_server_started_total", "RPCs started on the server.", _LABELS)
SERVER_HANDLED = Counter(
    "grpc_server_handled_total", "RPCs completed on the server.", (*_LABELS, "grpc_code")
)
SERVER_SECONDS = Histogram(
    "grpc_server_handling_seconds", "Time to handle an RPC on the server.", _LABELS, buckets=_BUCKETS
)
CLIENT_STARTED = Counter("grpc_client_started_total", "RPCs started by the client.", _LABELS)
CLIENT_HANDLED = Counter(
    "grpc_client_handled_total", "RPCs completed by the client.", (*_LABELS, "grpc_code")
)
CLIENT_SECONDS = Histogram(
    "grpc_client_handling_seconds",
    "Time until an RPC completed, seen by the client.",
    _LABELS,
    buckets=_BUCKETS,
)

log = structlog.get_logger("grpc")


def start_metrics_server(port: int, host: str = "127.0.0.1") -> int:
    """Serve /metrics on a daemon thread; returns the bound port (useful when `port` is 0)."""
    server, _ = start_http_server(port, addr=host)
    return int(server.server_port)


def split_method(method: str | bytes) -> tuple[str, str]:
    text = method.decode() if isinstance(method, bytes) else method
    service, _, name = text.lstrip("/").partition("/")
    return service, name


def _code_name(code: Any) -> str:
    if code is None:
        return "OK"
    if isinstance(code, grpc.StatusCode):
        return code.name
    return str(code)


class ServerInterceptor(grpc.aio.ServerInterceptor):
    """Metrics, request-id context and one canonical log line for every RPC a server handles."""

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        handler = await continuation(details)
        if handler is None:
            return handler
        service, method = split_method(details.method)
        metadata = dict(details.invocation_metadata or ())
        request_id = str(metadata.get(REQUEST_ID_HEADER) or new_request_id())
        deserializer = _tolerant(handler.request_deserializer)
        if handler.unary_unary:
            behaviour = _wrap_unary(handler.unary_unary, service, method, request_id, "unary")
            return grpc.unary_unary_rpc_method_handler(behaviour, deserializer, handler.response_serializer)
        if handler.unary_stream:
            behaviour = _wrap_stream(handler.unary_stream, service, method, request_id)
            return grpc.unary_stream_rpc_method_handler(behaviour, deserializer, handler.response_serializer)
        return handler  # client/bidi streaming is not used by our APIs; served unmeasured


class _Undecodable:
    """Stands in for a request whose bytes did not parse (e.g. invalid UTF-8 in a string field)."""

    def __init__(self, error: Exception) -> None:
        self.message = f"request: not a valid protobuf message for this method ({error})"[:1000]


def _tolerant(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    """grpc.aio turns a deserializer exception into UNKNOWN; hand the failure to the handler instead,
    which rejects it with INVALID_ARGUMENT like any other bad input."""
    if deserializer is None:
        return None

    def deserialize(raw: bytes) -> Any:
        try:
            return deserializer(raw)
        except Exception as exc:  # DecodeError, or whatever a custom deserializer raises
            return _Undecodable(exc)

    return deserialize


def _begin(service: str, method: str, request_id: str, kind: str) -> float:
    structlog.contextvars.bind_contextvars(request_id=request_id, rpc=f"{service}/{method}")
    SERVER_STARTED.labels(kind, service, method).inc()
    return time.perf_counter()


def _finish(
    service: str, method: str, kind: str, started: float, context: Any, error: BaseException | None
) -> None:
    elapsed = time.perf_counter() - started
    code = _code_name(context.code()) if context.code() is not None else ("UNKNOWN" if error else "OK")
    SERVER_HANDLED.labels(kind, service, method, code).inc()
    SERVER_SECONDS.labels(kind, service, method).observe(elapsed)
    level = log.error if code in ("UNKNOWN", "INTERNAL", "DATA_LOSS") else log.info
    level(
        "rpc", code=code, ms=round(elapsed * 1000, 2), **({"error": repr(error)} if code == "UNKNOWN" else {})
    )
    structlog.contextvars.unbind_contextvars("request_id", "rpc")


def _wrap_unary(behaviour: Any, service: str, method: str, request_id: str, kind: str) -> Any:
    async def wrapped(request: Any, context: grpc.aio.ServicerContext) -> Any:
        started = _begin(service, method, request_id, kind)
        error: BaseException | None = None
        try:
            if isinstance(request, _Undecodable):
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, request.message)
            return await behaviour(request, context)
        except BaseException as exc:
            error = exc
            raise
        finally:
            _finish(service, method, kind, started, context, error)

    return wrapped


def _wrap_stream(behaviour: Any, service: str, method: str, request_id: str) -> Any:
    async def wrapped(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
        started = _begin(service, method, request_id, "server_stream")
        error: BaseException | None = None
        try:
            if isinstance(request, _Undecodable):
                await context.abort(grpc.StatusCode.INVALID_ARGUMENT, request.message)
            async for item in behaviour(request, context):
                yield item
        except BaseException as exc:
            error = exc
            raise
        finally:
            _finish(service, method, "server_stream", started, context, error)

    return wrapped


def _with_request_id(details: grpc.aio.ClientCallDetails) -> grpc.aio.ClientCallDetails:
    request_id = current_request_id()
    if not request_id:
        return details
    metadata = grpc.aio.Metadata(*(details.metadata or ()))
    metadata[REQUEST_ID_HEADER] = request_id
    return grpc.aio.ClientCallDetails(
        details.method, details.timeout, metadata, details.credentials, details.wait_for_ready
    )


class _ClientMetrics:
    async def _observe(
        self, details: grpc.aio.ClientCallDetails, kind: str, call: Any, started: float
    ) -> None:
        service, method = split_method(details.method)
        try:
            code = _code_name(await call.code())
        except Exception:  # the call object failed before producing a status
            code = "UNKNOWN"
        CLIENT_HANDLED.labels(kind, service, method, code).inc()
        CLIENT_SECONDS.labels(kind, service, method).observe(time.perf_counter() - started)


class UnaryUnaryClientInterceptor(_ClientMetrics, grpc.aio.UnaryUnaryClientInterceptor):
    async def intercept_unary_unary(self, continuation: Any, details: Any, request: Any) -> Any:
        details = _with_request_id(details)
        service, method = split_method(details.method)
        CLIENT_STARTED.labels("unary", service, method).inc()
        started = time.perf_counter()
        call = await continuation(details, request)
        with contextlib.suppress(grpc.aio.AioRpcError):
            await call  # the caller awaits the call too and sees the error; here it is only counted
        await self._observe(details, "unary", call, started)
        return call


class UnaryStreamClientInterceptor(_ClientMetrics, grpc.aio.UnaryStreamClientInterceptor):
    async def intercept_unary_stream(self, continuation: Any, details: Any, request: Any) -> Any:
        details = _with_request_id(details)
        service, method = split_method(details.method)
        CLIENT_STARTED.labels("server_stream", service, method).inc()
        started = time.perf_counter()
        call = await continuation(details, request)
        # `code()` resolves when the stream ends; observe it without holding up the caller.
        task = asyncio.ensure_future(self._observe(details, "server_stream", call, started))
        _PENDING.add(task)
        task.add_done_callback(_PENDING.discard)
        return call


_PENDING: set[asyncio.Future[None]] = set()


def client_interceptors() -> list[grpc.aio.ClientInterceptor]:
    return [UnaryUnaryClientInterceptor(), UnaryStreamClientInterceptor()]


# --- Domain metrics shared by the store-owning services -------------------------------------------

STORE_SECONDS = Histogram(
    "reporecall_store_seconds",
    "Latency of store operations by store and operation.",
    ("store", "op"),
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)
DATA_DIR_FREE = Gauge("reporecall_data_dir_free_bytes", "Free bytes on the data directory's filesystem.")
DATA_DIR_SIZE = Gauge("reporecall_data_dir_size_bytes", "Size of the data directory's filesystem.")


def watch_data_dir(path: str) -> None:
    """Export free/total bytes of the filesystem holding `path`, read at scrape time."""
    import shutil

    DATA_DIR_FREE.set_function(lambda: shutil.disk_usage(path).free)
    DATA_DIR_SIZE.set_function(lambda: shutil.disk_usage(path).total)


class TimedStore:
    """Wraps a store adapter so every public method call is timed into `reporecall_store_seconds`.

    Applied once per store in a service's composition root; attributes that are not methods pass through.
    """

    def __init__(self, inner: Any, store: str) -> None:
        self._inner = inner
        self._store = store

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._inner, name)
        if name.startswith("_") or not callable(attr):
            return attr
        histogram = STORE_SECONDS.labels(self._store, name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            with histogram.time():
                return attr(*args, **kwargs)

        return timed
