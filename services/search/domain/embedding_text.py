"""The compact view of a chunk that is embedded: what it is called, what it says it does, how it starts.

MiniLM reads at most 128 word pieces, and on two CPU cores every token costs, so the view leads with
the most telling text: kind and name (with identifier words split, which the model understands better
than camelCase), the path, the signature, the docstring, then the first lines of the body.
"""

from __future__ import annotations

import math
import re

from kit.domain import Chunk
from kit.text import split_identifier
from services.search.domain.keywords import STOPWORDS

MAX_CHARS = 640
BODY_LINES = 12


def _spoken(name: str) -> str:
    words = split_identifier(name)
    return " ".join(words) if len(words) > 1 else ""


def embedding_text(chunk: Chunk, max_chars: int = MAX_CHARS) -> str:
    name = chunk.qualified_name or chunk.name
    head = f"{chunk.kind} {name}"
    spoken = _spoken(chunk.name)
    if spoken:
        head += f" ({spoken})"
    parts = [head, chunk.path]
    if chunk.signature:
        parts.append(" ".join(chunk.signature.split()))
    if chunk.doc:
        parts.append(" ".join(chunk.doc.split())[:300])
    body = chunk.content
    if chunk.signature and body.lstrip().startswith(chunk.signature.strip()[:40]):
        body = body.split("\n", chunk.signature.count("\n") + 1)[-1]
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    parts.append("\n".join(lines[:BODY_LINES]))
    text = "\n".join(p for p in parts if p)
    return text[:max_chars]


QUERY_WORDS = 16


def query_for_embedding(query: str) -> str:
    """A long prompt, cut to its first content words: query embedding cost grows with every token
    (~0.4 ms each on one core) and is on the search's critical path."""
    tokens = query.split()
    if len(tokens) <= QUERY_WORDS:
        return " ".join(tokens)
    content = [t for t in tokens if t.lower().strip(".,;:!?()[]{}'\"`") not in STOPWORDS]
    return " ".join(content[:QUERY_WORDS])


# A sentence's end, or a line break: where a long prompt is cut into the parts the off-topic model reads.
_SENTENCE_BREAK = re.compile(r"(?<=[.!?;:])\s+|\s*\n\s*")
# A sentence this short ("Thanks.", "Two minutes max.") says little on its own: it is read with the one
# before it (the next one when it opens the prompt).
SHORT_SENTENCE = 4


def reading_windows(query: str) -> list[str]:
    """The parts of a prompt the off-topic model reads one by one: the whole prompt when the embedder
    reads all of it (`QUERY_WORDS`), else its sentences, a short one joined to its neighbour and a long
    one cut in even parts of at most `QUERY_WORDS` words. A code question after a chatty preamble ("…drove
    back late and barely slept. Anyway, where do we validate the request body?") is then read on its own."""
    if len(query.split()) <= QUERY_WORDS:
        return [query]
    windows: list[list[str]] = []
    carried: list[str] = []  # short sentences waiting for the next one
    for words in (piece.split() for piece in _SENTENCE_BREAK.split(query)):
        if not words:
            continue
        if len(words) < SHORT_SENTENCE:
            if windows and not carried and len(windows[-1]) + len(words) <= QUERY_WORDS:
                windows[-1].extend(words)
                continue
            carried.extend(words)
            if len(carried) < SHORT_SENTENCE:
                continue
            words = []
        windows.extend(_even_parts(carried + words))
        carried = []
    if carried and windows and len(windows[-1]) + len(carried) <= QUERY_WORDS:
        windows[-1].extend(carried)
    elif carried:
        windows.extend(_even_parts(carried))
    return [" ".join(words) for words in windows]


def _even_parts(words: list[str]) -> list[list[str]]:
    """`words` cut in even parts of at most `QUERY_WORDS` (no stub at the end)."""
    size = math.ceil(len(words) / math.ceil(len(words) / QUERY_WORDS))
    return [words[i : i + size] for i in range(0, len(words), size)]
