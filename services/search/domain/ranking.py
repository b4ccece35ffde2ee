"""Hybrid ranking: score fusion of keyword and vector candidates, then code-aware adjustments.

Pure functions; the engine feeds them candidates and chunks. Every factor is visible in the hit's
`SignalScores` so `explain` can show why a chunk ranked where it did.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from kit.domain import Chunk, ChunkKind
from kit.paths import is_declaration_path
from kit.text import asks_for_tests, identifier_tokens, split_identifier
from services.search.domain.keywords import (
    BODY_CHARS,
    asks_for_docs,
    asks_for_examples,
    is_doc_chunk,
    is_example_path,
    normalise,
    test_words,
    words,
)
from services.search.domain.model import ScoredId, SearchHit, SignalScores

_QUALIFIER = re.compile(r"\.|::|->|#")

# Keyword's share of the fused score (the vector's is the rest); 0.4–0.6 measured alike (README).
KEYWORD_WEIGHT = 0.5
# Cosines spread over less than this are spread over this much when normalised: MiniLM's top 32 usually
# span 0.15–0.3, and two candidates 0.02 apart are nearly tied, not best and worst.
MIN_COSINE_SPREAD = 0.15
CANDIDATES_PER_SIGNAL = 32

TEST_PENALTY = 0.3
# Tests (docs) when the query asks for tests (docs): "tests for the parser" wants the tests first.
WANTED_BOOST = 1.5
# When "test" (or the query's own test word) is in at least this share of a repo's implementation
# (non-test) chunks, testing is what the repo is about and its test words ask for nothing: in a test
# runner, "the fixture that captures stdout written by the test" asks for the runner's code. Measured
# (README): pytest 48% ("fixture" 24%); the other corpora ≤ 12%.
SUBJECT_SHARE = 0.2
SUBJECT_TEST_WORD = "test"
# Measured on the bench by re-ranking the same candidates (rxjs, fastify; bench/README): a markdown page,
# a type-declaration file (.d.ts, .pyi: signatures with no body) or a module/file-level chunk above the
# definition that implements what a code question asks about is the common miss.
DOC_PENALTY = 0.4
DECLARATION_PENALTY = 0.5
# An example program (`examples/`, `_examples/`: keywords.is_example_path) calls what a question about the
# library asks for; the library's code does it. Measured in process (twelfth session, 2026-12-07, hybrid on the
# ten-corpus store): of the 1,190 answered blind probes, 43 had an example file above the answer file and 215 one
# in their top ten; at ×0.5 probe file MRR@10 0.707 → 0.711 (chi +0.014, click +0.010, pytest +0.010), corpus
# sets' symbol NDCG@10 0.585 → 0.588 (chi +0.010, click +0.015), commit sets 0.626 → 0.627, no corpus lower;
# ×0.3 measured the same. Not when the query asks for an example.
EXAMPLE_PENALTY = 0.5
RESIDUE_PENALTY = 0.4
# A declaration this short (a type alias, an interface or class stub, a one-line struct) is little but its
# name, which both signals then match: the name words in keyword's heaviest field, and an embedding of a
# view that is mostly that name. Measured in process on the 8 corpus sets and 7 bug-fix commit sets
# (bench.search_quality): hybrid sym NDCG@10 +0.004 / +0.003 mean, no set lower, flat over 5–10 lines
# and ×0.5–0.7 (services/search/README). Not when the query names the declaration: then it is the answer.
STUB_DECLARATION_LINES = 5
STUB_DECLARATION_PENALTY = 0.6
STUB_DECLARATION_KINDS = frozenset({ChunkKind.CLASS, ChunkKind.INTERFACE, ChunkKind.TYPE, ChunkKind.ENUM})
# bm25 already normalises length, so only a chunk past this many lines is marked down (from 120: the
# answer is often a long function or class, and the second penalty cost symbol NDCG, README).
LONG_CHUNK_LINES = 300
LONG_CHUNK_FLOOR = 0.6
# File-level aggregation: a hit in a file where other top hits are scores up by `FILE_CONTEXT_BOOST` ×
# (their summed scores over the best hit's, at most 1), counted over the best `FILE_CONTEXT_DEPTH`
# candidates. Answers cluster in files (a fix touches two functions of one module; a flow question's steps
# sit together), and a lone hit in a file nothing else matched is more often a stray word match. Measured
# in process (bench.search_quality, 8 corpus sets + 7 bug-fix commit sets): hybrid sym NDCG@10 +0.007 /
# +0.018 mean; flat from 0.2 to 0.7 and over depths 10–32 (services/search/README).
FILE_CONTEXT_BOOST = 0.4
FILE_CONTEXT_DEPTH = 20
EXACT_NAME_BOOST = 2.0
# A message the query quotes ('the two entered values do not match', "Server capacity exceeded", `reply.sent =
# true`) found verbatim in a chunk, case and spacing aside: the code that prints or checks it. Two words at least,
# so a quoted name or flag is left to the name and path boosts. Measured in process (fourteenth session,
# ten-corpus store, hybrid): 139 of the 1,410 answered blind probes quote such a message; their file MRR@10 0.807
# → 0.832 at ×1.5 (×2 0.834, ×3 0.834, ×5 0.828). Over everything (in process, hybrid): probe file
# MRR@10 0.736 → 0.738, corpus sets' symbol NDCG@10 0.589 → 0.592 (cobra +0.018, toml_edit +0.008, mobx −0.004),
# commit sets equal. The candidates' text is read only for such a query (`SearchEngine.search`).
QUOTED_BOOST = 1.5
# A quote opens after white space or an opening bracket (not the close of "'Saved.'" before the next one) and holds
# no space at either end (not the ' + name + ' of code); inside single quotes an apostrophe between letters
# is part of the message ('can't open the config file').
_OPENS = r"(?<![^\s(\[{:=])"
_QUOTED = re.compile(
    rf'{_OPENS}"(\S[^"\n]{{3,158}}\S)"|\u201c(\S[^\u201d\n]{{3,158}}\S)\u201d|\u2018(\S[^\u2019\n]{{3,158}}\S)\u2019'
    rf"|\u00ab\s?(\S[^\u00bb\n]{{3,158}}\S)\s?\u00bb|`(\S[^`\n]{{3,158}}\S)`"
    rf"|{_OPENS}'(\S(?:[^'\n]|(?<=\w)'(?=\w)){{3,158}}?\S)'(?!\w)"
)
FEEDBACK_STEP = 0.1
FEEDBACK_MIN = 0.5
FEEDBACK_MAX = 1.5
NAME_WORDS_BOOST = 1.35
PATH_BOOST = 1.2
PATH_EXACT_BOOST = 1.5


@dataclass(frozen=True, slots=True)
class QueryIntent:
    """What the ranking needs to know about a query, computed once."""

    wants_tests: bool
    wants_docs: bool
    # Normalised test words ("tests", "fixture") of a query that asks for tests (`kit.text.asks_for_tests`).
    test_words: frozenset[str]
    # Normalised (lowercase, no _ or $) identifiers written in the query, e.g. "validateuserinput".
    identifiers: frozenset[str]
    # Normalised single words of the query.
    words: frozenset[str]
    # Path-like tokens written in the query ("services/search/engine.py", "engine.py").
    paths: tuple[str, ...]
    wants_examples: bool = False  # "an example of a custom handler": example programs are not marked down
    # Messages the query quotes, lowercased with runs of white space as one space (`QUOTED_BOOST`).
    quoted: tuple[str, ...] = ()

    @classmethod
    def of(cls, query: str) -> QueryIntent:
        identifiers: set[str] = set()
        for token in identifier_tokens(query):
            parts = _QUALIFIER.split(token.lower())
            identifiers.add(normalise("".join(parts)))  # "Parser.parse" → "parserparse"
            identifiers.add(normalise(parts[-1]))  # and its last segment, "parse"
        paths = tuple(t for t in query.split() if "/" in t or _looks_like_file(t))
        wants_tests, said = asks_for_tests(query), frozenset(words(query))
        asked = test_words(query) if wants_tests else frozenset()
        return cls(
            wants_tests=wants_tests,
            wants_docs=asks_for_docs(said),
            test_words=asked,
            identifiers=frozenset(i for i in identifiers if i),
            words=said,
            paths=tuple(p.strip("`'\"()[]{},;:") for p in paths),
            wants_examples=asks_for_examples(said),
            quoted=_quoted_messages(query),
        )

    def subject_words(self) -> frozenset[str]:
        """The words whose share of the repo's implementation chunks decides `in_repo`."""
        return self.test_words | {SUBJECT_TEST_WORD} if self.wants_tests else frozenset()

    def in_repo(self, implementation_share: Mapping[str, float]) -> QueryIntent:
        """The intent once the repo's vocabulary is known (share of its non-test chunks holding each of
        `subject_words()`): in a repo about testing, test words are its subject, not a wish for tests."""
        if self.wants_tests and any(share >= SUBJECT_SHARE for share in implementation_share.values()):
            return replace(self, wants_tests=False)
        return self


