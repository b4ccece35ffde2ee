"""A seed's call tree as the hook uses it: the facts it may state, and which definition to expand."""

from __future__ import annotations

from collections.abc import Sequence

from gateway.domain.assembly import GraphFacts, SymbolRef
from gateway.ports import CallTree
from kit.domain import Symbol


def call_graph_facts(seed: Symbol, tree: CallTree) -> GraphFacts:
    """Where the seed is defined (and what else its name may mean), its direct callers and callees.

    Only resolved edges are facts: an ambiguous one may bring its neighbour's code, never a claim."""
    symbols = {s.id: s for s, _ in tree.nodes}
    callers: list[SymbolRef] = []
    callees: list[SymbolRef] = []
    for edge in tree.edges:
        if edge.ambiguous:
            continue
        if edge.callee_id == seed.id and edge.caller_id in symbols:
            caller = symbols[edge.caller_id]
            callers.append(SymbolRef(caller.qualified_name, caller.path, edge.line, caller.kind.value))
        elif edge.caller_id == seed.id and edge.callee_id in symbols:
            callee = symbols[edge.callee_id]
            callees.append(
                SymbolRef(callee.qualified_name, callee.path, callee.start_line, callee.kind.value)
            )
    definitions = tuple(
        SymbolRef(s.qualified_name, s.path, s.start_line, s.kind.value)
        for s in [seed, *tree.alternatives[:3]]
    )
    return GraphFacts(
        seed=seed.qualified_name,
        definitions=definitions,
        callers=tuple(_unique(callers)),
        callees=tuple(_unique(callees)),
    )


def expansion_seed(seeds: Sequence[Symbol]) -> Symbol:
    """The definition of the first named symbol whose call tree is expanded: its longest one. A name
    often has a bodiless declaration beside its implementation (TypeScript overloads, a Python
    `@overload`, a C prototype); the declaration calls nothing, so its tree had no callees at all."""
    first = seeds[0].qualified_name
    same = [s for s in seeds if s.qualified_name == first and s.path == seeds[0].path]
    return max(same, key=lambda s: (s.end_line - s.start_line, -same.index(s)))


def _unique(refs: list[SymbolRef]) -> list[SymbolRef]:
    seen: dict[tuple[str, str, int], SymbolRef] = {}
    for ref in refs:
        seen.setdefault((ref.name, ref.path, ref.line), ref)
    return list(seen.values())
