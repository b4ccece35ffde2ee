"""Token budgets for recalled memories: a cap that leaves most of the context to code, shares per class.

Policy:
- The gateway decides the context budget and passes the memory part as `budget_tokens`; it should give
  memories at most `MEMORY_FRACTION_OF_CONTEXT` of the context (`memory_budget_for_context`), so code keeps
  the floor of 75%. The service caps any request at `max_budget_tokens` (setting) whatever it asks.
- Inside the memory budget each class has a share (rules 35%, facts 35%, episodes 15%, working 15%).
  A first pass admits memories best first while their class share lasts; a second pass gives what is
  left (shares of absent classes included) to the best remaining memories of any class.
- A memory that does not fit whole is cut to fit (at a line end) if at least `min_truncated_tokens` remain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from services.memory.domain.model import Memory, MemoryClass
from services.memory.domain.ranking import Scored

MEMORY_FRACTION_OF_CONTEXT = 0.25


def memory_budget_for_context(context_budget_tokens: int, max_budget_tokens: int) -> int:
    """The memory budget a caller should ask for out of a whole context budget."""
    return max(0, min(max_budget_tokens, int(context_budget_tokens * MEMORY_FRACTION_OF_CONTEXT)))


@dataclass(frozen=True, slots=True)
class BudgetPolicy:
    shares: dict[MemoryClass, float] = field(
        default_factory=lambda: {
            MemoryClass.RULE: 0.35,
            MemoryClass.FACT: 0.35,
            MemoryClass.EPISODE: 0.15,
            MemoryClass.WORKING: 0.15,
        }
    )
    min_truncated_tokens: int = 48


# (memory, max tokens) → the memory cut to fit and its new token count, or None when it cannot be cut.
Truncate = Callable[[Memory, int], tuple[Memory, int] | None]


def select_within_budget(
    ranked: list[Scored], budget: int, limit: int, truncate: Truncate, policy: BudgetPolicy | None = None
) -> list[Scored]:
    """The memories to return, best first, with total tokens ≤ budget and at most `limit` of them."""
    policy = policy or BudgetPolicy()
    if budget <= 0 or limit <= 0:
        return []
    allowance = {cls: int(budget * share) for cls, share in policy.shares.items()}
    chosen: dict[int, Scored] = {}
    used = 0
    for index, item in enumerate(ranked):
        if len(chosen) >= limit:
            break
        cls = item.memory.memory_class
        if item.tokens <= allowance.get(cls, 0) and used + item.tokens <= budget:
            chosen[index] = item
            allowance[cls] -= item.tokens
            used += item.tokens
    for index, item in enumerate(ranked):
        if len(chosen) >= limit or used >= budget:
            break
        if index in chosen:
            continue
        if used + item.tokens <= budget:
            chosen[index] = item
            used += item.tokens
        elif budget - used >= policy.min_truncated_tokens:
            cut = truncate(item.memory, budget - used)
            if cut is not None and used + cut[1] <= budget:
                chosen[index] = Scored(cut[0], item.score, cut[1])
                used += cut[1]
    return [chosen[i] for i in sorted(chosen)]
