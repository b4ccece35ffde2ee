"""The shipped off-topic model in the hook's gate: its real readings (the bundled embedder and weights) fed
to the pipeline over the fake services. Prompts about the code that a model reading alone would have
skipped stay kept; chat the rules read as code now skips."""

from __future__ import annotations

import pytest

from gateway.tests.fakes import FakeBackends
from gateway.tests.test_gateway_context_status import refreshed
from gateway.tests.test_gateway_pipeline import build, service, shop

# Kept whatever the model reads (a review's reproductions, 2026-12-04, and edit requests of the same kind):
# a greeting before the question, an architecture idiom, a change asked of the code on screen, a code word
# pointed at.
ABOUT_THE_CODE = [
    "hello! how are you today? why are refunds slow",
    "good morning! hope your weekend was nice. why are refunds slow",
    "thanks so much, you're the best! have a great evening. oh and why are refunds slow",
    "good morning! hope you had a lovely weekend with the family. what happens when a refund is declined",
    "hey, happy monday! where do we decide who gets a discount",
    "give me the lay of the land",
    "can you clean this up a bit",
    "make it faster",
    "can we simplify this",
    # a second review's (2026-12-04): nothing to judge, read in part, another language
    "which is better?",
    "how come?",
    "Ok so some context first: I spent the whole weekend at my parents' place helping them move furniture, "
    "drove back late Sunday night and barely slept. Anyway, why are refunds slow?",
    "warum ist checkout so langsam",
]
# Kept on the shipped model's own reading: everyday words for a symptom (a bug report needs a sure reading),
# a code word pointed at (a near-certain one).
READ_AS_CODE = [
    "the dates are off by one day",
    "the time is wrong by an hour",
    "why did I get charged twice",
    "is any of this thread-safe",
    "why does this crash on the second call",
    "so the key is stored where exactly",
    "can this run in parallel with the other job",
    # questions to the assistant about its own change (a review, 2026-12-04: they read 0.9+ while the
    # model weighed "you" and "my" as words)
    "what do you think of this approach",
    "why did you remove that line",
    "you introduced a bug",
    "where did you put it",
    "did you run it",
    "my server won't start",
]
# Read as code by the rules (no cue), skipped once the model reads them (written for this test, in no
# training set).
CHAT = [
    "lost the key to my bike lock, any trick?",
    "let's pick this up tomorrow, good night",
    "it's raining again, third day in a row",
    "my neighbour's dog keeps barking at night, how do I deal with that",
]


@pytest.fixture(scope="module")
def reading():
    from services.search.adapters.onnx_embedder import OnnxEmbedder
    from services.search.bootstrap import QUERY_TOKENS
    from services.search.domain.embedding_text import query_for_embedding
    from services.search.domain.topicality import OffTopicModel

    embedder, model = OnnxEmbedder(max_tokens=QUERY_TOKENS), OffTopicModel.load()
    return lambda text: model.probability(embedder.name, embedder.embed([query_for_embedding(text)])[0], text)


async def _route(prompt: str, off_topic: float | None) -> str:
    backends = FakeBackends(shop())
    backends.world.search_index["refunds"] = backends.world.search_index["refund"]  # the fake has no stems
    if off_topic is not None:
        backends.world.off_topic[prompt] = off_topic
    ctx = service(backends)
    await build(ctx, prompt)  # the first hook learns the index status: then an empty search is evidence
    await refreshed(ctx, "shop")
    return (await build(ctx, prompt)).route


@pytest.mark.parametrize("prompt", ABOUT_THE_CODE)
async def test_a_prompt_about_the_code_is_kept_whatever_the_model_reads(reading, prompt: str) -> None:
    assert await _route(prompt, reading(prompt)) != "skip"
    assert await _route(prompt, 0.999) != "skip"  # even a model sure of the opposite


@pytest.mark.parametrize("prompt", READ_AS_CODE)
async def test_a_symptom_in_everyday_words_is_kept_on_the_models_reading(reading, prompt: str) -> None:
    assert await _route(prompt, reading(prompt)) != "skip", reading(prompt)


@pytest.mark.parametrize("prompt", CHAT)
async def test_chat_the_rules_read_as_code_skips_on_the_models_reading(reading, prompt: str) -> None:
    assert await _route(prompt, None) != "skip"  # the rules alone keep it
    assert await _route(prompt, reading(prompt)) == "skip", reading(prompt)
