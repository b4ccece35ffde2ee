"""Every text bound for Claude Code fits its 10,000-unit cap as JavaScript counts it (UTF-16 units)."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.domain.assembly import CodeCandidate, MemoryItem, assemble_context
from gateway.domain.utf16 import CLAUDE_CODE_TEXT_LIMIT, TEXT_CAP, cut_utf16, utf16_len
from kit.domain import Chunk, ChunkKind

ASTRAL = st.characters(min_codepoint=0x1F300, max_codepoint=0x1FAFF)  # emoji: 2 units each
MIXED = st.text(
    st.one_of(ASTRAL, st.characters(codec="utf-8", exclude_categories=["Cs"]), st.sampled_from("ab \n")),
    max_size=400,
)


def js_length(text: str) -> int:
    """What JavaScript's String.length says, computed independently of the helper under test."""
    return sum(2 if ord(c) > 0xFFFF else 1 for c in text)


@given(MIXED)
def test_utf16_len_matches_javascript_string_length(text: str) -> None:
    assert utf16_len(text) == js_length(text)


@given(MIXED, st.integers(min_value=0, max_value=500))
def test_cut_is_the_longest_prefix_within_the_limit_and_keeps_pairs_whole(text: str, limit: int) -> None:
    cut = cut_utf16(text, limit)
    assert text.startswith(cut)
    assert js_length(cut) <= limit
    if cut != text:  # one more character would not fit
        assert js_length(text[: len(cut) + 1]) > limit
    cut.encode("utf-8")  # no lone surrogate


def test_emoji_block_that_len_calls_short_is_measured_long() -> None:
    text = "x" * 9_875 + "😀" * 76  # 9,951 characters, 10,027 units: the block from issue 14
    assert len(text) < CLAUDE_CODE_TEXT_LIMIT < utf16_len(text)
    assert utf16_len(cut_utf16(text, TEXT_CAP)) <= TEXT_CAP


def _emoji_chunk(i: int, body: str) -> Chunk:
    content = f"def f{i}():\n    return {body!r}\n" * 8
    return Chunk(
        id=f"c{i}",
        repo="acme",
        path=f"src/m{i}.py",
        language="python",
        kind=ChunkKind.FUNCTION,
        name=f"f{i}",
        qualified_name=f"f{i}",
        start_line=1,
        end_line=16,
        content=content,
        content_hash=f"h{i}",
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.text(ASTRAL, min_size=20, max_size=120), min_size=4, max_size=30),
    st.text(ASTRAL, max_size=80),
)
def test_assembled_block_with_astral_characters_stays_under_claude_codes_cap(
    bodies: list[str], memory: str
) -> None:
    candidates = [CodeCandidate(_emoji_chunk(i, b), 1.0 / (i + 1), "search") for i, b in enumerate(bodies)]
    memories = [MemoryItem(id="m1", name="note", body=memory or "note", memory_class="fact", score=1.0)]
    result = assemble_context("lookup", candidates, budget_tokens=20_000, memories=memories, repo="acme")
    assert js_length(result.text) <= TEXT_CAP < CLAUDE_CODE_TEXT_LIMIT
    assert result.chars == js_length(result.text)
