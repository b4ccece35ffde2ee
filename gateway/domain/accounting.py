"""Token accounting: what a reply injected, and what file reading it probably spared the agent.

Estimate of the reads spared. Without the block, an agent that wanted the same code would find it
(Grep) and then Read each file it lives in. Claude Code's Read returns up to READ_LINE_LIMIT lines, each
prefixed with its line number. So for every distinct file the block drew code from:

    spared(file) = tokens of its first min(lines, READ_LINE_LIMIT) lines
                   + min(lines, READ_LINE_LIMIT) × LINE_NUMBER_TOKENS

With only a line count, the tokens are lines × TOKENS_PER_LINE; with only tokens, the line count is
tokens / TOKENS_PER_LINE. Files the caller gives no size for count zero (listed in `unknown_files`),
so the estimate errs low. Memories, facts and the overview spare no file read and count only as
injected. Grep round-trips and the agent's own reasoning tokens are not counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gateway.domain.assembly import ContextItem, Section, relative_path

READ_LINE_LIMIT = 2_000
# Measured on this repository's Python with cl100k: 10.1 tokens per line; `   42→` prefixes ≈ 3.4 tokens.
TOKENS_PER_LINE = 10
LINE_NUMBER_TOKENS = 3


@dataclass(frozen=True, slots=True)
class FileSize:
    """The size of a repository file; give `lines`, `tokens` or both (0 = unknown)."""

    path: str
    lines: int = 0
    tokens: int = 0


@dataclass(frozen=True, slots=True)
class TokenSavings:
    injected_tokens: int
    spared_tokens: int
    files: tuple[str, ...] = ()
    unknown_files: tuple[str, ...] = ()

    @property
    def net_tokens(self) -> int:
        """Spared minus injected; negative when the block cost more than the reads it replaced."""
        return self.spared_tokens - self.injected_tokens


def read_cost(size: FileSize) -> int:
    """Estimated tokens of one Read of the file (see the module docstring)."""
    lines, tokens = max(0, size.lines), max(0, size.tokens)
    if lines == 0 and tokens == 0:
        return 0
    if lines == 0:
        lines = max(1, -(-tokens // TOKENS_PER_LINE))
    if tokens == 0:
        tokens = lines * TOKENS_PER_LINE
    read_lines = min(lines, READ_LINE_LIMIT)
    read_tokens = tokens if lines <= READ_LINE_LIMIT else tokens * READ_LINE_LIMIT // lines
    return read_tokens + read_lines * LINE_NUMBER_TOKENS


def token_savings(
    injected_tokens: int,
    items: Sequence[ContextItem],
    file_sizes: Mapping[str, FileSize] | Iterable[FileSize],
    repo_root: str = "",
) -> TokenSavings:
    """`injected_tokens` is the reply's token count; `items` its included items (code items count)."""
    sizes = file_sizes.values() if isinstance(file_sizes, Mapping) else file_sizes
    by_path = {relative_path(size.path, repo_root): size for size in sizes}
    files = sorted(
        {relative_path(item.path, repo_root) for item in items if item.section == Section.CODE and item.path}
    )
    spared = 0
    unknown: list[str] = []
    for path in files:
        size = by_path.get(path)
        cost = read_cost(size) if size is not None else 0
        if cost == 0:
            unknown.append(path)
        spared += cost
    return TokenSavings(max(0, injected_tokens), spared, tuple(files), tuple(unknown))
