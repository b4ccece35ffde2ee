"""GraphService over grpc.aio: proto ⇄ domain, domain errors → status codes. Nothing else.

Engine calls block (store queries, traversal, Louvain), so they run in a bounded thread pool.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import grpc
from google.protobuf.timestamp_pb2 import Timestamp

from kit.convert import call_site_from_pb, import_from_pb, import_to_pb, symbol_from_pb, symbol_to_pb
from kit.engine_calls import EngineCalls, error_message
from reporecall.graph.v1 import graph_pb2, graph_pb2_grpc

from .domain.errors import InvalidArgument, StoreUnavailable, SymbolNotFound
from .domain.model import CallEdge, CommunityReport, GraphNode, Resolution, SymbolRef
from .engine import GraphEngine

SERVICE_NAME = graph_pb2.DESCRIPTOR.services_by_name["GraphService"].full_name
T = TypeVar("T")

_RESOLUTION_TO_PB = {r: graph_pb2.Resolution.Value(f"RESOLUTION_{r.name}") for r in Resolution}


def edge_to_pb(edge: CallEdge) -> graph_pb2.CallEdge:
    return graph_pb2.CallEdge(
        caller_id=edge.caller_id,
        callee_id=edge.callee_id,
        callee_name=edge.callee_name,
        line=edge.line,
        resolution=_RESOLUTION_TO_PB[edge.resolution],
        candidates=edge.candidates,
        count=edge.calls,
    )


def node_to_pb(node: GraphNode) -> graph_pb2.GraphNode:
    return graph_pb2.GraphNode(symbol=symbol_to_pb(node.symbol), depth=node.depth)


def ref_from_pb(message: graph_pb2.SymbolRef) -> SymbolRef:
    return SymbolRef(id=message.id, name=message.name)


def _timestamp(value: Any) -> Timestamp:
    stamp = Timestamp()
    stamp.FromDatetime(value)
    return stamp


def _converted(items: Any, convert: Callable[[Any], T], field: str) -> list[T]:
    out = []
    for i, item in enumerate(items):
        try:
            out.append(convert(item))
        except ValueError as exc:
            raise InvalidArgument(f"{field}[{i}].{exc}") from None
    return out


class GraphServicer(graph_pb2_grpc.GraphServiceServicer):
    def __init__(self, engine: GraphEngine, workers: int = 4) -> None:
        self._engine = engine
        self._calls = EngineCalls(
            "graph",
            workers,
            {
                InvalidArgument: grpc.StatusCode.INVALID_ARGUMENT,
                SymbolNotFound: grpc.StatusCode.NOT_FOUND,
                StoreUnavailable: grpc.StatusCode.UNAVAILABLE,
            },
        )

    def close(self) -> None:
        self._calls.close()

    async def _convert(self, context: grpc.aio.ServicerContext, fn: Callable[[], T]) -> T:
        try:
            return fn()
        except InvalidArgument as exc:
            await context.abort(grpc.StatusCode.INVALID_ARGUMENT, error_message(exc))
        raise AssertionError("unreachable: context.abort raises")

    async def ReplaceFileGraph(self, request, context):  # noqa: N802
        symbols, call_sites, imports = await self._convert(
            context,
            lambda: (
                _converted(request.symbols, symbol_from_pb, "symbols"),
                _converted(request.call_sites, call_site_from_pb, "call_sites"),
                _converted(request.imports, import_from_pb, "imports"),
            ),
        )
        result = await self._calls.run(
            context,
            self._engine.replace_file,
            request.repo,
            request.path,
            request.file_hash,
            symbols,
            call_sites,
            imports,
        )
        return graph_pb2.ReplaceFileGraphResponse(symbols=result.symbols, call_sites=result.call_sites)

    async def DeleteFiles(self, request, context):  # noqa: N802
        removed = await self._calls.run(context, self._engine.delete_files, request.repo, list(request.paths))
        return graph_pb2.DeleteFilesResponse(symbols_deleted=removed)

    async def DeleteRepo(self, request, context):  # noqa: N802
        removed = await self._calls.run(context, self._engine.delete_repo, request.repo)
        return graph_pb2.DeleteRepoResponse(symbols_deleted=removed)

    async def Callers(self, request, context):  # noqa: N802
        return await self._neighbours(request, context, self._engine.callers, graph_pb2.CallersResponse)

    async def Callees(self, request, context):  # noqa: N802
        return await self._neighbours(request, context, self._engine.callees, graph_pb2.CalleesResponse)

    async def _neighbours(self, request: Any, context: Any, find: Callable[..., Any], response: Any) -> Any:
        """Callers and Callees: the same request fields and the same answer shape, opposite directions."""
        result = await self._calls.run(
            context,
            find,
            request.repo,
            ref_from_pb(request.symbol),
            request.depth,
            request.limit,
            request.include_ambiguous,
        )
        return response(
            seeds=[symbol_to_pb(s) for s in result.seeds],
            nodes=[node_to_pb(n) for n in result.nodes],
            edges=[edge_to_pb(e) for e in result.edges],
            truncated=result.truncated,
        )

    async def CallTree(self, request, context):  # noqa: N802
        tree = await self._calls.run(
            context,
            self._engine.call_tree,
            request.repo,
            ref_from_pb(request.seed),
            request.up,
            request.down,
            request.branch,
        )
        return graph_pb2.CallTreeResponse(
            seed=symbol_to_pb(tree.seed),
            nodes=[node_to_pb(n) for n in tree.nodes],
            edges=[edge_to_pb(e) for e in tree.edges],
            alternatives=[symbol_to_pb(s) for s in tree.alternatives],
        )

    async def ShortestPath(self, request, context):  # noqa: N802
        path = await self._calls.run(
            context,
            self._engine.shortest_path,
            request.repo,
            ref_from_pb(getattr(request, "from")),
            ref_from_pb(request.to),
            request.max_depth,
        )
        return graph_pb2.ShortestPathResponse(
            path=[symbol_to_pb(s) for s in path.symbols], edges=[edge_to_pb(e) for e in path.edges]
        )

    async def Imports(self, request, context):  # noqa: N802
        imports = await self._calls.run(context, self._engine.imports, request.repo, request.path)
        return graph_pb2.ImportsResponse(imports=[import_to_pb(i) for i in imports])

    async def Importers(self, request, context):  # noqa: N802
        imports = await self._calls.run(context, self._engine.importers, request.repo, request.path)
        return graph_pb2.ImportersResponse(imports=[import_to_pb(i) for i in imports])

    async def Communities(self, request, context):  # noqa: N802
        report: CommunityReport = await self._calls.run(
            context, self._engine.communities, request.repo, request.limit, request.recompute
        )
        return graph_pb2.CommunitiesResponse(
            communities=[
                graph_pb2.Community(
                    id=c.id,
                    size=c.size,
                    dominant_paths=list(c.dominant_paths),
                    top_symbols=[symbol_to_pb(s) for s in c.top_symbols],
                    label=c.label,
                )
                for c in report.communities
            ],
            hubs=[
                graph_pb2.Hub(
                    symbol=symbol_to_pb(h.symbol),
                    in_degree=h.in_degree,
                    out_degree=h.out_degree,
                    community=h.community,
                )
                for h in report.hubs
            ],
            bridges=[
                graph_pb2.Bridge(
                    edge=edge_to_pb(b.edge), from_community=b.from_community, to_community=b.to_community
                )
                for b in report.bridges
            ],
            modularity=report.modularity,
            computed_at=_timestamp(report.computed_at),
        )

    async def Stats(self, request, context):  # noqa: N802
        stats = await self._calls.run(context, self._engine.stats, request.repo)
        response = graph_pb2.StatsResponse(
            symbols=stats.symbols,
            resolved_edges=stats.resolved_edges,
            ambiguous_edges=stats.ambiguous_edges,
            external_calls=stats.external_calls,
            imports=stats.imports,
            communities=stats.communities,
        )
        if stats.last_recompute is not None:
            response.last_recompute.CopyFrom(_timestamp(stats.last_recompute))
        return response
