"""Congruence (as qdrant-client's congruence tests): the same corpus and queries through the SQLite graph
store and a real Neo4j give the same answers — facts, callers, callees, call trees, imports, importers,
shortest paths and communities (compared as member sets, so up to label permutation).

Runs when REPORECALL_TEST_NEO4J_URL is set (`make test` starts a Neo4j for it).
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from bench.bench_graph import synthetic_repo
from services.graph.adapters.sqlite_graph_store import SqliteGraphStore
from services.graph.domain.model import SymbolRef
from services.graph.engine import GraphEngine
from services.graph.tests.graph_builders import FileSpec, load
from services.graph.tests.test_graph_fixture_accuracy import fixture_files

NEO4J_URL = os.environ.get("REPORECALL_TEST_NEO4J_URL", "")
pytestmark = pytest.mark.skipif(not NEO4J_URL, reason="set REPORECALL_TEST_NEO4J_URL to run against Neo4j")


@pytest.fixture
def engines(tmp_path) -> Iterator[tuple[str, GraphEngine, GraphEngine]]:
    from services.graph.adapters.neo4j_graph_store import Neo4jGraphStore

    repo = f"congruence-{uuid.uuid4().hex[:10]}"
    sqlite = GraphEngine(SqliteGraphStore(tmp_path / "graph.db"), settle_seconds=3600)
    neo4j_store = Neo4jGraphStore(NEO4J_URL, connect_timeout_s=10)
    neo4j = GraphEngine(neo4j_store, settle_seconds=3600)
    yield repo, sqlite, neo4j
    neo4j_store.delete_repo(repo)
    sqlite.close()
    neo4j.close()


def _load_both(repo: str, engines: tuple[GraphEngine, GraphEngine], files: list) -> None:
    for engine in engines:
        for path, symbols, calls, imports in files:
            engine.replace_file(repo, path, f"h-{path}", symbols, calls, imports)


def _corpus(n_symbols: int = 400) -> list:
    spec_files = [(f.path, f.symbols, f.calls, f.imports) for f in fixture_files()]
    return spec_files + [tuple(f) for f in synthetic_repo(n_symbols, 3, seed=11)]


def _answers(engine: GraphEngine, repo: str, picks: list) -> dict:
    """Every read the gateway makes, for the picked symbols and their files."""
    out: dict = {"facts": engine.store.facts(repo), "counts": engine.store.counts(repo)}
    for s in picks:
        ref = SymbolRef(id=s.id)
        out[("callers", s.id)] = engine.callers(repo, ref, depth=2, limit=200, include_ambiguous=True)
        out[("callees", s.id)] = engine.callees(repo, ref, depth=2, limit=200, include_ambiguous=True)
        out[("tree", s.id)] = engine.call_tree(repo, ref, up=2, down=2, branch=8)
        out[("tree-by-name", s.name)] = engine.call_tree(repo, SymbolRef(name=s.name), up=1, down=1)
        out[("imports", s.path)] = engine.imports(repo, s.path)
        out[("importers", s.path)] = engine.importers(repo, s.path)
    for a, b in zip(picks, picks[1:], strict=False):
        out[("path", a.id, b.id)] = engine.shortest_path(repo, SymbolRef(id=a.id), SymbolRef(id=b.id))
    return out


def _community_partition(engine: GraphEngine, repo: str) -> set[frozenset[str]]:
    report = engine.communities(repo, limit=1000, recompute=True)
    return {c.member_ids for c in report.communities}


def test_sqlite_and_neo4j_answer_every_graph_query_alike(engines):
    repo, sqlite, neo4j = engines
    corpus = _corpus()
    _load_both(repo, (sqlite, neo4j), corpus)
    symbols = [s for _, syms, _, _ in corpus for s in syms]
    picks = symbols[:: max(1, len(symbols) // 40)]

    # Before any recompute every answer is resolved from the store, so this compares the stores themselves.
    from_store = _answers(sqlite, repo, picks), _answers(neo4j, repo, picks)
    assert from_store[0]["counts"].call_sites > 1000
    assert from_store[0] == from_store[1]

    assert _community_partition(sqlite, repo) == _community_partition(neo4j, repo)
    settled = _answers(sqlite, repo, picks), _answers(neo4j, repo, picks)
    assert settled[0] == settled[1]


def test_backends_stay_congruent_through_edits_and_deletions(engines):
    repo, sqlite, neo4j = engines
    corpus = _corpus(200)
    _load_both(repo, (sqlite, neo4j), corpus)
    edited = (
        FileSpec("pkg/text.py")
        .define("format_name")
        .define("tidy")
        .call("tidy", "format_name")
        .call("tidy", "log")
    )
    for engine in (sqlite, neo4j):
        load(engine, repo, [edited])
        engine.delete_files(repo, ["pkg/db.py", corpus[-1][0]])
    symbols = [s for _, syms, _, _ in corpus[:-1] for s in syms if s.path != "pkg/db.py"]
    picks = symbols[:: max(1, len(symbols) // 25)] + edited.symbols
    assert _answers(sqlite, repo, picks) == _answers(neo4j, repo, picks)
    assert _community_partition(sqlite, repo) == _community_partition(neo4j, repo)

    for engine in (sqlite, neo4j):
        assert engine.delete_repo(repo) > 0
        assert engine.store.counts(repo).symbols == 0
