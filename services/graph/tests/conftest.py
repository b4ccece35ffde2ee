"""Backends for the graph contract suites: SQLite always, Neo4j when REPORECALL_TEST_NEO4J_URL is set."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from services.graph.adapters.sqlite_graph_store import SqliteGraphStore
from services.graph.engine import GraphEngine
from services.graph.ports import GraphStore

NEO4J_URL = os.environ.get("REPORECALL_TEST_NEO4J_URL", "")

BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param(
        "neo4j",
        id="neo4j",
        marks=pytest.mark.skipif(not NEO4J_URL, reason="set REPORECALL_TEST_NEO4J_URL to run against Neo4j"),
    ),
]


def open_store(backend: str, tmp_path) -> GraphStore:
    if backend == "sqlite":
        return SqliteGraphStore(tmp_path / "graph.db")
    from services.graph.adapters.neo4j_graph_store import Neo4jGraphStore

    user = os.environ.get("REPORECALL_TEST_NEO4J_USER", "")
    password = os.environ.get("REPORECALL_TEST_NEO4J_PASSWORD", "")
    return Neo4jGraphStore(NEO4J_URL, auth=(user, password) if user else None, connect_timeout_s=10)


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path) -> Iterator[GraphStore]:
    s = open_store(request.param, tmp_path)
    yield s
    s.close()


@pytest.fixture
def repo(store) -> Iterator[str]:
    """A repository name of its own, so tests can share one Neo4j database."""
    name = f"test-{uuid.uuid4().hex[:10]}"
    yield name
    store.delete_repo(name)


@pytest.fixture
def engine(store) -> GraphEngine:
    return GraphEngine(store, settle_seconds=0)
