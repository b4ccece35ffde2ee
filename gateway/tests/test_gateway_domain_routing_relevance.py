"""The relevance gate (gateway/domain/routing/relevance.py) and seed specificity (routing/seeds.py).

The off-topic phrasings here were written from the categories (about the assistant, creative writing,
translation, general knowledge, small talk, chat about the conversation), not from the bench sets."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from gateway.domain.routing import RouteName, classify
from gateway.domain.routing.cues import (
    ASSISTANT_TOOL,
    NO_CODE,
    has_code_signal,
    off_topic_cue,
    points_back,
    tool_features,
)
from gateway.domain.routing.relevance import (
    MODEL_CERTAIN,
    MODEL_CERTAIN_ASKED,
    MODEL_CONFIDENT,
    MODEL_DOUBTS_ANOTHER_LANGUAGE,
    MODEL_DOUBTS_NO_SIGN,
    MODEL_OFF_TOPIC,
    MODEL_OFF_TOPIC_POINTED,
    MODEL_OFF_TOPIC_SURE,
    MODEL_OFF_TOPIC_TEAM,
    MODEL_READS_CODE,
    READS_OFF_TOPIC,
    SIMILAR,
    SIMILAR_FLOOR,
    SIMILAR_WHEN_SURE,
    gate,
    named_stems,
    skipped,
    tool_feature_named,
    unknown_names,
    with_model_cue,
)
from gateway.domain.routing.seeds import lookup_limit, specific_definitions
from gateway.domain.routing.words import content_stems, mostly_english
from gateway.tests.fakes import make_chunk
from kit.domain import Chunk, ChunkKind

OFF_TOPIC = {
    "assistant": [
        "are you an AI or a real person?",
        "who created you",
        "what is your knowledge cutoff",
        "do you have feelings",
        "tell me about yourself",
        "which company trained you?",
        "what kind of model are you",
        "can you browse the internet",
        "how were you trained",
        "are you better than chatgpt",
    ],
    "creative": [
        "write me a poem about the sea",
        "compose a limerick about a cat who loves lasagna",
        "tell me a joke",
        "can you write a short story about a dragon",
        "write song lyrics about summer love",
        "make up a bedtime story for my daughter",
        "write a sonnet about coffee",
        "draft a wedding speech for my brother",
    ],
    "translation": [
        "how do you say thank you in japanese",
        "translate this sentence to spanish: where is the train station",
        "what does 'carpe diem' mean in english",
        "translate 'i love you' to french",
        "how would you say good night in italian",
    ],
    "general knowledge": [
        "who painted the mona lisa",
        "when did the roman empire fall",
        "how far is the moon from earth",
        "what is the population of canada",
        "who won the world cup in 2018",
        "what's the boiling point of water at altitude",
        "give me a recipe for banana bread",
        "what are the symptoms of the flu",
        "who was the first person on the moon",
        "what is the tallest mountain in europe",
    ],
    "small talk": [
        "how's your day going?",
        "i'm so tired today",
        "have a great weekend!",
        "what's your favorite color",
        "tell me something interesting",
        "happy friday!",
        "nice to meet you",
        "what should i eat for dinner tonight",
    ],
    "conversation": [
        "from now on please reply only in bullet points",
        "can you answer in spanish",
        "what did we talk about yesterday",
        "summarise our conversation so far",
        "please be more formal",
        "stop using emojis",
        "what did i just ask you",
        "forget everything i said before",
    ],
}
# Prompts about code that share words with the cues: the router must not even nominate them.
CODE_PROMPTS_WITH_CUE_WORDS = [
    "write a test for the retry logic in the http client",
    "translate the error messages in the validator to german",
    "how does the app decide which language to respond in",
    "from now on the parser should accept tabs",
    "write a story for the Button component",
    "how long does a session stay in the cache",
    "how do you say 'not found' in the i18n strings",
    "who wrote the timeout handling",
    "your last answer about the hook was wrong, check the pipeline again",
    "who calls `formatDate` for the french locale?",
    "what is the population count computed from in stats.py",
]
HIT_NAMES = ["Subscriber.unsubscribe", "src/internal/Subscriber.ts", "retryWhen", "src/operators/retry.ts"]


@pytest.mark.parametrize(("category", "prompt"), [(c, p) for c, ps in OFF_TOPIC.items() for p in ps])
def test_off_topic_prompts_of_every_category_are_nominated_for_the_gate(category: str, prompt: str) -> None:
    route = classify(prompt)
    assert route.name is RouteName.SKIP or route.off_topic, (category, prompt, route)


@pytest.mark.parametrize(("category", "prompt"), [(c, p) for c, ps in OFF_TOPIC.items() for p in ps])
def test_off_topic_prompts_skip_when_no_word_names_anything_in_the_repo(category: str, prompt: str) -> None:
    route = classify(prompt)
    if route.name is not RouteName.SKIP:
        assert gate(route, prompt, HIT_NAMES).skip, (category, prompt)


@pytest.mark.parametrize("prompt", CODE_PROMPTS_WITH_CUE_WORDS)
def test_code_prompts_that_share_words_with_off_topic_cues_are_never_nominated(prompt: str) -> None:
    route = classify(prompt)
    assert route.name is not RouteName.SKIP and not route.off_topic, route
    assert not gate(route, prompt, HIT_NAMES).skip


def test_a_creative_or_translation_request_skips_even_when_the_repo_names_its_topic() -> None:
    for prompt in ("write a short story about a lonely subscriber", "how do you say 'retry later' in dutch"):
        route = classify(prompt)
        assert route.off_topic in ("creative", "translation"), prompt
        assert gate(route, prompt, HIT_NAMES).skip, prompt
        assert gate(route, prompt, HIT_NAMES, searched=False).skip, prompt  # no search needed to judge


def test_small_talk_beside_a_question_about_the_code_is_judged_by_the_question() -> None:
    prompt = "I'm so tired today. how does the subscriber get torn down?"
    route = classify(prompt)
    assert route.off_topic == "small talk"
    verdict = gate(route, prompt, HIT_NAMES)
    assert not verdict.skip and verdict.matched == ("subscrib",)
    assert gate(classify("I'm so tired today, long week"), "I'm so tired today, long week", HIT_NAMES).skip


def test_the_words_of_the_cue_itself_are_no_evidence() -> None:
    prompt = "can you summarise what we did in this session so far?"
    route = classify(prompt)
    assert route.off_topic == "conversation"
    assert gate(route, prompt, ["SessionRoutes.remember", "gateway/session.py"]).skip
    # Every category's cue words, not only the first category's.
    prompt = "please answer in french from now on"
    assert gate(classify(prompt), prompt, ["decorateRequest", "docs/answer.md"]).skip
    prompt = "who made you and what is your training data cutoff"
    assert gate(classify(prompt), prompt, ["TrainingData.load", "src/data.py"]).skip


@pytest.mark.parametrize(
    "prompt",
    [
        "What's the best way to learn functional programming if I've only ever written Java? This isn't "
        "about any project I'm working on, just general advice for my own growth.",
        "unrelated to the code: how long should I steep green tea",
        "nothing to do with our repo, but is a standing desk worth it?",
    ],
)
def test_a_prompt_the_user_says_is_not_about_the_code_skips_whatever_its_words(prompt: str) -> None:
    route = classify(prompt)
    assert route.off_topic == "unrelated", route
    assert gate(route, prompt, ["Program.learn", "src/functional/java.py", "Desk.stand", "tea.py"]).skip


def test_saying_the_code_is_not_the_problem_is_no_disclaimer() -> None:
    for prompt in (
        "the retry loop is not about the network at all, it spins on a lock — where is it?",
        "this isn't about the project layout: why does the parser drop the last token?",
    ):
        assert classify(prompt).off_topic != "unrelated", prompt


def test_your_knowledge_cutoff_date_is_about_the_assistant() -> None:
    prompt = "whats your knowledge cutoff date"
    route = classify(prompt)
    assert route.off_topic == "assistant"
    assert gate(route, prompt, ["DateScheduler.now", "src/date.ts"]).skip


def test_a_bare_topic_word_beside_a_cue_about_the_exchange_is_no_evidence() -> None:
    prompt = "how big is your context window, roughly, in tokens?"
    route = classify(prompt)
    assert route.off_topic == "assistant"
    assert gate(route, prompt, ["count_tokens", "kit/tokens.py"]).skip


def test_a_writing_request_with_a_bare_topic_word_is_creative_one_about_this_code_is_not() -> None:
    for prompt in (
        "write a haiku about recursion",
        "tell me a joke about fixtures",  # a word for code as the piece's topic
        "Could you write a sonnet about merge conflicts",
        "short story where a null pointer falls in love with a segfault",  # reads as a bug report too
        # "the" in what the piece is about is the story's own, not this project's
        "write a funny story where a junior dev deletes the production database",
        "Write a limerick about a developer who forgot a semicolon and broke the build",
        "write a haiku about a CI pipeline that fails only on fridays",
        "compose a dramatic breakup letter from a programmer to their old laptop",
        "write a pep talk for a kids' soccer team that just lost 8-0",
    ):
        assert classify(prompt).off_topic == "creative", prompt
        assert gate(
            classify(prompt), prompt, ["MergeConflict.resolve", "NullPointerError", "fixtures.py"]
        ).skip
    for prompt in (
        "write a limerick about the most complicated function in here",
        "write a haiku-style comment for the main function",
        "translate this loop into a list comprehension",
        "is there a function that translates dates to spanish",
        "write a short story about how our retry logic works",  # "our": this project's code
        "the riddle screen where you guess crashes on submit",  # a feature named by a genre word
        "draft an error message for the failed upload",
    ):
        assert not classify(prompt).off_topic, prompt


# A poetry generator, a tweet client, an i18n app, a music player: repos whose own words read as cues.
POEMS = ["PoemGenerator.generate", "src/poem/generator.py", "Haiku", "src/forms/haiku.py"]
I18N = ["formatDate", "src/i18n/format.ts", "SearchIndex.query", "locales/ja.json"]
INVOICES = ["Invoice.next_number", "src/billing/invoice.py", "numbering", "src/billing/sequence.py"]


@pytest.mark.parametrize(
    ("prompt", "names"),
    [
        ("poem generator gives the same poem every time, why", POEMS),
        ("haiku generator crashes on empty input", POEMS),
        ("dates show in english even for german users", I18N),
        ("search doesn't work in japanese", I18N),
        ("i'm so tired. why does numbering jump by ten sometimes", INVOICES),
        ("happy friday! invoice numbering skips values after a restart, any idea", INVOICES),
    ],
)
def test_a_repo_whose_own_words_read_as_cues_keeps_its_questions(prompt: str, names: list[str]) -> None:
    route = classify(prompt)
    verdict = gate(route, prompt, names)
    assert not verdict.skip, (route, verdict)


def test_what_a_translation_asks_to_put_into_a_language_is_its_material_not_the_repos_own_word() -> None:
    prompt = "put this error message into italian please: 'Connection timed out, try again later'"
    route = classify(prompt)
    assert route.off_topic == "translation"
    names = ["ErrorMessage.render", "src/errors/message.py", "Connection.timeout"]
    assert gate(route, prompt, names).skip
    # without quoted material the strings to translate may be the repo's own: judged by its words
    own = "put the error messages into spanish"
    assert not gate(classify(own), own, names, vector_scores=[0.5]).skip
    # the cue's own writing word, when the repo is named after it, is still the repo's ("translate_expr")
    asked = "translate this sentence into German: 'the parser failed'"
    assert not gate(classify(asked), asked, ["translate_expr", "src/translate.py"], vector_scores=[0.5]).skip


@pytest.mark.parametrize(
    "prompt",
    [
        "translate these UI strings to french: Save, Cancel, Are you sure you want to delete this file?",
        'Translate these UI strings to Spanish: "Save changes", "Discard", "Are you sure?"',
        "translate the following strings into german: Open, Close, Settings",
        "ok. translate these UI strings to french: Save, Cancel",
    ],
)
def test_a_demonstrative_before_the_material_of_a_translation_names_that_material(prompt: str) -> None:
    """'these UI strings' points at the strings after the colon, not at the project's own."""
    route = classify(prompt)
    assert route.off_topic == "translation"
    assert gate(route, prompt, ["ui.strings.save", "src/ui/strings.ts"], vector_scores=[0.5]).skip


