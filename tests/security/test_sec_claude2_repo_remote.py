"""`GET /api/repos?remote=URL`: any token finds a repo by any spelling of its git remote; bad remotes are a
400 naming the fix before any service call; no token, no answer."""

from __future__ import annotations

from pathlib import Path

from tests.security.sec_gateway_support import harness


async def test_a_member_finds_the_repo_by_any_spelling_of_its_remote(tmp_path: Path) -> None:
    async with harness(tmp_path) as h, h.client() as client:
        for remote in (
            "git@github.com:acme/shop.git",
            "https://bob@GitHub.com/acme/shop/",
            "ssh://git@github.com:22/acme/shop",
        ):
            reply = await client.get("/api/repos", params={"remote": remote}, headers=h.headers("alice"))
            assert reply.status_code == 200, reply.text
            assert [r["name"] for r in reply.json()["repos"]] == ["shop"], remote
        other = await client.get(
            "/api/repos", params={"remote": "https://github.com/acme/other"}, headers=h.headers("bob")
        )
        assert other.status_code == 200 and other.json()["repos"] == []


async def test_a_bad_remote_is_refused_naming_the_fix(tmp_path: Path) -> None:
    async with harness(tmp_path) as h, h.client() as client:
        for remote in ("", "/home/alice/shop", "file:///srv/shop", "not a url"):
            reply = await client.get("/api/repos", params={"remote": remote}, headers=h.headers("alice"))
            assert reply.status_code == 400 and reply.json()["field"] == "remote", (remote, reply.text)
            assert "git@github.com:org/repo.git" in reply.json()["error"]


async def test_the_lookup_needs_a_token(tmp_path: Path) -> None:
    async with harness(tmp_path) as h, h.client() as client:
        reply = await client.get("/api/repos", params={"remote": "git@github.com:acme/shop.git"})
        assert reply.status_code == 401
