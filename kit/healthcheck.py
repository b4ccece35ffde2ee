"""`python -m kit.healthcheck [HOST:PORT]` — container healthcheck over the standard gRPC health service.

Exits 0 when Check on the address answers SERVING within the timeout (2 s), 1 otherwise, and prints one line
either way (Docker keeps it in `docker inspect`'s health log). Without an address it checks this process's
own REPORECALL_LISTEN, with a wildcard host (0.0.0.0, [::]) replaced by the loopback address.
"""

from __future__ import annotations

import os
import sys

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

TIMEOUT_SECONDS = 2.0
_WILDCARDS = {"0.0.0.0": "127.0.0.1", "[::]": "[::1]", "": "127.0.0.1"}


def default_address() -> str:
    listen = os.environ.get("REPORECALL_LISTEN", "")
    if not listen or listen.startswith("unix:"):
        return listen
    host, _, port = listen.rpartition(":")
    return f"{_WILDCARDS.get(host, host)}:{port}"


def check(address: str, service: str = "", timeout: float = TIMEOUT_SECONDS) -> tuple[bool, str]:
    """(healthy, one-line reason) for the gRPC health service at `address`."""
    with grpc.insecure_channel(address) as channel:
        try:
            reply = health_pb2_grpc.HealthStub(channel).Check(
                health_pb2.HealthCheckRequest(service=service), timeout=timeout
            )
        except grpc.RpcError as exc:
            code = exc.code().name if exc.code() else "UNKNOWN"  # type: ignore[attr-defined]
            return False, f"{address}: {code} {exc.details() or ''}".strip()  # type: ignore[attr-defined]
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    return reply.status == health_pb2.HealthCheckResponse.SERVING, f"{address}: {status}"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 2 or (args and args[0] in ("-h", "--help")):
        print("usage: python -m kit.healthcheck [HOST:PORT [SERVICE]]", file=sys.stderr)
        return 1
    address = args[0] if args else default_address()
    if not address or address.endswith(":0"):
        print("unhealthy: no address to check; pass HOST:PORT or set REPORECALL_LISTEN to a fixed port")
        return 1
    healthy, reason = check(address, args[1] if len(args) > 1 else "")
    print(("healthy " if healthy else "unhealthy ") + reason)
    return 0 if healthy else 1


if __name__ == "__main__":
    raise SystemExit(main())
