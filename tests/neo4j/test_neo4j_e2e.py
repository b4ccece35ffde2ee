"""End to end on Neo4j: the five processes with REPORECALL_GRAPH_URL=bolt://… answer as on the SQLite graph.

One suite on the embedded SQLite graph and one on the Neo4j that `make test` starts index the same fixture
repository; hook, call tree, callers, callees, communities, a re-index after edits and removing the repository
give the same answers on both.
"""

from __future__ import annotations

import json
import os
import shutil
import urllib.parse
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import OFFLINE, SPINE
from tests.reliability.rel_support import HOOK, hook_text, index, prompt_payload
from tests.suite import Suite, wait_for

NEO4J_URL = os.environ.get("REPORECALL_TEST_NEO4J_URL", "")
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not NEO4J_URL, reason="set REPORECALL_TEST_NEO4J_URL to run against Neo4j"),
]


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("neo4j-e2e") / "spine"
    shutil.copytree(SPINE, root)
    return root


@pytest.fixture(scope="module")
def repo() -> str:
    return f"shop{uuid.uuid4().hex[:8]}"  # its own name: the Neo4j database is shared by the test session


@pytest.fixture(scope="module")
def suites(tmp_path_factory: pytest.TempPathFactory, checkout: Path, repo: str) -> Iterator[dict[str, Suite]]:
    started: dict[str, Suite] = {}
    # Communities recompute on the first read after a write (by default a report stays for 5 s of quiet, so
    # the two suites could answer from reports of different generations).
    env = {
        **OFFLINE,
        "REPORECALL_READ_CLAUDE_MEMORY": "false",
        "REPORECALL_WATCH": "false",
        "REPORECALL_COMMUNITY_SETTLE_SECONDS": "0",
    }
    try:
        started["sqlite"] = Suite.start(tmp_path_factory.mktemp("suite-sqlite"), env=env)
        started["neo4j"] = Suite.start(
            tmp_path_factory.mktemp("suite-neo4j"), env={**env, "REPORECALL_GRAPH_URL": NEO4J_URL}
        )
        for suite in started.values():
            index(suite, checkout, repo)
        yield started
    finally:
        for suite in started.values():
            suite.stop()


def graph(suite: Suite, repo: str, *args: str) -> object:
    result = suite.cli("graph", *args, "--repo", repo, "--json")
    assert result.returncode == 0, result.stderr + result.stdout
    return normalise(json.loads(result.stdout))


def normalise(value: object) -> object:
    """Drop what legitimately differs between runs (times, generations, community ids/labels order)."""
    if isinstance(value, dict):
        return {
            k: normalise(v)
            for k, v in value.items()
            if k not in ("computed_at", "generation", "elapsed_ms", "took_ms")
        }
    if isinstance(value, list):
        items = [normalise(v) for v in value]
        return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
    return value


QUERIES = [
    ("call_tree", "order_total"),
    ("callers", "apply_bulk_discount"),
    ("callees", "order_total"),
    ("callers", "vat_for_country"),
    ("imports", "src/shop/pricing.py"),
    ("importers", "src/shop/tax.py"),
    ("symbol", "PriceBook"),
]


def neo4j_symbols(repo: str) -> int:
    from neo4j import GraphDatabase

    with GraphDatabase.driver(NEO4J_URL) as driver:
        records, _, _ = driver.execute_query(
            "MATCH (s:Symbol) WHERE s.repo = $repo RETURN count(s) AS n", repo=repo
        )
    return int(records[0]["n"])


def answers(suite: Suite, repo: str) -> dict[str, object]:
    out: dict[str, object] = {f"{q} {t}": graph(suite, repo, q, t) for q, t in QUERIES}
    out["communities"] = graph(suite, repo, "communities")
    return out


def test_the_suite_on_neo4j_answers_like_the_suite_on_sqlite(
    suites: dict[str, Suite], repo: str, checkout: Path
):
    sqlite, neo4j = suites["sqlite"], suites["neo4j"]
    assert neo4j_symbols(repo) > 0  # the second suite's graph really lives in Neo4j
    first = answers(sqlite, repo), answers(neo4j, repo)
    assert "order_total" in json.dumps(first[0]["callers apply_bulk_discount"])
    assert first[0] == first[1]

    prompt = prompt_payload("how is the bulk discount applied to the unit price?", checkout / "src")
    texts = [hook_text(s.post(HOOK, prompt)) for s in (sqlite, neo4j)]
    for text in texts:
        assert "def apply_bulk_discount(unit_price: float, quantity: int) -> float:" in text
    flow = prompt_payload("who calls apply_bulk_discount and what does order_total call?", checkout / "src")
    flows = [hook_text(s.post(HOOK, flow)) for s in (sqlite, neo4j)]
    assert "order_total" in flows[0] and "order_total" in flows[1]

    # Re-index after an edit: a new caller appears, on both backends alike.
    pricing = checkout / "src" / "shop" / "pricing.py"
    pricing.write_text(
        pricing.read_text()
        + "\n\ndef quote_bulk(unit_price: float) -> float:\n    return apply_bulk_discount(unit_price, 50)\n"
    )
    for suite in (sqlite, neo4j):
        index(suite, checkout, repo)
    second = answers(sqlite, repo), answers(neo4j, repo)
    assert "quote_bulk" in json.dumps(second[0]["callers apply_bulk_discount"])
    assert second[0] == second[1]

    # Removing the repository empties the graph on both.
    for suite in (sqlite, neo4j):
        reply = httpx.delete(
            f"{suite.url}/api/repos/{urllib.parse.quote(repo, safe='')}", headers=suite.headers(), timeout=60
        )
        assert reply.status_code == 200 and reply.json().get("removed") is True, reply.text
    for suite in (sqlite, neo4j):
        wait_for(
            lambda s=suite: (
                s.cli("graph", "symbol", "PriceBook", "--repo", repo, "--json").returncode != 0
                or "PriceBook" not in s.cli("graph", "symbol", "PriceBook", "--repo", repo, "--json").stdout
            ),
            30,
            "the removed repository's symbols to be gone",
        )
    assert neo4j_symbols(repo) == 0
