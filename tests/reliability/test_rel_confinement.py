"""Confinement: paths stay inside the repository, repositories stay apart, personal memories stay personal.

Every tool and RPC that takes a path is given `../`, absolute, percent-encoded, backslash and NUL variants,
and a repository with symlinks pointing outside it is indexed; the marker text outside must never come back.
Two repositories ("shop" and "harbor", whose every symbol says `lighthousezq`) are queried across each other
on every surface. Two users with tokens from `reporecall token issue` store and look for personal memories.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from reporecall.common.v1 import common_pb2
from reporecall.graph.v1 import graph_pb2
from reporecall.indexer.v1 import indexer_pb2
from reporecall.memory.v1 import memory_pb2
from reporecall.search.v1 import search_pb2
from tests.reliability.conftest import SPINE
from tests.reliability.rel_support import HOOK, git_commit, hook_text, index, prompt_payload, stubs
from tests.suite import Suite, wait_for

pytestmark = pytest.mark.e2e

OUTSIDE = "outsidesecretqv"  # text that lives outside every repository
TRAVERSALS = [
    "../../../../etc/passwd",
    "/etc/passwd",
    "..%2F..%2F..%2Fetc%2Fpasswd",
    "%2e%2e/%2e%2e/etc/passwd",
    "src/../../../../etc/passwd",
    "..\\..\\..\\etc\\passwd",
    "src/\x00/../../etc/passwd",
    "C:/Windows/win.ini",
    "./../shop/src/shop/pricing.py",
    "..",
    "/",
]


def mcp_tool(suite: Suite, tool: str, arguments: dict[str, Any], token: str | None = None) -> dict[str, Any]:
    reply = httpx.post(
        suite.url + "/mcp",
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool, "arguments": arguments},
        },
        headers={
            "Authorization": f"Bearer {token or suite.token}",
            "Accept": "application/json, text/event-stream",
        },
        timeout=30,
    )
    assert reply.status_code == 200, reply.text
    return reply.json()["result"]  # type: ignore[no-any-return]


def mcp_payload(result: dict[str, Any]) -> dict[str, Any]:
    assert not result.get("isError"), result
    if result.get("structuredContent") is not None:
        return result["structuredContent"]  # type: ignore[no-any-return]
    return json.loads(result["content"][0]["text"])  # type: ignore[no-any-return]


# --- paths ------------------------------------------------------------------------------------------------

PATH_OPERATIONS = [
    ("file_summary", lambda p: {"path": p}, "path"),
    ("imports", lambda p: {"path": p}, "path"),
    ("importers", lambda p: {"path": p}, "path"),
    ("search", lambda p: {"query": "password", "path_prefix": p}, "path_prefix"),
    ("refresh", lambda p: {"paths": [p]}, "paths"),
    ("store_memory", lambda p: {"name": "traversal", "body": "b", "related_files": [p]}, "related_files"),
]


@pytest.mark.usefixtures("no_restarts")
@pytest.mark.parametrize("path", TRAVERSALS, ids=repr)
@pytest.mark.parametrize(("op", "arguments", "field"), PATH_OPERATIONS, ids=[o[0] for o in PATH_OPERATIONS])
def test_json_api_refuses_paths_that_leave_the_repository(
    shop: Suite, op: str, arguments: Any, field: str, path: str
) -> None:
    reply = shop.post(f"/api/ops/{op}", {"repo": "shop", **arguments(path)})
    assert reply.status_code == 400, reply.text
    assert reply.json()["field"] == field, reply.text
    assert "root:" not in reply.text


MCP_PATH_TOOLS = [
    ("file_summary", lambda p: {"path": p}),
    ("code_graph", lambda p: {"action": "imports", "path": p}),
    ("code_graph", lambda p: {"action": "importers", "path": p}),
    ("search_code", lambda p: {"query": "password", "path_prefix": p}),
    ("index", lambda p: {"action": "refresh", "paths": [p]}),
]


@pytest.mark.usefixtures("no_restarts")
@pytest.mark.parametrize("path", TRAVERSALS, ids=repr)
@pytest.mark.parametrize(
    ("tool", "arguments"),
    MCP_PATH_TOOLS,
    ids=["file_summary", "imports", "importers", "search_code", "index_refresh"],
)
def test_mcp_tools_refuse_paths_that_leave_the_repository(
    shop: Suite, tool: str, arguments: Any, path: str
) -> None:
    result = mcp_tool(shop, tool, {"repo": "shop", **arguments(path)})
    text = result["content"][0]["text"]
    assert result["isError"] and "path" in text, text
    assert "root:" not in text


@pytest.fixture(scope="module")
def linked(shop: Suite, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository whose symlinks point outside it: a file, a directory, and a link chain."""
    base = tmp_path_factory.mktemp("links")
    outside = base / "outside"
    (outside / "pkg").mkdir(parents=True)
    (outside / "secret.py").write_text(f'def {OUTSIDE}_file():\n    return "{OUTSIDE} file"\n')
    (outside / "pkg" / "mod.py").write_text(f'def {OUTSIDE}_dir():\n    return "{OUTSIDE} dir"\n')
    repo = base / "linked"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "inside.py").write_text("def inside_only():\n    return 'inside'\n")
    os.symlink(outside / "secret.py", repo / "src" / "leak.py")
    os.symlink(outside / "pkg", repo / "src" / "vendored")
    os.symlink(repo / "src" / "leak.py", repo / "src" / "chain.py")
    os.symlink("../../outside/secret.py", repo / "src" / "relative_leak.py")
    git_commit(repo)
    index(shop, repo, "linked")
    return repo


