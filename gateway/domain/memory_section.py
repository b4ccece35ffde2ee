"""The *Memories* section: team notes under the memory share and per-class shares, best class first."""

from __future__ import annotations

from collections.abc import Sequence

from gateway.domain.context_types import BudgetPolicy, ContextItem, MemoryItem, Section, one_line, with_note
from gateway.domain.ledger import TITLE_TOKENS, Ledger, Part
from gateway.domain.utf16 import utf16_len
from kit.tokens import count_tokens, truncate_to_tokens


def select_memories(
    ledger: Ledger, memories: Sequence[MemoryItem], budget: int, policy: BudgetPolicy
) -> tuple[list[Part], list[ContextItem]]:
    """Memories under the overall memory cap and their class caps, best class first."""
    if not memories:
        return [], []
    shares = dict(policy.memory_class_shares)
    class_order = {name: i for i, (name, _) in enumerate(policy.memory_class_shares)}
    total_cap = min(int(budget * policy.memory_share), ledger.tokens) - TITLE_TOKENS
    chars_cap = ledger.chars // 4 if ledger.chars > 0 else 0
    used_by_class: dict[str, int] = {}
    used = used_chars = 0
    chosen: list[Part] = []
    cut: list[ContextItem] = []
    seen: set[str] = set()

    def ordering(memory: MemoryItem) -> tuple[int, float, str, str]:
        return (
            class_order.get(_memory_class(memory, shares), len(class_order)),
            -memory.score,
            memory.name,
            memory.id,
        )

    for memory in sorted(memories, key=ordering):
        klass = _memory_class(memory, shares)
        text = _render_memory(memory, klass, policy.memory_item_max_tokens)
        tokens = count_tokens(text)
        item = ContextItem(
            Section.MEMORY, "", memory.name, 0, 0, klass, memory.score, tokens, klass, memory.id
        )
        class_cap = int(budget * shares.get(klass, 0.0))
        if memory.id and memory.id in seen:
            cut.append(with_note(item, "duplicate memory"))
        elif used_by_class.get(klass, 0) + tokens > class_cap:
            cut.append(with_note(item, f"{klass} memory budget"))
        elif used + tokens > total_cap or used_chars + utf16_len(text) > chars_cap:
            cut.append(with_note(item, "memory budget"))
        else:
            seen.add(memory.id)
            used += tokens
            used_chars += utf16_len(text)
            used_by_class[klass] = used_by_class.get(klass, 0) + tokens
            chosen.append(Part(text, tokens, item))
    return chosen, cut


def _memory_class(memory: MemoryItem, shares: dict[str, float]) -> str:
    klass = memory.memory_class.strip().lower()
    return klass if klass in shares else "other"


def _render_memory(memory: MemoryItem, klass: str, max_tokens: int) -> str:
    body = " ".join(memory.body.split())
    name = one_line(memory.name) or memory.id
    text = f"- [{klass}] {name}: {body}" if body else f"- [{klass}] {name}"
    if count_tokens(text) > max_tokens:
        text = truncate_to_tokens(text, max(1, max_tokens - 2)).rstrip() + " …"
    return text + "\n"
