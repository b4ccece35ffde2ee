"""Louvain communities over the resolved call graph plus a file layer for imports.

The graph handed to Louvain has one vertex per symbol and one per file. Call edges join symbols (weight =
call count; an ambiguous call spreads its weight over its candidates), each symbol is tied to its file
(weight 1), and each resolved import ties two files (weight 1). The file layer lets the import graph pull
modules together without inventing symbol-to-symbol edges, and keeps symbols that call nothing next to
their neighbours in the file. Communities report symbols only.
"""

from __future__ import annotations

import posixpath
import random
import threading
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import datetime

import igraph

from kit.domain import Symbol

from .model import Bridge, CallEdge, Community, CommunityReport, EdgeCounts, Hub, RepoFacts, Resolution
from .resolution import CallResolver, resolve_edges

MEMBERSHIP_WEIGHT = 1.0
IMPORT_WEIGHT = 1.0
TOP_SYMBOLS = 5
DOMINANT_PATHS = 3
MAX_HUBS = 20
MAX_BRIDGES = 50
# Louvain visits vertices in random order: a fixed seed, and vertices and edges numbered in a canonical
# order rather than the order a store returned them in, make the same facts give the same communities on
# every backend and replica (igraph's generator is process-global, hence the lock).
LOUVAIN_SEED = 0
_LOUVAIN_LOCK = threading.Lock()
_RESOLVED = frozenset({Resolution.SAME_FILE, Resolution.IMPORTED, Resolution.GLOBAL_UNIQUE})


def resolve_all(facts: RepoFacts) -> list[CallEdge]:
    """Every call edge of a repository, resolved against all of its definitions and imports."""
    imports_by_path: dict[str, list] = defaultdict(list)
    for imp in facts.imports:
        imports_by_path[imp.path].append(imp)
    resolver = CallResolver(facts.symbols, imports_by_path)
    callers = {s.id: s for s in facts.symbols}
    return resolve_edges(facts.call_sites, callers, resolver)


def count_edges(edges: Sequence[CallEdge]) -> EdgeCounts:
    """Resolved edges, ambiguous calls (once per caller and name) and external calls."""
    resolved = sum(1 for e in edges if e.resolution in _RESOLVED)
    ambiguous = len({(e.caller_id, e.callee_name) for e in edges if e.resolution is Resolution.AMBIGUOUS})
    external = sum(1 for e in edges if e.resolution is Resolution.EXTERNAL)
    return EdgeCounts(resolved, ambiguous, external)