@pytest.mark.usefixtures("no_restarts")
def test_symlinks_that_leave_the_repository_are_not_indexed(shop: Suite, linked: Path) -> None:
    found = shop.post(
        "/api/search", {"repo": "linked", "query": f"{OUTSIDE} file dir", "mode": "keyword"}
    ).json()
    assert all(OUTSIDE not in json.dumps(hit) for hit in found.get("hits", [])), found
    inside = shop.post("/api/search", {"repo": "linked", "query": "inside only"}).json()
    assert any(hit["chunk"]["qualified_name"] == "inside_only" for hit in inside.get("hits", [])), inside
    with stubs(shop) as s:
        for name in (f"{OUTSIDE}_file", f"{OUTSIDE}_dir"):
            assert not s.search.FindSymbols(search_pb2.FindSymbolsRequest(repo="linked", name=name)).symbols
        stats = s.search.Stats(search_pb2.StatsRequest(repo="linked"))
    assert stats.files == 1, stats  # src/inside.py only


@pytest.mark.usefixtures("no_restarts")
def test_refreshing_a_symlink_that_leaves_the_repository_is_refused(shop: Suite, linked: Path) -> None:
    with stubs(shop) as s:
        for path in ("src/leak.py", "src/vendored/mod.py", "src/relative_leak.py", "src/chain.py"):
            try:
                reply = s.indexer.IndexPaths(indexer_pb2.IndexPathsRequest(repo="linked", paths=[path]))
            except grpc.RpcError as exc:
                assert exc.code() is grpc.StatusCode.INVALID_ARGUMENT and "symlink" in (exc.details() or "")
                continue
            assert reply.files_sent == 0 and reply.rejected, (path, reply)
    refreshed = shop.post("/api/ops/refresh", {"repo": "linked", "paths": ["src/chain.py"]})
    assert refreshed.status_code == 400 and "paths" in refreshed.json()["error"], refreshed.text
    found = shop.post("/api/search", {"repo": "linked", "query": OUTSIDE, "mode": "keyword"}).json()
    assert all(OUTSIDE not in json.dumps(hit) for hit in found.get("hits", []))


