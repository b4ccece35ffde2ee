"""The relevance gate and seed specificity wired into the hook (ContextService → pipeline → fakes)."""

from __future__ import annotations

from gateway.domain.assembly import MemoryItem
from gateway.domain.routing.relevance import MODEL_CONFIDENT, MODEL_OFF_TOPIC_POINTED, SIMILAR_WHEN_SURE
from gateway.ports import IndexStatus
from gateway.tests.fakes import FakeBackends, make_chunk
from gateway.tests.test_gateway_context_status import refreshed
from gateway.tests.test_gateway_pipeline import build, service, shop
from kit.domain import ChunkKind


def _searches(backends: FakeBackends) -> int:
    return sum(1 for call in backends.calls if call == ("search", "search"))


async def test_an_off_topic_prompt_whose_words_name_nothing_here_skips_after_one_search() -> None:
    backends = FakeBackends(shop())
    backends.world.search_index["poem"] = [backends.world.by_name("audit_log").id]
    result = await build(service(backends), "I'm so tired today. how does checkout work?")
    assert result.route != "skip"  # the question beside the small talk names code here ("checkout"): kept
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


async def test_an_empty_search_is_no_evidence_until_the_repo_has_a_finished_index() -> None:
    world = shop()
    world.status = IndexStatus("", "a" * 40, "main")  # still indexing its first commit: nothing found yet
    ctx = service(FakeBackends(world))
    prompt = "what is the capital of australia"  # the fake search finds nothing for it
    first = await build(ctx, prompt)  # the index status is not known yet
    assert first.route != "skip" and "no search evidence" in first.signals["gate"]
    await refreshed(ctx, "shop")
    indexing = await build(ctx, prompt)
    assert indexing.route != "skip" and "no search evidence" in indexing.signals["gate"]
    indexed = service(FakeBackends(shop()))
    await build(indexed, prompt)
    await refreshed(indexed, "shop")
    assert (await build(indexed, prompt)).route == "skip"  # a finished index that finds nothing: off-topic


async def test_a_recalled_memory_naming_the_prompts_words_keeps_it() -> None:
    backends = FakeBackends(shop())
    backends.world.search_index["poem"] = [backends.world.by_name("audit_log").id]
    backends.world.memories = [
        MemoryItem("m1", "Sea breeze sync", "fact", "The sea job refreshes the tide tables nightly.")
    ]
    result = await build(service(backends), "write me a poem about the sea")
    assert result.route != "skip" and "sea" in result.signals["gate_matched"]


async def test_a_working_memory_is_no_evidence_for_the_gate() -> None:
    """A working memory lists where a recent prompt led: its path words would vouch for any later prompt
    sharing one (a bench run on a reused store skipped fewer translation requests for it)."""
    backends = FakeBackends(shop())
    backends.world.search_index["poem"] = [backends.world.by_name("audit_log").id]
    backends.world.memories = [
        MemoryItem("m1", "Files a recent prompt led to: src/sea.py", "working", "- src/sea.py")
    ]
    result = await build(service(backends), "write me a poem about the sea")
    assert result.route == "skip"


async def test_a_follow_up_after_a_gate_skip_is_skipped_too() -> None:
    backends = FakeBackends(shop())
    backends.world.search_index["poem"] = [backends.world.by_name("audit_log").id]
    ctx = service(backends)
    assert (await build(ctx, "write me a poem about the sea", session_id="s1")).route == "skip"
    result = await build(ctx, "more", session_id="s1")
    assert result.route == "skip" and result.text == ""
    assert (await build(ctx, "where is checkout defined", session_id="s2")).route == "lookup"
    assert (await build(ctx, "more", session_id="s2")).route == "lookup"  # a kept prompt's follow-up


async def test_module_chunks_named_like_a_common_name_do_not_make_it_specific() -> None:
    world = shop()  # charge_card is defined in src/payments.py
    world.add(*(make_chunk("charge_card", f"src/charge_card{i}.py", 1, ChunkKind.MODULE) for i in range(3)))
    world.add(*(make_chunk("charge_card", f"src/gateway_{i}.py", 1) for i in range(3)))
    backends = FakeBackends(world)
    result = await build(service(backends), "who calls charge_card?")
    assert result.signals["seeds"] == []  # four definitions share it: a search term
    assert ("graph", "call_tree") not in backends.calls


async def test_a_prompt_the_search_model_reads_as_off_topic_goes_to_the_gate() -> None:
    """No cue, no sign of code: the rules read it as a bug report; search's model reads it as chat."""
    backends = FakeBackends(shop())
    backends.world.search_index["answer"] = [backends.world.by_name("audit_log").id]
    ctx = service(backends)
    prompt = "that answer was way too long"
    kept = await build(ctx, prompt)  # no reading from search (another embedder): the rules decide
    assert kept.route == "bug" and "gate" not in kept.signals
    backends.world.off_topic[prompt] = 0.7  # pointing back ("that") needs a surer reading
    assert (await build(ctx, prompt)).route == "bug"
    backends.world.off_topic[prompt] = 0.95
    skipped = await build(ctx, prompt)
    assert skipped.route == "skip" and skipped.text == "" and "reads off-topic" in skipped.signals["gate"]


async def test_the_search_model_alone_never_skips_a_prompt_whose_words_name_the_code() -> None:
    backends = FakeBackends(shop())
    prompt = "my checkout card refund keeps going wrong"
    backends.world.off_topic[prompt] = 0.99
    result = await build(service(backends), prompt)
    assert result.route != "skip" and "reads off-topic" in result.signals["gate"]
    assert "charge_card" in result.text or "refund_order" in result.text


