"""The hook's Facts state resolved call edges only (issue 17): an ambiguous edge may bring a neighbour's
code into the block, but `X calls Y` is written only when the graph resolved the call to Y."""

from __future__ import annotations

from typing import Any

from gateway.adapters.grpc_backends import GrpcGraph
from gateway.call_graph import call_graph_facts
from gateway.ports import CallEdge, CallTree
from kit.convert import symbol_to_pb
from kit.domain import ChunkKind, Symbol
from reporecall.graph.v1 import graph_pb2


def symbol(qualified_name: str, path: str = "a.py", line: int = 1) -> Symbol:
    kind = ChunkKind.METHOD if "." in qualified_name else ChunkKind.FUNCTION
    name = qualified_name.rpartition(".")[2]
    return Symbol(f"{path}#{qualified_name}", path, name, qualified_name, kind, line, line + 3)


def test_facts_name_resolved_callers_and_callees_and_leave_ambiguous_ones_out() -> None:
    seed = symbol("Session.send")
    resolved_callee = symbol("HTTPAdapter.send", "adapters.py", 10)
    guessed_callee = symbol("Session.get", "sessions.py", 20)  # `kwargs.get()`: one of many `get`s
    resolved_caller = symbol("Session.request", "sessions.py", 30)
    guessed_caller = symbol("Other.run", "other.py", 40)
    tree = CallTree(
        nodes=((resolved_callee, 1), (guessed_callee, 1), (resolved_caller, -1), (guessed_caller, -1)),
        edges=(
            CallEdge(seed.id, resolved_callee.id, 5),
            CallEdge(seed.id, guessed_callee.id, 6, ambiguous=True),
            CallEdge(resolved_caller.id, seed.id, 33),
            CallEdge(guessed_caller.id, seed.id, 44, ambiguous=True),
        ),
    )
    facts = call_graph_facts(seed, tree)
    assert [r.name for r in facts.callees] == ["HTTPAdapter.send"]
    assert [(r.name, r.line) for r in facts.callers] == [("Session.request", 33)]


class _Reply:
    def __init__(self, reply: graph_pb2.CallTreeResponse) -> None:
        self.reply = reply

    async def __call__(self, method: str, request: Any, timeout: float) -> graph_pb2.CallTreeResponse:
        assert method == "CallTree"
        return self.reply


async def test_the_graph_adapter_marks_every_edge_that_does_not_name_one_definition() -> None:
    seed, callee = symbol("f"), symbol("g")
    resolutions = {
        graph_pb2.RESOLUTION_SAME_FILE: False,
        graph_pb2.RESOLUTION_IMPORTED: False,
        graph_pb2.RESOLUTION_GLOBAL_UNIQUE: False,
        graph_pb2.RESOLUTION_AMBIGUOUS: True,
        graph_pb2.RESOLUTION_UNSPECIFIED: True,
    }
    reply = graph_pb2.CallTreeResponse(
        seed=symbol_to_pb(seed),
        nodes=[graph_pb2.GraphNode(symbol=symbol_to_pb(callee), depth=1)],
        edges=[
            graph_pb2.CallEdge(
                caller_id=seed.id, callee_id=callee.id, callee_name="g", line=i + 1, resolution=r
            )
            for i, r in enumerate(resolutions)
        ],
    )
    graph = GrpcGraph.__new__(GrpcGraph)  # the translation only; the channel is not under test
    graph.call = _Reply(reply)  # type: ignore[method-assign]
    tree = await graph.call_tree("repo", seed.id, 1, 1, 8, 1.0)
    assert [e.ambiguous for e in tree.edges] == list(resolutions.values())