@pytest.mark.parametrize(
    "prompt",
    [
        "translate our error messages to spanish: they show up in english for everyone",  # ours
        "translate these strings to french",  # no material: the repo's strings
        "translate this docstring to english: Renvoie la liste des clés",  # a code artefact
        "why does this function translate dates to french: it returns english",  # before the cue
        # what follows the colon points on at the code (a hostile review's)
        "translate these error pages to German: the ones finalhandler renders for 404 and 500",
        "translate these docs to French: the JSDoc of the retry operator",
        "translate these CLI messages to German: the ones the doctor command prints",
        # a code word in the demonstrative's phrase is the project's own
        "translate this handler's responses to german: Not found, Forbidden",
        "translate the labels of this component to german: Save, Cancel",
        # another sentence before the colon: the demonstrative is not the material's
        "translate these strings. this is for french users: Save, Cancel",
    ],
)
def test_a_demonstrative_without_material_after_it_or_before_the_cue_points_at_the_code(prompt: str) -> None:
    assert classify(prompt).off_topic != "translation"


@pytest.mark.parametrize(
    "prompt",
    [
        "write a haiku about this function: it retries forever",
        "write a poem about this parser: make it rhyme",
    ],
)
def test_a_demonstrative_before_a_colon_names_material_only_in_a_translation(prompt: str) -> None:
    assert not classify(prompt).off_topic  # "this function" is the code's, whatever follows the colon


@pytest.mark.parametrize(
    "prompt",
    [
        "stop using requests and move to httpx",
        "why does the tone clip at high volume",
        "make responses cacheable",
    ],
)
def test_code_work_that_shares_words_with_conversation_cues_is_not_a_conversation_cue(prompt: str) -> None:
    assert classify(prompt).off_topic != "conversation"


def test_contractions_fillers_and_generic_inflections_are_not_content() -> None:
    assert content_stems("recipe scaling isn't working, what's wrong lol") == ("recip", "scal", "wrong")
    assert named_stems(["MovieCard", "src/menu/topping.ts"]) >= {"movy", "topp"}
    assert set(content_stems("movies with extra toppings")) == {"movy", "extra", "topp"}


def test_without_search_evidence_the_gate_keeps_the_prompt() -> None:
    prompt = "what is the capital of australia"
    route = classify(prompt)
    assert route.off_topic == "general knowledge"
    assert not gate(route, prompt, [], searched=False).skip
    assert gate(route, prompt, [], searched=True).skip


def test_a_prompt_pointing_back_at_the_conversation_is_never_nominated() -> None:
    for prompt in ("how are these results ordered", "can you simplify this", "make it faster"):
        route = classify(prompt)
        assert not route.off_topic, prompt
        assert not gate(route, prompt, []).skip


@pytest.mark.parametrize(
    ("prompt", "names"),
    [
        ("what model does the embedder use", ["OnnxEmbedder.embed", "services/search/embedder.py"]),
        ("are you sure the subscriber unsubscribes on complete", HIT_NAMES),
        ("summarise what the indexer does", ["Indexer.index_repo", "services/indexer/engine.py"]),
    ],
)
def test_a_prompt_without_code_words_is_kept_when_the_repo_names_its_subject(
    prompt: str, names: list[str]
) -> None:
    route = classify(prompt)
    assert route.off_topic  # nominated: no word of it is a programming word
    assert not gate(route, prompt, names).skip


def test_a_prompt_with_no_sign_of_code_is_kept_when_its_words_occur_in_the_hits_text() -> None:
    prompt = "how are the results ordered"
    route = classify(prompt)
    assert route.off_topic == "no sign of code"
    assert gate(route, prompt, ["mergeMap"], hit_texts=["function f() { /* planets */ }"]).skip
    kept = gate(route, prompt, ["mergeMap"], hit_texts=["// results are ordered by arrival"])
    assert not kept.skip and set(kept.matched) == {"result", "order"}
    # A category cue is judged by names only: its words are too common in comments to count there.
    joke = classify("tell me a joke about planets")
    assert gate(joke, "tell me a joke about planets", ["mergeMap"], hit_texts=["planets"]).skip


def test_skipped_route_drops_seeds_and_says_why() -> None:
    route = classify("tell me a joke")
    verdict = gate(route, "tell me a joke", HIT_NAMES)
    turned = skipped(route, verdict)
    assert turned.name is RouteName.SKIP and turned.seeds == ()
    assert turned.reasons[-1] == verdict.reason


def test_code_signals_are_identifiers_paths_punctuation_and_programming_words() -> None:
    assert has_code_signal("what does parse_args do")
    assert has_code_signal("look at src/app.ts")
    assert has_code_signal("x => x + 1")
    assert has_code_signal("the middleware order")
    assert not has_code_signal("what is the capital of peru")


def test_stems_match_plural_and_verb_forms_of_names_but_not_longer_words() -> None:
    assert set(content_stems("retries were scheduled by handlers")) == {"retry", "schedul", "handl"}
    named = named_stems(["retry", "RetryScheduler.schedule", "lib/handler.js"])
    assert {"retry", "schedul", "handl"} <= named
    assert "capital" not in named_stems(["capitalize"])
    assert content_stems("please tell me more about that thing") == ()


# -- seed specificity ------------------------------------------------------------------------------------


def _definitions(name: str, count: int, *, tests: int = 0) -> list[Chunk]:
    return [make_chunk(name, f"src/m{i}.py", 1) for i in range(count)] + [
        replace(make_chunk(name, f"tests/test_m{i}.py", 1), is_test=True) for i in range(tests)
    ]


def test_a_name_many_definitions_share_is_not_a_seed() -> None:
    assert specific_definitions("handleRequest", _definitions("handleRequest", 4)) == ()
    assert len(specific_definitions("handleRequest", _definitions("handleRequest", 3))) == 3


def test_a_plain_word_is_a_seed_only_when_one_definition_has_it() -> None:
    assert specific_definitions("json", _definitions("json", 2)) == ()
    assert len(specific_definitions("json", _definitions("json", 1))) == 1
    assert specific_definitions("get", _definitions("get", 0)) == ()


def test_test_definitions_do_not_make_a_name_common_but_count_when_alone() -> None:
    assert len(specific_definitions("parse_header", _definitions("parse_header", 1, tests=5))) == 6
    assert specific_definitions("parse_header", _definitions("parse_header", 0, tests=4)) == ()


def test_a_declaration_gives_way_to_the_implementation_it_declares() -> None:
    implementation = make_chunk("setValidatorCompiler", "lib/schema-controller.js", 40)
    declarations = [
        make_chunk("setValidatorCompiler", "types/instance.d.ts", 12),
        make_chunk("setValidatorCompiler", "stubs/schema.pyi", 3),
    ]
    assert specific_definitions("setValidatorCompiler", [*declarations, implementation]) == (implementation,)
    # declarations do not make a name common when it has one implementation
    many = [*declarations, *(make_chunk("setValidatorCompiler", f"types/v{i}.d.ts", 1) for i in range(3))]
    assert specific_definitions("setValidatorCompiler", [*many, implementation]) == (implementation,)
    # a name only declared keeps its declarations: they are all there is; a test is no implementation
    assert specific_definitions("setValidatorCompiler", declarations) == tuple(declarations)
    test = replace(make_chunk("setValidatorCompiler", "test/schema.test.js", 5), is_test=True)
    assert specific_definitions("setValidatorCompiler", [declarations[0], test]) == (declarations[0], test)


def test_file_level_matches_are_not_definitions() -> None:
    readme = make_chunk("README", "README.md", 1, ChunkKind.FILE)
    assert specific_definitions("README", [readme]) == ()


def test_module_and_file_chunks_that_fill_the_answer_do_not_hide_a_common_names_definitions() -> None:
    modules = [make_chunk("handleRequest", f"src/handleRequest{i}.py", 1, ChunkKind.MODULE) for i in range(3)]
    answer = [*_definitions("handleRequest", 1), *modules, *_definitions("handleRequest", 5)[1:]]
    limit = lookup_limit(3)
    assert limit > len(answer)  # asked for enough that modules cannot fill the answer
    assert specific_definitions("handleRequest", answer[:limit], asked=limit) == ()
    # an answer full of module and file chunks cannot tell: the name is not trusted as specific
    full = [*_definitions("handleRequest", 1), *modules]
    assert specific_definitions("handleRequest", full, asked=len(full)) == ()
    assert len(specific_definitions("handleRequest", full, asked=limit)) == 1


