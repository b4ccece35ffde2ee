"""gRPC face of the gateway: the same Context operation the hook and MCP use.

Who may call: whoever presents the suite's service credentials to this port (kit's server side); such a
caller is the `service` principal — it reads code and team memories, never a user's personal ones.
"""

from __future__ import annotations

from typing import Any

import grpc

from gateway.adapters.grpc_gateway import context_query_from_pb, context_result_to_pb
from gateway.authorization import SERVICE
from gateway.operations import Operations
from gateway.validation import LIMITS


class GatewayServicer:
    """reporecall.gateway.v1.GatewayService (registered by gateway.adapters.grpc_gateway)."""

    def __init__(self, ops: Operations) -> None:
        self._ops = ops

    async def Context(self, request: Any, context: grpc.aio.ServicerContext) -> Any:  # noqa: N802 - gRPC name
        if not request.prompt.strip():
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "prompt: must not be empty")
        if not request.repo and not request.cwd:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "repo: give a repository name or a cwd")
        if not 0 <= request.budget_tokens <= LIMITS.budget_tokens:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"budget_tokens: must be between 0 and {LIMITS.budget_tokens}",
            )
        result = await self._ops.context(SERVICE, context_query_from_pb(request))
        return context_result_to_pb(result)
