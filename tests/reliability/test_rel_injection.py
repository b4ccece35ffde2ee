"""Injection: names, paths, queries and memories carrying Cypher, FTS5 and Meilisearch-filter syntax are
stored and found literally, end to end through the gateway, and never change what the stores hold.

Runs on the embedded stores (SQLite FTS5, numpy vectors, SQLite graph) always, and again on Meilisearch,
Qdrant and Neo4j when REPORECALL_TEST_MEILI_URL / REPORECALL_TEST_QDRANT_URL / REPORECALL_TEST_NEO4J_URL are
set (a suite of its own, started with those URLs).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from reporecall.graph.v1 import graph_pb2
from reporecall.search.v1 import search_pb2
from tests.reliability.rel_support import HOOK, git_commit, holdings, hook_text, index, prompt_payload, stubs
from tests.suite import Suite

pytestmark = pytest.mark.e2e

CYPHER = "x' }) MATCH (n) DETACH DELETE n //"
FTS5 = 'NEAR(alpha beta) AND "unbalanced OR title:* ^start -not'
MEILI = 'repo = "shop" OR path != "" AND chunk_id EXISTS'
SQL = "'; DROP TABLE chunks; --"

WEIRD_DIR = 'src/it\'s "q" (v1) [draft] {x} AND NOT near'
WEIRD_PY = f"{WEIRD_DIR}/ledger.py"
BACKTICK_PY = "src/back`tick'quote\"s.py"
CYPHER_MD = "notes/x' }) MATCH (n) DETACH DELETE n.md"
QUERIES = [
    CYPHER,
    FTS5,
    MEILI,
    SQL,
    '"',
    "*",
    "NEAR(",
    "AND",
    "OR NOT",
    "col:term",
    "(",
    ")",
    "{",
    "}",
    "\\",
    "'",
    "`",
    "$where$",
    "valid?",
    pytest.param("a\x00b", id="'a\\x00b'"),
    "%",
    "_",
    "repo:shop",
    "path:/etc/passwd",
    "title:^x$",
]


def make_injection_repo(root: Path) -> Path:
    (root / WEIRD_DIR).mkdir(parents=True)
    (root / WEIRD_PY).write_text(
        '"""Ledger with a hostile path."""\n\n\ndef post_ledger_entry(amount):\n'
        f'    """Post an entry; note: {CYPHER}."""\n    return record_entry(amount)\n\n\n'
        f'def record_entry(amount):\n    """{FTS5}"""\n    return amount\n'
    )
    (root / BACKTICK_PY).write_text(f'def quoted_path_marker():\n    """{MEILI}"""\n    return 1\n')
    (root / "notes").mkdir()
    (root / CYPHER_MD).write_text(f"# {CYPHER}\n\nRunbook section about {SQL} and {MEILI}.\n")
    (root / "lib").mkdir()
    (root / "lib" / "where.js").write_text(
        "function $where$(doc) {\n  return doc.filter(x => x.repo === 'shop');\n}\n\n"
        "function callsWhere() {\n  return $where$({});\n}\n"
    )
    (root / "lib" / "predicates.rb").write_text(
        "class Order\n  def valid?\n    total > 0\n  end\n\n  def destroy!\n    valid? && purge\n  end\nend\n"
    )
    git_commit(root)
    return root


SERVER_ENV = {
    "REPORECALL_KEYWORD_URL": os.environ.get("REPORECALL_TEST_MEILI_URL", ""),
    "REPORECALL_MEILI_API_KEY": os.environ.get("REPORECALL_TEST_MEILI_KEY", ""),
    "REPORECALL_VECTOR_URL": os.environ.get("REPORECALL_TEST_QDRANT_URL", ""),
    "REPORECALL_QDRANT_API_KEY": os.environ.get("REPORECALL_TEST_QDRANT_KEY", ""),
    "REPORECALL_GRAPH_URL": os.environ.get("REPORECALL_TEST_NEO4J_URL", ""),
    "REPORECALL_GRAPH_USER": os.environ.get("REPORECALL_TEST_NEO4J_USER", ""),
    "REPORECALL_GRAPH_PASSWORD": os.environ.get("REPORECALL_TEST_NEO4J_PASSWORD", ""),
}
HAVE_SERVERS = any(
    SERVER_ENV[k] for k in ("REPORECALL_KEYWORD_URL", "REPORECALL_VECTOR_URL", "REPORECALL_GRAPH_URL")
)


@pytest.fixture(
    scope="module",
    params=[
        "embedded",
        pytest.param(
            "servers",
            marks=pytest.mark.skipif(
                not HAVE_SERVERS,
                reason=(
                    "set REPORECALL_TEST_MEILI_URL / _QDRANT_URL / _NEO4J_URL to run against the servers"
                ),
            ),
        ),
    ],
)
def injected(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory):
    """(suite, repo name): the hostile repository indexed, next to the spine fixture as a bystander."""
    if request.param == "embedded":
        suite: Suite = request.getfixturevalue("shop")
        own = None
    else:
        # One client firing the hostile queries back to back, as the shared suite does: no per-token rate
        # limit (a fast server let them exceed it, and 429s are not what these tests check).
        env = {"REPORECALL_RATE_LIMIT_PER_SECOND": "0", **{k: v for k, v in SERVER_ENV.items() if v}}
        own = suite = Suite.start(tmp_path_factory.mktemp("injsuite"), env=env)
        from tests.reliability.conftest import SPINE

        index(suite, SPINE, "shop")
    repo = make_injection_repo(tmp_path_factory.mktemp("inject") / "inject")
    index(suite, repo, "inject")
    yield suite
    if own is not None:
        assert own.stop() == 0


def search(suite: Suite, query: str, **extra: Any) -> dict[str, Any]:
    reply = suite.post("/api/search", {"repo": "inject", "query": query, **extra})
    assert reply.status_code in (200, 400), reply.text
    return reply.json()  # type: ignore[no-any-return]


def test_hostile_paths_are_stored_and_returned_literally(injected: Suite) -> None:
    with stubs(injected) as s:
        found = s.search.Search(search_pb2.SearchRequest(repo="inject", query="post ledger entry", limit=10))
        paths = {hit.chunk.path for hit in found.hits}
        assert WEIRD_PY in paths, paths
        symbols = s.search.FindSymbols(
            search_pb2.FindSymbolsRequest(repo="inject", name="quoted_path_marker", limit=5)
        )
        assert [c.path for c in symbols.symbols] == [BACKTICK_PY]
        prefixed = s.search.Search(
            search_pb2.SearchRequest(
                repo="inject",
                query="ledger entry",
                limit=10,
                filters=search_pb2.SearchFilters(path_prefix=WEIRD_DIR),
            )
        )
        assert prefixed.hits and {h.chunk.path for h in prefixed.hits} == {WEIRD_PY}
        imports = s.graph.Imports(graph_pb2.ImportsRequest(repo="inject", path=WEIRD_PY))
        assert all(i.path == WEIRD_PY for i in imports.imports)
        callees = s.graph.Callees(
            graph_pb2.CalleesRequest(
                repo="inject", symbol=graph_pb2.SymbolRef(name="post_ledger_entry"), depth=1, limit=10
            )
        )
        assert [n.symbol.path for n in callees.nodes] == [WEIRD_PY]
    markdown = search(injected, "runbook section", mode="keyword")
    assert CYPHER_MD in {h["chunk"]["path"] for h in markdown.get("hits", [])}, markdown


def test_symbol_names_with_operator_characters_are_found_exactly(injected: Suite) -> None:
    for name, language in (("$where$", "javascript"), ("valid?", "ruby"), ("destroy!", "ruby")):
        found = injected.post("/api/ops/find_symbol", {"repo": "inject", "name": name}).json()
        names = [c["name"] for c in found.get("symbols", [])]
        assert names == [name], (name, found)
        assert found["symbols"][0]["language"] == language
    callers = injected.post("/api/ops/callers", {"repo": "inject", "symbol": "$where$"}).json()
    assert [n["symbol"]["name"] for n in callers.get("nodes", [])] == ["callsWhere"], callers
    callers = injected.post("/api/ops/callers", {"repo": "inject", "symbol": "valid?"}).json()
    assert [n["symbol"]["name"] for n in callers.get("nodes", [])] == ["destroy!"], callers


@pytest.mark.parametrize("query", QUERIES, ids=repr)
def test_query_syntax_is_searched_literally_and_changes_nothing(injected: Suite, query: str) -> None:
    before = {repo: holdings(injected, repo) for repo in ("shop", "inject")}
    for mode in ("keyword", "hybrid"):
        search(injected, query, mode=mode)
        search(injected, query, mode=mode, path_prefix="src")
    for op, arguments in (
        ("find_symbol", {"name": query, "match": "fuzzy"}),
        ("find_symbol", {"name": query, "match": "prefix"}),
        ("callers", {"symbol": query}),
        ("call_tree", {"symbol": query}),
        ("recall", {"query": query}),
    ):
        reply = injected.post(f"/api/ops/{op}", {"repo": "inject", **arguments})
        assert reply.status_code in (200, 400, 404), (op, reply.status_code, reply.text)
    hook = injected.post(
        HOOK,
        prompt_payload(f"how does {query} work in post_ledger_entry", "/nowhere"),
        **{"X-Reporecall-Repo": "inject"},
    )
    hook_text(hook)
    assert {repo: holdings(injected, repo) for repo in ("shop", "inject")} == before


def test_queries_with_hostile_syntax_still_find_the_literal_text(injected: Suite) -> None:
    """The docstrings hold the hostile strings themselves; a keyword search for their words finds them."""
    for query, symbol in (
        ("MATCH DETACH DELETE", "post_ledger_entry"),
        ("NEAR alpha beta unbalanced", "record_entry"),
        ('repo = "shop" OR path', "quoted_path_marker"),
    ):
        hits = search(injected, query, mode="keyword").get("hits", [])
        assert symbol in [h["chunk"]["qualified_name"] for h in hits], (query, hits)


@pytest.mark.parametrize("text", [CYPHER, FTS5, MEILI, SQL], ids=["cypher", "fts5", "meili", "sql"])
def test_memories_with_query_syntax_are_stored_and_recalled_literally(injected: Suite, text: str) -> None:
    name = f"hostile {text}"[:120]
    body = f"Team rule about the zqinject marker: {text}"
    stored = injected.post(
        "/api/ops/store_memory",
        {"repo": "inject", "name": name, "body": body, "description": text, "memory_class": "rule"},
    )
    assert stored.status_code == 200, stored.text
    memory = stored.json()["memory"]
    assert memory["body"] == body and memory["description"] == text
    recalled = injected.post("/api/ops/recall", {"repo": "inject", "query": f"zqinject marker {text}"})
    assert recalled.status_code == 200, recalled.text
    bodies = [m["memory"]["body"] for m in recalled.json().get("memories", [])]
    assert body in bodies, bodies
    listed = injected.post("/api/ops/list_memories", {"repo": "inject", "limit": 500}).json()
    assert name in [m["name"] for m in listed["memories"]]
    assert injected.post("/api/ops/forget_memory", {"repo": "inject", "memory_id": memory["id"]}).json()[
        "forgotten"
    ]


def test_repository_names_are_never_filter_syntax(injected: Suite) -> None:
    """A repo name is a value, not a filter: 'shop" OR repo != "' must not widen a search to every repo."""
    for name in ('shop" OR repo != "', "shop' OR '1'='1", "*", "shop OR inject", "%"):
        reply = injected.post("/api/search", {"repo": name, "query": "ledger entry"})
        assert reply.status_code == 400 and reply.json()["field"] == "repo", reply.text
        with stubs(injected) as s:
            hits = s.search.Search(
                search_pb2.SearchRequest(repo=name, query="ledger entry post", limit=20)
            ).hits
            stats = s.graph.Stats(graph_pb2.StatsRequest(repo=name))
        assert not hits and stats.symbols == 0, (name, [h.chunk.repo for h in hits])