def detect_communities(
    facts: RepoFacts, *, generation: int, now: datetime, edges: Sequence[CallEdge] | None = None
) -> CommunityReport:
    """Resolve the repository's calls (unless `edges` holds them), run Louvain, describe the result."""
    if edges is None:
        edges = resolve_all(facts)
    counts = count_edges(edges)
    symbols = sorted(facts.symbols, key=lambda s: (s.path, s.start_line, s.id))
    if not symbols:
        return CommunityReport((), (), (), 0.0, now, counts, generation)

    index = {s.id: i for i, s in enumerate(symbols)}
    files: dict[str, int] = {}

    def file_vertex(path: str) -> int:
        vertex = files.get(path)
        if vertex is None:
            vertex = files[path] = len(symbols) + len(files)
        return vertex

    weights: dict[tuple[int, int], float] = defaultdict(float)
    for s in symbols:
        weights[(index[s.id], file_vertex(s.path))] += MEMBERSHIP_WEIGHT
    for imp in sorted(facts.imports, key=lambda i: (i.path, i.resolved_path or "")):
        if imp.resolved_path and imp.resolved_path != imp.path:
            a, b = file_vertex(imp.path), file_vertex(imp.resolved_path)
            weights[(a, b) if a < b else (b, a)] += IMPORT_WEIGHT
    resolved = [e for e in edges if e.resolution in _RESOLVED and e.caller_id != e.callee_id]
    ambiguous = [e for e in edges if e.resolution is Resolution.AMBIGUOUS and e.callee_id]
    for group, spread in ((resolved, False), (ambiguous, True)):
        for e in sorted(group, key=lambda e: (e.caller_id, e.callee_id, e.line)):
            u, v = index.get(e.caller_id), index.get(e.callee_id)
            if u is None or v is None or u == v:
                continue
            weights[(u, v) if u < v else (v, u)] += e.calls / e.candidates if spread else e.calls

    pairs = sorted(weights)
    graph = igraph.Graph(n=len(symbols) + len(files), edges=pairs, directed=False)
    graph.es["weight"] = [weights[pair] for pair in pairs]
    with _LOUVAIN_LOCK:
        igraph.set_random_number_generator(random.Random(LOUVAIN_SEED))
        try:
            membership = graph.community_multilevel(weights="weight").membership
        finally:
            igraph.set_random_number_generator(random)
    modularity = graph.modularity(membership, weights="weight") if graph.ecount() else 0.0

    groups: dict[int, list[Symbol]] = defaultdict(list)
    for s in symbols:
        groups[membership[index[s.id]]].append(s)
    ordered = sorted(groups.values(), key=lambda members: (-len(members), min(m.path for m in members)))
    community_of: dict[str, int] = {}
    for cid, members in enumerate(ordered):
        for m in members:
            community_of[m.id] = cid

    in_deg, out_deg = _degrees(resolved)
    degree = {sid: in_deg.get(sid, 0) + out_deg.get(sid, 0) for sid in index}
    communities = tuple(_describe(cid, members, degree) for cid, members in enumerate(ordered))
    by_id = {s.id: s for s in symbols}
    ranked = sorted(
        (sid for sid, d in degree.items() if d > 0),
        key=lambda sid: (-degree[sid], by_id[sid].is_test, by_id[sid].qualified_name, sid),
    )
    hubs = tuple(
        Hub(by_id[sid], in_deg.get(sid, 0), out_deg.get(sid, 0), community_of[sid])
        for sid in ranked[:MAX_HUBS]
    )
    bridge_edges = [e for e in resolved if community_of[e.caller_id] != community_of[e.callee_id]]
    bridge_edges.sort(key=lambda e: (-e.calls, e.caller_id, e.callee_id, e.line))
    bridges = tuple(
        Bridge(e, community_of[e.caller_id], community_of[e.callee_id]) for e in bridge_edges[:MAX_BRIDGES]
    )
    return CommunityReport(communities, hubs, bridges, modularity, now, counts, generation)


def _degrees(resolved: Sequence[CallEdge]) -> tuple[dict[str, int], dict[str, int]]:
    """Distinct resolved neighbours in and out (self-calls already excluded)."""
    callers: dict[str, set[str]] = defaultdict(set)
    callees: dict[str, set[str]] = defaultdict(set)
    for e in resolved:
        callees[e.caller_id].add(e.callee_id)
        callers[e.callee_id].add(e.caller_id)
    return {k: len(v) for k, v in callers.items()}, {k: len(v) for k, v in callees.items()}


def _describe(cid: int, members: list[Symbol], degree: dict[str, int]) -> Community:
    dirs = Counter(posixpath.dirname(m.path) or "." for m in members)
    dominant = tuple(d for d, _ in sorted(dirs.items(), key=lambda kv: (-kv[1], kv[0]))[:DOMINANT_PATHS])
    top = tuple(
        sorted(members, key=lambda m: (-degree.get(m.id, 0), m.is_test, m.qualified_name, m.id))[:TOP_SYMBOLS]
    )
    names = ", ".join(dict.fromkeys(m.qualified_name for m in top[:3]))
    label = f"{dominant[0]}: {names}" if names else dominant[0]
    return Community(cid, len(members), dominant, top, label, frozenset(m.id for m in members))
