"""Issue 18, gateway: everything a client controls is bounded — metric label values, rate-limiter keys
(per token however the header is spelled; per address when unauthenticated), the limiter's table."""

from __future__ import annotations

import asyncio
from pathlib import Path

from gateway import metrics
from gateway.auth import RateLimiter
from tests.security.sec_gateway_support import harness


def _series() -> int:
    return sum(
        1
        for family in (metrics.HTTP_REQUESTS, metrics.HTTP_SECONDS)
        for metric in family.collect()
        for sample in metric.samples
        if sample.name.endswith(("_total", "_count"))
    )


async def test_metrics_series_stay_bounded_under_1000_unique_junk_paths(tmp_path: Path) -> None:
    async with harness(tmp_path, rate_limit_per_second=0) as h, h.client() as client:
        await client.get("/nope/warmup", headers=h.headers("alice"))  # the series a junk path may add
        await client.get("/nope/warmup")
        before = _series()

        async def junk(i: int) -> None:
            headers = h.headers("alice") if i % 2 else {}
            path = f"/junk/{i}/x" if i % 3 else f"/api/repos/{i}/a/b/c/status/nope{i}"
            await client.get(path, headers=headers)

        await asyncio.gather(*(junk(i) for i in range(1000)))
        after = _series()
    assert after - before <= 4, (before, after)  # at most a few new (route, status) pairs, not 1,000
    labels = {s.labels["route"] for m in metrics.HTTP_REQUESTS.collect() for s in m.samples}
    assert not any("junk" in label for label in labels), labels


async def test_rate_limit_is_per_token_whatever_the_header_spelling(tmp_path: Path) -> None:
    async with harness(tmp_path, rate_limit_per_second=0.01, rate_limit_burst=3) as h, h.client() as client:
        token = h.tokens["alice"]
        variants = [
            f"Bearer {token}",
            f"Bearer  {token}",
            f"bearer {token} ",
            f"BEARER \t{token}",
            f"Bearer {token}\t",
        ]
        statuses = [
            (await client.get("/api/repos", headers={"Authorization": v})).status_code for v in variants
        ]
        assert statuses == [200, 200, 200, 429, 429], statuses
        # another token is its own client
        assert (await client.get("/api/repos", headers=h.headers("bob"))).status_code == 200


async def test_unauthenticated_flood_is_limited_per_client_address(tmp_path: Path) -> None:
    async with harness(tmp_path, rate_limit_per_second=0.01, rate_limit_burst=5) as h:
        async with h.client("203.0.113.7") as attacker:
            statuses = [
                (
                    await attacker.get("/api/repos", headers={"Authorization": f"Bearer rr_guess{i}"})
                ).status_code
                for i in range(40)
            ]
        assert statuses[:5] == [401] * 5 and set(statuses[5:]) == {429}, statuses
        async with h.client("198.51.100.2") as teammate:  # another address: unaffected, token or not
            assert (await teammate.get("/api/repos")).status_code == 401
            assert (await teammate.get("/api/repos", headers=h.headers("alice"))).status_code == 200


def test_limiter_table_stays_bounded_and_keeps_recent_clients() -> None:
    limiter = RateLimiter(rate=0.001, burst=1, max_keys=100)
    for i in range(10_000):
        limiter.allow(f"address:{i}")
        limiter.allow("address:regular")  # seen all the time: never forgotten, stays limited
    assert len(limiter) <= 100
    assert limiter.allow("address:regular")[0] is False
