import os
import subprocess
import sys

import pytest

from kit.tokens import count_tokens, truncate_to_tokens


def test_counts_tokens_with_the_shipped_encoding() -> None:
    assert count_tokens("hello world") == 2
    assert count_tokens("") == 0


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
