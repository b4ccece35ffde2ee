"""The composition root picks the backend from the URL, in one place."""

from __future__ import annotations

import pytest

from kit.settings import ConfigError
from services.graph.adapters.sqlite_graph_store import SqliteGraphStore
from services.graph.bootstrap import bootstrap, build_graph_store, sqlite_path
from services.graph.servicer import SERVICE_NAME, GraphServicer
from services.graph.settings import GraphSettings


def test_empty_url_is_sqlite_under_the_data_dir(tmp_path):
    store = build_graph_store("", tmp_path)
    try:
        assert isinstance(store, SqliteGraphStore)
        assert (tmp_path / "graph" / "graph.db").exists()
    finally:
        store.close()


def test_sqlite_url_paths(tmp_path):
    assert sqlite_path(f"sqlite:///{tmp_path}/g.db", tmp_path) == tmp_path / "g.db"
    assert sqlite_path(f"sqlite:////{tmp_path}/g.db", tmp_path) == tmp_path / "g.db"
    with pytest.raises(ConfigError, match="REPORECALL_GRAPH_URL"):
        sqlite_path("sqlite:///", tmp_path)


def test_unknown_scheme_names_the_setting_and_the_choices(tmp_path):
    with pytest.raises(ConfigError, match="REPORECALL_GRAPH_URL=redis://x") as err:
        build_graph_store("redis://x", tmp_path)
    assert "bolt://" in str(err.value) and "sqlite://" in str(err.value)


async def test_bootstrap_wires_the_servicer_and_stops_cleanly(tmp_path):
    parts = bootstrap(GraphSettings(data_dir=tmp_path, community_settle_seconds=0))
    ((add, servicer, name),) = parts.servicers
    assert name == SERVICE_NAME == "reporecall.graph.v1.GraphService"
    assert isinstance(servicer, GraphServicer)
    await parts.on_start()
    await parts.on_stop()