def _quoted_messages(query: str) -> tuple[str, ...]:
    quoted = (_squeezed(next(g for g in m.groups() if g)) for m in _QUOTED.finditer(query))
    return tuple(dict.fromkeys(q for q in quoted if " " in q))


def _squeezed(text: str) -> str:
    return " ".join(text.lower().split())


def _looks_like_file(token: str) -> bool:
    stem, dot, ext = token.strip("`'\"()[]{},;:").rpartition(".")
    return bool(dot and stem and 1 <= len(ext) <= 5 and ext.isalnum() and not ext.isdigit())


def _first_of_each(hits: Sequence[ScoredId]) -> dict[str, tuple[int, float]]:
    """Chunk id → (1-based rank, score) at its first appearance (a backend's duplicate never counts)."""
    found: dict[str, tuple[int, float]] = {}
    for rank, hit in enumerate(hits, start=1):
        found.setdefault(hit.chunk_id, (rank, hit.score))
    return found


def fuse(
    keyword: Sequence[ScoredId], vector: Sequence[ScoredId], keyword_weight: float = KEYWORD_WEIGHT
) -> dict[str, SignalScores]:
    """Fused scores per chunk id: a convex combination of the two signals' normalised scores.

        fused = w × score / best score + (1 − w) × (1 − (best cos − cos) / (best cos − worst cos))

    over this query's candidates (a cosine range below MIN_COSINE_SPREAD counts as that wide, so the
    best of a tight cluster is not the only one that counts), 0 for a signal the chunk is missing from.
    Unlike reciprocal ranks, a keyword hit far ahead of the next keeps its lead, and a vector list of
    near-equal cosines does not outvote it (bench numbers in the README). Both normalisations use only
    this query's candidates in this repo, so other repos never change the result."""
    words, vectors = _first_of_each(keyword), _first_of_each(vector)
    best_keyword = max((score for _, score in words.values()), default=0.0)
    cosines = [score for _, score in vectors.values()]
    low, high = min(cosines, default=0.0), max(cosines, default=0.0)
    signals: dict[str, SignalScores] = {}
    for chunk_id in dict.fromkeys([*words, *vectors]):
        keyword_rank, keyword_score = words.get(chunk_id, (0, 0.0))
        vector_rank, vector_score = vectors.get(chunk_id, (0, 0.0))
        lexical = (keyword_score / best_keyword if best_keyword > 0 else 1.0) if keyword_rank else 0.0
        semantic = 1.0 - (high - vector_score) / max(high - low, MIN_COSINE_SPREAD) if vector_rank else 0.0
        signals[chunk_id] = SignalScores(
            keyword_rank=keyword_rank,
            keyword_score=keyword_score,
            vector_rank=vector_rank,
            vector_score=vector_score,
            fused=keyword_weight * lexical + (1.0 - keyword_weight) * semantic,
        )
    return signals


