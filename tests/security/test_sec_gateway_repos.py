"""Issue 18, gateway: repository topology is admin-only, and a taken name is a 409 naming the fix."""

from __future__ import annotations

from pathlib import Path

from tests.security.sec_gateway_support import TAKEN, harness


async def test_member_token_cannot_register_repoint_sync_or_remove_a_repo(tmp_path: Path) -> None:
    async with harness(tmp_path) as h, h.client() as client:
        attempts = [
            ("POST", "/api/repos", {"path": "/srv/repos/mine", "name": "mine"}),  # register
            ("POST", "/api/repos", {"path": "/tmp/evil", "name": "shop"}),  # re-point the team's repo
            ("POST", "/api/repos", {"git_url": "https://evil.example/x.git", "name": "shop"}),
            ("POST", "/api/repos/shop/sync", None),
            ("DELETE", "/api/repos/shop", None),
        ]
        for method, path, body in attempts:
            reply = await client.request(method, path, json=body, headers=h.headers("alice"))
            assert reply.status_code == 403, (method, path, reply.text)
            assert "admin token" in reply.json()["error"] and "Traceback" not in reply.text
        assert h.indexer.mutations() == []  # nothing reached the indexer
        assert h.indexer.repos["shop"].path == "/srv/repos/shop"


async def test_admin_and_local_tokens_manage_repos(tmp_path: Path) -> None:
    async with harness(tmp_path) as h, h.client() as client:
        for who, name in (("root", "one"), ("local", "two")):
            reply = await client.post(
                "/api/repos", json={"path": f"/srv/repos/{name}", "name": name}, headers=h.headers(who)
            )
            assert reply.status_code == 200, reply.text
            assert (await client.post(f"/api/repos/{name}/sync", headers=h.headers(who))).status_code == 200
            assert (await client.delete(f"/api/repos/{name}", headers=h.headers(who))).json()["removed"]
        assert h.indexer.mutations() == ["RegisterRepo", "SyncRepo", "RemoveRepo"] * 2


async def test_member_reindexing_a_registered_repo_changes_nothing_and_works(tmp_path: Path) -> None:
    """`reporecall index PATH` registers before every run: for a repo registered exactly so, a member
    gets it back (no RegisterRepo call) and may run the index."""
    async with harness(tmp_path) as h, h.client() as client:
        reply = await client.post(
            "/api/repos", json={"path": "/srv/repos/shop/", "name": "shop"}, headers=h.headers("alice")
        )
        assert reply.status_code == 200 and reply.json()["repo"]["name"] == "shop"
        reply = await client.post("/api/repos/shop/index", json={}, headers=h.headers("alice"))
        assert reply.status_code == 200 and "done" in reply.text
        assert h.indexer.mutations() == []


async def test_name_takeover_by_an_admin_is_409_with_the_indexers_message(tmp_path: Path) -> None:
    async with harness(tmp_path) as h, h.client() as client:
        reply = await client.post(
            "/api/repos", json={"path": "/tmp/evil", "name": "shop"}, headers=h.headers("root")
        )
        assert reply.status_code == 409, reply.text
        assert TAKEN in reply.json()["error"] and "choose another name" in reply.json()["error"]
        assert h.indexer.repos["shop"].path == "/srv/repos/shop"


async def test_refused_paths_and_git_urls_are_400_with_the_services_message(tmp_path: Path) -> None:
    async with harness(tmp_path) as h, h.client() as client:
        for body, expected in (
            ({"path": "/etc", "name": "etc"}, "outside the repository roots"),  # INVALID_ARGUMENT
            (
                {"git_url": "file:///root/secret", "name": "s"},
                "only https:// and ssh://",
            ),  # FAILED_PRECONDITION
        ):
            reply = await client.post("/api/repos", json=body, headers=h.headers("root"))
            assert reply.status_code == 400, reply.text
            assert expected in reply.json()["error"] and "Traceback" not in reply.text
