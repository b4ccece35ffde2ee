"""Fusion: merge what search, the graph and the client told us into one ranked candidate list.

Each source is a ranked list; a candidate's score is a weighted reciprocal-rank sum over the sources it
appears in (the search service already fused keyword and vector signals, so only ranks are compared
here, never raw scores from different scales):

    score = Σ_source  WEIGHTS[route][source] × decay(depth) / (RRF_K + rank)      (rank from 1)

then ×TEST_PENALTY for test code unless the prompt is about tests, and +ACTIVE_FILE_BONUS-worth of an
active-file rank-1 hit for chunks in a file the user has open. Weights per route (rows) and source:

    route          search  seed  caller  callee  active_file  hub
    lookup          1.0    1.1    0.15    0.15      0.3       0.0    search-heavy, a named symbol first
    flow            0.5    1.2    0.9     0.8       0.2       0.0    the seed and its call tree
    bug             1.0    1.0    0.6     0.3       0.5       0.0    search + seed + who calls it
    architecture    0.4    0.5    0.1     0.1       0.1       0.3    search; hubs of its area (+ the overview)

`decay(depth) = DEPTH_DECAY ** (depth − 1)` for graph neighbours (depth 1 = direct caller/callee).
A hub is one of the repo's most connected symbols: that says nothing about the prompt, so a hub counts only
when it lives in a file among the first `HUB_AREA_HITS` search hits — the central code of the area the
prompt asks about — and then below the search hits it sits beside (the repo-wide hubs first in every
architecture block crowded out what search found: bench/results/2026-12-02).
A seed is a definition FindSymbols resolved from a name in the prompt: the user named it, so on lookup
it outranks the best search hit, and on bug it ties with it (ties go to the seed). A candidate's
`reason` is the source that contributed most to its score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from gateway.domain.assembly import CandidateReason, CodeCandidate, relative_path
from gateway.domain.routing import Route, RouteName
from kit.domain import Chunk, Symbol

RRF_K = 10
DEPTH_DECAY = 0.5
# Test code ranks far below implementation unless the prompt asks for tests: at 0.3 a test that search
# ranked first sits below its sixth implementation hit, so the adaptive stop drops the tests that fill
# search on a test-heavy repo (pytest: 9 % fewer tokens at equal NDCG than 0.5, bench/results/2026-12-02).
TEST_PENALTY = 0.3
DEFAULT_LIMIT = 40
# Hubs count only in the files of this many leading search hits (see the module docstring).
HUB_AREA_HITS = 10

WEIGHTS: Mapping[RouteName, Mapping[CandidateReason, float]] = {
    RouteName.LOOKUP: {
        CandidateReason.SEARCH: 1.0,
        CandidateReason.SEED: 1.1,
        CandidateReason.CALLER: 0.15,
        CandidateReason.CALLEE: 0.15,
        CandidateReason.ACTIVE_FILE: 0.3,
        CandidateReason.HUB: 0.0,
    },
    RouteName.FLOW: {
        CandidateReason.SEARCH: 0.5,
        CandidateReason.SEED: 1.2,
        CandidateReason.CALLER: 0.9,
        CandidateReason.CALLEE: 0.8,
        CandidateReason.ACTIVE_FILE: 0.2,
        CandidateReason.HUB: 0.0,
    },
    RouteName.BUG: {
        CandidateReason.SEARCH: 1.0,
        CandidateReason.SEED: 1.0,
        CandidateReason.CALLER: 0.6,
        CandidateReason.CALLEE: 0.3,
        CandidateReason.ACTIVE_FILE: 0.5,
        CandidateReason.HUB: 0.0,
    },
    RouteName.ARCHITECTURE: {
        CandidateReason.SEARCH: 0.4,
        CandidateReason.SEED: 0.5,
        CandidateReason.CALLER: 0.1,
        CandidateReason.CALLEE: 0.1,
        CandidateReason.ACTIVE_FILE: 0.1,
        CandidateReason.HUB: 0.3,
    },
}
_REASON_ORDER = {reason: i for i, reason in enumerate(CandidateReason)}
Ref = Chunk | Symbol


@dataclass(frozen=True, slots=True)
class Neighbour:
    """A caller or callee from the graph; `depth` 1 is a direct one."""

    ref: Ref
    depth: int = 1


@dataclass(frozen=True, slots=True)
class FusedCandidate:
    """A ranked candidate; `ref` may be a Symbol or a content-less Chunk (FindSymbols omits content)."""

    ref: Ref
    score: float
    reason: CandidateReason
    sources: tuple[CandidateReason, ...]

    @property
    def id(self) -> str:
        return self.ref.id

    @property
    def has_content(self) -> bool:
        return isinstance(self.ref, Chunk) and bool(self.ref.content)


def fuse_candidates(
    route: Route | RouteName | str,
    *,
    search: Sequence[Chunk] = (),
    seeds: Sequence[Ref] = (),
    callers: Sequence[Neighbour] = (),
    callees: Sequence[Neighbour] = (),
    hubs: Sequence[Ref] = (),
    active_chunks: Sequence[Ref] = (),
    active_files: Sequence[str] = (),
    prefer_tests: bool = False,
    limit: int = DEFAULT_LIMIT,
) -> list[FusedCandidate]:
    """One ranked list, best first. Each input list is in its source's rank order (best first).

    `active_chunks` are chunks from the files the user has open; `active_files` (repo-relative paths)
    also lift any other candidate that lives in one of them. A skip route returns nothing.
    """
    name = _route_name(route)
    if name is RouteName.SKIP or limit <= 0:
        return []
    weights = WEIGHTS[name]
    scores: dict[str, float] = {}
    contributions: dict[str, dict[CandidateReason, float]] = {}
    refs: dict[str, Ref] = {}

    def add(ref: Ref, source: CandidateReason, rank: int, depth: int = 1) -> None:
        weight = weights[source] * DEPTH_DECAY ** max(0, depth - 1)
        if weight <= 0 or not ref.id:
            return
        value = weight / (RRF_K + rank)
        scores[ref.id] = scores.get(ref.id, 0.0) + value
        by_source = contributions.setdefault(ref.id, {})
        by_source[source] = by_source.get(source, 0.0) + value
        refs[ref.id] = _richer(refs.get(ref.id), ref)

    for rank, chunk in enumerate(search, 1):
        add(chunk, CandidateReason.SEARCH, rank)
    for rank, ref in enumerate(seeds_in_search_order(seeds, search), 1):
        add(ref, CandidateReason.SEED, rank)
    for rank, neighbour in enumerate(callers, 1):
        add(neighbour.ref, CandidateReason.CALLER, rank, neighbour.depth)
    for rank, neighbour in enumerate(callees, 1):
        add(neighbour.ref, CandidateReason.CALLEE, rank, neighbour.depth)
    for rank, ref in enumerate(hubs_in_area(hubs, search), 1):
        add(ref, CandidateReason.HUB, rank)
    for rank, ref in enumerate(active_chunks, 1):
        add(ref, CandidateReason.ACTIVE_FILE, rank)
    open_files = {relative_path(p) for p in active_files}
    if open_files:
        for ref_id, ref in list(refs.items()):
            if (
                relative_path(ref.path) in open_files
                and CandidateReason.ACTIVE_FILE not in contributions[ref_id]
            ):
                add(ref, CandidateReason.ACTIVE_FILE, 1)

    fused = []
    for ref_id, score in scores.items():
        ref = refs[ref_id]
        if ref.is_test and not prefer_tests:
            score *= TEST_PENALTY
        by_source = contributions[ref_id]
        reason = min(by_source, key=lambda source: (-by_source[source], _REASON_ORDER[source]))
        sources = tuple(sorted(by_source, key=_REASON_ORDER.__getitem__))
        fused.append(FusedCandidate(ref, score, reason, sources))
    fused.sort(key=lambda c: (-c.score, _REASON_ORDER[c.reason], c.ref.path, c.ref.start_line, c.ref.id))
    return fused[:limit]


def seeds_in_search_order(seeds: Sequence[Ref], search: Sequence[Chunk]) -> list[Ref]:
    """The seeds with each name's definitions in search's order. A name the prompt wrote can resolve to
    several definitions (`hasRoute` on the app and in the router); the symbol lookup orders them by kind
    and path alone, while search has read the whole prompt. Definitions search did not find follow the
    ones it did, in their own order; each name keeps its place."""
    rank = {chunk.id: i for i, chunk in enumerate(search)}
    runs: list[list[Ref]] = []  # the lookup resolves name by name: one name's definitions are adjacent
    for ref in seeds:
        if runs and runs[-1][0].name == ref.name:
            runs[-1].append(ref)
        else:
            runs.append([ref])
    for refs in runs:
        refs.sort(key=lambda ref: rank.get(ref.id, len(rank)))  # stable: unfound keep their order
    return [ref for refs in runs for ref in refs]


class Located(Protocol):
    """Anything with a repo path: a chunk, a symbol, a hub summary."""

    @property
    def path(self) -> str: ...


L = TypeVar("L", bound=Located)


def hubs_in_area(hubs: Sequence[L], search: Sequence[Chunk]) -> list[L]:
    """The hubs (in their order) that live in a file of one of the first `HUB_AREA_HITS` search hits."""
    area = {relative_path(c.path) for c in search[:HUB_AREA_HITS]}
    return [h for h in hubs if relative_path(h.path) in area]


def missing_content_ids(fused: Sequence[FusedCandidate], limit: int | None = None) -> list[str]:
    """Ids among the first `limit` candidates whose text must still be fetched (search GetChunks)."""
    head = fused if limit is None else fused[:limit]
    return [c.id for c in head if not c.has_content]


def to_code_candidates(
    fused: Sequence[FusedCandidate],
    chunks_by_id: Mapping[str, Chunk] | None = None,
    search_scores: Mapping[str, float] | None = None,
) -> list[CodeCandidate]:
    """Assembly input, in fused order; candidates whose text is unknown are left out. A candidate
    placed for search carries its search score over the top hit's (`search_scores`: chunk id → score)."""
    chunks_by_id = chunks_by_id or {}
    search_scores = search_scores or {}
    top = max(search_scores.values(), default=0.0)
    out: list[CodeCandidate] = []
    for candidate in fused:
        chunk = chunks_by_id.get(candidate.id)
        if chunk is None and candidate.has_content and isinstance(candidate.ref, Chunk):
            chunk = candidate.ref
        if chunk is not None and chunk.content:
            strength = 1.0
            if candidate.reason == CandidateReason.SEARCH and top > 0 and candidate.id in search_scores:
                strength = round(search_scores[candidate.id] / top, 4)
            out.append(CodeCandidate(chunk, round(candidate.score, 6), candidate.reason, strength))
    return out


