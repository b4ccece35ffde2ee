"""The relevance gate and seed specificity wired into the hook (ContextService → pipeline → fakes)."""

from __future__ import annotations

from gateway.tests.fakes import FakeBackends, make_chunk
from gateway.tests.test_gateway_pipeline import build, service, shop


def _searches(backends: FakeBackends) -> int:
    return sum(1 for call in backends.calls if call == ("search", "search"))


async def test_an_off_topic_prompt_whose_words_name_nothing_here_skips_after_one_search() -> None:
    backends = FakeBackends(shop())
    backends.world.search_index["poem"] = [backends.world.by_name("audit_log").id]
    result = await build(service(backends), "write me a poem about the checkout sea breeze")
    assert result.route == "lookup"  # "checkout" names code here: kept
    result = await build(service(backends), "write me a poem about the sea")
    assert result.route == "skip" and result.text == "" and result.tokens == 0
    assert result.seeds == [] and "creative" in result.signals["gate"]
    assert _searches(backends) == 2  # the gate used the search the pipeline makes anyway


async def test_an_off_topic_prompt_is_kept_when_search_is_down() -> None:
    backends = FakeBackends(shop())
    backends.down.add("search")
    result = await build(service(backends), "what is the capital of australia")
    assert result.route != "skip"
    assert "no search evidence" in result.signals["gate"]


async def test_a_code_prompt_never_reaches_the_gate() -> None:
    backends = FakeBackends(shop())
    result = await build(service(backends), "translate the refund error messages to german")
    assert result.route != "skip" and "gate" not in result.signals


async def test_a_name_shared_by_many_definitions_is_a_search_term_not_a_call_tree_root() -> None:
    world = shop()
    world.add(*(make_chunk("charge_card", f"src/gateway_{i}.py", 1) for i in range(3)))
    backends = FakeBackends(world)
    result = await build(service(backends), "who calls charge_card?")
    assert result.signals["seeds"] == []
    assert ("graph", "call_tree") not in backends.calls


async def test_a_specific_name_is_still_the_call_tree_root() -> None:
    backends = FakeBackends(shop())
    result = await build(service(backends), "who calls charge_card?")
    assert result.signals["seeds"] == ["charge_card"]
    assert "checkout" in result.text
