"""Client channels to other services: request-id propagation, client metrics, retries on UNAVAILABLE.

Deadlines are per call (`timeout=`); `DEFAULT_TIMEOUT` is for calls that have no better bound.
"""

from __future__ import annotations

import ipaddress
import json

import grpc

from kit.metrics import client_interceptors
from kit.service_auth import aio_client_interceptors

DEFAULT_TIMEOUT = 10.0

# gRPC's own transparent retries: idempotent reads and replace-semantics writes may be retried safely.
_SERVICE_CONFIG = json.dumps(
    {
        "methodConfig": [
            {
                "name": [{}],
                "retryPolicy": {
                    "maxAttempts": 4,
                    "initialBackoff": "0.1s",
                    "maxBackoff": "2s",
                    "backoffMultiplier": 2,
                    "retryableStatusCodes": ["UNAVAILABLE"],
                },
            }
        ]
    }
)


def channel_target(address: str) -> str:
    """A gRPC target for one address or for replicas: "a:1,b:2" → "ipv4:a:1,b:2" (IP literals only).

    Hostnames with several A records (compose `--scale graph=3`) need no list: use `dns:///graph:7874`.
    """
    parts = [p.strip() for p in address.split(",") if p.strip()]
    if len(parts) <= 1:
        return address.strip()
    hosts = [p.rsplit(":", 1)[0] for p in parts]
    try:
        families = {ipaddress.ip_address(h.strip("[]")).version for h in hosts}
    except ValueError:
        raise ValueError(
            f"replica address list {address!r}: every entry must be IP:port; "
            "for a hostname with several replicas use one dns:///host:port address"
        ) from None
    if len(families) != 1 or any(":" not in p for p in parts):
        raise ValueError(f"replica address list {address!r}: use IP:port entries of one IP family")
    return ("ipv4:" if families == {4} else "ipv6:") + ",".join(parts)


def open_channel(address: str, *, token: str = "", retries: bool = True) -> grpc.aio.Channel:
    """A channel to another service of the suite; `token` is the deployment's secret (settings.service_token)."""
    options: list[tuple[str, object]] = [
        # Spread calls over every address the target resolves to (replicas); a dead one is skipped.
        ("grpc.lb_policy_name", "round_robin"),
        # Service-to-service traffic never goes through an HTTP proxy from the environment (grpc's no_proxy
        # match does not understand an ipv4: replica list, so the list would be sent to the proxy).
        ("grpc.enable_http_proxy", 0),
        ("grpc.max_receive_message_length", 64 * 1024 * 1024),
        ("grpc.max_send_message_length", 64 * 1024 * 1024),
        ("grpc.enable_retries", 1 if retries else 0),
        # Reconnect quickly after a peer restarts instead of waiting for the default 20 s backoff cap.
        ("grpc.initial_reconnect_backoff_ms", 100),
        ("grpc.max_reconnect_backoff_ms", 1000),
    ]
    if retries:
        options.append(("grpc.service_config", _SERVICE_CONFIG))
    return grpc.aio.insecure_channel(
        channel_target(address),
        options=options,
        interceptors=[*aio_client_interceptors(token), *client_interceptors()],
    )