@pytest.mark.usefixtures("no_restarts")
@pytest.mark.parametrize("path", ["../../../../etc/passwd", "/etc/passwd", "src/../../x.py", ""])
def test_indexer_refuses_traversal_in_index_paths(shop: Suite, path: str) -> None:
    with stubs(shop) as s:
        try:
            reply = s.indexer.IndexPaths(indexer_pb2.IndexPathsRequest(repo="shop", paths=[path]))
        except grpc.RpcError as exc:
            assert exc.code() is grpc.StatusCode.INVALID_ARGUMENT and "path" in (exc.details() or ""), exc
            return
    assert reply.files_sent == 0 and reply.rejected, reply


STORE_TRAVERSALS = ["../../../../etc/passwd", "/etc/passwd", "src/../../x.py", "src/\x00.py"]


@pytest.mark.usefixtures("no_restarts")
@pytest.mark.parametrize("path", STORE_TRAVERSALS, ids=repr)
def test_graph_refuses_paths_that_leave_the_repository(shop: Suite, path: str) -> None:
    symbol = common_pb2.Symbol(
        id="t1", path=path, name="f", qualified_name="f", kind=1, start_line=1, end_line=2
    )
    calls = [
        lambda g: g.ReplaceFileGraph(
            graph_pb2.ReplaceFileGraphRequest(repo="confined", path=path, file_hash="h", symbols=[symbol])
        ),
        lambda g: g.Imports(graph_pb2.ImportsRequest(repo="shop", path=path)),
        lambda g: g.Importers(graph_pb2.ImportersRequest(repo="shop", path=path)),
        lambda g: g.DeleteFiles(graph_pb2.DeleteFilesRequest(repo="confined", paths=[path])),
    ]
    with stubs(shop) as s:
        for call in calls:
            with pytest.raises(grpc.RpcError) as raised:
                call(s.graph)
            assert (
                raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT and "path" in raised.value.details()
            )


@pytest.mark.usefixtures("no_restarts")
@pytest.mark.parametrize("path", STORE_TRAVERSALS[:3], ids=repr)
def test_search_refuses_paths_that_leave_the_repository(shop: Suite, path: str) -> None:
    chunk = common_pb2.Chunk(
        id="t1",
        repo="confined",
        path=path,
        language="python",
        kind=1,
        name="f",
        qualified_name="f",
        start_line=1,
        end_line=2,
        content="def f(): pass",
        content_hash="h",
    )
    with stubs(shop) as s, pytest.raises(grpc.RpcError) as raised:
        s.search.UpsertFile(
            search_pb2.UpsertFileRequest(repo="confined", path=path, file_hash="h", chunks=[chunk])
        )
    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT and "path" in raised.value.details()


@pytest.mark.usefixtures("no_restarts")
def test_memory_names_and_ids_cannot_escape_the_memory_folder(shop: Suite) -> None:
    before = {p for p in shop.data_dir.parent.rglob("*") if "pwned" in p.name}
    stored = shop.post(
        "/api/ops/store_memory",
        {
            "repo": "shop",
            "name": "../../../../pwned-by-name",
            "body": "traversal attempt",
            "memory_class": "fact",
        },
    )
    assert stored.status_code == 200, stored.text
    memory_id = stored.json()["memory"]["id"]
    assert "/" not in memory_id and ".." not in memory_id
    written = [p for p in (shop.data_dir / "memory").rglob("*.md") if memory_id in p.name]
    assert len(written) == 1, written
    for bad in ("../../../../etc/passwd", "..", "a/../../b", "/etc/passwd"):
        reply = shop.post("/api/ops/forget_memory", {"repo": "shop", "memory_id": bad})
        assert reply.status_code == 400, reply.text
    with stubs(shop) as s, pytest.raises(grpc.RpcError) as raised:
        s.memory.Forget(memory_pb2.ForgetRequest(repo="../../shop", id="../x"))
    assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    assert {p for p in shop.data_dir.parent.rglob("*") if "pwned" in p.name} - before <= set(written)
    assert shop.post("/api/ops/forget_memory", {"repo": "shop", "memory_id": memory_id}).json()["forgotten"]


