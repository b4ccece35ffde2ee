"""The *Code* section: candidates in score order, deduplicated, each whole or trimmed to fit."""

from __future__ import annotations

from collections.abc import Sequence

from gateway.domain.code_render import render_code, trim_code
from gateway.domain.context_types import (
    MAX_CHARS_PER_TOKEN,
    REASON_ORDER,
    BudgetPolicy,
    CodeCandidate,
    ContextItem,
    Section,
    estimate_tokens,
    relative_path,
)
from gateway.domain.ledger import SECTION_TITLES, TITLE_TOKENS, Ledger, Part
from gateway.domain.utf16 import utf16_len
from kit.tokens import count_tokens


def order_candidates(candidates: Sequence[CodeCandidate]) -> list[CodeCandidate]:
    def key(c: CodeCandidate) -> tuple[float, int, str, int, str]:
        score = c.score if c.score == c.score else float("-inf")  # NaN sorts last
        return (
            -score,
            REASON_ORDER.get(str(c.reason), len(REASON_ORDER)),
            c.chunk.path,
            c.chunk.start_line,
            c.chunk.id,
        )

    return sorted(candidates, key=key)


def add_code(
    ledger: Ledger, ordered: Sequence[CodeCandidate], repo_root: str, policy: BudgetPolicy
) -> list[ContextItem]:
    cut: list[ContextItem] = []
    shown: dict[str, list[tuple[int, int, str]]] = {}
    seen_ids: set[str] = set()
    rank = 0
    for index, candidate in enumerate(ordered):
        chunk = candidate.chunk
        path = relative_path(chunk.path, repo_root)
        if chunk.id and chunk.id in seen_ids:
            cut.append(code_item(candidate, 0, "duplicate", path))
            continue
        overlap = _overlap(shown.get(path, ()), chunk.start_line, chunk.end_line)
        if overlap:
            cut.append(code_item(candidate, 0, f"overlaps {overlap} already shown", path))
            continue
        rank += 1
        placed = _place(ledger, candidate, path, rank, index + 1 < len(ordered), policy)
        if isinstance(placed, ContextItem):
            cut.append(placed)
            continue
        block, tokens, note, shown_end = placed
        seen_ids.add(chunk.id)
        shown.setdefault(path, []).append(
            (chunk.start_line, shown_end, f"{path}:{chunk.start_line}-{chunk.end_line}")
        )
        ledger.take(Section.CODE, Part(block, tokens, code_item(candidate, tokens, note, path)))
    return cut


def _place(
    ledger: Ledger, candidate: CodeCandidate, path: str, rank: int, more_follow: bool, policy: BudgetPolicy
) -> tuple[str, int, str, int] | ContextItem:
    """The candidate's block as (text, tokens, note, last line shown), trimmed when it does not fit
    whole and is among the top `trim_top`; else the cut item saying which limit it broke."""
    chunk = candidate.chunk
    first = not ledger.parts.get(Section.CODE)
    extra_tokens, extra_chars = (TITLE_TOKENS, utf16_len(SECTION_TITLES[Section.CODE])) if first else (0, 0)
    block = render_code(chunk, path, candidate.reason)
    # Counting costs ~1 ms per 1,000 tokens: skip it for blocks that cannot fit whole anyway.
    countable = utf16_len(block) <= ledger.chars and len(block) <= MAX_CHARS_PER_TOKEN * ledger.tokens
    tokens = count_tokens(block) if countable else estimate_tokens(block)
    if ledger.fits(tokens + extra_tokens, utf16_len(block) + extra_chars):
        return block, tokens, "", chunk.end_line
    room_tokens = ledger.tokens - extra_tokens
    room_chars = ledger.chars - extra_chars
    trimmed = None
    if more_follow:
        room_tokens = max(policy.min_trimmed_tokens, int(room_tokens * policy.trim_room_share))
        room_chars = int(room_chars * policy.trim_room_share)
    room_tokens = min(room_tokens, ledger.tokens - extra_tokens)
    if rank <= policy.trim_top and room_tokens >= policy.min_trimmed_tokens:
        trimmed = trim_code(chunk, path, candidate.reason, room_tokens, room_chars)
    if trimmed is None:
        over_tokens = tokens + extra_tokens > ledger.tokens
        over_chars = utf16_len(block) + extra_chars > ledger.chars
        why = " and ".join(
            label for label, over in (("token budget", over_tokens), ("character cap", over_chars)) if over
        )
        return code_item(candidate, tokens, why, path)
    block, tokens, last_line = trimmed
    note = f"trimmed: lines {chunk.start_line}-{last_line} shown"
    return block, tokens, note, max(chunk.start_line, last_line)


def _overlap(ranges: Sequence[tuple[int, int, str]], start: int, end: int) -> str:
    for shown_start, shown_end, label in ranges:
        if start <= shown_end and shown_start <= end:
            return label
    return ""


def code_item(candidate: CodeCandidate, tokens: int, note: str, path: str | None = None) -> ContextItem:
    chunk = candidate.chunk
    return ContextItem(
        Section.CODE,
        chunk.path if path is None else path,
        chunk.qualified_name or chunk.name,
        chunk.start_line,
        chunk.end_line,
        str(chunk.kind),
        candidate.score,
        tokens,
        str(candidate.reason),
        chunk.id,
        note,
    )
