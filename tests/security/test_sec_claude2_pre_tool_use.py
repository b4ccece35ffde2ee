"""`POST /hooks/pre-tool-use`: who may call it (any token; a member sees only their own sessions), what it
answers (a note for code already injected into the session, else {}), never a block, and its server time."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from structlog.testing import capture_logs

from gateway.context import ContextItem, ContextQuery, ContextResult
from tests.security.sec_gateway_support import Harness, harness

ITEM = ContextItem("code", "src/shop/cart.py", "Cart.add_item", 10, 42, "method", 1.0, 50, "search", "c1")


def _inject(h: Harness) -> None:
    """The context service answers every prompt with a block holding ITEM (search is not running here)."""

    async def build(query: ContextQuery) -> ContextResult:
        return ContextResult(text="<reporecall-context>…</reporecall-context>", route="lookup", items=[ITEM])

    h.gateway.ops.context_service.build = build  # type: ignore[method-assign]


def _read(session: str, path: str = "/home/bob/shop/src/shop/cart.py") -> dict[str, Any]:
    return {
        "session_id": session,
        "hook_event_name": "PreToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": path},
    }


async def test_read_of_injected_code_gets_a_note_and_never_a_decision(tmp_path: Path) -> None:
    async with harness(tmp_path) as h, h.client() as client:
        _inject(h)
        assert (
            await client.post("/hooks/pre-tool-use", json=_read("s1"), headers=h.headers("alice"))
        ).json() == {}
        reply = await client.post(
            "/hooks/prompt-context",
            json={"prompt": "where is Cart.add_item", "session_id": "s1", "cwd": "/srv/repos/shop"},
            headers=h.headers("alice"),
        )
        assert reply.status_code == 200 and reply.json()["hookSpecificOutput"]["additionalContext"]
        reply = await client.post("/hooks/pre-tool-use", json=_read("s1"), headers=h.headers("alice"))
        out = reply.json()["hookSpecificOutput"]
        assert out["hookEventName"] == "PreToolUse" and "permissionDecision" not in out
        assert "src/shop/cart.py:10-42 method Cart.add_item" in out["additionalContext"]
        other_file = await client.post(
            "/hooks/pre-tool-use", json=_read("s1", "/w/src/shop/pricing.py"), headers=h.headers("alice")
        )
        assert other_file.json() == {}


async def test_a_member_never_sees_another_users_session(tmp_path: Path) -> None:
    async with harness(tmp_path) as h, h.client() as client:
        _inject(h)
        await client.post(
            "/hooks/prompt-context",
            json={"prompt": "where is Cart.add_item", "session_id": "shared-id"},
            headers=h.headers("alice"),
        )
        assert (
            "hookSpecificOutput"
            in (
                await client.post("/hooks/pre-tool-use", json=_read("shared-id"), headers=h.headers("alice"))
            ).json()
        )
        for who in ("bob", "root"):  # another member, and an admin too: sessions are their user's own
            reply = await client.post("/hooks/pre-tool-use", json=_read("shared-id"), headers=h.headers(who))
            assert reply.status_code == 200 and reply.json() == {}


async def test_unauthenticated_calls_are_refused(tmp_path: Path) -> None:
    async with harness(tmp_path) as h, h.client() as client:
        assert (await client.post("/hooks/pre-tool-use", json=_read("s1"))).status_code == 401
        bad = {"Authorization": "Bearer not-a-token"}
        assert (await client.post("/hooks/pre-tool-use", json=_read("s1"), headers=bad)).status_code == 401


async def test_bad_bodies_answer_empty_and_valid(tmp_path: Path) -> None:
    async with harness(tmp_path) as h, h.client() as client:
        for body in (b"not json", b"[]", b'{"session_id": 5}', b'{"session_id": "s", "tool_input": "x"}'):
            reply = await client.post(
                "/hooks/pre-tool-use",
                content=body,
                headers=h.headers("alice", **{"Content-Type": "application/json"}),
            )
            assert reply.status_code == 200 and reply.json() == {}, body


async def test_a_lookup_in_a_full_session_costs_about_what_an_empty_one_does(tmp_path: Path) -> None:
    """Relative bound: matching against 300 injected spans adds little to the same authenticated request
    with nothing to match (the baseline, measured here); the handler's own server time is logged."""
    async with (
        harness(tmp_path, rate_limit_per_second=1000, rate_limit_burst=1000) as h,
        h.client() as client,
    ):
        spans = [
            ContextItem("code", f"src/m{i}.py", f"f{i}", 1, 9, "function", 1.0, 5, "search", f"c{i}")
            for i in range(300)
        ]

        async def build(query: ContextQuery) -> ContextResult:
            return ContextResult(text="block", route="lookup", items=spans)

        h.gateway.ops.context_service.build = build  # type: ignore[method-assign]
        await client.post(
            "/hooks/prompt-context", json={"prompt": "q", "session_id": "s"}, headers=h.headers("alice")
        )

        async def best_of(session: str) -> float:
            body = {"session_id": session, "tool_name": "Grep", "tool_input": {"pattern": "f299|f1"}}
            best = float("inf")
            for _ in range(30):
                started = time.perf_counter()
                reply = await client.post("/hooks/pre-tool-use", json=body, headers=h.headers("alice"))
                best = min(best, time.perf_counter() - started)
            assert reply.status_code == 200
            return best

        empty = await best_of("no-such-session")
        with capture_logs() as logs:
            full = await best_of("s")
        server_ms = [e["server_ms"] for e in logs if e.get("event") == "hook.pre_tool_use"]
        assert "hookSpecificOutput" in reply_json(
            await client.post(
                "/hooks/pre-tool-use",
                json={"session_id": "s", "tool_name": "Grep", "tool_input": {"pattern": "f299|f1"}},
                headers=h.headers("alice"),
            )
        )
        assert full < empty * 3, (full, empty)
        print(
            f"pre-tool-use: full {full * 1000:.3f} ms, empty {empty * 1000:.3f} ms, server_ms min {min(server_ms)}"
        )


def reply_json(reply: Any) -> Any:
    return reply.json()
