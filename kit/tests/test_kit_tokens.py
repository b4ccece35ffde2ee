import os
import subprocess
import sys

import pytest

from kit import tokens
from kit.tokens import count_tokens, truncate_to_tokens


def test_counts_tokens_with_the_shipped_encoding() -> None:
    assert count_tokens("hello world") == 2
    assert count_tokens("") == 0


def test_counts_are_remembered_by_text_within_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    encoded: list[str] = []
    real = tokens.encoding()

    class Counting:
        def encode_ordinary(self, text: str) -> list[int]:
            encoded.append(text)
            return real.encode_ordinary(text)

    monkeypatch.setattr(tokens, "encoding", lambda: Counting())
    monkeypatch.setattr(tokens, "COUNT_CACHE_SIZE", 2)
    monkeypatch.setattr(tokens, "_counts", type(tokens._counts)())
    texts = ["def parse(argv):\n    return argv\n", "- [rule] keep tests fast", "caf\u00e9 \ud800"]
    first = [count_tokens(t) for t in texts]
    assert first == [len(real.encode_ordinary(t)) for t in texts]
    assert count_tokens(texts[2]) == first[2] and len(encoded) == 3  # remembered: not encoded again
    assert count_tokens(texts[0]) == first[0] and len(encoded) == 4  # beyond the bound: forgotten, recounted
    count_tokens(texts[0] + " ")
    assert encoded[-1] == texts[0] + " "  # another text is counted, never taken for a similar one


def test_warm_loads_the_encoding_once(monkeypatch: pytest.MonkeyPatch) -> None:
    tokens.encoding.cache_clear()
    loads: list[str] = []
    real_get = tokens.tiktoken.get_encoding

    def get_encoding(name: str) -> tokens.tiktoken.Encoding:
        loads.append(name)
        return real_get(name)

    monkeypatch.setattr(tokens.tiktoken, "get_encoding", get_encoding)
    tokens.warm()
    assert count_tokens("warm and ready") > 0 and loads == [tokens.ENCODING_NAME]


def test_truncate_respects_budget_and_prefers_line_ends() -> None:
    text = "\n".join(f"line number {i}" for i in range(100))
    cut = truncate_to_tokens(text, 20)
    assert count_tokens(cut) <= 20 and text.startswith(cut) and cut.endswith("\n")
    assert truncate_to_tokens(text, 0) == ""


@pytest.mark.e2e  # a fresh interpreter (only a new process proves no download)
def test_encoding_loads_without_network() -> None:
    env = {
        **os.environ,
        "HTTPS_PROXY": "http://127.0.0.1:9",
        "HTTP_PROXY": "http://127.0.0.1:9",
        "TIKTOKEN_CACHE_DIR": "/nonexistent-cache",
    }
    code = "from kit.tokens import count_tokens; print(count_tokens('offline tokens'))"
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) > 0
