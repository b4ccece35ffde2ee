"""Traversals over resolved call edges: callers/callees, call trees, shortest paths.

They only need an `EdgeSource` (edges around a set of symbols, symbols by id), so the same code runs over
any store: the engine supplies a source that reads raw facts and resolves them on the way.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from typing import Literal, Protocol

from kit.domain import Symbol

from .model import CallEdge, CallPath, GraphNode, Resolution

Direction = Literal["in", "out"]


class EdgeSource(Protocol):
    def out_edges(self, ids: Collection[str]) -> list[CallEdge]:
        """Edges whose caller is in `ids` (external ones included, callee_id empty)."""
        ...

    def in_edges(self, ids: Collection[str]) -> list[CallEdge]:
        """Edges whose callee (or one of whose ambiguous candidates) is in `ids`."""
        ...

    def symbols(self, ids: Collection[str]) -> dict[str, Symbol]: ...


def _far(edge: CallEdge, direction: Direction) -> str:
    return edge.callee_id if direction == "out" else edge.caller_id


def _near(edge: CallEdge, direction: Direction) -> str:
    return edge.caller_id if direction == "out" else edge.callee_id


def relevance(edge: CallEdge, neighbour: Symbol) -> tuple:
    """Sort key, most relevant first: confident resolution, production code, many calls, then name."""
    return (
        edge.resolution,
        neighbour.is_test,
        -edge.calls,
        neighbour.qualified_name,
        neighbour.path,
        neighbour.id,
    )


def _usable(edge: CallEdge, include_ambiguous: bool) -> bool:
    return edge.resolution.is_resolved or (include_ambiguous and edge.resolution is Resolution.AMBIGUOUS)


def walk(
    source: EdgeSource,
    seeds: Sequence[Symbol],
    direction: Direction,
    depth: int,
    limit: int,
    include_ambiguous: bool,
) -> tuple[list[GraphNode], list[CallEdge], bool]:
    """Breadth-first callers (`in`) or callees (`out`) of the seeds, nearest and most relevant first.

    Returns (nodes, edges, truncated). Edges join seeds and kept nodes; walking callees, external calls of
    kept symbols are returned as edges without a callee id.
    """
    kept: dict[str, Symbol] = {s.id: s for s in seeds}
    nodes: list[GraphNode] = []
    edges: dict[tuple[str, str, str], CallEdge] = {}
    frontier = list(kept)
    truncated = False
    for level in range(1, depth + 1):
        if not frontier:
            break
        level_edges = (source.out_edges if direction == "out" else source.in_edges)(frontier)
        usable = [e for e in level_edges if _usable(e, include_ambiguous)]
        if direction == "out":  # calls that name no definition: external, or too ambiguous to enumerate
            for e in level_edges:
                if not e.callee_id and (e.resolution is Resolution.EXTERNAL or include_ambiguous):
                    edges[(e.caller_id, e.callee_id, e.callee_name)] = e
        new_ids = {_far(e, direction) for e in usable} - kept.keys() - {""}
        found = source.symbols(new_ids) if new_ids else {}
        best: dict[str, tuple] = {}
        for e in usable:
            far = _far(e, direction)
            if far in found:
                key = relevance(e, found[far])
                if far not in best or key < best[far]:
                    best[far] = key
        frontier = []
        for far in sorted(best, key=best.__getitem__):
            if len(nodes) >= limit:
                truncated = True
                break
            kept[far] = found[far]
            nodes.append(GraphNode(found[far], level))
            frontier.append(far)
        for e in usable:
            if e.caller_id in kept and e.callee_id in kept:
                edges[(e.caller_id, e.callee_id, e.callee_name)] = e
        if truncated:
            break
    result = list(edges.values())
    result.sort(key=lambda e: (e.caller_id, e.resolution, e.callee_name, e.callee_id))
    return nodes, result, truncated


def call_tree(
    source: EdgeSource,
    seed: Symbol,
    up: int,
    down: int,
    branch: int,
    max_nodes: int,
) -> tuple[list[GraphNode], list[CallEdge]]:
    """Callers `up` levels and callees `down` levels around `seed`, keeping at most `branch` neighbours per
    node (most relevant first) and `max_nodes` in all. Caller depths are negative, callee depths positive.

    Ambiguous edges are kept (ranked after resolved ones) so a flow question still sees them, marked.
    """
    kept: dict[str, Symbol] = {seed.id: seed}
    nodes: list[GraphNode] = []
    edges: dict[tuple[str, str, str], CallEdge] = {}
    plan: tuple[tuple[Direction, int, int], ...] = (("in", up, -1), ("out", down, 1))
    for direction, levels, sign in plan:
        frontier = [seed.id]
        for level in range(1, levels + 1):
            if not frontier or len(nodes) >= max_nodes:
                break
            level_edges = [
                e
                for e in (source.out_edges if direction == "out" else source.in_edges)(frontier)
                if _usable(e, include_ambiguous=True)
            ]
            far_ids = {_far(e, direction) for e in level_edges} - {""}
            found = source.symbols(far_ids - kept.keys())
            by_near: dict[str, list[CallEdge]] = {}
            for e in level_edges:
                by_near.setdefault(_near(e, direction), []).append(e)
            next_frontier: list[str] = []
            for near in frontier:
                reachable = [
                    e for e in by_near.get(near, []) if _far(e, direction) in found.keys() | kept.keys()
                ]
                ranked = sorted(
                    reachable,
                    key=lambda e: relevance(e, found.get(_far(e, direction)) or kept[_far(e, direction)]),
                )
                for e in ranked[:branch]:
                    far = _far(e, direction)
                    if far not in kept:
                        if len(nodes) >= max_nodes:
                            break
                        kept[far] = found[far]
                        nodes.append(GraphNode(found[far], sign * level))
                        next_frontier.append(far)
                    edges[(e.caller_id, e.callee_id, e.callee_name)] = e
            frontier = next_frontier
    return nodes, list(edges.values())


def shortest_path(
    source: EdgeSource, starts: Iterable[Symbol], ends: Iterable[Symbol], max_depth: int
) -> CallPath:
    """Fewest resolved call hops from any start to any end (bidirectional breadth-first search).

    Ambiguous edges are not followed: a path through a guess is not a fact.
    """
    start_map = {s.id: s for s in starts}
    end_map = {s.id: s for s in ends}
    if not start_map or not end_map:
        return CallPath((), ())
    common = sorted(start_map.keys() & end_map.keys())
    if common:
        return CallPath((start_map[common[0]],), ())
    fwd: dict[str, tuple[str, CallEdge] | None] = dict.fromkeys(start_map)
    bwd: dict[str, tuple[str, CallEdge] | None] = dict.fromkeys(end_map)
    fwd_dist = dict.fromkeys(start_map, 0)
    bwd_dist = dict.fromkeys(end_map, 0)
    fwd_frontier, bwd_frontier = list(start_map), list(end_map)
    hops = 0
    while fwd_frontier and bwd_frontier and hops < max_depth:
        hops += 1
        forward = len(fwd_frontier) <= len(bwd_frontier)
        if forward:
            found = _expand(source.out_edges(fwd_frontier), "out", fwd, fwd_dist)
            fwd_frontier = found
            meets = [n for n in found if n in bwd]
        else:
            found = _expand(source.in_edges(bwd_frontier), "in", bwd, bwd_dist)
            bwd_frontier = found
            meets = [n for n in found if n in fwd]
        if meets:
            meet = min(meets, key=lambda n: (fwd_dist[n] + bwd_dist[n], n))
            return _assemble(source, meet, fwd, bwd, start_map, end_map)
    return CallPath((), ())


def _expand(
    level_edges: list[CallEdge],
    direction: Direction,
    parents: dict[str, tuple[str, CallEdge] | None],
    dist: dict[str, int],
) -> list[str]:
    found: list[str] = []
    for e in sorted(level_edges, key=lambda e: (e.resolution, -e.calls, e.caller_id, e.callee_id)):
        if not e.resolution.is_resolved:
            continue
        near, far = _near(e, direction), _far(e, direction)
        if far and far not in parents:
            parents[far] = (near, e)
            dist[far] = dist[near] + 1
            found.append(far)
    return found


def _assemble(
    source: EdgeSource,
    meet: str,
    fwd: dict[str, tuple[str, CallEdge] | None],
    bwd: dict[str, tuple[str, CallEdge] | None],
    start_map: dict[str, Symbol],
    end_map: dict[str, Symbol],
) -> CallPath:
    ids = [meet]
    edges: list[CallEdge] = []
    node = meet
    while (step := fwd[node]) is not None:
        node, edge = step
        ids.insert(0, node)
        edges.insert(0, edge)
    node = meet
    while (step := bwd[node]) is not None:
        node, edge = step
        ids.append(node)
        edges.append(edge)
    known = {**start_map, **end_map}
    missing = [i for i in ids if i not in known]
    known.update(source.symbols(missing))
    if any(i not in known for i in ids):  # a symbol vanished between reads
        return CallPath((), ())
    return CallPath(tuple(known[i] for i in ids), tuple(edges))