@dataclass(frozen=True, slots=True)
class _NameFeatures:
    name: str
    qualified: str
    name_words: frozenset[str]
    path: str
    stem: str
    stem_words: frozenset[str]
    example: bool  # under an examples folder (`is_example_path`)


@lru_cache(maxsize=65_536)
def _features(name: str, qualified_name: str, path: str) -> _NameFeatures:
    """What the adjustment compares, per (name, path): computed once, reused across queries."""
    stem = path.rsplit("/", 1)[-1].split(".", 1)[0].lower()
    return _NameFeatures(
        name=normalise(name.lower()),
        qualified=normalise("".join(_QUALIFIER.split(qualified_name.lower()))),
        name_words=frozenset(normalise(w) for w in split_identifier(name)),
        path=path.lower(),
        stem=normalise(stem),
        stem_words=frozenset(normalise(w) for w in split_identifier(stem)),
        example=is_example_path(path),
    )


def adjustment(chunk: Chunk, intent: QueryIntent) -> float:
    """Multiplier for a chunk given the query: name/path matches up; tests, docs, type declarations, example
    programs, module-level residue, declaration stubs and very long chunks down."""
    factor = 1.0
    f = _features(chunk.name, chunk.qualified_name, chunk.path)
    if chunk.is_test:
        factor *= WANTED_BOOST if intent.wants_tests else TEST_PENALTY
    if is_doc_chunk(chunk):
        factor *= WANTED_BOOST if intent.wants_docs else DOC_PENALTY
    else:
        if is_declaration_path(chunk.path):
            factor *= DECLARATION_PENALTY  # the implementation answers; its declared type only restates it
        if f.example and not intent.wants_examples:
            factor *= EXAMPLE_PENALTY
        if chunk.kind in (ChunkKind.FILE, ChunkKind.MODULE):
            factor *= RESIDUE_PENALTY  # code between definitions, or a whole file: a definition is sharper
    lines = max(1, chunk.end_line - chunk.start_line + 1)
    if lines > LONG_CHUNK_LINES:
        factor *= max(LONG_CHUNK_FLOOR, (LONG_CHUNK_LINES / lines) ** 0.5)
    if f.name and (f.name in intent.identifiers or f.qualified in intent.identifiers):
        factor *= EXACT_NAME_BOOST
    elif intent.words == {f.name}:
        factor *= EXACT_NAME_BOOST  # the query is just the name ("tokenize", "Parser")
    else:
        if chunk.kind in STUB_DECLARATION_KINDS and lines <= STUB_DECLARATION_LINES:
            factor *= STUB_DECLARATION_PENALTY  # unless the query names it: then it is the answer
        if len(f.name_words) > 1 and f.name_words <= intent.words:
            factor *= NAME_WORDS_BOOST
    if intent.paths:
        if any(p and (f.path == p.lower() or f.path.endswith("/" + p.lower())) for p in intent.paths):
            factor *= PATH_EXACT_BOOST
    elif f.stem and f.stem_words and (f.stem in intent.words or f.stem_words <= intent.words):
        factor *= PATH_BOOST
    if intent.quoted:
        content = _squeezed(chunk.content[:BODY_CHARS])  # as much as the keyword index reads
        if any(q in content for q in intent.quoted):
            factor *= QUOTED_BOOST
    return factor