# --- repositories -------------------------------------------------------------------------------------------


# What only harbor's indexed content holds (its paths, docstrings and comments), unlike the names a query says.
HARBOR_CONTENT = (
    "src/lighthousezq/",
    "of the lighthousezq checksum",
    "keeping the lighthousezq totals",
    "The lighthousezq package",
    "computes the lighthousezq checksum",
)


def leaks_harbor(text: str) -> bool:
    return any(marker in text for marker in HARBOR_CONTENT)


def harbor_chunk_ids(suite: Suite) -> list[str]:
    hits = suite.post("/api/search", {"repo": "harbor", "query": "lighthousezq checksum", "limit": 20}).json()
    ids = [hit["chunk"]["id"] for hit in hits["hits"]]
    assert ids, hits
    return ids


@pytest.mark.usefixtures("no_restarts")
def test_searching_one_repository_never_returns_another_repositorys_chunks(shop: Suite, harbor: Path) -> None:
    for mode in ("hybrid", "keyword", "vector"):
        found = shop.post(
            "/api/search",
            {"repo": "shop", "query": "lighthousezq checksum ledger", "mode": mode, "limit": 50},
        )
        assert found.status_code == 200, found.text
        hits = found.json().get("hits", [])
        assert all(h["chunk"]["repo"] == "shop" and not leaks_harbor(json.dumps(h)) for h in hits), hits
    symbols = shop.post("/api/ops/find_symbol", {"repo": "shop", "name": "lighthousezq_step_1"}).json()
    assert not symbols.get("symbols"), symbols
    for op, arguments in [
        ("callers", {"symbol": "lighthousezq_step_1"}),
        ("callees", {"symbol": "lighthousezq_step_0"}),
        ("call_tree", {"symbol": "lighthousezq_step_1"}),
        ("communities", {}),
        ("importers", {"path": "src/lighthousezq/mod1.py"}),
    ]:
        reply = shop.post(f"/api/ops/{op}", {"repo": "shop", **arguments})
        assert reply.status_code in (200, 400, 404) and not leaks_harbor(reply.text), (op, reply.text)
        assert "nodes" not in reply.json() or not reply.json()["nodes"], (op, reply.text)


@pytest.mark.usefixtures("no_restarts")
def test_another_repositorys_chunk_ids_resolve_to_nothing(shop: Suite, harbor: Path) -> None:
    ids = harbor_chunk_ids(shop)
    with stubs(shop) as s:
        got = s.search.GetChunks(search_pb2.GetChunksRequest(repo="shop", ids=ids))
        assert not got.chunks, [c.repo for c in got.chunks]
        for chunk_id in ids[:3]:
            try:
                reply = s.graph.Callers(
                    graph_pb2.CallersRequest(
                        repo="shop", symbol=graph_pb2.SymbolRef(id=chunk_id), depth=2, limit=50
                    )
                )
            except grpc.RpcError as exc:
                assert exc.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT)
                continue
            assert not leaks_harbor(str(reply)) and "lighthousezq" not in str(reply.nodes), reply
    reply = shop.post("/api/ops/callers", {"repo": "shop", "symbol": f"id:{ids[0]}"})
    assert not leaks_harbor(reply.text) and not reply.json().get("nodes"), reply.text


@pytest.mark.usefixtures("no_restarts")
def test_hooks_context_and_mcp_for_one_repository_never_show_another(shop: Suite, harbor: Path) -> None:
    prompt = "how does lighthousezq_step_1 compute the lighthousezq checksum in Lighthousezqledger0?"
    assert not leaks_harbor(hook_text(shop.post(HOOK, prompt_payload(prompt, SPINE))))
    assert leaks_harbor(hook_text(shop.post(HOOK, prompt_payload(prompt, harbor))))  # the probe can see it
    context = shop.post("/api/context", {"repo": "shop", "prompt": prompt}).json()
    assert not leaks_harbor(context["text"]) and not leaks_harbor(json.dumps(context["items"])), context
    found = mcp_payload(mcp_tool(shop, "search_code", {"repo": "shop", "query": "lighthousezq checksum"}))
    assert not leaks_harbor(json.dumps(found))
    got = mcp_payload(mcp_tool(shop, "get_context", {"repo": "shop", "question": prompt}))
    assert not leaks_harbor(got["context"]) and not leaks_harbor(json.dumps(got["items"]))


