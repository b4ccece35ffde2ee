"""Code-aware text normalisation shared by keyword search and memory recall."""

from __future__ import annotations

import re

_WORD = re.compile(r"[A-Za-z0-9_$]+")
# Boundaries inside an identifier: lower→Upper, ACRONYMWord, letter↔digit.
_CAMEL = re.compile(
    r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=[A-Za-z])(?=[0-9])|(?<=[0-9])(?=[A-Za-z])"
)


def split_identifier(identifier: str) -> list[str]:
    """`validateUserInput` → [validate, user, input]; `HTTPServer_v2` → [http, server, v, 2]."""
    parts: list[str] = []
    for piece in re.split(r"[_$]+", identifier):
        if piece:
            parts.extend(p.lower() for p in _CAMEL.split(piece) if p)
    return parts


def code_words(text: str) -> list[str]:
    """Every word of `text` lowercased, with identifiers also split into their parts.

    `self.validateUserInput(x)` → [self, validateuserinput, validate, user, input, x]. Separators
    such as `.`, `::`, `-` and `/` split words, so qualified names and paths match their parts.
    """
    words: list[str] = []
    for token in _WORD.findall(text):
        lowered = token.lower()
        words.append(lowered)
        parts = split_identifier(token)
        if len(parts) > 1 or (parts and parts[0] != lowered):
            words.extend(parts)
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
