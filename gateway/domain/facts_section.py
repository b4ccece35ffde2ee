"""The *Facts* and *Overview* sections of the context block: graph facts about the seeds, and the
architecture overview, each under its share of the budget."""

from __future__ import annotations

from collections.abc import Sequence

from gateway.domain.context_types import (
    BudgetPolicy,
    ContextItem,
    GraphFacts,
    Section,
    SymbolRef,
    one_line,
    relative_path,
)
from gateway.domain.ledger import SECTION_TITLES, TITLE_TOKENS, Ledger, Part
from gateway.domain.utf16 import utf16_len
from kit.tokens import count_tokens


def add_facts(
    ledger: Ledger, facts: Sequence[GraphFacts], budget: int, repo_root: str, policy: BudgetPolicy
) -> None:
    cap = min(ledger.tokens, int(budget * policy.facts_share)) - TITLE_TOKENS
    cap_chars = ledger.chars - utf16_len(SECTION_TITLES[Section.FACTS])
    used = used_chars = 0
    for seed, line in fact_lines(facts, repo_root, policy):
        tokens = count_tokens(line)
        if used + tokens > cap or used_chars + utf16_len(line) > cap_chars:
            break
        used += tokens
        used_chars += utf16_len(line)
        item = ContextItem(Section.FACTS, "", seed, 0, 0, "facts", 0.0, tokens, "graph", "")
        ledger.take(Section.FACTS, Part(line, tokens, item))


def fact_lines(facts: Sequence[GraphFacts], repo_root: str, policy: BudgetPolicy) -> list[tuple[str, str]]:
    """(seed, line) pairs: definitions, callers, callees and notes of each seed, in that order."""
    lines: list[tuple[str, str]] = []
    for fact in facts:
        if fact.definitions:
            refs = _refs(fact.definitions, repo_root, policy.facts_max_refs, 0, with_kind=True)
            label = (
                "defined at" if len(fact.definitions) == 1 else f"has {len(fact.definitions)} definitions:"
            )
            lines.append((fact.seed, f"- {fact.seed}: {label} {refs}\n"))
        if fact.callers:
            refs = _refs(fact.callers, repo_root, policy.facts_max_refs, fact.more_callers)
            lines.append((fact.seed, f"- {fact.seed}: called by {refs}\n"))
        if fact.callees:
            refs = _refs(fact.callees, repo_root, policy.facts_max_refs, fact.more_callees)
            lines.append((fact.seed, f"- {fact.seed}: calls {refs}\n"))
        lines.extend((fact.seed, f"- {fact.seed}: {one_line(note)}\n") for note in fact.notes)
    return lines


def _refs(refs: Sequence[SymbolRef], repo_root: str, limit: int, more: int, with_kind: bool = False) -> str:
    shown = []
    for ref in refs[:limit]:
        location = relative_path(ref.path, repo_root) + (f":{ref.line}" if ref.line > 0 else "")
        if with_kind:
            shown.append(f"{location} ({ref.kind} {ref.name})" if ref.kind else f"{location} ({ref.name})")
        else:
            shown.append(f"{ref.name} ({location})")
    extra = more + max(0, len(refs) - limit)
    return ", ".join(shown) + (f" (+{extra} more)" if extra else "")


def add_overview(ledger: Ledger, overview: str, budget: int, policy: BudgetPolicy) -> None:
    if not overview.strip():
        return
    cap = min(ledger.tokens, int(budget * policy.overview_share)) - TITLE_TOKENS
    cap_chars = ledger.chars - utf16_len(SECTION_TITLES[Section.OVERVIEW])
    used = used_chars = 0
    for raw in overview.strip().splitlines():
        line = raw.rstrip() + "\n"
        tokens = count_tokens(line)
        if used + tokens > cap or used_chars + utf16_len(line) > cap_chars:
            break
        used += tokens
        used_chars += utf16_len(line)
        item = ContextItem(Section.OVERVIEW, "", "", 0, 0, "overview", 0.0, tokens, "communities", "")
        ledger.take(Section.OVERVIEW, Part(line, tokens, item))
