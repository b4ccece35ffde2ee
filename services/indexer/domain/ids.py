"""Stable identifiers and content hashes (xxhash: fast, deterministic, no per-process seed)."""

from __future__ import annotations

import xxhash

_SEPARATOR = "\x1f"  # unit separator: cannot occur in paths or names, so fields never run together


def chunk_id(repo: str, path: str, kind: str, qualified_name: str, ordinal: int) -> str:
    """Id of a chunk: 32 hex digits (128 bits), stable across runs and machines.

    Derived only from where the chunk lives and what it is named, never from its content, so an
    edited function keeps its id (DESIGN.md §4). 32 hex digits also form a valid UUID, which is
    what vector stores such as Qdrant accept as a point id.
    """
    key = _SEPARATOR.join((repo, path, str(kind), qualified_name, str(ordinal)))
    return xxhash.xxh3_128_hexdigest(key.encode("utf-8"))


def content_hash(text: str) -> str:
    """Hash of a chunk's text (16 hex digits); embeddings are cached by it."""
    return xxhash.xxh3_64_hexdigest(text.encode("utf-8"))