# -- a cue word that is the repo's own domain ------------------------------------------------------------

# A weather app: its code is named after words the general-knowledge cues list.
WEATHER_HITS = ["app.weather.Forecast", "src/weather/forecast.py", "Restaurant", "src/places/restaurant.py"]


@pytest.mark.parametrize(
    "prompt",
    [
        "where is the forecast computed",
        "show me the weather forecast",
        "which restaurants are near the user",
    ],
)
def test_a_cue_word_the_repo_is_named_after_keeps_the_prompt(prompt: str) -> None:
    route = classify(prompt)
    assert route.off_topic in ("general knowledge", "creative")  # still cued: the evidence decides
    verdict = gate(route, prompt, WEATHER_HITS)
    assert not verdict.skip, verdict.reason


@pytest.mark.parametrize(
    "prompt", ["write me a poem about the sea", "what is the capital of australia", "tell me a joke"]
)
def test_a_weather_app_still_skips_what_it_does_not_name(prompt: str) -> None:
    assert gate(classify(prompt), prompt, WEATHER_HITS).skip


def test_a_cue_word_counts_in_names_paths_and_memories_not_in_hit_text() -> None:
    prompt = "show me the weather forecast"
    body = "# the weather forecast page is out of scope\n"
    assert gate(classify(prompt), prompt, ["src/billing.py", "charge_card"], hit_texts=[body]).skip
    assert not gate(classify(prompt), prompt, ["src/billing.py"], memory_texts=[f"weather\n{body}"]).skip


def test_a_meta_cue_word_is_no_evidence_even_when_the_repo_names_it() -> None:
    prompt = "what did we talk about in this session"
    assert gate(classify(prompt), prompt, ["app.session.Session", "src/session.py"]).skip


def test_a_recalled_memory_naming_the_prompts_words_keeps_it() -> None:
    prompt = "write me a poem about the lighthouse keeper"
    route = classify(prompt)
    assert gate(route, prompt, ["charge_card", "src/payments.py"]).skip
    memory = "Lighthouse sync\nThe lighthouse job rebuilds the tide tables nightly."
    verdict = gate(route, prompt, ["charge_card", "src/payments.py"], memory_texts=[memory])
    assert not verdict.skip and "lighthous" in verdict.matched


@pytest.mark.parametrize(
    "prompt",
    [
        "can you remember where we validate the input? I forgot",
        "how do we round the totals on invoices",
        "where did we put the retry for uploads",
        "how do we pick the restaurants near the user",
    ],
)
def test_the_team_asking_where_or_how_it_does_something_is_never_nominated(prompt: str) -> None:
    assert off_topic_cue(prompt, route=RouteName.LOOKUP) == ""


@pytest.mark.parametrize(
    "prompt", ["where were we?", "how are we doing today", "how long have we been talking"]
)
def test_asking_about_the_exchange_with_we_is_no_sign_of_code(prompt: str) -> None:
    assert not has_code_signal(prompt)


# -- how much evidence keeps a cued prompt -----------------------------------------------------------------

RULES_HITS = ["RuleSet.apply", "src/rules.py", "Board.render", "src/board.py"]


def test_one_everyday_word_the_repo_happens_to_name_does_not_keep_a_cued_prompt() -> None:
    prompt = "what are the rules of chess castling"
    route = classify(prompt)
    assert route.off_topic
    verdict = gate(route, prompt, RULES_HITS)
    assert verdict.skip and verdict.matched == ("rul",)
    assert "only 1 of its 3 words" in verdict.reason


def test_half_of_the_words_named_keeps_a_cued_prompt() -> None:
    prompt = "what are the rules of the board"
    verdict = gate(classify(prompt), prompt, RULES_HITS)
    assert not verdict.skip and set(verdict.matched) == {"rul", "board"}


def test_code_that_reads_like_the_prompt_keeps_it_with_few_words_named() -> None:
    prompt = "what are the rules of chess castling"
    route = classify(prompt)
    assert not gate(route, prompt, RULES_HITS, vector_scores=[0.1, SIMILAR + 0.05]).skip
    assert gate(route, prompt, RULES_HITS, vector_scores=[0.1, SIMILAR - 0.05]).skip
    # similarity alone, with no word named, is no evidence: an embedding finds something for anything
    assert gate(route, prompt, ["Board.render"], vector_scores=[0.9]).skip


def test_overlapping_cues_are_all_left_out_of_the_evidence() -> None:
    prompt = "what are you not allowed to help with?"
    route = classify(prompt)
    assert route.off_topic == "assistant"
    assert gate(route, prompt, ["allowed_hosts", "src/allow.py"]).skip


def test_similar_code_does_not_vouch_for_a_long_prompt_that_names_a_few_words_by_chance() -> None:
    prompt = (
        "out of curiosity, how do large language models like you pick the next word when writing whole "
        "sentences, thinking about grammar, tone and meaning, and deciding when to stop?"
    )
    route = classify(prompt)
    assert route.off_topic
    assert gate(route, prompt, ["next_word", "src/words.py"], vector_scores=[0.6]).skip


HEART_HITS = ["Heartbeat.rest", "middleware/heartbeat.go", "RateLimiter.normal", "src/rate.py"]


def test_words_named_by_chance_keep_nothing_when_no_code_found_reads_like_the_prompt() -> None:
    prompt = "What's a normal resting heart rate for an adult?"
    route = classify(prompt)
    assert route.off_topic
    assert not gate(route, prompt, HEART_HITS).skip  # no vectors yet (backfilling): words decide
    assert not gate(route, prompt, HEART_HITS, vector_scores=[SIMILAR_FLOOR + 0.05]).skip
    verdict = gate(route, prompt, HEART_HITS, vector_scores=[0.1, SIMILAR_FLOOR - 0.05])
    assert verdict.skip and "reads like the prompt" in verdict.reason


def test_the_similarity_floor_spares_behaviour_asks_and_small_talk_beside_a_question() -> None:
    prompt = "what happens when the input is empty"
    assert not gate(classify(prompt), prompt, ["parse_input", "src/input.py"], vector_scores=[0.1]).skip
    prompt = "I'm so tired today. how does the subscriber get torn down?"
    assert not gate(classify(prompt), prompt, HIT_NAMES, vector_scores=[0.1]).skip


@pytest.mark.parametrize(
    "prompt",
    [
        "what does a CPU cache do",
        "how does public key cryptography work at a high level",
        "what are observables",
        "how does routing work",
    ],
)
def test_a_textbook_question_about_a_concept_goes_to_the_gate(prompt: str) -> None:
    route = classify(prompt)
    assert route.off_topic == "general knowledge", route
    assert gate(route, prompt, ["Queue.push", "src/queue.py"], vector_scores=[0.2]).skip


def test_a_textbook_question_the_repo_answers_is_kept() -> None:
    prompt = "how does routing work"
    assert not gate(classify(prompt), prompt, ["Router.route", "src/routing.ts"], vector_scores=[0.5]).skip


@pytest.mark.parametrize(
    "prompt",
    [
        "what does the cache do",
        "how does it know when it's done?",
        "how do the pieces fit together at a high level",
        "what is a fixture",
        "how does `mergeMap` work",
    ],
)
def test_a_question_pointing_at_the_project_is_no_textbook_question(prompt: str) -> None:
    assert classify(prompt).off_topic != "general knowledge"


def test_a_programming_word_alone_is_judged_by_the_evidence() -> None:
    prompt = "explain how backpressure works in streams"
    route = classify(prompt)
    assert route.off_topic == "no sign of code"
    assert not gate(route, prompt, ["Readable.pipe", "lib/internal/streams/backpressure.js"]).skip
    prompt = "how do I fix a squeaky kitchen table leg"
    route = classify(prompt)
    assert route.off_topic == "no sign of code"
    assert gate(route, prompt, ["Table.render", "src/table.py"], vector_scores=[0.12]).skip


@pytest.mark.parametrize(
    "prompt",
    [
        "explain architecture",
        "explain project structure",
        "how does everything fit together",
    ],
)
def test_an_architecture_question_without_a_determiner_is_no_textbook_question(prompt: str) -> None:
    route = classify(prompt)
    assert route.name is RouteName.ARCHITECTURE
    assert not route.off_topic, route


@pytest.mark.parametrize("prompt", ["how do jobs get queued", "how do requests get retried"])
def test_a_short_how_question_is_no_concept_question_without_work_or_do(prompt: str) -> None:
    assert classify(prompt).off_topic != "general knowledge"


@pytest.mark.parametrize(
    "prompt",
    [
        "nothing to do with the repo layout: how are plugins discovered at startup",
        "I'm not asking about a code change, just where is the rate limiter configured",
        "this is not about any code review, where is the websocket reconnect handled",
        "not talking about the code yet, first explain how authentication flows through the gateway",
    ],
)
def test_a_disclaimer_beside_a_question_about_the_code_is_no_skip(prompt: str) -> None:
    assert classify(prompt).off_topic != "unrelated"


@pytest.mark.parametrize(
    "prompt",
    [
        "translating windows paths fails on ci",
        "translate exceptions to status codes in middleware",
        "show a toast for failed uploads",
        'why does "translate" fail for empty strings',
    ],
)
def test_a_bug_report_with_a_genre_word_is_judged_as_a_bug_report(prompt: str) -> None:
    route = classify(prompt)
    assert not gate(route, prompt, ["convert", "src/convert.py"], vector_scores=[0.5]).skip, route


def test_a_leading_run_of_dashes_costs_no_quadratic_time() -> None:
    base = "what is your name " + "x " * 2000
    slow = "-" * 4000 + " what is your name"

    def cpu(text: str) -> float:
        start = time.process_time()
        for _ in range(3):
            gate(classify(text), text, ["a"], vector_scores=[0.5])
        return time.process_time() - start

    cpu(base)
    assert cpu(slow) < 10 * cpu(base) + 0.01


def test_the_users_own_things_are_no_sign_of_code_but_their_code_is_kept_by_the_evidence() -> None:
    prompt = "lost my house keys, how much does a locksmith usually charge?"
    route = classify(prompt)
    assert route.off_topic == "no sign of code"
    assert gate(route, prompt, ["KeyStore.get", "src/keys.py"], vector_scores=[0.1]).skip
    prompt = "gzip isn't kicking in for my responses, any idea why"
    route = classify(prompt)
    assert not gate(
        route,
        prompt,
        ["Compress", "middleware/compress.go"],
        hit_texts=["gzip responses"],
        vector_scores=[0.48],
    ).skip
    assert not classify("why does my handler never see the body").off_topic


