"""The off-topic model: which vectors it reads, what it refuses, and that a search carries its reading
(engine and gRPC) only when it has one."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from reporecall.search.v1 import search_pb2, search_pb2_grpc
from services.search.adapters.numpy_vector_index import NumpyVectorIndex
from services.search.adapters.sqlite_embedding_store import SqliteEmbeddingStore
from services.search.adapters.sqlite_keyword_index import SqliteKeywordIndex
from services.search.domain.embedding_text import QUERY_WORDS, reading_windows
from services.search.domain.model import SearchMode
from services.search.domain.topicality import BUNDLED_MODEL, OffTopicModel, word_features
from services.search.engine import MAX_READING_WINDOWS, SearchEngine
from services.search.ports import Embedder
from services.search.tests.search_fakes import WordHashEmbedder, chunk, served

REPO = "topic"


def prose_model(embedder: WordHashEmbedder) -> OffTopicModel:
    """Reads a query as off-topic as far as it shares words with a poem request."""
    return OffTopicModel(embedder.name, embedder.embed(["write poem about autumn"])[0] * 8.0, -4.0)


def test_the_bundled_model_reads_the_bundled_embedders_vectors() -> None:
    from services.search.adapters.onnx_embedder import MODEL_NAME, OnnxEmbedder

    model = OffTopicModel.load()
    assert model.embedder == MODEL_NAME
    assert model.weights.shape == (OnnxEmbedder.dimension,)


def test_vectors_of_another_embedder_or_size_get_no_reading() -> None:
    model = OffTopicModel("e", np.ones(4, np.float32), 0.0)
    assert model.probability("other", np.ones(4, np.float32), "") is None
    assert model.probability("e", np.ones(3, np.float32), "") is None
    assert model.probability("e", np.zeros(4, np.float32), "") == pytest.approx(0.5)
    assert model.probability("e", np.array([np.nan, 0, 0, 0], np.float32), "") is None


def test_scores_far_out_at_either_end_read_0_or_1_without_overflow() -> None:
    model = OffTopicModel("e", np.full(4, 1000.0, np.float32), 0.0)
    assert model.probability("e", np.ones(4, np.float32), "") == pytest.approx(1.0)
    assert model.probability("e", -np.ones(4, np.float32), "") == pytest.approx(0.0)


def test_a_reading_that_fails_loses_the_reading_not_the_search(tmp_path: Path) -> None:
    class Broken(OffTopicModel):
        def probability(self, embedder: str, vector: np.ndarray, text: str = "") -> float | None:
            raise RuntimeError("broken (test)")

    embedder = WordHashEmbedder()
    engine = _engine(tmp_path, Broken(embedder.name, np.ones(embedder.dimension, np.float32), 0.0), embedder)
    try:
        found = engine.search("parse config keys", REPO)
        assert found.off_topic is None and [h.chunk.name for h in found.hits] == ["parse_config"]
    finally:
        engine.close()


@pytest.mark.parametrize(
    "content",
    [
        "not json",
        json.dumps({"weights": [0.1], "bias": 0.0}),
        json.dumps({"embedder": "e", "weights": [[0.1]], "bias": 0.0}),
        json.dumps({"embedder": "e", "weights": [], "bias": 0.0}),
        json.dumps({"embedder": "e", "weights": [0.1, "x"], "bias": 0.0}),
        '{"embedder": "e", "weights": [0.1, NaN], "bias": 0.0}',
        '{"embedder": "e", "weights": [0.1], "bias": Infinity}',
        '{"embedder": "e", "weights": [0.1], "bias": 0.0, "words": {"poem": NaN}}',
        '{"embedder": "e", "weights": [0.1], "bias": 0.0, "words": {"poem": "x"}}',
        '{"embedder": "e", "weights": [0.1], "bias": 0.0, "words": ["poem"]}',
    ],
)
def test_a_broken_model_file_is_refused_naming_it(tmp_path: Path, content: str) -> None:
    path = tmp_path / "model.json"
    path.write_text(content)
    with pytest.raises(ValueError, match="model.json"):
        OffTopicModel.load(path)


def test_word_weights_add_up_over_the_root_of_the_querys_features() -> None:
    assert word_features("Write me a Haiku") == {"write", "haiku", "write haiku"}  # "me", "a": no topic
    assert word_features("what do you think of this approach") == {"think", "approach", "think approach"}
    assert word_features("naïve café’s") == {"naïve", "café's", "naïve café's"}  # letters, apostrophes
    assert word_features("the, of; it") == frozenset()
    model = OffTopicModel("e", np.zeros(4, np.float32), 0.0, {"haiku": 2.0, "write haiku": 2.0})
    assert model.word_score("write a haiku") == pytest.approx(4.0 / 3**0.5)  # 3 features, 2 known
    assert model.word_score("the parser") == 0.0  # words no training prompt used weigh nothing
    assert model.probability("e", np.zeros(4, np.float32), "") == pytest.approx(0.5)
    assert (model.probability("e", np.zeros(4, np.float32), "write a haiku") or 0.0) > 0.9
    assert OffTopicModel("e", np.zeros(4, np.float32), 0.0).word_score("a haiku") == 0.0  # a vector-only file


def test_a_model_file_without_words_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "model.json"
    path.write_text(json.dumps({"embedder": "e", "weights": [0.1, 0.2], "bias": 0.0}))
    assert OffTopicModel.load(path).words == {}


def test_the_bundled_model_reads_chat_as_off_topic_and_questions_about_code_as_not() -> None:
    """Prompts written for this test (in none of the training sets), one clear case per kind."""
    from services.search.adapters.onnx_embedder import OnnxEmbedder
    from services.search.bootstrap import QUERY_TOKENS
    from services.search.domain.embedding_text import query_for_embedding

    embedder, model = OnnxEmbedder(max_tokens=QUERY_TOKENS), OffTopicModel.load(BUNDLED_MODEL)
    off = [
        "compose a cheerful poem about autumn leaves falling in the park",
        "what is the tallest mountain in africa",
        "how do you say good evening in italian",
    ]
    code = [
        "why does load_settings raise a KeyError when the yaml file is empty",
        "where is the retry loop of the http client and how long does it back off",
        "add a unit test for the date parser covering leap years",
    ]
    read = {
        t: model.probability(embedder.name, embedder.embed([query_for_embedding(t)])[0], t)
        for t in off + code
    }
    assert None not in read.values(), read
    assert all((read[t] or 0.0) > 0.5 for t in off), read
    assert all((read[t] or 1.0) < 0.5 for t in code), read


def test_the_bundled_model_keeps_a_question_after_a_chatty_preamble(tmp_path: Path) -> None:
    """Read by its head alone, the preamble decided (0.98 before prompts were read part by part)."""
    from services.search.adapters.onnx_embedder import OnnxEmbedder
    from services.search.bootstrap import QUERY_TOKENS

    engine = _engine(tmp_path, OffTopicModel.load(), OnnxEmbedder(max_tokens=QUERY_TOKENS))
    try:
        asked = engine.search(
            "Ok so some context first: I spent the whole weekend at my parents' place helping them move "
            "furniture and drove back late. Anyway, where do we validate the request body?",
            REPO,
        ).off_topic
        chat = engine.search(
            "We spent the whole weekend at my parents' place helping them move furniture and drove back "
            "late on Sunday. Now my back hurts, any stretches that help with that?",
            REPO,
        ).off_topic
        assert asked is not None and chat is not None and asked < 0.5 < chat, (asked, chat)
    finally:
        engine.close()


def _engine(tmp_path: Path, model: OffTopicModel | None, embedder: Embedder) -> SearchEngine:
    engine = SearchEngine(
        SqliteKeywordIndex(tmp_path / "k.db"),
        NumpyVectorIndex(tmp_path / "v.db", embedder.dimension),
        embedder,
        SqliteEmbeddingStore(tmp_path / "e.db"),
        off_topic_model=model,
    )
    engine.upsert_file(REPO, "src/app.py", [chunk("parse_config", repo=REPO)])
    engine.backfill_once()
    return engine


def test_a_search_with_a_vector_carries_the_reading_and_one_without_none(tmp_path: Path) -> None:
    embedder = WordHashEmbedder()
    engine = _engine(tmp_path, prose_model(embedder), embedder)
    try:
        prose = engine.search("write a poem about autumn", REPO).off_topic
        code = engine.search("parse config keys", REPO).off_topic
        assert prose is not None and code is not None and prose > 0.9 > 0.1 > code
        assert engine.search("write a poem about autumn", REPO, mode=SearchMode.KEYWORD).off_topic is None
        embedder.fail_next = 1  # the query cannot be embedded: no vector, no reading, still an answer
        engine.clear_query_cache()
        failed = engine.search("write a poem about autumn", REPO)
        assert failed.off_topic is None and failed.partial
    finally:
        engine.close()


def test_a_long_prompt_is_read_part_by_part_and_is_as_off_topic_as_its_most_code_like_part(
    tmp_path: Path,
) -> None:
    embedder = WordHashEmbedder()
    engine = _engine(tmp_path, prose_model(embedder), embedder)
    story = "Write a poem about autumn please, a poem about autumn leaves and autumn rain and the poem"
    try:
        question = story + ". Then parse config keys for me, parse the config keys"
        alone, asked = (
            engine.search(story + " about autumn.", REPO).off_topic,
            engine.search(question, REPO).off_topic,
        )
        assert alone is not None and asked is not None
        head = prose_model(embedder).probability(embedder.name, engine.embed_query(question), question)
        assert alone > 0.5 > asked and head is not None and head > 0.5  # the head alone reads the poem
        parts = ". ".join(["parse config keys and write a poem about autumn"] * (MAX_READING_WINDOWS + 1))
        assert len(reading_windows(parts)) > MAX_READING_WINDOWS
        assert engine.search(parts, REPO).off_topic is None  # too long to read whole: no reading
    finally:
        engine.close()


def test_reading_windows_are_sentences_short_ones_joined_long_ones_cut_evenly() -> None:
    assert reading_windows("where is the config parsed") == ["where is the config parsed"]
    long = " ".join(f"w{i}" for i in range(QUERY_WORDS + 4))
    assert [len(w.split()) for w in reading_windows(long)] == [10, 10]
    windows = reading_windows(
        "Quick question. I spent the whole weekend hiking in the alps and barely slept. "
        "Anyway, where do we validate the request body? Thanks!"
    )
    assert windows == [
        "Quick question. I spent the whole weekend hiking in the alps and barely slept.",
        "Anyway, where do we validate the request body? Thanks!",
    ]
    text = "Ok. So. " + " ".join(f"w{i}" for i in range(40)) + ". Why? " + " ".join(f"v{i}" for i in range(9))
    assert " ".join(reading_windows(text)).split() == text.split()  # every word, in order
    assert all(len(w.split()) <= QUERY_WORDS for w in reading_windows(text))
    many_short = " ".join(["Ok then."] * 20)  # short sentences only, none to join them to
    assert all(len(w.split()) <= QUERY_WORDS for w in reading_windows(many_short))
    assert " ".join(reading_windows(many_short)).split() == many_short.split()
    padded = "\n" + " ".join(f"w{i}" for i in range(QUERY_WORDS)) + ". Anyway, where is the body validated? "
    assert reading_windows(padded)[-1] == "Anyway, where is the body validated?"  # no empty part, no error


def test_a_model_for_another_embedder_gives_no_reading(tmp_path: Path) -> None:
    embedder = WordHashEmbedder()
    other = OffTopicModel("another-embedder", prose_model(embedder).weights, -4.0)
    engine = _engine(tmp_path, other, embedder)
    try:
        assert engine.search("write a poem about autumn", REPO).off_topic is None
    finally:
        engine.close()


@pytest.fixture(params=[True, False], ids=["model", "no-model"])
async def stub(request, tmp_path: Path) -> AsyncIterator[tuple[search_pb2_grpc.SearchServiceStub, bool]]:
    embedder = WordHashEmbedder()
    engine = _engine(tmp_path, prose_model(embedder) if request.param else None, embedder)
    async with served(engine) as client:
        yield client, request.param
    engine.close()


async def test_the_reading_crosses_grpc_as_an_optional_field(stub) -> None:
    client, has_model = stub
    reply = await client.Search(search_pb2.SearchRequest(query="write a poem about autumn", repo=REPO))
    assert [h.chunk.name for h in reply.hits] == ["parse_config"]
    assert reply.HasField("off_topic") is has_model
    if has_model:
        assert reply.off_topic > 0.9


def _with_examples(
    tmp_path: Path, vectors: np.ndarray, labels: list[int], name: str = "m_examples.npz"
) -> Path:
    np.savez(tmp_path / name, vectors=vectors, labels=np.array(labels, np.int8))
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"embedder": "e", "weights": [0.0, 0.0, 0.0], "bias": 0.0, "examples": name}))
    return path


def test_the_neighbour_reading_is_the_weighted_share_of_off_topic_prompts_nearest_the_query(
    tmp_path: Path,
) -> None:
    chat, code = [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]
    model = OffTopicModel.load(_with_examples(tmp_path, np.array([chat, chat, code], np.float32), [1, 1, 0]))
    near_chat = model.neighbour_reading(np.array([0.9, 0.1, 0.0], np.float32))
    near_code = model.neighbour_reading(np.array([0.1, 0.9, 0.0], np.float32))
    assert near_chat is not None and near_code is not None
    assert near_chat > 0.99 and near_code < 0.1  # the nearer prompts weigh exponentially more
    # the reading is the higher of the weights' (0.5 at zero weights) and the neighbours'
    assert model.probability("e", np.array([0.9, 0.1, 0.0], np.float32), "") == pytest.approx(near_chat)
    assert model.probability("e", np.array([0.1, 0.9, 0.0], np.float32), "") == pytest.approx(0.5)
    assert model.neighbour_reading(np.zeros(3, np.float32)) is None
    assert OffTopicModel("e", np.zeros(3, np.float32), 0.0).neighbour_reading(np.ones(3, np.float32)) is None


def test_int8_examples_are_read_as_unit_vectors(tmp_path: Path) -> None:
    model = OffTopicModel.load(
        _with_examples(tmp_path, np.array([[127, 0, 0], [0, -127, 0]], np.int8), [1, 0])
    )
    assert model.examples is not None
    assert np.allclose(model.examples, [[1, 0, 0], [0, -1, 0]])


@pytest.mark.parametrize(
    "vectors, labels, name, error",
    [
        (np.ones((2, 4), np.float32), [1, 0], "m_examples.npz", "3-wide"),  # another embedder's width
        (np.ones((2, 3), np.float32), [1], "m_examples.npz", "one 3-wide vector per label"),
        (np.ones((2, 3), np.float32), [1, 2], "m_examples.npz", "labels 0 or 1"),
        (np.full((2, 3), np.nan, np.float32), [1, 0], "m_examples.npz", "finite"),
    ],
)
def test_examples_that_do_not_fit_the_model_are_refused_whole(
    tmp_path: Path, vectors: np.ndarray, labels: list[int], name: str, error: str
) -> None:
    with pytest.raises(ValueError, match=error):
        OffTopicModel.load(_with_examples(tmp_path, vectors, labels, name))


@pytest.mark.parametrize("examples", ["missing.npz", "../elsewhere.npz", 3, "one_array.npy", "text.npz"])
def test_examples_must_be_a_readable_file_beside_the_model(tmp_path: Path, examples: object) -> None:
    np.save(tmp_path / "one_array.npy", np.ones((2, 1), np.float32))  # one array, not named ones
    (tmp_path / "text.npz").write_text("not an archive")
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"embedder": "e", "weights": [1.0], "bias": 0.0, "examples": examples}))
    with pytest.raises(ValueError, match="m.json"):
        OffTopicModel.load(path)


def test_the_bundled_model_carries_its_examples() -> None:
    model = OffTopicModel.load()
    assert model.examples is not None and model.labels is not None
    assert model.examples.shape == (len(model.labels), model.weights.size)
    assert 0 < model.labels.mean() < 1  # both kinds of prompt
