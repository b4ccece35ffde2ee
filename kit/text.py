"""Code-aware text normalisation shared by keyword search and memory recall."""

from __future__ import annotations

import re
from functools import lru_cache

_WORD = re.compile(r"[A-Za-z0-9_$]+")
_SEPARATORS = re.compile(r"[_$]+")
# Boundaries inside an identifier: lower→Upper, ACRONYMWord, letter↔digit.
_CAMEL = re.compile(
    r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])"
)


def split_identifier(identifier: str) -> list[str]:
    """`validateUserInput` → [validate, user, input]; `HTTPServer_v2` → [http, server, v, 2]."""
    return list(_parts(identifier))


@lru_cache(maxsize=1 << 16)
def _parts(identifier: str) -> tuple[str, ...]:
    parts: list[str] = []
    for piece in _SEPARATORS.split(identifier):
        if piece:
            parts.extend(p.lower() for p in _CAMEL.split(piece) if p)
    return tuple(parts)


@lru_cache(maxsize=1 << 16)
def _expand(token: str) -> tuple[str, ...]:
    """A token's words for indexing: itself lowercased, then its identifier parts when it has several.

    Cached: code repeats the same identifiers endlessly, and splitting is the hot path of indexing.
    """
    lowered = token.lower()
    parts = _parts(token)
    if len(parts) > 1 or (parts and parts[0] != lowered):
        return (lowered, *parts)
    return (lowered,)


def code_words(text: str) -> list[str]:
    """Every word of `text` lowercased, with identifiers also split into their parts.

    `self.validateUserInput(x)` → [self, validateuserinput, validate, user, input, x]. Separators
    such as `.`, `::`, `-` and `/` split words, so qualified names and paths match their parts.
    """
    words: list[str] = []
    for token in _WORD.findall(text):
        words.extend(_expand(token))
    return words


IDENTIFIER_SHAPE = re.compile(
    r"\b(?:[A-Za-z_$][A-Za-z0-9_$]*(?:(?:\.|::)[A-Za-z_$][A-Za-z0-9_$]*)+"  # dotted / qualified
    r"|[a-z_$][a-z0-9_$]*[A-Z][A-Za-z0-9_$]*"  # camelCase
    r"|[A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+"  # PascalCase with 2+ humps
    r"|[A-Za-z0-9]*_[A-Za-z0-9_]+)\b"  # snake_case
)


def identifier_tokens(text: str) -> list[str]:
    """Tokens of `text` shaped like code identifiers (camelCase, snake_case, Dotted.names), in order."""
    seen: dict[str, None] = {}
    for match in IDENTIFIER_SHAPE.finditer(text):
        token = match.group(0).strip("_") or match.group(0)
        seen.setdefault(token, None)
    return list(seen)
