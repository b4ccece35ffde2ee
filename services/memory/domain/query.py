"""Text for the full-text index and terms for a query, split the way code search splits identifiers."""

from __future__ import annotations

from kit.text import code_words
from services.memory.domain.model import Memory

# Words that carry no topic in a prompt (function words and the generic verbs of coding requests: "add",
# "change", "write"…); dropped from queries, the index keeps them.
STOPWORDS = frozenset(
    """a an and are as at be been but by can could did do does doing for from had has have how i if in into
    is it its just me my no not of on or our please should so than that the their them then there these
    they this those to too us was we were what when where which while who whom why will with would you your
    shall may might must let lets about again also any all some such only own same very here each other
    get got make made use used using want need tell show give
    add change write put go goes still work works try know think look see like say says happen happens
    happened way thing things something anything""".split()  # noqa: SIM905
)
MAX_QUERY_TERMS = 32


def index_text(text: str) -> str:
    """What the FTS5 index stores for `text`: its code words (identifiers also split into parts)."""
    return " ".join(code_words(text))


def query_terms(query: str) -> list[str]:
    """Distinct, meaningful code words of a query, in order, at most MAX_QUERY_TERMS."""
    seen: dict[str, None] = {}
    for word in code_words(query):
        if word in STOPWORDS or (len(word) < 2 and not word.isdigit()):
            continue
        seen.setdefault(word, None)
        if len(seen) >= MAX_QUERY_TERMS:
            break
    return list(seen)


def memory_index_fields(memory: Memory) -> tuple[str, str, str, str]:
    """(name, description, body, related) as indexed."""
    related = " ".join((*memory.related_files, *memory.related_symbols))
    return (
        index_text(memory.name),
        index_text(memory.description),
        index_text(memory.body),
        index_text(related),
    )


def context_text(memory: Memory) -> str:
    """How a memory is rendered into a context block; its token cost is what budgets count."""
    head = f"- {memory.name}"
    if memory.description and memory.description != memory.name:
        head += f": {memory.description}"
    return f"{head}\n{memory.body}" if memory.body else head
