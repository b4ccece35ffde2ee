from kit.text import code_words, identifier_tokens, split_identifier


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
