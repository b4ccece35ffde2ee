"""Client channels to other services: request-id propagation, client metrics, retries on UNAVAILABLE.

Deadlines are per call (`timeout=`); `DEFAULT_TIMEOUT` is for calls that have no better bound.
"""

from __future__ import annotations

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


def open_channel(address: str, *, token: str = "", retries: bool = True) -> grpc.aio.Channel:
    """A channel to another service of the suite; `token` is the deployment's secret (settings.service_token)."""
    options: list[tuple[str, object]] = [
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
        address, options=options, interceptors=[*aio_client_interceptors(token), *client_interceptors()]
    )
