"""Recall: the memories visible to a caller, ranked and cut to a token budget; list and get by id.

Reads the index only (never the files), so the prompt hook pays for no file I/O; uses are counted in memory
(usage.PendingUsage) and reach the usage file on the next flush."""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime

from kit.tokens import count_tokens, truncate_to_tokens
from services.memory.domain.budget import select_within_budget
from services.memory.domain.errors import InvalidField, MemoryNotFound
from services.memory.domain.model import Memory
from services.memory.domain.query import context_text, query_terms
from services.memory.domain.ranking import rank
from services.memory.domain.scope import MemoryFilter, Viewer, is_visible
from services.memory.domain.validation import MAX_BODY_CHARS, check_id, check_label, check_repo, check_text
from services.memory.engine.config import EngineConfig, Recalled, RecallQuery, RecallResult
from services.memory.engine.drafts import lookup_namespaces
from services.memory.ports import MemoryIndex
from services.memory.usage import PendingUsage


class MemoryRecall:
    def __init__(
        self, index: MemoryIndex, usage: PendingUsage, config: EngineConfig, clock: Callable[[], datetime]
    ) -> None:
        self._index = index
        self._usage = usage
        self._config = config
        self._clock = clock

    def recall(self, query: RecallQuery) -> RecallResult:
        check_repo(query.repo)
        check_label(query.branch, "branch")
        check_label(query.user, "user")
        check_text(query.query, "query", MAX_BODY_CHARS)
        if query.budget_tokens < 0:
            raise InvalidField("budget_tokens", "must not be negative")
        if query.limit < 0:
            raise InvalidField("limit", "must not be negative")
        config = self._config
        budget = min(query.budget_tokens or config.default_budget_tokens, config.max_budget_tokens)
        limit = min(query.limit or config.default_limit, config.max_limit)
        terms = query_terms(query.query)
        if query.query.strip() and not terms:
            return RecallResult([], 0)  # only stopwords: nothing to look for
        flt = MemoryFilter(
            Viewer(query.repo, query.branch, query.user),
            classes=query.classes,
            include_inactive=query.include_inactive,
            min_confidence=query.min_confidence,
        )
        candidates = self._usage.added_to(self._index.search(flt, terms, config.candidate_limit))
        ranked = rank(candidates, self._clock(), config.ranking)
        chosen = select_within_budget(ranked, budget, limit, _truncate, config.budget)
        if query.record_use and chosen:
            self._usage.record([(item.memory.repo, item.memory.id) for item in chosen], time.time())
        return RecallResult(
            [Recalled(item.memory, item.score, item.tokens) for item in chosen],
            sum(item.tokens for item in chosen),
        )

    def list_memories(
        self, repo: str, *, user: str = "", branch: str = "", include_inactive: bool = False, limit: int = 100
    ) -> list[Memory]:
        check_repo(repo)
        check_label(user, "user")
        check_label(branch, "branch")
        if limit < 0:
            raise InvalidField("limit", "must not be negative")
        flt = MemoryFilter(Viewer(repo, branch, user), include_inactive=include_inactive)
        return self._index.list_memories(flt, min(limit or 100, 1000))

    def get(self, repo: str, memory_id: str, *, user: str = "", branch: str = "") -> Memory:
        """A memory visible to the caller, from the repo or the global namespace."""
        check_repo(repo)
        check_id(memory_id)
        viewer = Viewer(repo, branch, user)
        for ns in lookup_namespaces(repo):
            found = self._index.get(ns, memory_id)
            if found is not None and is_visible(found.memory, viewer):
                return found.memory
        raise MemoryNotFound(repo, memory_id)


def _truncate(memory: Memory, max_tokens: int) -> tuple[Memory, int] | None:
    """The memory with its body cut to fit `max_tokens` as rendered, or None when too little would remain."""
    head_tokens = count_tokens(context_text(memory.with_changes(body="")))
    room = max_tokens - head_tokens - 3
    if room < 16:
        return None
    cut = memory.with_changes(body=truncate_to_tokens(memory.body, room).rstrip() + " …")
    tokens = count_tokens(context_text(cut))
    return (cut, tokens) if tokens <= max_tokens else None