@pytest.mark.usefixtures("no_restarts")
def test_memories_of_one_repository_are_not_recalled_in_another(shop: Suite, harbor: Path) -> None:
    stored = shop.post(
        "/api/ops/store_memory",
        {
            "repo": "harbor",
            "name": "harbor nightly rule",
            "body": "harbormemoryzq checksums are recomputed nightly",
            "memory_class": "rule",
            "scope": "project",
        },
    )
    assert stored.status_code == 200, stored.text
    recalled = shop.post("/api/ops/recall", {"repo": "shop", "query": "harbormemoryzq checksums recomputed"})
    listed = shop.post("/api/ops/list_memories", {"repo": "shop", "include_inactive": True})
    assert "harbormemoryzq" not in recalled.text and "harbormemoryzq" not in listed.text
    assert (
        "harbormemoryzq" in shop.post("/api/ops/recall", {"repo": "harbor", "query": "harbormemoryzq"}).text
    )
    hook = shop.post(HOOK, prompt_payload("are harbormemoryzq checksums recomputed nightly?", SPINE))
    assert "harbormemoryzq checksums are" not in hook_text(hook)


# --- users ----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def users(shop: Suite) -> dict[str, str]:
    tokens = {}
    for user in ("alice", "bob"):
        issued = shop.cli("token", "issue", user)
        assert issued.returncode == 0, issued.stderr
        tokens[user] = issued.stdout.strip().splitlines()[-1]
    wait_for(
        lambda: all(
            httpx.get(shop.url + "/api/repos", headers={"Authorization": f"Bearer {t}"}).status_code == 200
            for t in tokens.values()
        ),
        30,
        "the gateway to accept the new tokens",
    )
    return tokens