# ---------------------------------------------------------------------------------------------------
# Architecture overview


@dataclass(frozen=True, slots=True)
class CommunitySummary:
    """A Louvain community as the graph reports it (graph.proto Community)."""

    label: str
    size: int
    dominant_paths: tuple[str, ...] = ()
    top_symbols: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class HubSummary:
    """A highly connected symbol (graph.proto Hub)."""

    name: str
    path: str
    line: int = 0
    in_degree: int = 0
    out_degree: int = 0
    community: str = ""


def architecture_overview(
    communities: Sequence[CommunitySummary],
    hubs: Sequence[HubSummary] = (),
    *,
    max_communities: int = 8,
    max_hubs: int = 8,
    repo_root: str = "",
) -> str:
    """A factual summary of the code's areas and its most connected symbols, largest first."""
    lines: list[str] = []
    ranked = sorted(communities, key=lambda c: (-c.size, c.label))
    if ranked:
        total = sum(c.size for c in ranked)
        lines.append(f"Areas of the code (call-graph communities, {len(ranked)} in total, {total} symbols):")
        for community in ranked[:max_communities]:
            label = community.label or (
                community.dominant_paths[0] if community.dominant_paths else "(unnamed)"
            )
            line = f"- {label} ({community.size} symbols)"
            paths = [relative_path(p, repo_root) for p in community.dominant_paths[:3]]
            if paths and paths != [label]:
                line += " in " + ", ".join(paths)
            if community.top_symbols:
                line += "; central: " + ", ".join(community.top_symbols[:4])
            lines.append(line)
        if len(ranked) > max_communities:
            rest = ranked[max_communities:]
            lines.append(f"- {len(rest)} smaller areas ({sum(c.size for c in rest)} symbols)")
    ranked_hubs = sorted(hubs, key=lambda h: (-(h.in_degree + h.out_degree), h.name, h.path))
    if ranked_hubs:
        lines.append("Most connected symbols:")
        for hub in ranked_hubs[:max_hubs]:
            location = relative_path(hub.path, repo_root) + (f":{hub.line}" if hub.line else "")
            area = f", in {hub.community}" if hub.community else ""
            lines.append(
                f"- {hub.name} ({location}): {hub.in_degree} {_plural(hub.in_degree, 'caller')}, "
                f"{hub.out_degree} {_plural(hub.out_degree, 'callee')}{area}"
            )
    return "\n".join(lines)


def _plural(count: int, word: str) -> str:
    return word if count == 1 else word + "s"


def _richer(current: Ref | None, new: Ref) -> Ref:
    """Keep the version of a candidate that carries its text."""
    if current is None:
        return new
    if isinstance(new, Chunk) and new.content and not (isinstance(current, Chunk) and current.content):
        return new
    return current


def _route_name(route: Route | RouteName | str) -> RouteName:
    if isinstance(route, Route):
        return route.name
    return RouteName(str(route))