async def test_the_search_model_is_not_heard_on_a_name_and_only_when_near_certain_on_code_pointed_at() -> (
    None
):
    backends = FakeBackends(shop())
    for prompt, reading in (
        ("why does charge_card retry twice", 0.999),
        ("is any of this thread-safe", MODEL_OFF_TOPIC_POINTED - 0.01),
    ):
        backends.world.off_topic[prompt] = reading
        result = await build(service(backends), prompt)
        assert result.route != "skip" and "gate" not in result.signals, prompt


async def test_a_certain_reading_hears_a_capitalised_name_only_when_the_repo_holds_it() -> None:
    backends = FakeBackends(shop())
    backends.world.search_index["letter"] = [backends.world.by_name("audit_log").id]
    prompt = "write a breakup letter to my old ThinkPad"
    backends.world.off_topic[prompt] = 1.0
    result = await build(service(backends), prompt)
    assert result.route == "skip" and "reads off-topic" in result.signals["gate"], result.signals
    backends.world.add(make_chunk("ThinkPad", "src/devices.py", 1, ChunkKind.CLASS))  # now a name here
    result = await build(service(backends), prompt)
    assert result.route != "skip" and "gate" not in result.signals, result.signals


async def test_a_name_in_a_search_hits_text_is_held_by_the_repo() -> None:
    backends = FakeBackends(shop())
    quirk = make_chunk(
        "laptop_quirks", "src/devices.py", 1, body="def laptop_quirks():\n    # thinkpad_keys\n"
    )
    backends.world.add(quirk)
    backends.world.search_index["letter"] = [quirk.id]
    prompt = "write a breakup letter to my old ThinkPadKeys"
    backends.world.off_topic[prompt] = 1.0
    result = await build(service(backends), prompt)
    assert result.route != "skip" and "gate" not in result.signals, result.signals


async def test_a_sure_reading_and_an_unlike_search_skip_only_once_the_repos_vectors_are_complete() -> None:
    world = shop()
    snap = make_chunk("close_window_snapshot", "src/bedroom/window.py", 1)  # every word some name holds
    world.add(snap)
    world.search_index["window"] = [snap.id]
    world.similarity[snap.id] = SIMILAR_WHEN_SURE - 0.05  # but it reads little like the prompt
    backends = FakeBackends(world)
    prompt = "the window in my bedroom won't close since the cold snap, what could cause that"
    backends.world.off_topic[prompt] = MODEL_CONFIDENT
    backends.world.partial = True  # vectors backfilling: the chunk most like it may have none yet
    kept = await build(service(backends), prompt)
    assert kept.route != "skip", kept.signals
    backends.world.partial = False
    skipped = await build(service(backends), prompt)
    assert skipped.route == "skip" and "nothing found reads like the prompt" in skipped.signals["gate"]


async def test_the_search_adapter_passes_the_models_reading_only_when_search_sent_one() -> None:
    from gateway.adapters.grpc_backends import GrpcSearch
    from reporecall.search.v1 import search_pb2

    class Reply:
        def __init__(self, reply: search_pb2.SearchResponse) -> None:
            self.reply = reply

        async def __call__(self, method: str, request: object, timeout: float) -> search_pb2.SearchResponse:
            return self.reply

    search = GrpcSearch.__new__(GrpcSearch)  # the translation only; the channel is not under test
    for reply, expected in (
        (search_pb2.SearchResponse(off_topic=0.0), 0.0),  # set, even to zero
        (search_pb2.SearchResponse(off_topic=0.75), 0.75),
        (search_pb2.SearchResponse(), None),  # no model for its embedder, or no vector
    ):
        search.call = Reply(reply)  # type: ignore[method-assign]
        found = await search.search("repo", "q", 10, 1.0)
        assert found.hits == [] and found.off_topic == expected and not found.partial
    search.call = Reply(search_pb2.SearchResponse(partial=True))  # type: ignore[method-assign]
    assert (await search.search("repo", "q", 10, 1.0)).partial  # vectors incomplete: said so


async def test_the_search_api_answer_leaves_the_models_reading_out() -> None:
    from gateway.adapters.grpc_backends import GrpcSearch
    from reporecall.search.v1 import search_pb2

    async def reply(method: str, request: object, timeout: float) -> search_pb2.SearchResponse:
        return search_pb2.SearchResponse(off_topic=0.75)

    search = GrpcSearch.__new__(GrpcSearch)  # the translation only; the channel is not under test
    search.call = reply  # type: ignore[method-assign]
    answer = await search.search_json("repo", "q", 10, "hybrid", "", "", 1.0)
    assert "offTopic" not in answer and "off_topic" not in answer


async def test_the_models_reading_reaches_the_gate_and_a_sure_one_asks_for_more_than_one_word() -> None:
    """A bug report the rules keep by one word some name contains ("card") is skipped once the model
    is sure it is chat; one that names two (checkout, card) is kept however sure the model is."""
    backends = FakeBackends(shop())
    chat = "lost my library card again and the fine keeps going up, should I just pay it"
    assert (await build(service(backends), chat)).route == "bug"  # no reading: the rules keep it
    backends.world.off_topic[chat] = MODEL_CONFIDENT
    skipped = await build(service(backends), chat)
    assert skipped.route == "skip" and "only 1 of its" in skipped.signals["gate"], skipped.signals
    code = "checkout fails when the card is declined, should it retry"
    backends.world.off_topic[code] = 0.99
    assert (await build(service(backends), code)).route != "skip"