def feedback_factor(votes: int) -> float:
    """Net useful votes (Feedback) as a multiplier: ±10% per vote, bounded to 0.5..1.5."""
    return min(FEEDBACK_MAX, max(FEEDBACK_MIN, 1.0 + FEEDBACK_STEP * votes))


def rank(
    signals: Mapping[str, SignalScores],
    chunks: Mapping[str, Chunk],
    intent: QueryIntent,
    limit: int,
    votes: Mapping[str, int] | None = None,
) -> list[SearchHit]:
    """Hits for the chunks that still exist, best first; ties broken by path and line for stability."""
    votes = votes or {}
    hits = []
    for chunk_id, scores in signals.items():
        chunk = chunks.get(chunk_id)
        if chunk is None:
            continue
        factor = adjustment(chunk, intent) * feedback_factor(votes.get(chunk_id, 0))
        final = SignalScores(
            keyword_rank=scores.keyword_rank,
            keyword_score=scores.keyword_score,
            vector_rank=scores.vector_rank,
            vector_score=scores.vector_score,
            fused=scores.fused,
            adjustment=factor,
        )
        hits.append(SearchHit(chunk=chunk, score=scores.fused * factor, signals=final))
    hits = with_file_context(hits)
    hits.sort(key=lambda h: (-h.score, h.chunk.path, h.chunk.start_line, h.chunk.id))
    return hits[:limit]


def with_file_context(
    hits: Sequence[SearchHit], boost: float = FILE_CONTEXT_BOOST, depth: int = FILE_CONTEXT_DEPTH
) -> list[SearchHit]:
    """Each hit scored up by the other leading hits in its file (see FILE_CONTEXT_BOOST); the factor is
    folded into the hit's recorded adjustment, so `score == fused × adjustment` still holds."""
    leading = sorted(hits, key=lambda h: (-h.score, h.chunk.path, h.chunk.start_line, h.chunk.id))[:depth]
    top = leading[0].score if leading else 0.0
    if not top > 0:
        return list(hits)
    per_file: dict[str, list[SearchHit]] = {}
    for h in leading:
        per_file.setdefault(h.chunk.path, []).append(h)
    out = []
    for h in hits:
        # A class and its method count for each other too: leaving nested hits out measured worse (in
        # process, corpus sets 0.603 → 0.599, commit sets 0.626 → 0.622).
        others = sum(o.score for o in per_file.get(h.chunk.path, ()) if o.chunk.id != h.chunk.id)
        factor = 1.0 + boost * min(1.0, max(0.0, others) / top)
        if factor == 1.0:
            out.append(h)
            continue
        signals = replace(h.signals, adjustment=h.signals.adjustment * factor)
        out.append(replace(h, score=h.score * factor, signals=signals))
    return out
