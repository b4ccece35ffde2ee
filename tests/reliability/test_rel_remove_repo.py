"""Removing a repository (DELETE /api/repos/{name}) removes its data from every service — and nothing else."""

from __future__ import annotations

import urllib.parse
from pathlib import Path

import httpx
import pytest

from reporecall.graph.v1 import graph_pb2
from reporecall.search.v1 import search_pb2
from services.memory.adapters.memory_folder import folder_name
from tests.reliability.rel_support import HOOK, holdings, index, make_marker_repo, prompt_payload, stubs
from tests.suite import Suite, wait_for

pytestmark = pytest.mark.e2e
EMPTY = {
    "search_files": 0,
    "search_chunks": 0,
    "graph_symbols": 0,
    "graph_edges": 0,
    "graph_imports": 0,
    "memories": 0,
}


def fill(suite: Suite, root: Path, name: str) -> None:
    """Index the repo and give it memories of every kind the hook path creates."""
    index(suite, root, name)
    stored = suite.post(
        "/api/ops/store_memory",
        {
            "repo": name,
            "name": f"{name} rule",
            "memory_class": "rule",
            "body": f"{name} releases are cut on Tuesdays",
        },
    )
    assert stored.status_code == 200, stored.text
    suite.post(
        HOOK, prompt_payload(f"how does {name}_step_1 compute the checksum?", root, session=f"{name}-s")
    )


@pytest.mark.usefixtures("no_restarts")
def test_removing_a_repository_clears_every_service_and_leaves_the_others_alone(
    shop: Suite, harbor: Path, tmp_path: Path
) -> None:
    doomed = make_marker_repo(tmp_path / "doomed", "doomedzq")
    fill(shop, doomed, "doomed")
    bystanders = {repo: holdings(shop, repo) for repo in ("shop", "harbor")}
    before = holdings(shop, "doomed")
    assert all(
        before[k] > 0 for k in ("search_files", "search_chunks", "graph_symbols", "graph_edges", "memories")
    )
    with stubs(shop) as s:
        ids = [
            h.chunk.id
            for h in s.search.Search(
                search_pb2.SearchRequest(repo="doomed", query="doomedzq checksum ledger", limit=20)
            ).hits
        ]
    assert ids

    reply = _delete(shop, "doomed")
    assert reply.status_code == 200 and reply.json().get("removed") is True, reply.text

    assert holdings(shop, "doomed") == EMPTY
    with stubs(shop) as s:
        assert s.search.Stats(search_pb2.StatsRequest(repo="doomed")).vectors == 0
        assert not s.search.GetChunks(search_pb2.GetChunksRequest(repo="doomed", ids=ids)).chunks
        assert not s.search.Search(search_pb2.SearchRequest(repo="doomed", query="doomedzq", limit=20)).hits
        assert not s.search.FindSymbols(
            search_pb2.FindSymbolsRequest(repo="doomed", name="doomedzq_step_1")
        ).symbols
        assert s.graph.Communities(graph_pb2.CommunitiesRequest(repo="doomed", limit=10)).communities == []
    memory_folder = shop.data_dir / "memory" / "repos" / folder_name("doomed")
    assert not list(memory_folder.rglob("*.md")), list(memory_folder.rglob("*"))
    assert "doomed" not in {r["name"] for r in shop.get("/api/repos").json()["repos"]}
    gone = shop.post("/api/search", {"repo": "doomed", "query": "doomedzq"})
    assert gone.status_code == 400 and gone.json()["field"] == "repo"

    assert {repo: holdings(shop, repo) for repo in bystanders} == bystanders
    found = shop.post("/api/search", {"repo": "shop", "query": "bulk discount"}).json()
    assert any(h["chunk"]["qualified_name"] == "apply_bulk_discount" for h in found["hits"])

    # The name is free again: registering and indexing it afresh converges on the same code data.
    index(shop, doomed, "doomed")
    code = ("search_files", "search_chunks", "graph_symbols", "graph_edges", "graph_imports")
    # Graph edge counts are those of the last community recompute, which waits for writes to settle (5 s).
    wait_for(
        lambda: {k: holdings(shop, "doomed")[k] for k in code} == {k: before[k] for k in code},
        20,
        "the re-indexed repository to hold what it held before",
    )
    assert _delete(shop, "doomed").json().get("removed") is True


@pytest.mark.usefixtures("no_restarts")
def test_removing_an_unknown_repository_changes_nothing(shop: Suite, harbor: Path) -> None:
    before = {repo: holdings(shop, repo) for repo in ("shop", "harbor")}
    for name in ("never-registered", "shop-", "SHOP", "harbor/.."):
        reply = _delete(shop, name)
        assert reply.status_code in (200, 400, 404) and not reply.json().get("removed"), (name, reply.text)
    assert {repo: holdings(shop, repo) for repo in before} == before
    assert {"shop", "harbor"} <= {r["name"] for r in shop.get("/api/repos").json()["repos"]}


def _delete(suite: Suite, name: str) -> httpx.Response:
    return httpx.delete(
        f"{suite.url}/api/repos/{urllib.parse.quote(name, safe='')}", headers=suite.headers(), timeout=60
    )
