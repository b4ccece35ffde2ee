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
    ],
)
def test_a_prompt_that_mentions_a_test_does_not_ask_for_tests(prompt: str) -> None:
    assert not asks_for_tests(prompt)
