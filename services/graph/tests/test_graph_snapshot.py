"""Traversals over the in-memory graph (after a recompute) equal those resolved from the store."""

from __future__ import annotations

from services.graph.domain.model import SymbolRef
from services.graph.domain.snapshot import GraphSnapshot
from services.graph.engine import GraphEngine, _EdgeReader
from services.graph.tests.graph_builders import load
from services.graph.tests.test_graph_communities import planted_files
from services.graph.tests.test_graph_fixture_accuracy import fixture_files


def _answers(engine: GraphEngine, repo: str) -> list:
    out: list[object] = []
    for s in engine.store.facts(repo).symbols:
        ref = SymbolRef(id=s.id)
        out.append(engine.callers(repo, ref, depth=3, include_ambiguous=True))
        out.append(engine.callees(repo, ref, depth=2, limit=7))
        out.append(engine.call_tree(repo, ref, up=2, down=2, branch=3))
        out.append(engine.shortest_path(repo, ref, SymbolRef(name="log")) if s.name != "log" else None)
    return out


def test_snapshot_and_store_resolution_agree(engine, repo):
    files = fixture_files()
    planted, _ = planted_files()
    load(engine, repo, files + planted)

    from_store = _answers(engine, repo)
    assert isinstance(engine._edges(repo), _EdgeReader)
    engine.communities(repo, recompute=True)
    assert isinstance(engine._edges(repo), GraphSnapshot)
    assert _answers(engine, repo) == from_store


def test_a_write_after_the_snapshot_falls_back_to_the_store(engine, repo):
    load(engine, repo, fixture_files())
    engine.communities(repo, recompute=True)
    engine.delete_files(repo, ["pkg/db.py"])
    assert isinstance(engine._edges(repo), _EdgeReader)
    callees = engine.callees(repo, SymbolRef(name="main"))
    assert "pkg/db.py" not in {n.symbol.path for n in callees.nodes}
