"""Offline check of the Neo4j adapter: hostile values travel only as parameters, never in query text.

A recording stand-in for the driver captures every statement; the real-server behaviour is covered by the
contract suites when REPORECALL_TEST_NEO4J_URL is set.
"""

from __future__ import annotations

from typing import Any

import pytest

from services.graph.adapters import neo4j_graph_store
from services.graph.adapters.neo4j_graph_store import Neo4jGraphStore
from services.graph.tests.graph_builders import FileSpec

HOSTILE = 'x\'}) DETACH DELETE n // $repo "q" \\ `tick` naïve'


class _Result:
    def __init__(self, query: str) -> None:
        self._query = query

    def consume(self) -> None:
        return None

    def single(self) -> dict[str, Any] | None:
        if "collect(DISTINCT n.name)" in self._query:
            return {"names": [HOSTILE]}
        if "collect(DISTINCT t.path)" in self._query:
            return {"files": [HOSTILE], "modules": [HOSTILE]}
        if "count(" in self._query:
            return {"n": 0}
        return None

    def __iter__(self):
        return iter(())


class _Recorder:
    """Plays driver, session and transaction at once, recording (query, parameters)."""

    def __init__(self) -> None:
        self.statements: list[tuple[str, dict[str, Any]]] = []

    # driver
    def verify_connectivity(self) -> None:
        return None

    def execute_query(self, query: str, parameters_: dict | None = None, **kwargs: Any):
        params = {**(parameters_ or {}), **{k: v for k, v in kwargs.items() if not k.endswith("_")}}
        self.statements.append((query, params))
        return [], None, None

    def session(self, **config: Any) -> _Recorder:
        return self

    def close(self) -> None:
        return None

    # session
    def __enter__(self) -> _Recorder:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def execute_write(self, fn, *args: Any):
        return fn(self, *args)

    execute_read = execute_write

    # transaction (and auto-commit session.run)
    def run(self, query: str, parameters: dict | None = None, **kwargs: Any) -> _Result:
        self.statements.append((query, {**(parameters or {}), **kwargs}))
        return _Result(query)


def _strings(value: Any) -> set[str]:
    """Every string inside a parameter value (lists and maps walked)."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_strings(v) for v in value.values()))
    if isinstance(value, list | tuple):
        return set().union(*(_strings(v) for v in value))
    return set()


@pytest.fixture
def recorder(monkeypatch) -> _Recorder:
    rec = _Recorder()
    monkeypatch.setattr(neo4j_graph_store.GraphDatabase, "driver", lambda uri, auth=None, **config: rec)
    return rec


def test_hostile_values_never_reach_query_text(recorder):
    store = Neo4jGraphStore("bolt://unused:7687")
    spec = FileSpec(HOSTILE).define(HOSTILE).call(HOSTILE, HOSTILE, receiver=HOSTILE)
    spec.imports_(HOSTILE, HOSTILE, names=(HOSTILE,)).imports_(HOSTILE + "2")

    store.replace_file(HOSTILE, HOSTILE, HOSTILE, spec.symbols, spec.calls, spec.imports)
    store.delete_files(HOSTILE, [HOSTILE])
    store.delete_repo(HOSTILE)
    store.symbols_by_id(HOSTILE, [HOSTILE])
    store.symbols_by_name(HOSTILE, [HOSTILE])
    store.symbols_by_qualified_name(HOSTILE, [HOSTILE])
    store.call_sites_from(HOSTILE, [HOSTILE])
    store.call_sites_to(HOSTILE, [HOSTILE])
    store.imports_of(HOSTILE, [HOSTILE])
    store.importers_of(HOSTILE, [HOSTILE])
    store.file_graph(HOSTILE, HOSTILE)
    store.facts(HOSTILE)
    store.counts(HOSTILE)
    store.generation(HOSTILE)

    assert len(recorder.statements) > 20
    for query, _params in recorder.statements:
        assert HOSTILE not in query
        assert "naïve" not in query
    carried = [p for _, p in recorder.statements if p]
    assert all(p.get("repo") == HOSTILE for p in carried if "repo" in p)
    assert any(HOSTILE in _strings(p.get("symbols")) for p in carried)
    assert any(HOSTILE in _strings(p.get("calls")) for p in carried)
    # Schema statements ran at start-up, before any data.
    assert recorder.statements[0][0].startswith("CREATE CONSTRAINT")
