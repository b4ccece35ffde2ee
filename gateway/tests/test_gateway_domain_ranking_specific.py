"""Assembly dedup keeps the more specific chunk: a long class/outer function gives way to the candidates inside it."""

from gateway.domain.assembly import ENCLOSING_MIN_LINES, CodeCandidate, assemble_context
from kit.domain import Chunk, ChunkKind


def _chunk(cid: str, start: int, end: int, name: str, content: str, kind: ChunkKind) -> Chunk:
    return Chunk(
        id=cid,
        repo="r",
        path="src/a.py",
        language="python",
        kind=kind,
        name=name,
        qualified_name=name,
        start_line=start,
        end_line=end,
        content=content,
        content_hash=cid,
    )


def test_a_long_class_is_replaced_at_its_rank_by_the_methods_inside_it():
    lines = ENCLOSING_MIN_LINES + 20
    klass = _chunk(
        "c-class", 1, lines, "Store", "class Store:\n" + "    x = 1\n" * (lines - 1), ChunkKind.CLASS
    )
    method = _chunk("c-get", 30, 32, "Store.get", "def get(self):\n    return 1\n", ChunkKind.METHOD)
    other = _chunk("c-other", lines + 5, lines + 6, "helper", "def helper():\n    pass\n", ChunkKind.FUNCTION)
    result = assemble_context(
        "lookup",
        [CodeCandidate(klass, 2.0), CodeCandidate(other, 1.8), CodeCandidate(method, 1.0)],
        budget_tokens=2_000,
    )
    assert [i.chunk_id for i in result.items] == ["c-get", "c-other"]
    assert [(c.chunk_id, c.note) for c in result.cut] == [
        ("c-class", "replaced by the more specific chunks inside it")
    ]


def test_a_long_class_with_no_candidate_inside_it_is_kept():
    lines = ENCLOSING_MIN_LINES + 5
    klass = _chunk(
        "c-class", 1, lines, "Store", "class Store:\n" + "    x = 1\n" * (lines - 1), ChunkKind.CLASS
    )
    result = assemble_context("lookup", [CodeCandidate(klass, 2.0)], budget_tokens=4_000)
    assert [i.chunk_id for i in result.items] == ["c-class"]