def test_one_word_beside_a_cue_about_the_exchange_is_the_cues_own_attribute() -> None:
    prompt = "what's your context window size"
    route = classify(prompt)
    assert route.off_topic == "assistant"
    assert gate(route, prompt, ["Chunk.size", "src/size.py"], vector_scores=[0.3]).skip
    # ...unless the code found reads like the prompt
    assert not gate(route, prompt, ["Chunk.size", "src/size.py"], vector_scores=[SIMILAR + 0.05]).skip


def test_a_few_named_words_beside_a_cue_about_the_exchange_are_the_exchanges_own() -> None:
    # "close", "terminal": words a repo names, here about the session and the vendor's servers
    prompt = "what becomes of our chat history once I close the terminal, is it kept on anthropic's servers?"
    route = classify(prompt)
    assert route.off_topic == "assistant"
    names = ["Terminal.close", "src/terminal.py", "Session.keep"]  # 2 of its 5 words
    assert gate(route, prompt, names, vector_scores=[0.3], reading=MODEL_OFF_TOPIC).skip
    # ...unless the code found reads like the prompt, or the model does not read it as off-topic
    assert not gate(route, prompt, names, vector_scores=[SIMILAR + 0.05], reading=MODEL_OFF_TOPIC).skip
    assert not gate(route, prompt, names, vector_scores=[0.3], reading=MODEL_OFF_TOPIC - 0.01).skip
    # The same words with no cue about the exchange keep a prompt: the evidence decides as before.
    plain = "once the terminal closes, is the chat history kept in the store?"
    assert not gate(replace(classify(plain), off_topic=NO_CODE), plain, names, vector_scores=[0.3]).skip


def test_stopping_the_assistants_habits_and_the_vendors_servers_are_about_the_assistant() -> None:
    assert classify("is there a way to stop you from asking before every edit").off_topic == ASSISTANT_TOOL
    assert classify("do my prompts end up on Anthropic's servers").off_topic == "assistant"


def test_a_code_word_in_its_everyday_sense_is_kept_when_the_model_reads_it_as_code() -> None:
    prompt = "the dots turn red but nothing fails, why does it do that"
    route = classify(prompt)
    assert route.off_topic == "a code word with an everyday sense"
    names = ["TerminalReporter.write", "src/terminal.py"]
    assert gate(route, prompt, names, vector_scores=[0.2], reading=MODEL_DOUBTS_NO_SIGN).skip
    kept = gate(route, prompt, names, vector_scores=[0.2], reading=MODEL_DOUBTS_NO_SIGN - 0.01)
    assert not kept.skip and "reads it as code" in kept.reason, kept.reason


def test_the_generic_you_of_a_question_about_code_is_not_the_assistant() -> None:
    assert classify("is there a way to stop you from passing both flags at once").off_topic != "assistant"


@pytest.mark.parametrize(
    "prompt",
    [
        "can you give me that as bullet points",
        "no, that's not what i asked for",
        "never mind, forget it",
        "explain that again, slower",
        "are you sure about that?",
        "i lost you in the second paragraph",
        "make that a bit shorter",
    ],
)
def test_a_remark_on_the_answer_just_given_is_about_the_conversation(prompt: str) -> None:
    route = classify(prompt)
    assert route.off_topic == "conversation", prompt
    assert gate(route, prompt, HIT_NAMES).skip


def test_a_remark_on_the_answer_beside_a_question_about_the_code_is_kept() -> None:
    prompt = "never mind the subscriber, how does retryWhen resubscribe?"
    assert not classify(prompt).off_topic
    prompt = "are you sure about that? I thought unsubscribe retries"
    route = classify(prompt)
    assert not gate(route, prompt, HIT_NAMES).skip


@pytest.mark.parametrize(
    "prompt",
    ["does anything I type get used to train you", "how do I switch you to a cheaper plan"],
)
def test_training_on_the_users_words_and_switching_the_assistant_are_about_the_assistant(prompt: str) -> None:
    route = classify(prompt)
    assert route.off_topic == "assistant"
    assert gate(route, prompt, HIT_NAMES).skip


@pytest.mark.parametrize(
    "prompt",
    [
        "翻译成日语：谢谢你的耐心",
        "traduis en espagnol : « bonne nuit »",
        "put 'good morning' into simplified chinese",
        "I need the danish for 'file not found' on a sign",
        "translate 'the server is down, we're rolling back the deployment' into Spanish",
    ],
)
def test_translation_asked_in_another_language_or_of_quoted_code_words_skips(prompt: str) -> None:
    route = classify(prompt)
    assert route.off_topic in ("translation", "language"), prompt
    names = ["File.notFound", "src/file.ts", "Mux.Put", "put"]
    assert gate(route, prompt, names).skip, prompt


def test_how_do_i_say_is_a_translation_only_with_a_language_named_in_its_sentence() -> None:
    # The quote's full stops put the language beyond the reach of "say … in <language>": the cue is the named one.
    assert off_topic_cue("how do you say 'sorry, I didn't mean it. really.' in spanish") == "translation"
    # Without a language it asks how to express something, here in an API: not a translation.
    prompt = "how do I say 'give at least one of these two options' without making either of them mandatory by itself"
    assert off_topic_cue(prompt) != "translation"
    assert not gate(classify(prompt), prompt, ["Command.MarkFlagsOneRequired", "flag_groups.go"]).skip
    # A language in a later sentence is not the one asked for.
    later = "how do I say a subcommand needs at least one positional? we write everything in english anyway"
    assert off_topic_cue(later) != "translation"


def test_a_language_beside_a_question_about_the_code_keeps_it() -> None:
    prompt = "why do the dates show in english for german users"
    route = classify(prompt)
    assert not gate(route, prompt, ["formatDate", "src/users/locale.ts", "User"]).skip


@pytest.mark.parametrize(
    "prompt",
    [
        "my pottery class got moved to saturday",
        "which branch of the post office opens early",
        "my dog keeps crashing into the door",
    ],
)
def test_a_code_word_in_its_everyday_sense_skips_when_nothing_else_names_code(prompt: str) -> None:
    route = classify(prompt)
    assert route.off_topic == "a code word with an everyday sense", prompt
    assert gate(route, prompt, HIT_NAMES, vector_scores=[0.15]).skip, prompt
    # ...and is kept when another of its words names the repo's code, or a hit reads like it
    assert not gate(route, prompt, [*HIT_NAMES, "Pottery", "Office", "Door"], vector_scores=[0.15]).skip
    assert not gate(route, prompt, HIT_NAMES, vector_scores=[SIMILAR_FLOOR + 0.01]).skip


@pytest.mark.parametrize(
    "prompt",
    [
        "why does this class crash on load",  # points back at the code on screen
        "which class owns the cache",  # a programming word beside it
        "how do we merge configs",  # the team asking
        "the build fails on the release branch",
        "what happens when a service fails to boot",  # a behaviour ask
        "why does my handler never see the body",  # a code word with no everyday sense
    ],
)
def test_a_code_word_with_other_signs_of_code_is_never_judged_by_its_everyday_sense(prompt: str) -> None:
    assert classify(prompt).off_topic != "a code word with an everyday sense", prompt


def test_big_o_notation_is_no_code_punctuation_and_a_relative_that_points_at_nothing() -> None:
    assert classify("why is quicksort O(n^2) worst case but still popular").off_topic
    assert not classify("why does parse(n) return None").off_topic
    assert classify("a melancholy poem about a library that nobody uses anymore").off_topic == "creative"
    assert not classify("write a poem for that parser in the README").off_topic


@pytest.mark.parametrize(
    ("prompt", "category"),
    [
        ("write a haiku about a failing test", "creative"),  # the failure is the piece's topic
        ("can u write a rap verse about debugging with cold pizza", "creative"),
        ('translate to french: "Permission denied (publickey)." — my colleague asked', "translation"),
    ],
)
def test_what_a_piece_is_about_or_quotes_is_its_material_not_a_sign_of_code(
    prompt: str, category: str
) -> None:
    route = classify(prompt)
    assert route.off_topic == category
    assert gate(route, prompt, HIT_NAMES, vector_scores=[0.5]).skip
    for code in ("the haiku export fails on empty titles", 'translate "Permission denied" in auth_error()'):
        assert not classify(code).off_topic, code


def test_this_morning_points_at_a_time_not_at_the_code_under_discussion() -> None:
    prompt = "my pottery class got cancelled this morning"
    route = classify(prompt)
    assert route.off_topic == "a code word with an everyday sense"
    assert gate(route, prompt, HIT_NAMES, vector_scores=[0.1]).skip
    assert not classify("why does this class crash on load").off_topic


def test_the_assistants_plan_is_about_the_assistant() -> None:
    prompt = "how many messages do i get on the pro plan"
    route = classify(prompt)
    assert route.off_topic == "assistant"
    assert gate(route, prompt, HIT_NAMES).skip


@pytest.mark.parametrize(
    ("prompt", "needed"),
    [
        ("a birthday poem for my colleague who loves Rust", MODEL_OFF_TOPIC),  # no sign of code at all
        ("lost the key to my bike lock, any trick?", MODEL_OFF_TOPIC_SURE),  # a code word
        ("that answer was way too long", MODEL_OFF_TOPIC_SURE),  # pointing back
        ("our build broke, tell me a joke to cheer me up", MODEL_OFF_TOPIC_SURE),  # a code word, a cue
        ("is any of this thread-safe", MODEL_OFF_TOPIC_POINTED),  # a code word pointed at
        ("how do we deal with time zones", MODEL_OFF_TOPIC_TEAM),  # the team asks about its own code
        # "it" is the key the prompt names: no pointing, a code word alone
        ("I locked the key inside my car, any way to get it out", MODEL_OFF_TOPIC_SURE),
    ],
)
def test_the_search_models_reading_cues_a_prompt_from_its_threshold_on(prompt: str, needed: float) -> None:
    route = classify(prompt)
    assert not route.off_topic and route.name is not RouteName.SKIP
    assert with_model_cue(route, prompt, needed - 0.01) == route
    assert with_model_cue(route, prompt, None) == route  # no model for this embedder
    cued = with_model_cue(route, prompt, needed)
    assert cued.off_topic == READS_OFF_TOPIC and cued.name is route.name and cued.seeds == route.seeds


