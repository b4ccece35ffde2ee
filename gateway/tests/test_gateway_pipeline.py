"""The whole hook (ContextService → pipeline → ports) over in-memory fakes: every route, every degraded
path, budget and cap, dedup, facts. No processes, no network."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from gateway.call_graph import expansion_seed
from gateway.context import ContextQuery, ContextResult, ContextService
from gateway.domain.assembly import MemoryItem
from gateway.domain.fusion import CommunitySummary, HubSummary
from gateway.domain.routing import RouteName, classify
from gateway.pipeline import RetrievalPolicy
from gateway.ports import Communities, IndexStatus, Rejected, RepoInfo
from gateway.repos import RepoDirectory
from gateway.tests.fakes import FakeBackends, World, make_chunk
from kit.domain import ChunkKind, Symbol
from kit.testing import eventually

REPO = RepoInfo("shop", "/src/shop", "github.com/acme/shop")
DEADLINE = 0.05


def shop() -> World:
    world = World(repos=[REPO], status=IndexStatus("a" * 40, "a" * 40, "main"))
    checkout = make_chunk("checkout", "src/checkout.py", 10)
    charge = make_chunk("charge_card", "src/payments.py", 5)
    refund = make_chunk("refund_order", "src/payments.py", 40)
    handler = make_chunk("checkout_handler", "src/api.py", 3)
    audit = make_chunk("audit_log", "src/audit.py", 1)
    readme = make_chunk("README", "README.md", 1, ChunkKind.FILE, body="# shop\ncharge_card docs\n")
    world.add(checkout, charge, refund, handler, audit, readme)
    world.search_index = {
        "checkout": [checkout.id, handler.id],
        "charge": [charge.id],
        "card": [charge.id],
        "refund": [refund.id],
        "fails": [checkout.id],
    }
    # checkout_handler → checkout → charge_card → audit_log (audit_log is only known to the graph)
    world.calls = {
        handler.id: [(checkout.id, 7)],
        checkout.id: [(charge.id, 14)],
        charge.id: [(audit.id, 9)],
    }
    world.memories = [
        MemoryItem("m1", "payments-rule", "rule", "Charge cards only through charge_card.", 1.0)
    ]
    world.communities = Communities(
        (CommunitySummary("payments", 3, ("src/payments.py",), ("charge_card",)),),
        (HubSummary("charge_card", "src/payments.py", 5, 2, 1, "payments"),),
        (charge.symbol(),),
    )
    return world


def service(backends: FakeBackends, policy: RetrievalPolicy | None = None) -> ContextService:
    repos = RepoDirectory(backends.indexer)
    return ContextService(backends, repos, 2500, DEADLINE, policy or RetrievalPolicy())


async def build(ctx: ContextService, prompt: str, **query: object) -> ContextResult:
    # A stuck call would hang here: the pipeline's own deadlines must end every one.
    return await asyncio.wait_for(ctx.build(ContextQuery(prompt=prompt, repo="shop", **query)), 10)  # type: ignore[arg-type]


def code_ids(result: ContextResult) -> list[str]:
    return [i.chunk_id for i in result.items]


@pytest.fixture
def backends() -> FakeBackends:
    return FakeBackends(shop())


# -- routes -------------------------------------------------------------------------------------------


async def test_skip_prompts_call_no_backend(backends: FakeBackends) -> None:
    result = await build(service(backends), "thanks!")
    assert (result.route, result.text, backends.calls) == ("skip", "", [])


async def test_lookup_with_a_named_seed_shows_its_code_facts_and_memories(backends: FakeBackends) -> None:
    assert classify("where is charge_card defined").name is RouteName.LOOKUP
    result = await build(service(backends), "where is charge_card defined")
    assert result.route == "lookup" and result.repo == "shop" and not result.partial
    assert "shop:src/payments.py:charge_card" in code_ids(result)
    assert "## Facts" in result.text and "charge_card" in result.text
    assert "Charge cards only through charge_card." in result.text
    assert result.signals["seeds"] == ["charge_card"]
    assert backends.called("graph", "call_tree") == 1


async def test_flow_with_a_named_seed_fetches_the_code_only_the_graph_named(backends: FakeBackends) -> None:
    result = await build(service(backends), "who calls charge_card?")
    assert result.route == "flow"
    assert "shop:src/audit.py:audit_log" in backends.fetched  # a callee neither search nor the seed gave
    assert "shop:src/audit.py:audit_log" in code_ids(result)
    assert "src/checkout.py:14" in result.text  # the caller's call-site line in the facts


async def test_flow_without_a_named_seed_infers_one_from_search_but_fetches_no_neighbours(
    backends: FakeBackends,
) -> None:
    result = await build(service(backends), "how does refund work end to end")
    assert result.route == "flow" and result.signals["seeds"] == []
    assert backends.called("graph", "call_tree") == 1  # the top search hit (refund_order) was the seed
    assert backends.fetched == []
    assert code_ids(result)[0] == "shop:src/payments.py:refund_order"


async def test_bug_route_uses_the_flow_depth_for_a_named_seed(backends: FakeBackends) -> None:
    result = await build(service(backends), "checkout_handler fails with a stack trace")
    assert result.route == "bug"
    # depth 2 down from checkout_handler reaches charge_card (two calls away): a candidate, shown or
    # left out by the adaptive stop as much weaker than the seed
    assert "shop:src/payments.py:charge_card" in [i.chunk_id for i in (*result.items, *result.cut)]


async def test_architecture_prompts_get_the_community_overview(backends: FakeBackends) -> None:
    result = await build(service(backends), "give me an overview of the architecture")
    assert result.route == "architecture"
    assert backends.called("graph", "communities") == 1
    assert "## Overview" in result.text and "payments" in result.text


async def test_the_overview_lists_the_hubs_of_the_area_search_found(backends: FakeBackends) -> None:
    far = HubSummary("render_page", "src/web/views.py", 3, 40, 9, "web")
    near = HubSummary("charge_card", "src/payments.py", 5, 2, 1, "payments")
    backends.world.communities = Communities(
        (CommunitySummary("payments", 3, ("src/payments.py",), ("charge_card",)),), (far, near), ()
    )
    result = await build(service(backends), "how is the charge card payment area structured")
    assert result.route == "architecture"
    assert "- charge_card (src/payments.py:5)" in result.text
    assert "render_page" not in result.text  # more connected, but nowhere near what the prompt is about


async def test_without_a_hub_in_the_searched_area_the_overview_lists_the_most_connected(
    backends: FakeBackends,
) -> None:
    far = [HubSummary(f"hub{i}", f"src/web/v{i}.py", 3, 40 - i, 9, "web") for i in range(5)]
    backends.world.communities = Communities((), tuple(far), ())
    result = await build(service(backends), "how is the charge card payment area structured")
    assert "hub0" in result.text and "hub2" in result.text and "hub3" not in result.text


async def test_a_follow_up_reuses_the_sessions_last_route(backends: FakeBackends) -> None:
    ctx = service(backends)
    await build(ctx, "who calls charge_card?", session_id="s1")
    result = await build(ctx, "still broken", session_id="s1")
    assert result.route != "skip" and "charge_card" in result.seeds


# -- degraded paths -----------------------------------------------------------------------------------


@pytest.mark.parametrize("failure", ["down", "slow"])
@pytest.mark.parametrize("service_name", ["search", "graph", "memory"])
async def test_a_failing_backend_gives_a_partial_block_from_the_others(
    backends: FakeBackends, failure: str, service_name: str
) -> None:
    getattr(backends, failure).add(service_name)
    result = await build(service(backends), "who calls charge_card?")
    assert result.partial and result.degraded == [service_name]
    assert result.text  # the others still made a block
    if service_name != "memory":
        assert "Charge cards only through charge_card." in result.text
    if service_name == "memory":
        assert "shop:src/payments.py:charge_card" in code_ids(result)


async def test_every_backend_down_still_answers_without_raising(backends: FakeBackends) -> None:
    ctx = service(backends)
    await ctx.repos.refresh()
    backends.down |= {"search", "graph", "memory"}
    result = await build(ctx, "who calls charge_card?")
    # Search down: no seed is found and none inferred, so the graph is never asked.
    assert result.partial and result.degraded == ["memory", "search"]
    assert result.items == [] and backends.called("graph", "call_tree") == 0


async def test_an_indexer_outage_while_resolving_the_repo_is_partial(backends: FakeBackends) -> None:
    backends.down.add("indexer")
    result = await build(service(backends), "where is charge_card defined")
    assert (result.partial, result.degraded, result.text) == (True, ["indexer"], "")


async def test_a_rejected_call_is_skipped_without_marking_the_reply_partial(backends: FakeBackends) -> None:
    async def refuse(*args: object) -> None:
        raise Rejected("graph", "INVALID_ARGUMENT", "seed: unknown")

    backends.graph.call_tree = refuse  # type: ignore[method-assign,assignment]
    result = await build(service(backends), "who calls charge_card?")
    assert not result.partial and result.degraded == []
    assert "shop:src/payments.py:charge_card" in code_ids(result)


async def test_a_slow_backend_is_cut_at_the_deadline_not_waited_for(backends: FakeBackends) -> None:
    ctx = service(backends)
    loop = asyncio.get_running_loop()
    started = loop.time()
    await build(ctx, "who calls charge_card?")
    baseline = loop.time() - started
    backends.slow.add("search")
    started = loop.time()
    result = await build(ctx, "who calls charge_card?")
    slow = loop.time() - started
    assert result.degraded == ["search"]
    # One deadline per sequential step (seeds → call tree → fetch), far less than a hung call.
    assert slow < baseline + 20 * DEADLINE


# -- unknown repo, budget, cap, dedup, observation ---------------------------------------------------


async def test_an_unknown_repo_gives_an_empty_reply_and_asks_no_service(backends: FakeBackends) -> None:
    ctx = service(backends)
    result = await asyncio.wait_for(ctx.build(ContextQuery(prompt="where is checkout", repo="nope")), 10)
    assert (result.text, result.repo, result.partial) == ("", "", False)
    assert [c for c in backends.calls if c[0] != "indexer"] == []


async def test_the_block_stays_within_the_token_budget(backends: FakeBackends) -> None:
    result = await build(service(backends), "who calls charge_card?", budget_tokens=300)
    assert 0 < result.tokens <= 300
    assert backends.recalls[0].budget_tokens == 300 // 4


async def test_the_block_stays_within_the_character_cap() -> None:
    world = shop()
    big = "\n".join(f"    step_{i} = charge(step_{i - 1})  # {'x' * 60}" for i in range(1, 400))
    world.add(make_chunk("charge_card", "src/payments.py", 5, body=f"def charge_card():\n{big}\n"))
    result = await build(service(FakeBackends(world)), "who calls charge_card?", budget_tokens=50_000)
    assert 0 < result.chars <= 10_000 and len(result.text) == result.chars


async def test_a_chunk_found_by_search_and_as_a_seed_appears_once(backends: FakeBackends) -> None:
    result = await build(service(backends), "where is charge_card used for the card charge")
    ids = code_ids(result)
    assert ids.count("shop:src/payments.py:charge_card") == 1 and len(ids) == len(set(ids))


async def test_a_file_level_match_is_not_a_seed(backends: FakeBackends) -> None:
    result = await build(service(backends), "where is README")
    assert result.signals["seeds"] == []


async def test_the_session_is_observed_with_the_users_identity(backends: FakeBackends) -> None:
    ctx = service(backends)
    result = await build(ctx, "who calls charge_card?", session_id="s1", user="alice")
    await asyncio.wait_for(_until(lambda: bool(backends.observed)), 5)
    observed = backends.observed[0]
    assert (observed.session_id, observed.user, observed.route) == ("s1", "alice", "flow")
    assert set(observed.hit_paths) == {i.path for i in result.items}
    assert backends.recalls[0].user == "alice"


async def test_token_savings_are_counted_per_repo_and_route(backends: FakeBackends) -> None:
    ctx = service(backends)
    await build(ctx, "who calls charge_card?")
    await asyncio.wait_for(_until(lambda: "shop" in ctx.savings), 5)
    assert ctx.savings["shop"]["flow"]["replies"] == 1
    assert ctx.savings["shop"]["flow"]["injected"] > 0


async def test_the_staleness_line_appears_once_the_index_status_is_known() -> None:
    world = shop()
    world.status = IndexStatus("a" * 40, "b" * 40, "main", ("src/dirty.py",))
    backends = FakeBackends(world)
    ctx = service(backends)
    await build(ctx, "where is charge_card defined")
    await asyncio.wait_for(_until(lambda: ctx.index_status.branch("shop") == "main"), 5)
    result = await build(ctx, "where is charge_card defined")
    assert f"HEAD is {'b' * 7}, so the index may be stale." in result.text and "src/dirty.py" in result.text
    assert backends.recalls[-1].branch == "main"  # the indexer's branch when the client sent none


async def _until(condition: Callable[[], object]) -> None:
    await eventually(condition, 5, "the background task", interval=0)


def test_the_call_tree_is_expanded_around_the_implementation_not_a_bodiless_overload() -> None:
    def sym(sid: str, name: str, start: int, end: int, path: str = "src/ops.ts") -> Symbol:
        return Symbol(sid, path, name, name, ChunkKind.FUNCTION, start, end)

    overload = sym("decl", "mergeMap", 8, 24)  # stacked overload signatures, no body
    impl = sym("impl", "mergeMap", 27, 96)
    other = sym("other", "concatMap", 1, 200, "src/concat.ts")
    assert expansion_seed([overload, impl, other]).id == "impl"
    assert expansion_seed([other, overload, impl]).id == "other"  # the first name the prompt gave
    elsewhere = sym("far", "mergeMap", 1, 300, "src/legacy.ts")  # same name in another file: not it
    assert expansion_seed([overload, elsewhere]).id == "decl"


async def test_search_scores_reach_the_adaptive_stop() -> None:
    world = shop()
    fillers = [make_chunk(f"ledger_step_{k}", f"src/ledger_{k}.py", 1) for k in range(8)]
    world.add(*fillers)
    world.search_index["ledger"] = [c.id for c in fillers]  # fake search scores hit k as 1 / k
    result = await build(service(FakeBackends(world)), "where is the ledger written")
    notes = {c.chunk_id: c.note for c in result.cut}
    shown = code_ids(result)
    assert fillers[0].id in shown and fillers[5].id in shown  # 1/6 of the top's score: still in
    assert notes[fillers[6].id] == "adaptive stop: search score 0.14 of the top hit's"
