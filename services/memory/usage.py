"""Recall counts not yet written: a write per recall would cost the hook milliseconds, so uses are counted
in memory and merged into each namespace's usage file (and the index) on idle, compaction, rebuild and close.

Thread-safe; pure bookkeeping (the engine does the file and index writes under the folder lock).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from services.memory.domain.ids import parse_working_id
from services.memory.domain.ranking import Candidate


class PendingUsage:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.counts: dict[str, Counter[str]] = {}
        self._last_used: dict[str, dict[str, float]] = {}

    def record(self, keys: list[tuple[str, str]], when: float) -> None:
        """One use of each (namespace, memory id)."""
        with self._lock:
            for ns, memory_id in keys:
                self.counts.setdefault(ns, Counter())[memory_id] += 1
                self._last_used.setdefault(ns, {})[memory_id] = when

    def forget(self, ns: str, memory_ids: list[str]) -> None:
        """Drop counts of memories that no longer exist (pruned working memory): each prompt makes a new
        working id, so keeping them would grow without bound under steady traffic."""
        with self._lock:
            counts, last_used = self.counts.get(ns), self._last_used.get(ns)
            for memory_id in memory_ids:
                if counts is not None:
                    counts.pop(memory_id, None)
                if last_used is not None:
                    last_used.pop(memory_id, None)

    def drop(self, ns: str) -> None:
        with self._lock:
            self.counts.pop(ns, None)
            self._last_used.pop(ns, None)

    def take(self, ns: str) -> tuple[Counter[str], dict[str, float]]:
        """The namespace's pending counts and last-use times, removed from here (to be written)."""
        with self._lock:
            return self.counts.pop(ns, Counter()), self._last_used.pop(ns, {})

    def namespaces(self) -> list[str]:
        with self._lock:
            return [ns for ns, counts in self.counts.items() if counts]

    def added_to(self, candidates: list[Candidate]) -> list[Candidate]:
        """Candidates with this engine's unflushed uses added to the indexed counts."""
        with self._lock:
            if not self.counts:
                return candidates
            out = []
            for candidate in candidates:
                extra = self.counts.get(candidate.memory.repo, Counter()).get(candidate.memory.id, 0)
                out.append(replace(candidate, use_count=candidate.use_count + extra) if extra else candidate)
            return out


def merged_usage(
    usage: dict[str, dict[str, Any]],
    pending: Counter[str],
    last_used: dict[str, float],
    *,
    keep: set[str] | None,
    exists: Callable[[str], bool],
) -> dict[str, dict[str, Any]]:
    """A usage file's counts plus pending ones; only `keep` ids when given, else without pruned working
    memories (one per prompt: their counts would pile up)."""
    for memory_id, count in pending.items():
        entry = usage.setdefault(memory_id, {"count": 0, "last_used": 0.0})
        entry["count"] = int(entry.get("count", 0)) + count
        entry["last_used"] = max(float(entry.get("last_used", 0.0)), last_used.get(memory_id, 0.0))
    if keep is not None:
        return {k: v for k, v in usage.items() if k in keep}
    return {k: v for k, v in usage.items() if parse_working_id(k) is None or exists(k)}