@pytest.mark.parametrize(
    "prompt",
    [
        "why does parse_config drop the last key",  # an identifier
        "what is in src/app/settings.py",  # a path
        "hey, happy monday! where do we decide who gets a discount",  # a greeting sways the reading
        "give me the lay of the land",  # an architecture question
        "can you clean this up a bit",  # a change asked of what is on screen
    ],
)
def test_the_search_model_is_not_heard_on_names_paths_or_code_pointed_at(prompt: str) -> None:
    route = classify(prompt)
    assert with_model_cue(route, prompt, 0.999) == route


def test_a_cue_of_its_own_a_follow_up_or_a_skip_is_left_as_it_is() -> None:
    for prompt in ("write me a poem about the sea", "thanks!"):
        route = classify(prompt)
        assert route.off_topic or route.name is RouteName.SKIP
        assert with_model_cue(route, prompt, 0.999) == route
    follow_up = replace(classify("what should i cook tonight"), follow_up=True)
    assert with_model_cue(follow_up, "what should i cook tonight", 0.999) == follow_up


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("where is the route context reset", True),
        ("make it faster", True),
        ("is it bad to drink coffee on an empty stomach", True),
        ("Wie wertet pytest die Bedingung in skipif aus, wenn sie als String angegeben ist?", False),
        ("¿se puede cambiar cuándo se ejecutan las reacciones?", False),
        ("où est chargé le modèle d'embedding", False),
        ("как парсер отличает 0x1F от обычного десятичного числа", False),
    ],
)
def test_a_prompt_in_another_language_is_told_from_english(text: str, english: bool) -> None:
    assert mostly_english(text) is english


def test_french_and_italian_elisions_leave_the_word_after_them() -> None:
    assert content_stems("le modèle d'embedding et l'index") == content_stems("modèle embedding index")
    assert content_stems("it's what's don't") == ()  # English contractions stay out


def test_in_another_language_its_function_words_are_no_content() -> None:
    assert content_stems("Ich hab heute frei und keine Ahnung, was ich kochen soll") == content_stems(
        "heute frei keine Ahnung was kochen soll"
    )
    assert "con" in content_stems("con is a reserved file name on windows")  # English: a word like another
    assert mostly_english("tmp dir per test or per session?")  # "per" is English too
    assert "dir" in content_stems("warum ist das tmp dir leer?")  # a foreign prompt keeps a word code uses
    prompt = "Ich hab heute frei und keine Ahnung, was ich kochen soll. Irgendwas mit Kartoffeln?"
    names = ["und.parse", "src/mit/license.py", "IchBin"]  # an identifier holding the function words
    assert gate(classify(prompt), prompt, names, hit_texts=["und mit ich"], vector_scores=[0.1]).skip


def test_a_prompt_in_another_language_is_kept_on_one_word_the_code_names() -> None:
    """Its other words cannot name the code's English names; the model's reading of it is not heard."""
    prompt = "wie funktioniert retryWhen genau, wenn der Fehler sofort kommt und die Quelle neu startet"
    route = replace(classify(prompt), off_topic=NO_CODE)
    assert not gate(route, prompt, HIT_NAMES).skip
    assert gate(route, "wie wird das Wetter morgen in Berlin, regnet es wieder", HIT_NAMES).skip  # names none
    russian = "как парсер отличает шестнадцатеричные числа от десятичных"
    plain = classify(russian)
    assert not plain.off_topic and plain.name is not RouteName.SKIP
    assert with_model_cue(plain, russian, MODEL_CERTAIN - 0.01) == plain  # it reads 0.76
    assert with_model_cue(plain, "how to cook rice without a cooker", 0.99).off_topic  # English: heard


def test_a_prompt_that_names_the_repo_is_not_judged_by_the_model() -> None:
    """Asked of "this codebase" or "our repo" by name: about the code, however chatty it reads."""
    for prompt in (
        "whats the weather like in this codebase - any messy spots I should avoid touching",
        "is there anything in our repo that still needs the old login flow",
    ):
        route = classify(prompt)
        assert not route.off_topic and route.name is not RouteName.SKIP, prompt
        assert with_model_cue(route, prompt, 0.999) == route, prompt
    plain = "whats the weather like in this module - any messy spots I should avoid"  # no repo named: heard
    assert with_model_cue(classify(plain), plain, 0.999).off_topic == READS_OFF_TOPIC


@pytest.mark.parametrize(
    "prompt",
    [
        "which is better?",  # no content word: nothing for the gate to judge ("which is better?" reads 0.99)
        "how come?",
    ],
)
def test_the_search_model_is_not_heard_on_a_prompt_with_nothing_to_judge(prompt: str) -> None:
    route = classify(prompt)
    assert with_model_cue(route, prompt, 0.999) == route


def test_a_long_prompt_is_heard_the_search_service_reads_it_part_by_part() -> None:
    """A question after a preamble reads low there (services/search: its most code-like part counts);
    a long prompt that reads high all through is judged like a short one, and one with no reading is not."""
    prompt = (
        "The server at the restaurant last night was rude to us and forgot half our order. Should I have "
        "complained to the manager or just left a smaller tip?"
    )
    route = classify(prompt)
    assert not route.off_topic and route.name is not RouteName.SKIP
    assert with_model_cue(route, prompt, 0.99).off_topic == READS_OFF_TOPIC
    assert with_model_cue(route, prompt, None) == route


def test_a_bug_report_needs_the_sure_reading() -> None:
    prompt = "the dates are off by one day"
    route = classify(prompt)
    assert route.name is RouteName.BUG and not route.off_topic
    assert with_model_cue(route, prompt, MODEL_OFF_TOPIC_SURE - 0.01) == route
    assert with_model_cue(route, prompt, MODEL_OFF_TOPIC_SURE).off_topic == READS_OFF_TOPIC


def test_a_short_prompt_with_more_foreign_than_english_function_words_is_not_english() -> None:
    assert not mostly_english("warum ist checkout so langsam")  # "so" is English too: 1 against 1
    assert mostly_english("why does the worker die")  # "die" is German too, the rest is English


STORY = (
    "Ok so some context first: we had a big family dinner on Sunday, my uncle talked about his garden the "
    "whole evening and I barely slept. Anyway, "
)


def test_a_question_after_a_long_preamble_is_judged_by_the_sentence_it_ends_on() -> None:
    """The embedding reads the preamble only (so its low similarity is no evidence), and the story dilutes
    the share of named words; the ask at the end names the code."""
    prompt = STORY + "when does the subscriber unsubscribe on retry?"
    route = replace(classify(prompt), off_topic=NO_CODE)
    verdict = gate(route, prompt, HIT_NAMES, vector_scores=[0.15])
    assert not verdict.skip and "it ends on" in verdict.reason
    chat = STORY + "what should I cook tonight?"
    assert gate(replace(classify(chat), off_topic=NO_CODE), chat, HIT_NAMES, vector_scores=[0.15]).skip
    short = "how do i unsubscribe from a newsletter"  # read whole: its low similarity still counts
    assert gate(replace(classify(short), off_topic=NO_CODE), short, HIT_NAMES, vector_scores=[0.15]).skip


@pytest.mark.parametrize(
    "prompt",
    [
        "it's so hot in the office today and the AC died",
        "ugh it's pouring and my umbrella is at home",
        "it's -25 degrees outside, school is closed",
    ],
)
def test_a_dummy_it_points_at_nothing(prompt: str) -> None:
    assert not points_back(prompt)
    route = classify(prompt)
    assert route.off_topic, route  # no sign of code left: the evidence decides
    assert gate(route, prompt, HIT_NAMES, vector_scores=[0.1]).skip


@pytest.mark.parametrize(
    "prompt",
    [
        "the window in my bedroom won't close all the way since the cold snap, what could cause that",
        "my sourdough starter smells like nail polish since I moved it to the fridge, is that normal?",
        "there's a moth in my pantry, like an actual tiny moth that flutters. should I be worried?",
        "my neighbour's hedge grows over the fence every summer, can I cut it back myself or are they all the same",
    ],
)
def test_a_pronoun_after_the_prompts_own_words_refers_back_to_them(prompt: str) -> None:
    # What "it" or "that" stands for is in the prompt: it points at nothing on screen, the evidence decides.
    assert not points_back(prompt)
    route = classify(prompt)
    assert route.off_topic, route
    assert gate(route, prompt, HIT_NAMES, vector_scores=[0.1], reading=0.7).skip
    # ...with the model's reading beside it: without one (another embedder), the pronoun keeps the prompt
    assert not gate(route, prompt, HIT_NAMES, vector_scores=[0.1]).skip


@pytest.mark.parametrize(
    "prompt",
    [
        "why does this crash",
        "is it safe to call twice?",
        "ugh, I'm so tired of this: why is it so slow to start",
        "Long day. Finally back at my desk. Is this loop thread-safe?",  # a demonstrative before its noun
        "how does the retry backoff work here?",  # "here" is always the place on screen
        "how are options or settings passed around inside this",  # "this" ending a sentence
    ],
)
def test_a_pronoun_before_the_prompt_says_what_it_is_about_points_at_the_screen(prompt: str) -> None:
    assert points_back(prompt)


@pytest.mark.parametrize(
    "prompt",
    [
        "what's 'rate limit' in German, or do they keep the English term?",
        "whats «merci d'avance» in english",
        "how would a native speaker say 'we are very sorry for the delay in shipping your order' in Korean",
        "what does 'bikeshedding' mean and is there an equivalent expression in French?",
    ],
)
def test_quoted_words_asked_for_in_a_language_are_a_translation(prompt: str) -> None:
    assert off_topic_cue(prompt) == "translation"
    assert gate(classify(prompt), prompt, HIT_NAMES, vector_scores=[0.5]).skip


@pytest.mark.parametrize(
    "prompt",
    [
        "what is 'locale' in english fallback mode",  # the language qualifies a noun: a question about code
        "what's 'seed' in the config, is it used?",
        "how would a native speaker say the error message is rude?",  # no language named
        "is there an equivalent function in python for this",  # a programming language
        "what is 'Save' in French? the button label is blank after switching language",  # a bug report follows
    ],
)
def test_quoted_words_beside_a_language_that_ends_no_phrase_are_no_translation(prompt: str) -> None:
    assert off_topic_cue(prompt) != "translation"


