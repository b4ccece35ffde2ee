"""How a backend's gRPC refusal reaches a client: one mapping for every surface (HTTP status, MCP tool error).

Codes that mean "your request is wrong" carry the owning service's message (it names the input and the
fix); any other failure gets a generic line, so no stack trace, path or network detail leaks.
"""

from __future__ import annotations

import grpc

HTTP_STATUS = {
    grpc.StatusCode.INVALID_ARGUMENT: 400,
    grpc.StatusCode.FAILED_PRECONDITION: 400,
    grpc.StatusCode.OUT_OF_RANGE: 400,
    grpc.StatusCode.PERMISSION_DENIED: 403,
    grpc.StatusCode.NOT_FOUND: 404,
    grpc.StatusCode.ALREADY_EXISTS: 409,
    grpc.StatusCode.UNIMPLEMENTED: 501,
}
MAX_MESSAGE = 1000


def http_status(code: grpc.StatusCode) -> int:
    """The HTTP status of a service's refusal; 502 for anything that is not the client's fault."""
    return HTTP_STATUS.get(code, 502)


def client_message(exc: grpc.aio.AioRpcError) -> str:
    """What the client may read about a failed call."""
    if exc.code() in HTTP_STATUS and exc.code() is not grpc.StatusCode.UNIMPLEMENTED:
        details = (exc.details() or "").strip().splitlines()
        if details:
            return details[0][:MAX_MESSAGE]
    return f"the service refused the call ({exc.code().name})"
