"""GraphService over a real in-process grpc.aio server on port 0."""

from __future__ import annotations

from collections.abc import AsyncIterator

import grpc
import pytest

from kit.convert import call_site_to_pb, import_to_pb, symbol_to_pb
from reporecall.common.v1 import common_pb2
from reporecall.graph.v1 import graph_pb2, graph_pb2_grpc
from services.graph.adapters.sqlite_graph_store import SqliteGraphStore
from services.graph.engine import GraphEngine
from services.graph.servicer import GraphServicer
from services.graph.tests.graph_builders import FileSpec, sid

REPO = "demo"


@pytest.fixture
async def stub(tmp_path) -> AsyncIterator[graph_pb2_grpc.GraphServiceStub]:
    engine = GraphEngine(SqliteGraphStore(tmp_path / "graph.db"), settle_seconds=0)
    servicer = GraphServicer(engine, workers=2)
    server = grpc.aio.server()
    graph_pb2_grpc.add_GraphServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    await server.start()
    channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield graph_pb2_grpc.GraphServiceStub(channel)
    finally:
        await channel.close()
        await server.stop(None)
        servicer.close()
        engine.close()


def _request(spec: FileSpec) -> graph_pb2.ReplaceFileGraphRequest:
    return graph_pb2.ReplaceFileGraphRequest(
        repo=REPO,
        path=spec.path,
        file_hash="h",
        symbols=[symbol_to_pb(s) for s in spec.symbols],
        call_sites=[call_site_to_pb(c) for c in spec.calls],
        imports=[import_to_pb(i) for i in spec.imports],
    )


async def _load(stub) -> None:
    specs = [
        FileSpec("app/main.py")
        .define("main")
        .call("main", "handle")
        .call("main", "print")
        .imports_("app.handlers", "app/handlers.py", names=("handle",)),
        FileSpec("app/handlers.py").define("handle").call("handle", "store"),
        FileSpec("app/db.py").define("store"),
    ]
    for spec in specs:
        reply = await stub.ReplaceFileGraph(_request(spec))
        assert (reply.symbols, reply.call_sites) == (len(spec.symbols), len(spec.calls))


async def test_queries_round_trip_over_grpc(stub):
    await _load(stub)
    ref = graph_pb2.SymbolRef

    callees = await stub.Callees(graph_pb2.CalleesRequest(repo=REPO, symbol=ref(name="main"), depth=2))
    assert [(n.symbol.name, n.depth) for n in callees.nodes] == [("handle", 1), ("store", 2)]
    assert {(e.callee_name, e.resolution) for e in callees.edges} == {
        ("handle", graph_pb2.RESOLUTION_IMPORTED),
        ("store", graph_pb2.RESOLUTION_GLOBAL_UNIQUE),
        ("print", graph_pb2.RESOLUTION_EXTERNAL),
    }
    assert callees.seeds[0].kind == common_pb2.CHUNK_KIND_FUNCTION

    callers = await stub.Callers(
        graph_pb2.CallersRequest(repo=REPO, symbol=ref(id=sid("app/db.py", "store")))
    )
    assert [n.symbol.id for n in callers.nodes] == [sid("app/handlers.py", "handle")]

    tree = await stub.CallTree(graph_pb2.CallTreeRequest(repo=REPO, seed=ref(name="handle"), up=1, down=1))
    assert tree.seed.name == "handle"
    assert sorted((n.symbol.name, n.depth) for n in tree.nodes) == [("main", -1), ("store", 1)]

    path = await stub.ShortestPath(
        graph_pb2.ShortestPathRequest(repo=REPO, **{"from": ref(name="main")}, to=ref(name="store"))
    )
    assert [s.name for s in path.path] == ["main", "handle", "store"]
    assert len(path.edges) == 2

    imports = await stub.Imports(graph_pb2.ImportsRequest(repo=REPO, path="app/main.py"))
    assert [(i.target, i.resolved_path, list(i.names)) for i in imports.imports] == [
        ("app.handlers", "app/handlers.py", ["handle"]),
    ]
    importers = await stub.Importers(graph_pb2.ImportersRequest(repo=REPO, path="app/handlers.py"))
    assert [i.path for i in importers.imports] == ["app/main.py"]

    communities = await stub.Communities(graph_pb2.CommunitiesRequest(repo=REPO))
    assert sum(c.size for c in communities.communities) == 3
    assert communities.computed_at.seconds > 0
    stats = await stub.Stats(graph_pb2.StatsRequest(repo=REPO))
    assert (stats.symbols, stats.resolved_edges, stats.external_calls, stats.imports) == (3, 2, 1, 1)
    assert stats.last_recompute.seconds > 0

    deleted = await stub.DeleteFiles(graph_pb2.DeleteFilesRequest(repo=REPO, paths=["app/db.py"]))
    assert deleted.symbols_deleted == 1
    after = await stub.Callees(graph_pb2.CalleesRequest(repo=REPO, symbol=ref(name="handle")))
    assert [(e.callee_name, e.resolution) for e in after.edges] == [("store", graph_pb2.RESOLUTION_EXTERNAL)]
    gone = await stub.DeleteRepo(graph_pb2.DeleteRepoRequest(repo=REPO))
    assert gone.symbols_deleted == 2


async def test_unknown_symbol_is_not_found(stub):
    await _load(stub)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await stub.Callers(graph_pb2.CallersRequest(repo=REPO, symbol=graph_pb2.SymbolRef(name="nope")))
    assert err.value.code() == grpc.StatusCode.NOT_FOUND
    assert "no symbol named 'nope'" in err.value.details()


@pytest.mark.parametrize(
    ("request_", "method", "message"),
    [
        (
            graph_pb2.CallersRequest(repo=REPO, symbol=graph_pb2.SymbolRef(name="main"), depth=9),
            "Callers",
            "depth must be between 1 and 5",
        ),
        (
            graph_pb2.CallTreeRequest(repo=REPO, seed=graph_pb2.SymbolRef(name="main"), branch=-1),
            "CallTree",
            "branch must be between",
        ),
        (graph_pb2.CalleesRequest(repo=REPO), "Callees", "symbol: set either id or name"),
        (graph_pb2.ImportsRequest(repo=REPO), "Imports", "path is required"),
        (
            graph_pb2.ReplaceFileGraphRequest(
                repo=REPO, path="x.py", symbols=[common_pb2.Symbol(id="x", name="x")]
            ),
            "ReplaceFileGraph",
            "symbols[0].kind: unknown chunk kind 0",
        ),
    ],
)
async def test_bad_requests_are_invalid_argument_with_the_field_named(stub, request_, method, message):
    await _load(stub)
    with pytest.raises(grpc.aio.AioRpcError) as err:
        await getattr(stub, method)(request_)
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert message in err.value.details()


async def test_hostile_names_survive_the_round_trip(stub):
    hostile = 'x\'}) DETACH DELETE n // "q" \\ naïve 函数'
    spec = FileSpec(f"dir/{hostile}.py").define(hostile).call(hostile, hostile, receiver=hostile)
    await stub.ReplaceFileGraph(_request(spec))
    result = await stub.Callers(graph_pb2.CallersRequest(repo=REPO, symbol=graph_pb2.SymbolRef(name=hostile)))
    assert [s.name for s in result.seeds] == [hostile]
    assert [s.path for s in result.seeds] == [spec.path]