@pytest.mark.parametrize(
    "prompt",
    [
        "is it safe to call this twice",
        "is it safe to call twice?",  # the infinitive's object left out: the code on screen
        "is it ok to delete?",
        "is it worth it",
        "why is it so slow",
        "is it ok to mutate the request",
        "it's freezing when I open the settings page",  # the app freezes
    ],
)
def test_an_it_that_refers_still_points_or_the_code_word_keeps_the_prompt(prompt: str) -> None:
    route = classify(prompt)
    assert not route.off_topic and route.name is not RouteName.SKIP, route


def test_a_single_letter_says_nothing_of_the_language() -> None:
    assert mostly_english("big O of quicksort worst case")
    assert mostly_english("explain big-O notation like I'm twelve")
    assert not mostly_english("perros y gatos en el parque")  # "en", "el": Spanish all the same


@pytest.mark.parametrize(
    ("prompt", "names", "skip"),
    [
        ("ich bin so müde heute, das Baby hat die ganze Nacht geschrien", ["bin/run.sh", "cli.main"], True),
        ("Wo wird das log geschrieben?", ["log.write", "src/log.py"], False),  # a programming word
        ("warum ist checkout so langsam", ["checkout.total", "src/checkout.py"], False),  # a long name
    ],
)
def test_a_prompt_in_another_language_is_kept_by_a_telling_name_only(
    prompt: str, names: list[str], skip: bool
) -> None:
    route = classify(prompt)
    assert route.off_topic == NO_CODE and not mostly_english(prompt), route
    assert gate(route, prompt, names, vector_scores=[0.1]).skip is skip


@pytest.mark.parametrize(
    "prompt",
    [
        "why does the lyrics page go blank? I see an error about a failed fetch in the console",
        "the jokes screen goes blank on android, the console shows something about a failed request",
        "translate into Japanese: <button>Save</button>",  # markup in the material: a string of the repo
        'translate to Spanish: "Hello {user}, you have {n} messages" and add it to the locale file',
    ],
)
def test_a_failure_told_after_the_cue_or_markup_in_the_material_is_about_the_code(prompt: str) -> None:
    route = classify(prompt)
    assert not route.off_topic and route.name is not RouteName.SKIP, route


@pytest.mark.parametrize(
    ("prompt", "names"),
    [
        ("Wo wird das JWT geprüft?", ["auth.check_jwt", "src/auth/jwt.py"]),  # an acronym
        ("Wo wird der User gespeichert?", ["user.save", "src/models/user.py"]),  # four letters
        ("Onde é validado o token?", ["auth.validate_token", "src/auth.py"]),  # "é": not English
    ],
)
def test_a_short_technical_word_keeps_a_prompt_in_another_language(prompt: str, names: list[str]) -> None:
    route = classify(prompt)
    assert not mostly_english(prompt)
    assert not gate(with_model_cue(route, prompt, 0.99), prompt, names, vector_scores=[0.3]).skip, route


def _cued(prompt: str, reading: float):
    return with_model_cue(classify(prompt), prompt, reading)


def test_a_sure_reading_needs_two_named_words_in_a_bug_report() -> None:
    prompt = "the kitchen pipe under the sink is leaking again, should I call a plumber or fix it myself"
    names = ["Client.call", "src/client.py"]
    unsure = MODEL_CONFIDENT - 0.01
    assert not gate(_cued(prompt, 0.99), prompt, names, reading=unsure).skip  # one word, as before
    sure = gate(_cued(prompt, 0.99), prompt, names, reading=MODEL_CONFIDENT)
    assert sure.skip and sure.matched == ("call",), sure.reason
    for short in ("why are refunds slow?", "drove back late and barely slept. Anyway, why are refunds slow?"):
        verdict = gate(_cued(short, 0.99), short, ["RefundService.process"], reading=0.99)
        assert not verdict.skip, (short, verdict.reason)  # half of the ask is named
    report = "the upload hangs after the second file, can you check why"
    kept = gate(_cued(report, 0.99), report, ["Uploader.upload_file", "src/upload.py"], reading=0.99)
    assert not kept.skip and len(kept.matched) == 2, kept.reason


def test_a_sure_reading_needs_half_the_words_named_not_a_quarter() -> None:
    prompt = "best time of year to visit Kyoto if I want to avoid the crowds but still see the leaves"
    names = ["Visitor.visit", "src/avoid.py"]
    route = classify(prompt)
    assert route.off_topic == NO_CODE
    assert not gate(route, prompt, names).skip  # 2 of its words: enough without a reading
    assert not gate(route, prompt, names, reading=MODEL_CONFIDENT - 0.01).skip
    assert gate(route, prompt, names, reading=MODEL_CONFIDENT).skip
    question = "how are the results ordered"
    assert not gate(
        classify(question), question, ["Feed.results_ordered"], reading=0.99
    ).skip  # every word named: kept however sure the model is


def test_a_sure_reading_is_not_heard_in_a_prompt_not_in_english() -> None:
    prompt = "wie viele Tokens kannst du in einer Antwort maximal ausgeben, und warum ist das Limit so"
    route = classify(prompt)
    names = ["count_tokens", "kit/tokens.py", "Limit.apply"]
    assert gate(route, prompt, names).skip == gate(route, prompt, names, reading=0.99).skip


def test_an_everyday_sense_is_kept_on_named_words_until_the_model_is_sure_and_nothing_reads_like_it() -> None:
    prompt = "give me five funny slack status messages for a friday afternoon deploy"
    route = classify(prompt)
    assert route.off_topic == "a code word with an everyday sense", route
    names = ["Response.status", "src/http.py"]
    assert not gate(route, prompt, names, vector_scores=[0.1]).skip
    unsure = MODEL_CONFIDENT - 0.01
    assert not gate(route, prompt, names, vector_scores=[0.1], reading=unsure).skip
    two = [*names, "Message.send"]
    assert not gate(route, prompt, two, vector_scores=[0.1], reading=unsure).skip
    # sure, and nothing found as like the prompt as code prompts' hits are (`SIMILAR_WHEN_SURE`): words are not
    # enough, however many some names contain
    sure = gate(route, prompt, two, vector_scores=[0.1], reading=MODEL_CONFIDENT)
    assert sure.skip and "the model is sure" in sure.reason and "nothing found reads like" in sure.reason


def test_a_sure_reading_keeps_a_prompt_only_on_a_hit_that_reads_somewhat_like_it() -> None:
    # Every word some name holds, but nothing found reads like the prompt and the model is sure: the two
    # signals agree, and a big repo's names hold everyday words ("window", "close", "snap").
    prompt = "the window in my bedroom won't close all the way since the cold snap, what could cause that"
    names = ["Window.close", "src/bedroom.py", "Snapshot.cold", "Cause.way"]
    route = _cued(prompt, 0.92)
    assert route.off_topic in (NO_CODE, READS_OFF_TOPIC), route
    unlike = [SIMILAR_WHEN_SURE - 0.01]
    verdict = gate(route, prompt, names, vector_scores=unlike, reading=MODEL_CONFIDENT)
    assert (
        verdict.skip
        and f"the model is sure ({MODEL_CONFIDENT:.2f}) and nothing found reads like" in verdict.reason
    )
    # unsure, a hit as like it as code prompts' hits are, no vectors, a memory, or a behaviour ask keep it
    assert not gate(route, prompt, names, vector_scores=unlike, reading=MODEL_CONFIDENT - 0.01).skip
    assert not gate(route, prompt, names, vector_scores=[SIMILAR_WHEN_SURE], reading=MODEL_CONFIDENT).skip
    assert not gate(route, prompt, names, reading=MODEL_CONFIDENT).skip
    kept = gate(route, prompt, names, vector_scores=unlike, reading=0.92, memory_texts=["bedroom window"])
    assert not kept.skip, kept.reason
    ask = "what happens when the window closes in a cold snap"
    assert not gate(_cued(ask, 0.92), ask, names, vector_scores=unlike, reading=MODEL_CONFIDENT).skip
    # not beside small talk (one named word is enough there), nor after an opening greeting
    chat = "I'm so tired today. how do i get the window to close?"
    cued = classify(chat)
    assert cued.off_topic == "small talk", cued
    assert not gate(cued, chat, names, vector_scores=unlike, reading=0.92).skip
    greeting = "hey! " + prompt
    assert not gate(route, greeting, names, vector_scores=unlike, reading=0.92).skip


def test_a_sure_reading_needs_two_named_words_even_in_a_short_prompt() -> None:
    prompt = "who wrote the first compiler?"
    names = ["Compiler.compile", "src/compiler.py"]
    route = _cued(prompt, 0.99)
    assert route.off_topic == READS_OFF_TOPIC
    assert not gate(route, prompt, names, reading=MODEL_CONFIDENT - 0.01).skip  # 1 of its 2 words
    assert gate(route, prompt, names, reading=0.99).skip
    two = "who wrote the compiler cache"
    assert not gate(_cued(two, 0.99), two, [*names, "Cache.get"], reading=0.99).skip


def test_a_certain_reading_keeps_a_prompt_only_on_a_hit_that_reads_like_it() -> None:
    prompt = "lost the key to my bike lock, any way to open it without cutting it?"
    names = ["KeyStore.lock", "Lock.open", "src/cutting.py", "src/lock.py"]  # every word some name holds
    route = _cued(prompt, 0.99)
    assert route.off_topic == READS_OFF_TOPIC
    unlike = [SIMILAR - 0.05]
    assert not gate(route, prompt, names, vector_scores=unlike, reading=MODEL_CERTAIN - 0.01).skip
    certain = gate(route, prompt, names, vector_scores=unlike, reading=MODEL_CERTAIN)
    assert certain.skip and "the model is certain" in certain.reason, certain.reason
    # a hit that reads like the prompt, no vectors yet (no similarity to judge), or a memory keeps it
    assert not gate(route, prompt, names, vector_scores=[SIMILAR], reading=0.99).skip
    assert not gate(route, prompt, names, reading=0.99).skip
    kept = gate(route, prompt, names, vector_scores=unlike, reading=0.99, memory_texts=["bike lock service"])
    assert not kept.skip, kept.reason
    # not beside small talk or in a behaviour ask after something else
    for other in (
        "I'm so tired today. how does the subscriber get torn down?",
        "Long week. what happens when the input is empty",
    ):
        cued = classify(other) if classify(other).off_topic else _cued(other, 0.99)
        verdict = gate(cued, other, names, vector_scores=unlike, reading=0.99)
        assert "the model is certain" not in verdict.reason, (other, verdict.reason)
    # a behaviour ask that is the whole prompt is read as it is
    textbook = "how does dijkstra's shortest path algorithm work, step by step"
    textbook_names = ["shortest_path", "src/algorithm/path.py"]
    cued = classify(textbook)
    verdict = gate(cued, textbook, textbook_names, vector_scores=unlike, reading=MODEL_CERTAIN_ASKED)
    assert verdict.skip and "the model is certain" in verdict.reason, verdict.reason
    # a repo's own "how does raft consensus work step by step" may read 0.98: not certain enough in an ask
    almost = MODEL_CERTAIN_ASKED - 0.01
    assert not gate(cued, textbook, textbook_names, vector_scores=unlike, reading=almost).skip
    # not heard after an opening greeting ("hello! how are you today? why are refunds slow" reads 1.00)
    greeting = "hey! lost the key to my bike lock, any way to open it without cutting it?"
    assert not gate(route, greeting, names, vector_scores=unlike, reading=0.99).skip


