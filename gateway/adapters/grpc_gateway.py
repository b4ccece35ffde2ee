"""The gateway's own gRPC API (reporecall.gateway.v1) on the proto side: request → ContextQuery,
ContextResult → response, and registration on a server. The servicer is gateway.entrypoints.grpc."""

from __future__ import annotations

from typing import Any

import grpc

from gateway.context import ContextQuery, ContextResult
from gateway.domain.assembly import ContextItem
from reporecall.gateway.v1 import gateway_pb2, gateway_pb2_grpc

SERVICE_NAME = "reporecall.gateway.v1.GatewayService"


def add_gateway_servicer(servicer: Any, server: grpc.aio.Server) -> None:
    gateway_pb2_grpc.add_GatewayServiceServicer_to_server(servicer, server)


def context_query_from_pb(request: gateway_pb2.ContextRequest) -> ContextQuery:
    return ContextQuery(
        prompt=request.prompt,
        repo=request.repo,
        cwd=request.cwd,
        budget_tokens=request.budget_tokens,
        active_files=tuple(request.active_files),
        head_commit=request.head_commit,
        branch=request.branch,
        session_id=request.session_id,
    )


def context_result_to_pb(result: ContextResult) -> gateway_pb2.ContextResponse:
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