def as_user(suite: Suite, token: str, path: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(suite.url + path, json=body, headers={"Authorization": f"Bearer {token}"}, timeout=30)


@pytest.mark.usefixtures("no_restarts")
def test_personal_memories_are_invisible_to_other_users(shop: Suite, users: dict[str, str]) -> None:
    alice, bob = users["alice"], users["bob"]
    secret = "alice prefers the zqvortex rounding mode for every invoice total"
    stored = as_user(
        shop,
        alice,
        "/api/ops/store_memory",
        {
            "repo": "shop",
            "name": "zqvortex preference",
            "body": secret,
            "scope": "user",
            "memory_class": "rule",
        },
    )
    assert stored.status_code == 200, stored.text
    memory_id = stored.json()["memory"]["id"]
    assert stored.json()["memory"]["user"] == "alice"

    query = {"repo": "shop", "query": "zqvortex rounding mode invoice"}
    assert "zqvortex" in as_user(shop, alice, "/api/ops/recall", query).text
    assert "zqvortex" in as_user(shop, alice, "/api/ops/list_memories", {"repo": "shop"}).text
    # Bob sees nothing — not by recall, list, include_inactive, a forged user field, the hook or MCP. (His own
    # prompts become his working memory, so they never carry the marker.)
    assert "zqvortex" not in as_user(shop, bob, "/api/ops/recall", query).text
    assert "zqvortex" not in as_user(shop, bob, "/api/ops/recall", {**query, "user": "alice"}).text
    assert (
        "zqvortex"
        not in as_user(shop, bob, "/api/ops/list_memories", {"repo": "shop", "include_inactive": True}).text
    )
    prompt = prompt_payload("which rounding mode do we use for every invoice total?", SPINE, session="bob-1")
    hook = httpx.post(shop.url + HOOK, json=prompt, headers={"Authorization": f"Bearer {bob}"}, timeout=10)
    assert "zqvortex" not in hook_text(hook)
    mcp = mcp_tool(
        shop,
        "memory",
        {"action": "recall", "query": "rounding mode invoice total", "repo": "shop"},
        token=bob,
    )
    assert "zqvortex" not in json.dumps(mcp)
    # Nor can he forget it (another user's memory counts as absent), and it stays for Alice.
    forgot = as_user(shop, bob, "/api/ops/forget_memory", {"repo": "shop", "memory_id": memory_id})
    assert forgot.status_code in (200, 404) and not forgot.json().get("forgotten"), forgot.text
    assert "zqvortex" in as_user(shop, alice, "/api/ops/recall", query).text
    prompt = prompt_payload(
        "which rounding mode do we use for every invoice total?", SPINE, session="alice-1"
    )
    alice_hook = httpx.post(
        shop.url + HOOK, json=prompt, headers={"Authorization": f"Bearer {alice}"}, timeout=10
    )
    assert "zqvortex" in hook_text(alice_hook)


@pytest.mark.usefixtures("no_restarts")
def test_a_users_prompts_kept_as_working_memory_are_invisible_to_other_users(
    shop: Suite, users: dict[str, str]
) -> None:
    alice, bob = users["alice"], users["bob"]
    prompt = prompt_payload(
        "why does the zqmango discount apply twice to bulk orders?", SPINE, session="alice-2"
    )
    assert (
        httpx.post(
            shop.url + HOOK, json=prompt, headers={"Authorization": f"Bearer {alice}"}, timeout=10
        ).status_code
        == 200
    )

    def alices_working() -> list[dict[str, Any]]:
        listed = as_user(shop, alice, "/api/ops/list_memories", {"repo": "shop"}).json().get("memories", [])
        # Her notes of this session, or of her earlier one when it led to the same files (noted once).
        return [m for m in listed if m.get("memory_class") == "MEMORY_CLASS_WORKING"]

    mine = wait_for(alices_working, 10, "alice's working memory of where her prompt led")
    assert "zqmango" not in str(mine)  # where the prompt led is kept, never the prompt (issue 17)
    ids = {m["id"] for m in mine}
    listed = as_user(shop, bob, "/api/ops/list_memories", {"repo": "shop", "include_inactive": True})
    assert not ids & {m["id"] for m in listed.json().get("memories", [])}
    recalled = as_user(
        shop, bob, "/api/ops/recall", {"repo": "shop", "query": "pricing discount bulk orders"}
    )
    assert not ids & {r["memory"]["id"] for r in recalled.json().get("memories", [])}
    later = prompt_payload("does the bulk discount apply twice?", SPINE, session="bob-2")
    hook = httpx.post(shop.url + HOOK, json=later, headers={"Authorization": f"Bearer {bob}"}, timeout=10)
    assert "zqmango" not in hook_text(hook)


@pytest.mark.usefixtures("no_restarts")
def test_a_revoked_or_forged_token_is_refused_everywhere(shop: Suite, users: dict[str, str]) -> None:
    for headers in (
        {},
        {"Authorization": "Bearer rr_forged"},
        {"Authorization": "Basic YWxpY2U6eA=="},
        {"Authorization": f"Bearer {users['alice']}x"},
    ):
        for method, path in (
            ("POST", HOOK),
            ("POST", "/api/search"),
            ("POST", "/mcp"),
            ("GET", "/api/repos"),
            ("DELETE", "/api/repos/shop"),
        ):
            reply = httpx.request(
                method, shop.url + path, json={"repo": "shop", "query": "x"}, headers=headers
            )
            assert reply.status_code == 401, (path, headers, reply.status_code)
    assert shop.get("/api/repos").status_code == 200 and any(
        r["name"] == "shop" for r in shop.get("/api/repos").json()["repos"]
    )