def test_a_prompt_the_model_reads_as_code_is_kept_on_one_named_word() -> None:
    prompt = "approx rel vs abs, which wins"  # "X vs Y": the general-knowledge cue
    route = classify(prompt)
    assert route.off_topic == "general knowledge"
    names = ["approx", "src/_pytest/python_api.py", "ApproxBase", "src/_pytest/python_api.py"]
    assert gate(route, prompt, names, vector_scores=[0.32]).skip  # one of its four words, as before
    assert gate(route, prompt, names, vector_scores=[0.32], reading=MODEL_READS_CODE + 0.01).skip
    kept = gate(route, prompt, names, vector_scores=[0.32], reading=MODEL_READS_CODE)
    assert not kept.skip and "and the model reads it as code" in kept.reason, kept.reason
    # a word the repo does not name is still no evidence
    assert gate(route, prompt, ["Wall.fall", "src/berlin.py"], vector_scores=[0.32], reading=0.1).skip
    # not heard in another language (one named word is weak evidence there)
    unheard = "approx rel vs abs, welche der beiden Toleranzen gewinnt am Ende?"
    assert classify(unheard).off_topic == "general knowledge"
    assert gate(classify(unheard), unheard, names, vector_scores=[0.32], reading=0.1).skip
    # nor after an opening greeting ("no sign of code" is then not heard either)
    greeting = "hey there! approx rel vs abs, which wins"
    assert gate(classify(greeting), greeting, names, vector_scores=[0.32], reading=0.1).skip
    # a genre asks for writing whatever the reading
    poem = "write a poem about approx"
    assert gate(classify(poem), poem, names, reading=0.1).skip


def test_no_sign_of_code_is_kept_when_the_model_reads_it_as_code() -> None:
    prompt = "slowloris protection?"
    route = classify(prompt)
    assert route.off_topic == "no sign of code"
    names = ["SlowClients.reap", "gateway/slow_clients.py"]  # neither word
    assert gate(route, prompt, names, vector_scores=[0.22]).skip
    assert gate(route, prompt, names, vector_scores=[0.22], reading=MODEL_DOUBTS_NO_SIGN).skip
    kept = gate(route, prompt, names, vector_scores=[0.22], reading=MODEL_DOUBTS_NO_SIGN - 0.01)
    assert not kept.skip and "reads it as code" in kept.reason, kept.reason
    # heard in another language too: the repo's English names cannot match its words ("Hallo!" is no
    # greeting to the English rules)
    for other in (
        "¿tenemos alguna protección contra los ataques slowloris en el servidor?",
        "Hallo! Wird der Zähler beim automatischen Wiederholen zurückgesetzt, wenn zwischendurch ein Wert kommt?",
    ):
        cued = classify(other)
        assert cued.off_topic == "no sign of code", other
        # there the English embedder's doubt runs towards off-topic: heard as doubting below 0.9
        doubted = MODEL_DOUBTS_ANOTHER_LANGUAGE
        assert gate(cued, other, names, vector_scores=[0.22], reading=doubted).skip, other
        kept = gate(cued, other, names, vector_scores=[0.22], reading=doubted - 0.01)
        assert not kept.skip and "reads it as code" in kept.reason, (other, kept.reason)
    # not after an opening greeting (it sways the reading)
    greeting = "hey! any slowloris protection?"
    assert classify(greeting).off_topic == "no sign of code"
    assert gate(classify(greeting), greeting, names, vector_scores=[0.22], reading=0.1).skip


def test_a_name_the_repo_never_holds_is_no_sign_of_code_to_a_certain_reading() -> None:
    prompt = "compose a dramatic breakup letter from a programmer to their old ThinkPad"
    route = classify(prompt)
    assert route.seeds == ("ThinkPad",) and not route.off_topic
    found = [("Document.write", "src/letter.rs", "fn write(&self) {}")]
    unknown = unknown_names(route, found)
    assert unknown == {"ThinkPad"}
    held = ("Config", "src/config.rs", "// a thinkpad quirk")  # in a hit's text
    assert unknown_names(route, [*found, held]) == frozenset()
    assert not with_model_cue(route, prompt, MODEL_CERTAIN - 0.01, unknown).off_topic  # unsure: a name
    assert with_model_cue(route, prompt, MODEL_CERTAIN, unknown).off_topic == READS_OFF_TOPIC
    assert not with_model_cue(route, prompt, 1.0, frozenset()).off_topic  # a name the repo holds
    # a path stays a sign of code beside an unknown name, and so does code punctuation
    for code in ("is ThinkPad read from ThinkPad/config.yaml", "why does ThinkPad() return None"):
        cued = classify(code)
        assert unknown_names(cued, found) == frozenset(cued.symbol_seeds), code
        assert not with_model_cue(cued, code, 1.0, unknown_names(cued, found)).off_topic, code


@pytest.mark.parametrize(
    ("prompt", "held"),
    [
        ("explain the EventLoops like I'm five, as a bedtime story", ("EventLoop", "src/loop.py", "")),
        ("a poem about every user_id we store", ("User", "src/user.ts", "const userId = 1")),
        ("a song about our HttpClients", ("http_client", "src/net/client.py", "")),  # by its parts
        ("write a limerick about WebSockets", ("Socket", "src/web_socket.py", "")),
    ],
)
def test_a_name_held_in_another_form_is_known(prompt: str, held: tuple[str, str, str]) -> None:
    route = classify(prompt)
    assert route.symbol_seeds, prompt
    assert unknown_names(route, [held]) == frozenset(), prompt
    assert unknown_names(route, [("Other", "src/other.py", "")]) == frozenset(route.symbol_seeds), prompt


def _read_as_code(prompt: str) -> None:
    """The prompt carries code punctuation, so the router reads it as code: no off-topic cue."""
    from gateway.domain.routing.cues import has_hard_code_signal

    assert has_hard_code_signal(prompt), prompt
    assert not classify(prompt).off_topic, prompt


def test_a_number_written_as_code_is_code_punctuation() -> None:
    from gateway.domain.routing.cues import has_hard_code_signal

    for code in (
        "0xdead_beef parsing — where?",
        "why is 0x1F read as a float",
        "1_000_000 fails to parse",
        "does it accept 0b1010 and 0o755",
        "why is 0xFFu read as signed",
        "1_000n overflows",
        "0xffu8 is rejected",
    ):
        _read_as_code(code)
    for prose in ("the 0x prefix, what does it mean", "born in 1990", "box 0xford"):
        assert not has_hard_code_signal(prose), prose


def test_tldr_is_chat_shorthand_not_code_punctuation() -> None:
    from gateway.domain.routing.cues import has_hard_code_signal

    assert not has_hard_code_signal("way too long, tl;dr please")
    assert not has_hard_code_signal("TL;DR of the meeting?")
    assert has_hard_code_signal("why does it stop after x = 1; y = 2")


def test_a_dollar_amount_is_money_not_a_variable() -> None:
    from gateway.domain.routing.cues import has_hard_code_signal

    money = "how does compound interest actually work, give me an example with $1000 at 5%"
    assert not has_hard_code_signal(money)
    assert classify(money).off_topic == "no sign of code"  # judged by the gate, as prose is
    assert not has_hard_code_signal("it costs $5.99 a month, worth it?")
    assert not has_hard_code_signal("we paid $1,200 for the licence")
    for code in (
        "why is $HOME empty in the hook",
        "echo ${name} prints nothing",
        "x = $1,000",
        # one digit is a shell argument, a regex group or a SQL bind parameter (a review's)
        "why is $1 empty when I call the script from cron",
        "what does $0 return when the script is sourced",
        "postgres error: there is no parameter $1",
        "sum $3 for all rows where $1 matches the user id",
    ):
        _read_as_code(code)
    # in quoted material a placeholder is code, an amount is the text to translate
    assert classify('translate: "The total is $10"').off_topic == "translation"
    assert classify('translate: "It costs $1,000."').off_topic == "translation"
    assert not classify('translate: "Hello $name"').off_topic
    assert not classify('translate to french: "You have $1 new messages"').off_topic


def test_big_o_notation_is_read_in_linear_time() -> None:
    """An unclosed "O(" before many words holding "log" once backtracked exponentially (a review's: ~2 s at 20
    words, doubling every word or so): any user's prompt could stall the gateway."""
    from gateway.domain.routing.cues import has_hard_code_signal

    def seconds(words: int) -> float:
        prompt = "why is the lookup O(n but logging " + "catalog " * words + "entries slow?"
        started = time.perf_counter()
        has_hard_code_signal(prompt)
        return time.perf_counter() - started

    seconds(8)  # warm up the pattern cache
    base = min(seconds(8) for _ in range(3))
    # exponential growth from 8 to 24 words would be thousands of times; linear is ~3×
    assert min(seconds(24) for _ in range(3)) < 50 * base + 0.01
    assert has_hard_code_signal("why is quicksort O(n log n) here but parse() slow")
    assert not has_hard_code_signal("why is quicksort O(n log n) on average")


@pytest.mark.parametrize(
    "prompt",
    [
        "hmm I don't think that's right, try again",
        "way too long. tl;dr?",
        "почему так?",
        "왜요?",
        "how come?",
    ],
)
def test_a_follow_up_with_no_content_word_is_not_heard_even_when_the_model_is_certain(prompt: str) -> None:
    """Two reviews read such follow-ups as about the code ("which is better?"), though they read 0.99; in
    another script too ("почему так?"), or one that reads as another language ("how come?")."""
    route = classify(prompt)
    assert with_model_cue(route, prompt, 0.999) == route


