"""Graph results as the domain sees them: resolved call edges, traversal results, communities, stats.

Symbols, call sites and imports come from kit.domain; this module adds what only the graph knows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from enum import IntEnum
from typing import NamedTuple

from kit.domain import CallSite, Import, Symbol


class Resolution(IntEnum):
    """How a callee name was matched to definitions, most confident first (lower sorts first)."""

    SAME_FILE = 1
    IMPORTED = 2
    GLOBAL_UNIQUE = 3
    AMBIGUOUS = 4
    EXTERNAL = 5

    @property
    def is_resolved(self) -> bool:
        """True when the edge names exactly one definition."""
        return self.value <= 3


class CallEdge(NamedTuple):
    """Calls from `caller_id` to one candidate definition of `callee_name` (aggregated over call sites).

    A NamedTuple rather than a frozen dataclass: full resolution builds hundreds of thousands of them.
    """

    caller_id: str
    callee_id: str  # empty when external, or ambiguous among more than MAX_CANDIDATES definitions
    callee_name: str
    line: int  # first call line in the caller's file
    resolution: Resolution
    candidates: int  # definitions the name resolved to; 1 unless ambiguous, 0 when external
    calls: int  # call sites from the caller to this callee (the proto's `count`)


@dataclass(frozen=True, slots=True)
class SymbolRef:
    """A symbol by id (wins when set) or by short or qualified name."""

    id: str = ""
    name: str = ""


@dataclass(frozen=True, slots=True)
class GraphNode:
    symbol: Symbol
    depth: int  # hops from the seed; negative for callers in a call tree


@dataclass(frozen=True, slots=True)
class Traversal:
    """Result of Callers / Callees."""

    seeds: tuple[Symbol, ...]
    nodes: tuple[GraphNode, ...]
    edges: tuple[CallEdge, ...]
    truncated: bool


@dataclass(frozen=True, slots=True)
class CallTree:
    seed: Symbol
    nodes: tuple[GraphNode, ...]
    edges: tuple[CallEdge, ...]
    alternatives: tuple[Symbol, ...]


@dataclass(frozen=True, slots=True)
class CallPath:
    """Shortest call path; empty when none within the hop limit."""

    symbols: tuple[Symbol, ...]
    edges: tuple[CallEdge, ...]


@dataclass(frozen=True, slots=True)
class FileGraph:
    """Everything stored for one file; the unit ReplaceFileGraph replaces."""

    path: str
    file_hash: str
    symbols: tuple[Symbol, ...]
    call_sites: tuple[CallSite, ...]
    imports: tuple[Import, ...]


@dataclass(frozen=True, slots=True)
class RepoFacts:
    """Every raw fact stored for a repository (input to community detection and edge statistics)."""

    symbols: tuple[Symbol, ...]
    call_sites: tuple[CallSite, ...]
    imports: tuple[Import, ...]


@dataclass(frozen=True, slots=True)
class StoreCounts:
    symbols: int
    call_sites: int
    imports: int
    files: int


@dataclass(frozen=True, slots=True)
class Community:
    id: int
    size: int
    dominant_paths: tuple[str, ...]
    top_symbols: tuple[Symbol, ...]
    label: str
    member_ids: frozenset[str] = field(default_factory=frozenset, repr=False)


@dataclass(frozen=True, slots=True)
class Hub:
    symbol: Symbol
    in_degree: int
    out_degree: int
    community: int


@dataclass(frozen=True, slots=True)
class Bridge:
    edge: CallEdge
    from_community: int
    to_community: int


@dataclass(frozen=True, slots=True)
class EdgeCounts:
    """Call edges by resolution: an ambiguous call counts once, however many candidates it has."""

    resolved: int = 0
    ambiguous: int = 0
    external: int = 0


@dataclass(frozen=True, slots=True)
class CommunityReport:
    """One Louvain computation over a repository's graph."""

    communities: tuple[Community, ...]
    hubs: tuple[Hub, ...]
    bridges: tuple[Bridge, ...]
    modularity: float
    computed_at: datetime
    edge_counts: EdgeCounts
    generation: int  # store generation the report was computed from


@dataclass(frozen=True, slots=True)
class GraphStats:
    symbols: int
    resolved_edges: int
    ambiguous_edges: int
    external_calls: int
    imports: int
    communities: int
    last_recompute: datetime | None
