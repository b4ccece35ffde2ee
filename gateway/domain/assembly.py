"""Context assembly (DESIGN.md §6): facts, code and memories → one budgeted block.

Two limits always hold for the returned text: at most `budget_tokens` tokens (kit.tokens, the tokenizer
shipped offline) and at most `char_cap` characters (Claude Code replaces longer hook output by a file
path and a preview). The block is factual — where things are, what calls what, the code itself — and
never tells the agent what to do.

Layout, in order (each part only when it has content):

    <reporecall-context repo="…" route="flow" commit="abc1234">
    Index of <repo> at abc1234, route flow. HEAD is def5678, so the index may be stale. …
    ## Facts            where the seeds are defined, their callers and callees (name, path:line)
    ## Overview         architecture route only: communities and hubs
    ## Code             `path:start-end kind name` then a fenced block, most relevant first
    ## Memories         team notes, per-class budgets, never more than `memory_share` of the budget
    </reporecall-context>

Budget split: the header and closing tag come first; facts take at most `facts_share`, the overview at
most `overview_share`, memories at most `memory_share` (and their per-class shares); code gets the
rest, so code keeps a floor of 1 − facts − memory shares. Top code hits that do not fit whole are
trimmed (signature and first lines kept, the elision marked) rather than dropped. Code is granular
(code_select.py: a large class shows as its header with the candidates inside it after it), long doc
comments are cut to their first sentence (doc_trim.py), and the code section ends early when the next
candidates are much weaker than the best one (the adaptive stop, code_section.py), so a precise lookup
injects little and a flow question more. Output is a pure function of the inputs: candidates are
ordered by score with stable tie-breaks.
"""

from __future__ import annotations

from collections.abc import Sequence

from gateway.domain.code_section import add_code, code_item, order_candidates, prompt_terms
from gateway.domain.context_types import (
    DEFAULT_CHAR_CAP,
    DEFAULT_POLICY,
    MAX_CHARS_PER_TOKEN,
    AssembledContext,
    BudgetPolicy,
    CandidateReason,
    CodeCandidate,
    ContextItem,
    GraphFacts,
    MemoryItem,
    Section,
    Staleness,
    SymbolRef,
    empty_context,
    estimate_tokens,
    relative_path,
    route_name,
)
from gateway.domain.facts_section import add_facts, add_overview
from gateway.domain.ledger import SECTION_TITLES, TITLE_TOKENS, Ledger, finish, render_header
from gateway.domain.markers import CONTEXT_CLOSE
from gateway.domain.memory_section import select_memories
from gateway.domain.routing import Route
from gateway.domain.utf16 import utf16_len
from kit.tokens import count_tokens

__all__ = [
    "DEFAULT_CHAR_CAP",
    "DEFAULT_POLICY",
    "MAX_CHARS_PER_TOKEN",
    "AssembledContext",
    "BudgetPolicy",
    "CandidateReason",
    "CodeCandidate",
    "ContextItem",
    "GraphFacts",
    "MemoryItem",
    "Section",
    "Staleness",
    "SymbolRef",
    "assemble_context",
    "empty_context",
    "estimate_tokens",
    "relative_path",
]


def assemble_context(
    route: Route | str,
    candidates: Sequence[CodeCandidate],
    *,
    budget_tokens: int,
    facts: Sequence[GraphFacts] = (),
    memories: Sequence[MemoryItem] = (),
    staleness: Staleness | None = None,
    overview: str = "",
    degraded: Sequence[str] = (),
    repo: str = "",
    repo_root: str = "",
    char_cap: int = DEFAULT_CHAR_CAP,
    policy: BudgetPolicy = DEFAULT_POLICY,
    query: str = "",
) -> AssembledContext:
    """The context block for one prompt; `text` ≤ `budget_tokens` tokens and ≤ `char_cap` characters.

    `query` is the (sanitised) prompt: its terms let the adaptive stop keep a weaker candidate that
    names something the prompt asks about and nothing shown covers yet."""
    name = route_name(route)
    partial = bool(degraded)
    ordered = order_candidates(candidates)
    if name == "skip" or budget_tokens <= 0 or char_cap <= 0:
        why = "skip route" if name == "skip" else "no budget"
        return empty_context(name, [code_item(c, 0, why) for c in ordered], partial)

    header = render_header(repo, name, staleness or Staleness(), degraded, repo_root)
    footer = CONTEXT_CLOSE + "\n"
    fixed_tokens = count_tokens(header) + count_tokens(footer) + 1
    ledger = Ledger(budget_tokens - fixed_tokens, char_cap - utf16_len(header) - utf16_len(footer))
    if ledger.tokens <= TITLE_TOKENS or ledger.chars <= 0:
        return empty_context(
            name, [code_item(c, 0, "budget below the header size") for c in ordered], partial
        )

    cut: list[ContextItem] = []
    add_facts(ledger, facts, budget_tokens, repo_root, policy)
    add_overview(ledger, overview, budget_tokens, policy)
    # Memories are chosen first but placed last: code may not spend the room they were given.
    memory_parts, memory_cut = select_memories(ledger, memories, budget_tokens, policy)
    reserved = sum(p.tokens for p in memory_parts) + (TITLE_TOKENS if memory_parts else 0)
    reserved_chars = sum(utf16_len(p.text) for p in memory_parts) + (
        utf16_len(SECTION_TITLES[Section.MEMORY]) if memory_parts else 0
    )
    ledger.tokens -= reserved
    ledger.chars -= reserved_chars
    caps = (int(policy.lead_block_max_share * budget_tokens), int(policy.block_max_share * budget_tokens))
    cut.extend(add_code(ledger, ordered, repo_root, policy, name, prompt_terms(query), caps))
    ledger.tokens += reserved
    ledger.chars += reserved_chars
    for part in memory_parts:
        ledger.take(Section.MEMORY, part)
    cut.extend(memory_cut)

    return finish(header, footer, ledger, name, cut, partial, budget_tokens, char_cap)