@pytest.mark.parametrize(
    "prompt",
    [
        "wie viele Tokens kannst du in einer Antwort maximal ausgeben?",
        "Wie funktioniert eigentlich ein Public-Key-Verfahren wie RSA, grob erklärt?",
        "天気がいい日におすすめの散歩コースってありますか？東京に住んでいます",
    ],
)
def test_a_prompt_in_another_language_is_heard_when_the_model_is_certain(prompt: str) -> None:
    """The English embedder's doubt runs towards off-topic in another language, but code questions there
    seldom read that high (the sets' 0.60 at most); a certain reading skips unless a hit reads like the
    prompt."""
    names = ["TokenCounter.count", "src/tokens.py", "PublicKey.verify", "src/keys.py"]
    route = with_model_cue(classify(prompt), prompt, MODEL_CERTAIN)
    assert route.off_topic
    assert gate(route, prompt, names, vector_scores=[0.3], reading=MODEL_CERTAIN).skip
    unsure = with_model_cue(classify(prompt), prompt, MODEL_CERTAIN - 0.01)
    assert not gate(unsure, prompt, names, vector_scores=[0.3], reading=MODEL_CERTAIN - 0.01).skip


def test_a_prompt_in_another_language_after_a_greeting_is_not_heard_even_when_certain() -> None:
    prompt = "Hallo! Wie geht's? Warum ist der Parser so langsam bei großen Dateien?"
    route = classify(prompt)
    assert with_model_cue(route, prompt, 0.999) == route


def test_an_acronym_the_repo_names_keeps_a_certain_prompt_in_another_language() -> None:
    """ "Come abilito CORS?" reads 1.00 (the English question 0.23): the acronym is the term in any language."""
    prompt = "Come abilito CORS?"
    route = with_model_cue(classify(prompt), prompt, 1.0)
    texts = ["// Cors handles the CORS preflight for every route"]
    assert not gate(
        route, prompt, ["HeaderRouter.Route"], hit_texts=texts, vector_scores=[0.3], reading=1.0
    ).skip
    unnamed = ["// Route adds a handler for a header"]
    assert gate(
        route, prompt, ["HeaderRouter.Route"], hit_texts=unnamed, vector_scores=[0.3], reading=1.0
    ).skip


def test_a_translation_of_the_repos_own_text_is_about_the_code() -> None:
    """Four words in a row of the material in a hit's code: the user is localising this code."""
    prompt = 'translate the following messages to Chinese: Failed to lookup view "index" in views directory'
    route = classify(prompt)
    assert route.off_topic == "translation"
    code = ["var err = new Error('Failed to lookup view \"' + name + '\" in views ' + dirs);"]
    kept = gate(route, prompt, ["render", "lib/application.js"], hit_texts=code, vector_scores=[0.4])
    assert not kept.skip and "holds the text" in kept.reason
    other = ["// lookup the view in the views directory, failing over to the default"]
    assert gate(route, prompt, ["render", "lib/application.js"], hit_texts=other, vector_scores=[0.4]).skip
    commented = ["// throws: Failed to lookup view in views directory"]  # an example in a comment
    assert gate(
        route, prompt, ["render", "lib/application.js"], hit_texts=commented, vector_scores=[0.4]
    ).skip
    rust = prompt.replace("Chinese", "German")
    attribute = ['#[error("failed to lookup view {0} in views directory")]']  # a Rust attribute is code
    assert not gate(classify(rust), rust, ["Error"], hit_texts=attribute, vector_scores=[0.4]).skip
    chat = "put this in italian: we are going to be ten minutes late, start without us"
    words = ["# the plugins are going to be loaded", "items that are going to be executed"]  # function words
    assert gate(classify(chat), chat, ["load"], hit_texts=words, vector_scores=[0.4]).skip
    assert gate(route, prompt, ["render"], hit_texts=code, searched=False).skip  # no search: no evidence


# Written from the assistant's documented features (settings files, CLAUDE.md, slash commands, hooks, MCP,
# permission prompts, usage limits), not from the routing sets.
ABOUT_THE_TOOL = [
    "what does /compact do exactly, and is it different from /clear?",
    "which slash commands do you support besides the built-in ones?",
    "where does claude code keep its settings, per project or global?",
    "what goes into CLAUDE.md and do you read the one in my home folder too",
    "whats the difference between .claude/settings.json and settings.local.json",
    "how do I register a PostToolUse hook that runs prettier after every edit",
    "how do I add an mcp server, is it .mcp.json in the project?",
    "can I change your system prompt for every session",
    "how do I stop you asking for permission every time you run the tests",
    "i keep hitting my usage limit around lunch, when does it reset",
    "when does your auto-compact kick in and can I turn it off?",
    "please stop apologizing in every reply",
]


@pytest.mark.parametrize("prompt", ABOUT_THE_TOOL)
def test_a_prompt_about_the_assistants_own_tool_skips_in_a_repo_that_does_not_name_it(prompt: str) -> None:
    """Configuring the assistant speaks the words of code prompts (settings, permissions, commands, tests) and
    its files and commands look like paths: neither a sign of code nor a word the repo names keeps it."""
    route = classify(prompt)
    assert route.off_topic == ASSISTANT_TOOL, (prompt, route)
    names = ["Config.load_settings", "src/config/settings.py", "run_tests", "src/commands/test.py"]
    texts = ["def load_settings(path):\n    # permission errors are reported, not raised\n    ..."]
    verdict = gate(route, prompt, names, hit_texts=texts, vector_scores=[0.45], reading=0.1)
    assert verdict.skip and "about the assistant" in verdict.reason, verdict.reason
    assert not gate(route, prompt, names, hit_texts=texts, searched=False).skip  # no search: no evidence


@pytest.mark.parametrize(
    ("prompt", "names", "texts"),
    [
        ("which slash commands do you support?", ["SlashCommandRegistry.register", "bot/commands.py"], []),
        ("what does /compact do", ["handle", "src/routes.js"], ["router.post('/compact', compactLog)"]),
        ("why is /resume blank on mobile safari", ["ResumeSection", "pages/resume.tsx"], []),
        (
            "what is in your system prompt",
            ["build", "llm/chat.py"],
            ["system_prompt = render(rules)"],
        ),
        ("where is CLAUDE.md read", ["load_instructions", "src/memory.py"], ['path = root / "CLAUDE.md"']),
    ],
)
def test_a_repo_that_names_the_assistants_feature_keeps_the_prompt(
    prompt: str, names: list[str], texts: list[str]
) -> None:
    """A chat bot has slash commands, an LLM app a system prompt, a Claude Code companion reads CLAUDE.md."""
    route = classify(prompt)
    assert route.off_topic == ASSISTANT_TOOL, route
    verdict = gate(route, prompt, names, hit_texts=texts, vector_scores=[0.3], reading=1.0)
    assert not verdict.skip and "the repo names" in verdict.reason, verdict.reason


def test_a_prompt_naming_the_repos_definitions_beside_the_assistants_feature_is_kept() -> None:
    prompt = "Claude said the Throttle middleware is a per-user rate limit, like your usage limits. true?"
    route = classify(prompt)
    assert route.off_topic == ASSISTANT_TOOL, route
    names = ["Throttle", "middleware/throttle.go", "run", "chain.go"]
    kept = gate(route, prompt, names, vector_scores=[0.4], reading=0.1)
    assert not kept.skip and "names Throttle" in kept.reason, kept.reason
    assert gate(route, prompt.replace("Throttle", "throttle"), names, vector_scores=[0.4], reading=0.1).skip


def test_a_feature_is_named_by_a_name_of_more_than_one_word_or_written_out_in_code() -> None:
    assert tool_feature_named("slash command", ["SlashCommand.parse"], [])
    assert tool_feature_named("system prompt", [], ["SYSTEM-PROMPT"])
    assert tool_feature_named(".claude/settings.json", [], ["open('.claude/settings.json')"])
    assert not tool_feature_named("/clear", ["Cache.clear", "src/cache.py"], ["cache.clear()"])  # every repo
    assert tool_feature_named("/clear", [], ["app.get('/clear', reset)"])  # a route
    assert tool_feature_named("/clear", [], ['@bot.command(name="clear")'])  # a bot's command
    assert tool_feature_named("/compact", ["Session.compact_messages"], [])  # an LLM app's compaction
    assert tool_features("what do /compact and /clear do in Claude Code?") == (
        "/compact",
        "/clear",
        "claude code",
    )


@pytest.mark.parametrize(
    "prompt",
    [
        "where do we build the system prompt for the summariser?",  # the team asks
        "how does our slash command parser split the arguments",  # our code
        "in this codebase, what handles /compact",  # the repo named
        "can I add a slash command like /deploy that calls deploy_all()?",  # the user's own command and code
        "how does cobra hide a command from help",  # no feature of the assistant
        "where does the router register /login and /status",  # routes a web app has
        # a review's: features a repo has too, with nothing saying they are the assistant's
        "how do I register slash commands only in my test guild",
        "the location permission dialog shows twice on Android 13",
        "how are usage limits enforced for free-tier accounts",
        "how are subagents spawned and how do they report back",
        "how does the statusline get the git branch",
        "the bot should stop apologizing when a user types an unknown command",
        "can you show me how my bot's slash commands get their options",
        "can you check your slash command handler for a race when two users run it",
        # a second review's
        "ultrathink: why does the scheduler drop jobs when two workers start at the same time?",
        "read CLAUDE.md first, then fix the failing login test",
        "claude code wrote the retry logic for uploads last week and it retries forever on a 403, can you fix it",
        "does the rate limiter block you from requesting more after 100 calls a minute?",
        "stop asking for the password twice on signup",
        "please stop apologizing in the error toasts, just show the message",
        "what does /review do in this bot?",
    ],
)
def test_code_prompts_with_the_assistants_words_are_not_about_its_tool(prompt: str) -> None:
    assert classify(prompt).off_topic != ASSISTANT_TOOL


def test_the_assistants_features_are_read_in_linear_time() -> None:
    def cpu(text: str) -> float:
        start = time.process_time()
        for _ in range(3):
            off_topic_cue(text)
        return time.process_time() - start

    base = "what does it do " + "x " * 2000
    cpu(base)
    for slow in ("/" * 4000, ".claude" + "/a." * 1500, "slash " * 800 + "command", "stop you " * 500):
        assert cpu(slow) < 20 * cpu(base) + 0.02, slow[:20]
