"""gRPC face of the gateway: the same Context operation the hook and MCP use.

Who may call: whoever presents the suite's service credentials to this port (kit's server side); such a
caller is the `service` principal — it reads code and team memories, never a user's personal ones.
"""

from __future__ import annotations

import grpc

from gateway.authorization import SERVICE
from gateway.context import ContextItem, ContextQuery
from gateway.operations import Operations
from reporecall.gateway.v1 import gateway_pb2, gateway_pb2_grpc


class GatewayServicer(gateway_pb2_grpc.GatewayServiceServicer):
    def __init__(self, ops: Operations) -> None:
        self._ops = ops

    async def Context(  # noqa: N802 - gRPC method name
        self, request: gateway_pb2.ContextRequest, context: grpc.aio.ServicerContext
    ) -> gateway_pb2.ContextResponse:
        if not request.prompt.strip():
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "prompt: must not be empty")
        if not request.repo and not request.cwd:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, "repo: give a repository name or a cwd")
        if not 0 <= request.budget_tokens <= 50_000:
            await context.abort(
                grpc.StatusCode.INVALID_ARGUMENT, "budget_tokens: must be between 0 and 50000"
            )
        result = await self._ops.context(
            SERVICE,
            ContextQuery(
                prompt=request.prompt,
                repo=request.repo,
                cwd=request.cwd,
                budget_tokens=request.budget_tokens,
                active_files=tuple(request.active_files),
                head_commit=request.head_commit,
                branch=request.branch,
                session_id=request.session_id,
            ),
        )
        return gateway_pb2.ContextResponse(
            text=result.text,
            route=result.route,
            seeds=result.seeds,
            partial=result.partial,
            degraded=result.degraded,
            tokens=result.tokens,
            chars=result.chars,
            items=[_item_pb(i) for i in result.items],
            cut=[_item_pb(i) for i in result.cut],
            repo=result.repo,
        )


def _item_pb(item: ContextItem) -> gateway_pb2.ContextItem:
    return gateway_pb2.ContextItem(
        path=item.path,
        symbol=item.symbol,
        start_line=item.start_line,
        end_line=item.end_line,
        kind=item.kind,
        score=item.score,
        tokens=item.tokens,
        reason=item.reason,
        chunk_id=item.chunk_id,
    )
