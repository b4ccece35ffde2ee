"""FindSymbols semantics: which candidate definitions match a name, and in what order.

Backends return a superset of candidates (see `KeywordIndex.symbol_candidates`); these functions
decide. Order: best match first, then implementation before tests, definitions (class, function)
before module/file chunks, shorter paths, then path and line for stability.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from kit.domain import Chunk, ChunkKind
from kit.text import split_identifier
from services.search.domain.model import SymbolMatch

FUZZY_THRESHOLD = 0.5
_NOT_WORD = re.compile(r"[^a-z0-9]+")
_KIND_ORDER = {
    ChunkKind.CLASS: 0,
    ChunkKind.INTERFACE: 0,
    ChunkKind.FUNCTION: 1,
    ChunkKind.METHOD: 1,
    ChunkKind.ENUM: 2,
    ChunkKind.TYPE: 2,
    ChunkKind.MODULE: 3,
    ChunkKind.FILE: 4,
}


def edit_distance(a: str, b: str, cap: int) -> int:
    """Levenshtein distance, or `cap + 1` as soon as it must exceed `cap`."""
    if abs(len(a) - len(b)) > cap:
        return cap + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, cb in enumerate(b, start=1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb))
        if min(current) > cap:
            return cap + 1
        previous = current
    return previous[-1]


def fuzzy_score(query: str, name: str) -> float:
    """0..1: the better of identifier-word overlap (Jaccard) and edit similarity, case-insensitive."""
    q, n = query.lower(), name.lower()
    if not q or not n:
        return 0.0
    if q == n:
        return 1.0
    q_words, n_words = set(split_identifier(query)), set(split_identifier(name))
    overlap = len(q_words & n_words) / len(q_words | n_words) if q_words and n_words else 0.0
    longest = max(len(q), len(n))
    cap = max(1, longest // 2)
    distance = edit_distance(q, n, cap)
    similarity = 1.0 - distance / longest if distance <= cap else 0.0
    return max(overlap, similarity)


def query_word_prefixes(name: str, length: int = 4, limit: int = 6) -> list[str]:
    """Word prefixes a backend uses to gather fuzzy candidates ("valdateInput" → ["vald", "inpu"])."""
    seen: dict[str, None] = {}
    for word in split_identifier(name):
        word = _NOT_WORD.sub("", word)  # only [a-z0-9] ever reaches a backend's query syntax
        if len(word) >= 2:
            seen.setdefault(word[:length], None)
    return list(seen)[:limit]


def _order_key(chunk: Chunk) -> tuple[int, int, int, str, int]:
    return (
        int(chunk.is_test),
        _KIND_ORDER.get(chunk.kind, 5),
        chunk.path.count("/"),
        chunk.path,
        chunk.start_line,
    )


def select_symbols(name: str, candidates: Iterable[Chunk], match: SymbolMatch, limit: int) -> list[Chunk]:
    unique = {c.id: c for c in candidates}.values()
    if match is SymbolMatch.EXACT:
        found = [c for c in unique if name in (c.name, c.qualified_name)]
        # Implementation before tests; then a qualified-name hit is more specific than a short-name one.
        found.sort(key=lambda c: (c.is_test, c.qualified_name != name, *_order_key(c)))
    elif match is SymbolMatch.PREFIX:
        prefix = name.lower()
        found = [c for c in unique if c.name.lower().startswith(prefix)]
        found.sort(key=lambda c: (c.name.lower() != prefix, len(c.name), *_order_key(c)))
    else:
        scored = [(max(fuzzy_score(name, c.name), fuzzy_score(name, c.qualified_name)), c) for c in unique]
        scored = [(s, c) for s, c in scored if s >= FUZZY_THRESHOLD]
        scored.sort(key=lambda sc: (-sc[0], *_order_key(sc[1])))
        found = [c for _, c in scored]
    return found[:limit]


DEFINITION_KINDS = (
    ChunkKind.CLASS,
    ChunkKind.INTERFACE,
    ChunkKind.FUNCTION,
    ChunkKind.METHOD,
    ChunkKind.ENUM,
    ChunkKind.TYPE,
)


def spread_over_files(definitions: Iterable[Chunk], limit: int) -> list[Chunk]:
    """Up to `limit` definitions taken round-robin over files (each file's in line order), so a sample
    of a large repo shows every file's first definitions before any file's tenth."""
    per_file: dict[str, list[Chunk]] = {}
    for c in sorted(definitions, key=lambda c: (c.path, c.start_line, c.id)):
        per_file.setdefault(c.path, []).append(c)
    out: list[Chunk] = []
    depth = 0
    while len(out) < limit:
        layer = [chunks[depth] for chunks in per_file.values() if depth < len(chunks)]
        if not layer:
            break
        out.extend(layer[: limit - len(out)])
        depth += 1
    return out
