"""The block's running budget and its final join (DESIGN.md §6).

Sections spend from one `Ledger`; `finish` joins header, sections and footer, then verifies both limits
exactly on the joined text and drops from the end (least valuable section first) until they hold.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from gateway.domain.context_types import (
    AssembledContext,
    ContextItem,
    Section,
    Staleness,
    empty_context,
    relative_path,
    with_note,
)
from gateway.domain.markers import context_open
from gateway.domain.utf16 import utf16_len
from kit.tokens import count_tokens

SECTION_TITLES = {
    Section.FACTS: "## Facts\n",
    Section.OVERVIEW: "## Overview\n",
    Section.CODE: "## Code\n",
    Section.MEMORY: "## Memories\n",
}
SECTION_ORDER = (Section.FACTS, Section.OVERVIEW, Section.CODE, Section.MEMORY)
TITLE_TOKENS = 3  # each title above is 3 tokens (a test checks it)


@dataclass(slots=True)
class Part:
    text: str
    tokens: int
    item: ContextItem | None
    # A definition listed inside another part's block (no text of its own): it goes when that part goes.
    within: Part | None = None


@dataclass(slots=True)
class Ledger:
    tokens: int
    chars: int
    parts: dict[Section, list[Part]] = field(default_factory=dict)

    def fits(self, tokens: int, chars: int) -> bool:
        return tokens <= self.tokens and chars <= self.chars

    def take(self, section: Section, part: Part) -> None:
        """Spend the part's size, and the section title's with the section's first part."""
        if section not in self.parts:
            self.tokens -= TITLE_TOKENS
            self.chars -= utf16_len(SECTION_TITLES[section])
        self.parts.setdefault(section, []).append(part)
        self.tokens -= part.tokens
        self.chars -= utf16_len(part.text)


def render_header(
    repo: str, route: str, staleness: Staleness, degraded: Sequence[str], repo_root: str
) -> str:
    commit = short_commit(staleness.indexed_commit)
    lines = [context_open(repo=repo, route=route, commit=commit)]
    subject = f"Index of {repo}" if repo else "Repository index"
    sentence = f"{subject} at {commit}, route {route}." if commit else f"{subject}, route {route}."
    if staleness.head_differs:
        sentence += f" HEAD is {short_commit(staleness.head_commit)}, so the index may be stale."
    lines.append(sentence)
    if staleness.dirty_files:
        shown = [relative_path(p, repo_root) for p in sorted(staleness.dirty_files)[:5]]
        more = len(staleness.dirty_files) - len(shown)
        lines.append(
            "Uncommitted changes (the index may not reflect them): "
            + ", ".join(shown)
            + (f" (+{more} more)" if more > 0 else "")
            + "."
        )
    if degraded:
        lines.append(f"Partial: {', '.join(sorted(set(degraded)))} did not answer.")
    return "\n".join(lines) + "\n"


def short_commit(commit: str) -> str:
    return commit[:7] if re.fullmatch(r"[0-9a-fA-F]{8,64}", commit) else commit[:40]


def finish(
    header: str,
    footer: str,
    ledger: Ledger,
    route: str,
    cut: list[ContextItem],
    partial: bool,
    budget: int,
    char_cap: int,
) -> AssembledContext:
    parts = {section: list(ledger.parts.get(section, [])) for section in SECTION_ORDER}
    while True:
        if not any(parts.values()):
            return empty_context(route, cut, partial)
        text = _join(header, footer, parts)
        tokens = count_tokens(text)
        if tokens <= budget and utf16_len(text) <= char_cap:
            break
        # Token counts of the parts do not add up exactly across joins: give up the last, least valuable part
        # that has text, with what is listed inside it.
        section = next(s for s in (Section.MEMORY, Section.OVERVIEW, Section.CODE, Section.FACTS) if parts[s])
        kept = parts[section]
        dropped = kept[max((i for i, p in enumerate(kept) if p.text), default=len(kept) - 1)]
        gone = [p for p in kept if p is dropped or p.within is dropped]
        parts[section] = [p for p in kept if p not in gone]
        cut.extend(with_note(p.item, "token budget (final check)") for p in gone if p.item is not None)
    items = tuple(p.item for section in SECTION_ORDER for p in parts[section] if p.item is not None)
    return AssembledContext(text, tokens, utf16_len(text), route, items, tuple(cut), partial)


def _join(header: str, footer: str, parts: dict[Section, list[Part]]) -> str:
    pieces = [header]
    for section in SECTION_ORDER:
        if parts[section]:
            pieces.append(SECTION_TITLES[section])
            pieces.extend(p.text for p in parts[section])
    pieces.append(footer)
    return "".join(pieces)
