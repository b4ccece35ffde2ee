"""The *Code* section: candidates in score order, granular (class headers, the more specific chunk),
deduplicated, long doc comments cut, each whole or trimmed to fit, stopping early when the rest is weak."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from gateway.domain.code_render import elide_lines, is_outline, render_code, source_lines, trim_code
from gateway.domain.code_select import RESIDUE_KINDS, Replaced, Selected, class_header_mapped, select_granular
from gateway.domain.context_types import (
    MAX_CHARS_PER_TOKEN,
    REASON_ORDER,
    BudgetPolicy,
    CandidateReason,
    CodeCandidate,
    ContextItem,
    Section,
    estimate_tokens,
    relative_path,
)
from gateway.domain.doc_trim import trim_doc_comments_mapped
from gateway.domain.ledger import SECTION_TITLES, TITLE_TOKENS, Ledger, Part
from gateway.domain.utf16 import utf16_len
from kit.domain import Chunk
from kit.text import code_words
from kit.tokens import count_tokens

SHOWN_INSIDE = "shown inside"


def order_candidates(candidates: Sequence[CodeCandidate]) -> list[CodeCandidate]:
    def key(c: CodeCandidate) -> tuple[float, int, str, int, str]:
        score = c.score if c.score == c.score else float("-inf")  # NaN sorts last
        return (
            -score,
            REASON_ORDER.get(str(c.reason), len(REASON_ORDER)),
            c.chunk.path,
            c.chunk.start_line,
            c.chunk.id,
        )

    return sorted(candidates, key=key)


def add_code(
    ledger: Ledger,
    ordered: Sequence[CodeCandidate],
    repo_root: str,
    policy: BudgetPolicy,
    route: str = "",
    terms: frozenset[str] = frozenset(),
    block_caps: tuple[int, int] = (0, 0),
) -> list[ContextItem]:
    """Place the candidates (granular selection first), cutting duplicates, overlaps, what does not fit,
    and — the adaptive stop — candidates much weaker than the best one, or search hits far below the top
    search score, that add no prompt term.
    `block_caps` (tokens, 0: none) are the most the first block or a seed, and any other block, may take
    (see `_place`)."""
    cut: list[ContextItem] = []
    shown: dict[str, list[tuple[int, int, str]]] = {}
    seen_ids: set[str] = set()
    # The line ranges shown in full (not an outline's, not lines elided as shown elsewhere), by block label.
    whole: dict[str, list[tuple[int, int, str]]] = {}
    blocks: dict[str, Part] = {}
    listed: set[str] = set()  # chunks on screen inside one of them
    stop = AdaptiveStop.of(ordered, route, terms, policy)
    rank = 0
    selection = select_granular(ordered, policy)
    for index, selected in enumerate(selection):
        candidate = selected.candidate
        chunk = candidate.chunk
        path = relative_path(chunk.path, repo_root)
        holder = _holder(whole.get(path, ()), chunk)
        if isinstance(selected, Replaced) and not selected.unless_missing:
            cut.append(code_item(candidate, 0, selected.why, path))
            continue
        # A closure that gave way to its enclosing function goes on: listed inside that block below, or placed
        # itself when the function was cut or trimmed before it.
        header = isinstance(selected, Selected) and selected.header
        if chunk.id and (chunk.id in seen_ids or chunk.id in listed):
            cut.append(code_item(candidate, 0, "duplicate", path))
            continue
        if holder and not header:
            # Every line of it is on screen inside a block already shown: listed there, at no cost.
            listed.add(chunk.id)
            item = code_item(candidate, 0, f"{SHOWN_INSIDE} {holder}", path)
            ledger.take(Section.CODE, Part("", 0, item, within=blocks[holder]))
            continue
        overlap = _overlap(shown.get(path, ()), chunk.start_line, chunk.end_line, header)
        enclosed = _enclosed(shown.get(path, ()), chunk, policy) if overlap and not header else None
        elided = enclosed or []
        if overlap and enclosed is None:
            cut.append(code_item(candidate, 0, f"overlaps {overlap} already shown", path))
            continue
        weak = stop.weak(candidate, len(seen_ids))
        if weak:
            cut.append(code_item(candidate, 0, weak, path))
            continue
        rank += 1
        shaped, line_map = _shaped(chunk, header, policy, elided)
        placed = _place(
            ledger,
            replace(candidate, chunk=shaped),
            path,
            Slot(rank, index + 1 < len(selection), block_cap=block_caps[1], lead_cap=block_caps[0]),
            policy,
            line_map,
        )
        if isinstance(placed, ContextItem):
            cut.append(placed)
            continue
        block, tokens, note, shown_end = placed
        seen_ids.add(chunk.id)
        stop.took(candidate)
        label = f"{path}:{chunk.start_line}-{chunk.end_line}"
        if header:
            note = "class header: signature, fields and members"
        else:
            shown.setdefault(path, []).append((chunk.start_line, shown_end, label))
            if not is_outline(chunk):  # an outline shows nested definitions as their signatures only
                whole.setdefault(path, []).extend(
                    (start, end, label) for start, end in _minus(chunk.start_line, shown_end, elided)
                )
        blocks[label] = Part(block, tokens, code_item(candidate, tokens, note, path))
        ledger.take(Section.CODE, blocks[label])
    return cut


def _shaped(
    chunk: Chunk, header: bool, policy: BudgetPolicy, elided: Sequence[tuple[int, int]] = ()
) -> tuple[Chunk, list[int] | None]:
    """The chunk as it is shown — its class header, or its code with the blocks already shown inside it
    (`elided`, source line ranges) marked and long doc comments cut — and the source offset of each shown
    line (None when the content is unchanged)."""
    if header:
        text, line_map = class_header_mapped(chunk)
        return replace(chunk, content=text), line_map
    content, outer_map = elide_lines(chunk, elided) if elided else (chunk.content, None)
    trimmed, line_map = trim_doc_comments_mapped(content, chunk.language, policy.doc_max_lines)
    if outer_map is not None:
        return replace(chunk, content=trimmed), [outer_map[i] for i in line_map]
    return (chunk, None) if trimmed == chunk.content else (replace(chunk, content=trimmed), line_map)


def _enclosed(
    ranges: Sequence[tuple[int, int, str]], chunk: Chunk, policy: BudgetPolicy
) -> list[tuple[int, int]] | None:
    """The shown blocks to elide from a chunk that overlaps them, when every one lies strictly inside it and
    at least `policy.enclosing_rest_lines` of its other lines hold code: a function or class whose closures
    or methods are already on screen is shown with those elided — its own body may be the answer (a fix in
    `ready` beside its shown `ready.runHooks`). An outline (a long definition indexed with each nested
    definition as its signature line, `is_outline`) already leaves them out: shown as it is (no range).
    None when it is to be cut as an overlap, and when its lines are not its source lines one to one
    otherwise (`source_lines`: nothing to elide by number)."""
    if chunk.kind in RESIDUE_KINDS:
        return None  # residue gives way to the definitions inside it (select_granular)
    inside: list[tuple[int, int]] = []
    for start, end, _ in ranges:
        if not (start <= chunk.end_line and chunk.start_line <= end):
            continue
        if not (chunk.start_line < start and end <= chunk.end_line):
            return None  # a block that holds this one, or straddles its edge
        inside.append((start, end))
    if not inside:
        return None
    if is_outline(chunk):
        return []
    lines = source_lines(chunk)
    if lines is None:
        return None
    rest = sum(
        1
        for offset, line in enumerate(lines)
        if line.strip() and not any(s <= chunk.start_line + offset <= e for s, e in inside)
    )
    return sorted(inside) if rest >= policy.enclosing_rest_lines else None


# Search hits and call-graph neighbours are measured by their own source: the first one placed is their
# reference.
_OWN_SCALE = frozenset(
    {CandidateReason.SEARCH.value, CandidateReason.CALLER.value, CandidateReason.CALLEE.value}
)


@dataclass(slots=True)
class AdaptiveStop:
    """Ends the code section early when the next candidate is much weaker than what is in: its score
    below `ratio` × the best score, and no prompt term in its name that the shown names lack.

    A search hit, caller or callee is measured against the best candidate of its source placed so far
    (the first one goes in): a seed scores the sum of several sources (the user named it and search
    found it), so against the seed even its direct callers read as "much weaker" and a flow block
    ended right after the seed (bench/results/2026-12-02: chi-flow-05, mobx-flow-04, rxjs-flow-03); and
    on a flow route, where search weighs less than the call graph, every search hit after the first
    read as "much weaker" too (mobx-lookup-03, mobx-flow-05: the answer was search's second hit). Neither
    is measured against less than `ratio` × the first block, so the first neighbour of its kind is no
    free pass: a test file calling the seed (its score ×0.3 as test code) no longer follows the answer
    (fastify-commit-02; 4 % fewer tokens on the fastify commit set, the same NDCG everywhere).

    A search hit also ends it when its own search score is below `min_strength` of the top search hit's
    (`CodeCandidate.strength`): reciprocal ranks hide how far below the top a hit scored."""

    ratio: float
    best: float
    min_items: int
    terms: frozenset[str]
    covered: set[str]
    min_strength: float = 0.0
    placed: int = 0
    best_of_source: dict[str, float] = field(default_factory=dict)

    @classmethod
    def of(
        cls, ordered: Sequence[CodeCandidate], route: str, terms: frozenset[str], policy: BudgetPolicy
    ) -> AdaptiveStop:
        ratio = dict(policy.stop_ratio).get(route, 0.0)
        # `best` is the score of the first candidate placed (see `took`), not of one cut or replaced.
        return cls(ratio, 0.0, policy.stop_min_items, terms, set(), policy.stop_search_strength)

    def weak(self, candidate: CodeCandidate, shown: int) -> str:
        """Why the candidate is left out ("" when it goes in)."""
        reason = str(candidate.reason)
        best = self.best_of_source.get(reason, 0.0) if reason in _OWN_SCALE else self.best
        if reason in _OWN_SCALE:  # a weak tail of search hits or neighbours after a strong first block
            best = max(best, self.ratio * self.best)
        if shown < self.min_items:
            return ""
        new_term = bool((name_terms(candidate.chunk) & self.terms) - self.covered)
        if candidate.strength < self.min_strength and not new_term:
            return f"adaptive stop: search score {candidate.strength:.2g} of the top hit's"
        if self.ratio <= 0 or best <= 0:
            return ""
        floor = self.ratio * best
        score = _score(candidate)
        if score >= floor:
            return ""
        if score >= floor / 2 and new_term:
            return ""
        return f"adaptive stop: score {score:.3g} below {self.ratio:g} × best {best:.3g}"

    def took(self, candidate: CodeCandidate) -> None:
        if not self.placed:
            self.best = _score(candidate)
        self.best_of_source.setdefault(str(candidate.reason), _score(candidate))
        self.placed += 1
        self.covered |= name_terms(candidate.chunk) & self.terms


def _score(candidate: CodeCandidate) -> float:
    return candidate.score if candidate.score == candidate.score else 0.0  # NaN counts as nothing


# Words of a prompt that say nothing about which code is meant.
_FILLER = frozenset(
    """the and are can does for from has have how into its not our please show should that their them then
    there these this those was what when where which who why will with you your code find function method
    class file work works doing used use get set make call calls called value values""".split()  # noqa: SIM905
)


def prompt_terms(prompt: str) -> frozenset[str]:
    """The prompt's words that may name code: lowercased identifier parts, fillers left out."""
    return frozenset(w for w in code_words(prompt) if len(w) >= 3 and w not in _FILLER)


def name_terms(chunk: Chunk) -> set[str]:
    return set(code_words(chunk.qualified_name or chunk.name))


@dataclass(frozen=True, slots=True)
class Slot:
    """Where a block goes: its rank among the placed, whether candidates follow, and the most tokens a
    block may take (0: no cap): the first block and the seeds `lead_cap`, any other `block_cap`."""

    rank: int
    more_follow: bool
    block_cap: int = 0
    lead_cap: int = 0


def _place(
    ledger: Ledger,
    candidate: CodeCandidate,
    path: str,
    slot: Slot,
    policy: BudgetPolicy,
    line_map: list[int] | None = None,
) -> tuple[str, int, str, int] | ContextItem:
    """The candidate's block as (text, tokens, note, last line shown): trimmed to its cap when longer
    (`slot.lead_cap` for the first block and the seeds, `slot.block_cap` for the others), trimmed to fit
    when it does not fit whole and is among the top `trim_top`; else the cut item saying which limit it
    broke."""
    chunk = candidate.chunk
    first = not ledger.parts.get(Section.CODE)
    extra_tokens, extra_chars = (TITLE_TOKENS, utf16_len(SECTION_TITLES[Section.CODE])) if first else (0, 0)
    block = render_code(chunk, path, candidate.reason)
    # Counting costs ~1 ms per 1,000 tokens: skip it for blocks that cannot fit whole anyway.
    countable = utf16_len(block) <= ledger.chars and len(block) <= MAX_CHARS_PER_TOKEN * ledger.tokens
    tokens = count_tokens(block) if countable else estimate_tokens(block)
    cap = slot.lead_cap if first or candidate.reason == CandidateReason.SEED else slot.block_cap
    if 0 < cap < tokens:
        trimmed = trim_code(chunk, path, candidate.reason, cap, ledger.chars - extra_chars, line_map)
        if trimmed is not None and ledger.fits(
            trimmed[1] + extra_tokens, utf16_len(trimmed[0]) + extra_chars
        ):
            block, tokens, last_line = trimmed
            note = f"trimmed: lines {chunk.start_line}-{last_line} shown"
            return block, tokens, note, max(chunk.start_line, last_line)
    if ledger.fits(tokens + extra_tokens, utf16_len(block) + extra_chars):
        return block, tokens, "", chunk.end_line
    room_tokens = ledger.tokens - extra_tokens
    room_chars = ledger.chars - extra_chars
    trimmed = None
    if slot.more_follow:
        room_tokens = max(policy.min_trimmed_tokens, int(room_tokens * policy.trim_room_share))
        room_chars = int(room_chars * policy.trim_room_share)
    room_tokens = min(room_tokens, ledger.tokens - extra_tokens)
    if slot.rank <= policy.trim_top and room_tokens >= policy.min_trimmed_tokens:
        trimmed = trim_code(chunk, path, candidate.reason, room_tokens, room_chars, line_map)
    if trimmed is None:
        over_tokens = tokens + extra_tokens > ledger.tokens
        over_chars = utf16_len(block) + extra_chars > ledger.chars
        why = " and ".join(
            label for label, over in (("token budget", over_tokens), ("character cap", over_chars)) if over
        )
        return code_item(candidate, tokens, why, path)
    block, tokens, last_line = trimmed
    note = f"trimmed: lines {chunk.start_line}-{last_line} shown"
    return block, tokens, note, max(chunk.start_line, last_line)


def _minus(start: int, end: int, holes: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The line range start..end without the (sorted, inside) ranges in `holes`."""
    pieces: list[tuple[int, int]] = []
    for hole_start, hole_end in sorted(holes):
        if hole_start > start:
            pieces.append((start, min(end, hole_start - 1)))
        start = max(start, hole_end + 1)
    if start <= end:
        pieces.append((start, end))
    return pieces


def _holder(ranges: Sequence[tuple[int, int, str]], chunk: Chunk) -> str:
    """The innermost block already shown that holds all of the chunk's lines ("" when none does)."""
    holding = [
        (end - start, label)
        for start, end, label in ranges
        if start <= chunk.start_line and chunk.end_line <= end
    ]
    return min(holding)[1] if holding else ""


def _overlap(ranges: Sequence[tuple[int, int, str]], start: int, end: int, header: bool = False) -> str:
    """The shown block this one overlaps; a class header only repeats a block that holds the whole class."""
    for shown_start, shown_end, label in ranges:
        if header and shown_start <= start and end <= shown_end:
            return label
        if not header and start <= shown_end and shown_start <= end:
            return label
    return ""


def code_item(candidate: CodeCandidate, tokens: int, note: str, path: str | None = None) -> ContextItem:
    chunk = candidate.chunk
    return ContextItem(
        Section.CODE,
        chunk.path if path is None else path,
        chunk.qualified_name or chunk.name,
        chunk.start_line,
        chunk.end_line,
        str(chunk.kind),
        candidate.score,
        tokens,
        str(candidate.reason),
        chunk.id,
        note,
    )
