"""What keyword backends index and query: code-aware words, the same on both sides.

Identifiers are split (`validateUserInput` → validate, user, input) and also kept whole with `_`/`$`
removed (`validate_user_input` and `validateUserInput` both → validateuserinput), so a query matches
either the spoken words or the identifier as written. Query text never reaches a backend's query
syntax: only these plain lowercase words do, which is what makes hostile queries harmless.
"""

from __future__ import annotations

import re

from kit.domain import Chunk
from kit.text import code_words

MAX_QUERY_WORDS = 24
BODY_CHARS = 20_000

# Words that match nearly every chunk and carry no intent. Dropped from queries only.
# fmt: off
STOPWORDS = frozenset(
    [
        "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "has",
        "have", "how", "i", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "our",
        "please", "show", "should", "that", "the", "their", "them", "then", "there", "these", "this",
        "those", "to", "us", "was", "we", "what", "when", "where", "which", "who", "why", "will",
        "with", "you", "your", "code", "find", "self", "cls", "am", "been", "being", "getting", "got",
        "happen", "happens", "would", "could", "here", "just", "also", "some", "than", "very", "about",
        "tell", "explain", "look", "see", "don", "doesn", "isn", "won", "ll", "ve", "re"
    ]
)
# fmt: on
# The request, not its subject: "fix the login redirect", a commit's "Fix crash when…". In code the word
# is mostly in FIXME notes and fix-history comments, which it then matched. Left out of keyword queries
# only, and kept when written as code (`fix`, fix()). Bug-fix commit sets, in process: hybrid sym
# NDCG@10 +0.010, corpus sets unchanged (services/search/README).
REQUEST_WORDS = frozenset({"fix", "fixed", "fixes", "fixing"})

_TEST_WORDS = frozenset(
    {"test", "tests", "testing", "spec", "specs", "unittest", "pytest", "fixture", "fixtures"}
)
_DOC_WORDS = frozenset({"doc", "docs", "documentation", "readme", "guide", "markdown", "changelog"})
_EXAMPLE_WORDS = frozenset({"example", "examples", "sample", "samples", "demo", "demos"})
_DOC_LANGUAGES = frozenset({"markdown", "md", "rst", "text", "txt", "asciidoc", "org"})
_NON_WORD = re.compile(r"[_$]+")


def normalise(word: str) -> str:
    return _NON_WORD.sub("", word)


def words(text: str) -> list[str]:
    """Code-aware words of `text` as indexed and queried (lowercase, [a-z0-9] only)."""
    out = []
    for word in code_words(text):
        word = normalise(word)
        if word:
            out.append(word)
    return out


def index_text(text: str, limit: int = BODY_CHARS) -> str:
    return " ".join(words(text[:limit]))


def query_words(query: str, limit: int = MAX_QUERY_WORDS) -> list[str]:
    """Distinct words of a query, stop words removed unless nothing else is left."""
    seen: dict[str, None] = {}
    for word in words(query):
        seen.setdefault(word, None)
    all_words = list(seen)
    named = _written_as_code(query)
    kept = [
        w for w in all_words if w not in STOPWORDS and (w not in REQUEST_WORDS or w in named) and len(w) > 1
    ]
    return (kept or all_words)[:limit]


# Quoted code, or a name written as an empty call: `fix(scope): …` is a commit header, not a call.
_AS_CODE = re.compile(r"`([^`\n]{1,80})`|\b([A-Za-z_$][\w$]*)\(\)")


def _written_as_code(query: str) -> frozenset[str]:
    """The words of the query's quoted code and of the names it writes as calls (`fix`, fix())."""
    return frozenset(w for m in _AS_CODE.finditer(query) for w in words(m.group(1) or m.group(2)))


def test_words(query: str) -> frozenset[str]:
    """The words of `query` that may ask for tests ("tests", "fixture", …), as indexed."""
    return frozenset(w for w in words(query) if w in _TEST_WORDS)


def asks_for_docs(said: frozenset[str]) -> bool:
    """Does a query of these `words` ask for documentation?"""
    return not said.isdisjoint(_DOC_WORDS)


def asks_for_examples(said: frozenset[str]) -> bool:
    """Does a query of these `words` ask for an example?"""
    return not said.isdisjoint(_EXAMPLE_WORDS)


# Folders of example programs (`examples/`, Go's `_examples/`, `samples/`, `demo/`): code that uses the
# library, calling what a question about the library asks for rather than doing it. (Here, not in kit.paths:
# that module is part of the indexer's parser fingerprint, and this rule changes no chunk.)
EXAMPLE_DIRS = _EXAMPLE_WORDS | {"_examples"}


def is_example_path(path: str) -> bool:
    """True for a file under an examples folder (`examples/visit.rs`, `_examples/logging/main.go`,
    `doc/en/example/simple.py`); the file's own name does not count."""
    return any(part.lower() in EXAMPLE_DIRS for part in path.replace("\\", "/").split("/")[:-1])


def is_doc_chunk(chunk: Chunk) -> bool:
    return chunk.language.lower() in _DOC_LANGUAGES or chunk.path.lower().endswith(
        (".md", ".rst", ".txt", ".adoc")
    )


def chunk_fields(chunk: Chunk) -> dict[str, str]:
    """The weighted text fields every keyword backend indexes, highest weight first."""
    return {
        "names": index_text(f"{chunk.name} {chunk.qualified_name} {chunk.parent}"),
        "path": index_text(chunk.path),
        "signature": index_text(chunk.signature),
        "doc": index_text(chunk.doc),
        "body": index_text(chunk.content),
    }
