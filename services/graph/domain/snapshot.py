"""An in-memory resolved call graph for one store generation: the fast EdgeSource once indexing settles.

Built from the same facts and the same resolver as query-time reads, so traversals over it return what
they would return over the store (tests/test_graph_snapshot.py checks that they agree).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Iterable

from kit.domain import Symbol

from .model import CallEdge


class GraphSnapshot:
    def __init__(self, generation: int, symbols: Iterable[Symbol], edges: Iterable[CallEdge]) -> None:
        self.generation = generation
        self._symbols = {s.id: s for s in symbols}
        self._out: dict[str, list[CallEdge]] = defaultdict(list)
        self._in: dict[str, list[CallEdge]] = defaultdict(list)
        for e in edges:
            self._out[e.caller_id].append(e)
            if e.callee_id:
                self._in[e.callee_id].append(e)

    def out_edges(self, ids: Collection[str]) -> list[CallEdge]:
        return [e for i in ids for e in self._out.get(i, ())]

    def in_edges(self, ids: Collection[str]) -> list[CallEdge]:
        return [e for i in ids for e in self._in.get(i, ())]

    def symbols(self, ids: Collection[str]) -> dict[str, Symbol]:
        found = self._symbols
        return {i: found[i] for i in ids if i in found}
