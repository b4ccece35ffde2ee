"""How a backend's refusal reaches a client: one mapping for every surface (HTTP status, MCP tool error).

Codes that mean "your request is wrong" carry the owning service's message (it names the input and the
fix); any other failure gets a generic line, so no stack trace, path or network detail leaks.
"""

from __future__ import annotations

from gateway.ports import Rejected

# gRPC status code names → HTTP status.
HTTP_STATUS = {
    "INVALID_ARGUMENT": 400,
    "FAILED_PRECONDITION": 400,
    "OUT_OF_RANGE": 400,
    "PERMISSION_DENIED": 403,
    "NOT_FOUND": 404,
    "ALREADY_EXISTS": 409,
    "UNIMPLEMENTED": 501,
}
MAX_MESSAGE = 1000


def http_status(code: str) -> int:
    """The HTTP status of a service's refusal; 502 for anything that is not the client's fault."""
    return HTTP_STATUS.get(code, 502)


def client_message(exc: Rejected) -> str:
    """What the client may read about a failed call."""
    if exc.code in HTTP_STATUS and exc.code != "UNIMPLEMENTED":
        details = (exc.detail or "").strip().splitlines()
        if details:
            return details[0][:MAX_MESSAGE]
    return f"the service refused the call ({exc.code})"
