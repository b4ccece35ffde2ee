"""How one code chunk reads in the block: a `path:start-end kind name` heading and a fenced body,
whole or trimmed to fit (signature kept, elision marked)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from gateway.domain.context_types import CandidateReason, one_line
from gateway.domain.utf16 import cut_utf16, utf16_len
from kit.domain import Chunk
from kit.tokens import count_tokens, truncate_to_tokens


def code_heading(chunk: Chunk, path: str, reason: str) -> str:
    name = chunk.qualified_name or chunk.name or "(anonymous)"
    kind = str(chunk.kind) if chunk.kind else "code"
    tag = f" · {reason}" if reason and reason not in {CandidateReason.SEARCH, CandidateReason.SEED} else ""
    return one_line(f"{path}:{chunk.start_line}-{chunk.end_line} {kind} {name}{tag}") + "\n"


def _fence(content: str) -> str:
    longest = max((len(run) for run in re.findall(r"`{3,}", content)), default=2)
    return "`" * max(3, longest + 1)


def render_code(chunk: Chunk, path: str, reason: str, body: str | None = None) -> str:
    content = chunk.content if body is None else body
    if not content.endswith("\n"):
        content += "\n"
    fence = _fence(content)
    language = re.sub(r"[^\w+#-]", "", chunk.language or "")
    return f"{code_heading(chunk, path, reason)}{fence}{language}\n{content}{fence}\n"


def source_lines(chunk: Chunk) -> list[str] | None:
    """The chunk's content lines when line i is source line `start_line + i` for every line; None when it
    is not (an outline of a long definition, a span the content does not fill, or a line break other than
    `\n` or `\r\n` — a form feed, a `\r` alone — that `splitlines` would count and the indexer did not)."""
    lines = chunk.content.splitlines()
    exact = [line.removesuffix("\r") for line in chunk.content.split("\n")]  # CRLF counts once
    if exact and exact[-1] == "":
        exact.pop()
    if lines != exact or len(lines) != chunk.end_line - chunk.start_line + 1:
        return None
    return lines


def is_outline(chunk: Chunk) -> bool:
    """Whether the chunk is an outline: a long definition indexed with each nested definition reduced to
    its signature line, so it holds fewer lines than its span (services/indexer parsing `_outline`)."""
    count = chunk.content.count("\n") + (0 if chunk.content.endswith("\n") else 1)
    return count < chunk.end_line - chunk.start_line + 1


def elide_lines(chunk: Chunk, ranges: Sequence[tuple[int, int]]) -> tuple[str, list[int]]:
    """The chunk's content with each source line range in `ranges` (sorted, inside the chunk, not
    overlapping) replaced by one `… lines a-b shown above` line, and each line's source offset from
    `chunk.start_line` (a marker stands at the last line it replaces). The content's lines must be its
    source lines (`source_lines`)."""
    lines = chunk.content.splitlines()
    out: list[str] = []
    offsets: list[int] = []
    i = 0
    for start, end in ranges:
        first, last = start - chunk.start_line, min(end - chunk.start_line, len(lines) - 1)
        if first < i or first > last:
            continue
        out.extend(lines[i:first])
        offsets.extend(range(i, first))
        indent = lines[first][: len(lines[first]) - len(lines[first].lstrip())]
        out.append(f"{indent}… lines {start}-{chunk.start_line + last} shown above")
        offsets.append(last)
        i = last + 1
    out.extend(lines[i:])
    offsets.extend(range(i, len(lines)))
    text = "\n".join(out)
    return (text + "\n" if chunk.content.endswith("\n") else text), offsets


def trim_code(
    chunk: Chunk,
    path: str,
    reason: str,
    room_tokens: int,
    room_chars: int,
    line_map: Sequence[int] | None = None,
) -> tuple[str, int, int] | None:
    """The chunk's first lines with the rest marked as elided, as (block, tokens, last line shown).

    `line_map` gives, for each content line, its offset from `chunk.start_line` in the source (when
    the content was reshaped: doc comments cut, a class header); without it lines map one to one.
    The signature line is always among the lines shown: when the lines above it (decorators, a long
    docstring before it) leave no room, the block starts at the signature. None when even that fails.
    """
    lines = cut_utf16(chunk.content, room_chars).splitlines()
    if not lines:
        return None
    offsets = (
        list(line_map[: len(lines)])
        if line_map is not None and len(line_map) >= len(lines)
        else list(range(len(lines)))
    )
    signature = _signature_index(lines, chunk.signature)
    for first in (0, signature) if signature else (0,):
        trimmed = _trimmed_from(chunk, path, reason, lines, offsets, first, room_tokens, room_chars)
        if trimmed is not None and trimmed[2] >= chunk.start_line + offsets[signature]:
            return trimmed
    return None


def _trimmed_from(
    chunk: Chunk,
    path: str,
    reason: str,
    lines: Sequence[str],
    offsets: Sequence[int],
    first: int,
    room_tokens: int,
    room_chars: int,
) -> tuple[str, int, int] | None:
    def build(kept: Sequence[str]) -> tuple[str, int]:
        last = chunk.start_line + (offsets[first + len(kept) - 1] if kept else offsets[first] - 1)
        head = f"… lines {chunk.start_line}-{chunk.start_line + offsets[first] - 1} elided\n" if first else ""
        tail = f"… lines {last + 1}-{chunk.end_line} elided\n" if last < chunk.end_line else "… rest elided\n"
        return render_code(
            chunk, path, reason, body=head + "".join(line + "\n" for line in kept) + tail
        ), last

    skeleton, _ = build([])
    kept = _fit_lines(
        lines[first:], room_tokens - count_tokens(skeleton) - 4, room_chars - utf16_len(skeleton) - 16
    )
    while kept:
        block, last = build(kept)
        tokens = count_tokens(block)
        if tokens <= room_tokens and utf16_len(block) <= room_chars:
            return block, tokens, last
        kept = kept[:-1]
    return None


def _signature_index(lines: Sequence[str], signature: str) -> int:
    first = signature.strip().splitlines()[0].strip() if signature.strip() else ""
    if first:
        for i, line in enumerate(lines[:200]):
            if first[:60] in line:
                return i
    return 0


def _fit_lines(lines: Sequence[str], max_tokens: int, max_chars: int) -> list[str]:
    """The longest prefix of `lines` within the limits (a lone over-long first line is cut)."""
    kept: list[str] = []
    tokens = chars = 0
    for line in lines:
        line_tokens = count_tokens(line) + 1
        if tokens + line_tokens > max_tokens or chars + utf16_len(line) + 1 > max_chars:
            if not kept:
                room = min(max_tokens - tokens - 1, (max_chars - chars) // 2)
                piece = cut_utf16(truncate_to_tokens(line, room), max_chars - chars - 1)
                if piece.strip():
                    kept.append(piece)
            break
        kept.append(line)
        tokens += line_tokens
        chars += utf16_len(line) + 1
    return kept
