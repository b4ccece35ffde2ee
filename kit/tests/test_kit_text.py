import time

import pytest

from kit.text import asks_for_tests, code_words, identifier_tokens, split_identifier


def test_split_identifier_handles_camel_snake_acronyms_and_digits() -> None:
    assert split_identifier("validateUserInput") == ["validate", "user", "input"]
    assert split_identifier("HTTPServer_v2") == ["http", "server", "v", "2"]
    assert split_identifier("__init__") == ["init"]


def test_code_words_keep_whole_identifier_and_its_parts() -> None:
    words = code_words("self.validateUserInput(x) in pkg::mod-name")
    assert words[:5] == ["self", "validateuserinput", "validate", "user", "input"]
    assert {"pkg", "mod", "name"} <= set(words)


def test_identifier_tokens_find_code_shaped_words_only() -> None:
    tokens = identifier_tokens("why does parseConfig call load_file and Parser.run but not the parser?")
    assert tokens == ["parseConfig", "load_file", "Parser.run"]


@pytest.mark.parametrize(
    "prompt",
    [
        "tests for evict entries",
        "write a test for the config parser",
        "write tests for the parser",
        "where are the tests for routing?",
        "which tests cover the retry logic",
        "is the cache eviction tested anywhere?",
        "where is the tokenizer tested?",
        "is there a test for an empty input",
        "add unit tests for parse_config",
        "the failing test in ci",
        "fix conftest",
        "why does test_evict_entries fail on windows",
        "do we have a test that checks empty input for parse_header?",
        "which test covers the login flow?",
        "where do we test the tokenizer?",
        "how do the existing tests mock the HTTP client?",
        "show me the scheduler tests",
        "where are the playwright tests?",
    ],
)
def test_a_prompt_that_asks_for_tests(prompt: str) -> None:
    assert asks_for_tests(prompt)


@pytest.mark.parametrize(
    "prompt",
    [
        "my test fails when I compare floats, where is the tolerance computed?",
        "saving was refused as a secret, it was just a base64 test fixture",
        "in marble tests, what does ^ mean and where is it parsed?",
        "the load test with 16 clients keeps tripping the rate limit",
        "which test ids are generated for parametrized values",
        "how does pytest decide the order fixtures are set up in?",
        "where does the test runner collect items",
        "where is the latest config",
        "I tested it locally and it works, but on CI the env var isn't read. Where is it parsed?",
        "the OpenAPI spec for the users endpoint says 201, where does the handler set the status?",
        "how do I create a test user in the seed script?",
        "run the test server on port 8080 fails with EADDRINUSE",
        "fix broken test discovery in the runner",
        "why is TEST_PENALTY 0.2 and where is is_test set?",
    ],
)
def test_a_prompt_that_mentions_a_test_does_not_ask_for_tests(prompt: str) -> None:
    assert not asks_for_tests(prompt)


def test_a_long_run_of_word_characters_is_read_in_linear_time() -> None:
    """Unanchored name patterns (`\\w+_test`) once restarted at every position of a long word: 0.25 s for 4,000
    underscores, four times that for twice as many (a review's), on every prompt the gateway reads."""

    def seconds(chars: int) -> float:
        started = time.perf_counter()
        asks_for_tests("why does " + "_" * chars + " fail")
        return time.perf_counter() - started

    seconds(500)  # warm up the pattern cache
    base = min(seconds(500) for _ in range(3))
    # quadratic growth from 500 to 4,000 characters would be 64×; linear is 8×
    assert min(seconds(4000) for _ in range(3)) < 24 * base + 0.002
