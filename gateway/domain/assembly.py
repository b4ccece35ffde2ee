"""Context assembly (DESIGN.md §6): facts, code and memories → one budgeted block.

Two limits always hold for the returned text: at most `budget_tokens` tokens (kit.tokens, the tokenizer
shipped offline) and at most `char_cap` characters (Claude Code replaces longer hook output by a file
path and a preview). The block is factual — where things are, what calls what, the code itself — and
never tells the agent what to do.

Layout, in order (each part only when it has content):

    <reporecall-context repo="…" route="flow" commit="abc1234">
    Index of <repo> at abc1234, route flow. HEAD is def5678, so the index may be stale. …
    ## Facts            where the seeds are defined, their callers and callees (name, path:line)
    ## Overview         architecture route only: communities and hubs
    ## Code             `path:start-end kind name` then a fenced block, most relevant first
    ## Memories         team notes, per-class budgets, never more than `memory_share` of the budget
    </reporecall-context>

Budget split: the header and closing tag come first; facts take at most `facts_share`, the overview at
most `overview_share`, memories at most `memory_share` (and their per-class shares); code gets the
rest, so code keeps a floor of 1 − facts − memory shares. Top code hits that do not fit whole are
trimmed (signature and first lines kept, the elision marked) rather than dropped. Output is a pure
function of the inputs: candidates are ordered by score with stable tie-breaks.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from gateway.domain.markers import CONTEXT_CLOSE, context_open
from gateway.domain.routing import Route
from gateway.domain.utf16 import TEXT_CAP, cut_utf16, utf16_len
from kit.domain import Chunk
from kit.tokens import count_tokens, truncate_to_tokens

# Characters are counted as Claude Code counts them (UTF-16 units), with a margin below its 10,000 cap.
DEFAULT_CHAR_CAP = TEXT_CAP
# No cl100k token of code is this long on average over a block; a block longer than this many characters
# per remaining token cannot fit, so it is not counted (an estimate is reported for it instead).
MAX_CHARS_PER_TOKEN = 8


class CandidateReason(StrEnum):
    """Why a chunk is a candidate; also the tie-break order between equal scores."""

    SEED = "seed"
    SEARCH = "search"
    CALLER = "caller"
    CALLEE = "callee"
    ACTIVE_FILE = "active_file"
    HUB = "hub"


_REASON_ORDER = {reason.value: i for i, reason in enumerate(CandidateReason)}


class Section(StrEnum):
    FACTS = "facts"
    OVERVIEW = "overview"
    CODE = "code"
    MEMORY = "memory"


@dataclass(frozen=True, slots=True)
class CodeCandidate:
    """A chunk that may go into the block; higher `score` first."""

    chunk: Chunk
    score: float
    reason: str = CandidateReason.SEARCH


@dataclass(frozen=True, slots=True)
class SymbolRef:
    """A symbol named in the facts: `name (path:line)`. For a caller, `line` is the call site."""

    name: str
    path: str
    line: int = 0
    kind: str = ""


@dataclass(frozen=True, slots=True)
class GraphFacts:
    """What the graph knows about one seed. `more_callers`/`more_callees` count those not listed."""

    seed: str
    definitions: tuple[SymbolRef, ...] = ()
    callers: tuple[SymbolRef, ...] = ()
    callees: tuple[SymbolRef, ...] = ()
    notes: tuple[str, ...] = ()
    more_callers: int = 0
    more_callees: int = 0


@dataclass(frozen=True, slots=True)
class MemoryItem:
    """A recalled memory. `memory_class` is rule | fact | episode | working (anything else: "other")."""

    id: str
    name: str
    memory_class: str
    body: str
    score: float = 0.0


@dataclass(frozen=True, slots=True)
class Staleness:
    """The index's commit against the client's HEAD, and the client's uncommitted files."""

    indexed_commit: str = ""
    head_commit: str = ""
    dirty_files: tuple[str, ...] = ()

    @property
    def head_differs(self) -> bool:
        if not self.indexed_commit or not self.head_commit:
            return False
        short, long = sorted((self.indexed_commit, self.head_commit), key=len)
        return not long.startswith(short)


@dataclass(frozen=True, slots=True)
class BudgetPolicy:
    """How the token budget is shared. Shares are fractions of the whole budget."""

    memory_share: float = 0.25
    # Per-class caps inside the memory share, most important class first.
    memory_class_shares: tuple[tuple[str, float], ...] = (
        ("rule", 0.10),
        ("fact", 0.10),
        ("episode", 0.05),
        ("working", 0.05),
        ("other", 0.05),
    )
    memory_item_max_tokens: int = 200
    facts_share: float = 0.20
    facts_max_refs: int = 8
    overview_share: float = 0.45
    # The best `trim_top` code candidates are trimmed to fit instead of being dropped.
    trim_top: int = 3
    min_trimmed_tokens: int = 40
    # A trimmed chunk leaves the rest of the code room to the candidates after it.
    trim_room_share: float = 0.6


DEFAULT_POLICY = BudgetPolicy()


@dataclass(frozen=True, slots=True)
class ContextItem:
    """One thing that went into the block (or was cut). Fields mirror gateway.proto's ContextItem;
    `section` says where it went and `note` says why it was trimmed or cut."""

    section: str
    path: str
    symbol: str
    start_line: int
    end_line: int
    kind: str
    score: float
    tokens: int
    reason: str
    chunk_id: str
    note: str = ""


@dataclass(frozen=True, slots=True)
class AssembledContext:
    text: str
    tokens: int
    chars: int
    route: str
    items: tuple[ContextItem, ...] = ()
    cut: tuple[ContextItem, ...] = ()
    partial: bool = False

    @property
    def empty(self) -> bool:
        return not self.text


def empty_context(
    route: Route | str = "skip", cut: Sequence[ContextItem] = (), partial: bool = False
) -> AssembledContext:
    """The reply for `skip`, or when nothing fits: no text, zero tokens."""
    return AssembledContext("", 0, 0, _route_name(route), (), tuple(cut), partial)


@dataclass(slots=True)
class _Part:
    text: str
    tokens: int
    item: ContextItem | None


@dataclass(slots=True)
class _Ledger:
    tokens: int
    chars: int
    parts: dict[Section, list[_Part]] = field(default_factory=dict)

    def fits(self, tokens: int, chars: int) -> bool:
        return tokens <= self.tokens and chars <= self.chars

    def take(self, section: Section, part: _Part) -> None:
        """Spend the part's size, and the section title's with the section's first part."""
        if section not in self.parts:
            self.tokens -= _TITLE_TOKENS
            self.chars -= utf16_len(_SECTION_TITLES[section])
        self.parts.setdefault(section, []).append(part)
        self.tokens -= part.tokens
        self.chars -= utf16_len(part.text)


_SECTION_TITLES = {
    Section.FACTS: "## Facts\n",
    Section.OVERVIEW: "## Overview\n",
    Section.CODE: "## Code\n",
    Section.MEMORY: "## Memories\n",
}
_SECTION_ORDER = (Section.FACTS, Section.OVERVIEW, Section.CODE, Section.MEMORY)
_TITLE_TOKENS = 3  # each title above is 3 tokens (a test checks it)


def assemble_context(
    route: Route | str,
    candidates: Sequence[CodeCandidate],
    *,
    budget_tokens: int,
    facts: Sequence[GraphFacts] = (),
    memories: Sequence[MemoryItem] = (),
    staleness: Staleness | None = None,
    overview: str = "",
    degraded: Sequence[str] = (),
    repo: str = "",
    repo_root: str = "",
    char_cap: int = DEFAULT_CHAR_CAP,
    policy: BudgetPolicy = DEFAULT_POLICY,
) -> AssembledContext:
    """The context block for one prompt; `text` ≤ `budget_tokens` tokens and ≤ `char_cap` characters."""
    route_name = _route_name(route)
    partial = bool(degraded)
    ordered = _order_candidates(candidates)
    if route_name == "skip" or budget_tokens <= 0 or char_cap <= 0:
        return empty_context(
            route_name,
            [_code_item(c, 0, "skip route" if route_name == "skip" else "no budget") for c in ordered],
            partial,
        )

    staleness = staleness or Staleness()
    header = _render_header(repo, route_name, staleness, degraded, repo_root)
    footer = CONTEXT_CLOSE + "\n"
    fixed_tokens = count_tokens(header) + count_tokens(footer) + 1
    ledger = _Ledger(budget_tokens - fixed_tokens, char_cap - utf16_len(header) - utf16_len(footer))
    if ledger.tokens <= _TITLE_TOKENS or ledger.chars <= 0:
        return empty_context(
            route_name, [_code_item(c, 0, "budget below the header size") for c in ordered], partial
        )

    cut: list[ContextItem] = []
    _add_facts(ledger, facts, budget_tokens, repo_root, policy)
    _add_overview(ledger, overview, budget_tokens, policy)
    memory_parts, memory_cut = _select_memories(ledger, memories, budget_tokens, policy)
    reserved = sum(p.tokens for p in memory_parts) + (_TITLE_TOKENS if memory_parts else 0)
    reserved_chars = sum(utf16_len(p.text) for p in memory_parts) + (
        utf16_len(_SECTION_TITLES[Section.MEMORY]) if memory_parts else 0
    )
    ledger.tokens -= reserved
    ledger.chars -= reserved_chars
    cut.extend(_add_code(ledger, ordered, repo_root, policy))
    ledger.tokens += reserved
    ledger.chars += reserved_chars
    for part in memory_parts:
        ledger.take(Section.MEMORY, part)
    cut.extend(memory_cut)

    return _finish(header, footer, ledger, route_name, cut, partial, budget_tokens, char_cap)


# ---------------------------------------------------------------------------------------------------
# Header


def _render_header(
    repo: str, route: str, staleness: Staleness, degraded: Sequence[str], repo_root: str
) -> str:
    commit = _short(staleness.indexed_commit)
    lines = [context_open(repo=repo, route=route, commit=commit)]
    subject = f"Index of {repo}" if repo else "Repository index"
    sentence = f"{subject} at {commit}, route {route}." if commit else f"{subject}, route {route}."
    if staleness.head_differs:
        sentence += f" HEAD is {_short(staleness.head_commit)}, so the index may be stale."
    lines.append(sentence)
    if staleness.dirty_files:
        shown = [relative_path(p, repo_root) for p in sorted(staleness.dirty_files)[:5]]
        more = len(staleness.dirty_files) - len(shown)
        lines.append(
            "Uncommitted changes (the index may not reflect them): "
            + ", ".join(shown)
            + (f" (+{more} more)" if more > 0 else "")
            + "."
        )
    if degraded:
        lines.append(f"Partial: {', '.join(sorted(set(degraded)))} did not answer.")
    return "\n".join(lines) + "\n"


def _short(commit: str) -> str:
    return commit[:7] if re.fullmatch(r"[0-9a-fA-F]{8,64}", commit) else commit[:40]


# ---------------------------------------------------------------------------------------------------
# Facts and overview


def _add_facts(
    ledger: _Ledger, facts: Sequence[GraphFacts], budget: int, repo_root: str, policy: BudgetPolicy
) -> None:
    cap = min(ledger.tokens, int(budget * policy.facts_share)) - _TITLE_TOKENS
    cap_chars = ledger.chars - utf16_len(_SECTION_TITLES[Section.FACTS])
    used = used_chars = 0
    for seed, line in _fact_lines(facts, repo_root, policy):
        tokens = count_tokens(line)
        if used + tokens > cap or used_chars + utf16_len(line) > cap_chars:
            break
        used += tokens
        used_chars += utf16_len(line)
        item = ContextItem(Section.FACTS, "", seed, 0, 0, "facts", 0.0, tokens, "graph", "")
        ledger.take(Section.FACTS, _Part(line, tokens, item))


def _fact_lines(facts: Sequence[GraphFacts], repo_root: str, policy: BudgetPolicy) -> list[tuple[str, str]]:
    """(seed, line) pairs: definitions, callers, callees and notes of each seed, in that order."""
    lines: list[tuple[str, str]] = []
    for fact in facts:
        if fact.definitions:
            refs = _refs(fact.definitions, repo_root, policy.facts_max_refs, 0, with_kind=True)
            label = (
                "defined at" if len(fact.definitions) == 1 else f"has {len(fact.definitions)} definitions:"
            )
            lines.append((fact.seed, f"- {fact.seed}: {label} {refs}\n"))
        if fact.callers:
            refs = _refs(fact.callers, repo_root, policy.facts_max_refs, fact.more_callers)
            lines.append((fact.seed, f"- {fact.seed}: called by {refs}\n"))
        if fact.callees:
            refs = _refs(fact.callees, repo_root, policy.facts_max_refs, fact.more_callees)
            lines.append((fact.seed, f"- {fact.seed}: calls {refs}\n"))
        lines.extend((fact.seed, f"- {fact.seed}: {_one_line(note)}\n") for note in fact.notes)
    return lines


def _refs(refs: Sequence[SymbolRef], repo_root: str, limit: int, more: int, with_kind: bool = False) -> str:
    shown = []
    for ref in refs[:limit]:
        location = relative_path(ref.path, repo_root) + (f":{ref.line}" if ref.line > 0 else "")
        if with_kind:
            shown.append(f"{location} ({ref.kind} {ref.name})" if ref.kind else f"{location} ({ref.name})")
        else:
            shown.append(f"{ref.name} ({location})")
    extra = more + max(0, len(refs) - limit)
    return ", ".join(shown) + (f" (+{extra} more)" if extra else "")


def _add_overview(ledger: _Ledger, overview: str, budget: int, policy: BudgetPolicy) -> None:
    if not overview.strip():
        return
    cap = min(ledger.tokens, int(budget * policy.overview_share)) - _TITLE_TOKENS
    cap_chars = ledger.chars - utf16_len(_SECTION_TITLES[Section.OVERVIEW])
    used = used_chars = 0
    for raw in overview.strip().splitlines():
        line = raw.rstrip() + "\n"
        tokens = count_tokens(line)
        if used + tokens > cap or used_chars + utf16_len(line) > cap_chars:
            break
        used += tokens
        used_chars += utf16_len(line)
        item = ContextItem(Section.OVERVIEW, "", "", 0, 0, "overview", 0.0, tokens, "communities", "")
        ledger.take(Section.OVERVIEW, _Part(line, tokens, item))


# ---------------------------------------------------------------------------------------------------
# Memories


def _select_memories(
    ledger: _Ledger, memories: Sequence[MemoryItem], budget: int, policy: BudgetPolicy
) -> tuple[list[_Part], list[ContextItem]]:
    """Memories under the overall memory cap and their class caps, best class first."""
    if not memories:
        return [], []
    shares = dict(policy.memory_class_shares)
    class_order = {name: i for i, (name, _) in enumerate(policy.memory_class_shares)}
    total_cap = min(int(budget * policy.memory_share), ledger.tokens) - _TITLE_TOKENS
    chars_cap = ledger.chars // 4 if ledger.chars > 0 else 0
    used_by_class: dict[str, int] = {}
    used = used_chars = 0
    chosen: list[_Part] = []
    cut: list[ContextItem] = []
    seen: set[str] = set()

    def ordering(memory: MemoryItem) -> tuple[int, float, str, str]:
        return (
            class_order.get(_memory_class(memory, shares), len(class_order)),
            -memory.score,
            memory.name,
            memory.id,
        )

    for memory in sorted(memories, key=ordering):
        klass = _memory_class(memory, shares)
        text = _render_memory(memory, klass, policy.memory_item_max_tokens)
        tokens = count_tokens(text)
        item = ContextItem(
            Section.MEMORY, "", memory.name, 0, 0, klass, memory.score, tokens, klass, memory.id
        )
        class_cap = int(budget * shares.get(klass, 0.0))
        if memory.id and memory.id in seen:
            cut.append(_with_note(item, "duplicate memory"))
        elif used_by_class.get(klass, 0) + tokens > class_cap:
            cut.append(_with_note(item, f"{klass} memory budget"))
        elif used + tokens > total_cap or used_chars + utf16_len(text) > chars_cap:
            cut.append(_with_note(item, "memory budget"))
        else:
            seen.add(memory.id)
            used += tokens
            used_chars += utf16_len(text)
            used_by_class[klass] = used_by_class.get(klass, 0) + tokens
            chosen.append(_Part(text, tokens, item))
    return chosen, cut


def _memory_class(memory: MemoryItem, shares: dict[str, float]) -> str:
    klass = memory.memory_class.strip().lower()
    return klass if klass in shares else "other"


def _render_memory(memory: MemoryItem, klass: str, max_tokens: int) -> str:
    body = " ".join(memory.body.split())
    name = _one_line(memory.name) or memory.id
    text = f"- [{klass}] {name}: {body}" if body else f"- [{klass}] {name}"
    if count_tokens(text) > max_tokens:
        text = truncate_to_tokens(text, max(1, max_tokens - 2)).rstrip() + " …"
    return text + "\n"


# ---------------------------------------------------------------------------------------------------
# Code


def _order_candidates(candidates: Sequence[CodeCandidate]) -> list[CodeCandidate]:
    def key(c: CodeCandidate) -> tuple[float, int, str, int, str]:
        score = c.score if c.score == c.score else float("-inf")  # NaN sorts last
        return (
            -score,
            _REASON_ORDER.get(str(c.reason), len(_REASON_ORDER)),
            c.chunk.path,
            c.chunk.start_line,
            c.chunk.id,
        )

    return sorted(candidates, key=key)


def _add_code(
    ledger: _Ledger, ordered: Sequence[CodeCandidate], repo_root: str, policy: BudgetPolicy
) -> list[ContextItem]:
    cut: list[ContextItem] = []
    shown: dict[str, list[tuple[int, int, str]]] = {}
    seen_ids: set[str] = set()
    title_tokens = _TITLE_TOKENS
    title_chars = utf16_len(_SECTION_TITLES[Section.CODE])
    rank = 0
    for index, candidate in enumerate(ordered):
        chunk = candidate.chunk
        path = relative_path(chunk.path, repo_root)
        if chunk.id and chunk.id in seen_ids:
            cut.append(_code_item(candidate, 0, "duplicate", path))
            continue
        overlap = _overlap(shown.get(path, ()), chunk.start_line, chunk.end_line)
        if overlap:
            cut.append(_code_item(candidate, 0, f"overlaps {overlap} already shown", path))
            continue
        rank += 1
        first = not ledger.parts.get(Section.CODE)
        extra_tokens, extra_chars = (title_tokens, title_chars) if first else (0, 0)
        block = _render_code(chunk, path, candidate.reason)
        # Counting costs ~1 ms per 1,000 tokens: skip it for blocks that cannot fit whole anyway.
        countable = utf16_len(block) <= ledger.chars and len(block) <= MAX_CHARS_PER_TOKEN * ledger.tokens
        tokens = count_tokens(block) if countable else estimate_tokens(block)
        note = ""
        if not ledger.fits(tokens + extra_tokens, utf16_len(block) + extra_chars):
            room_tokens = ledger.tokens - extra_tokens
            room_chars = ledger.chars - extra_chars
            trimmed = None
            if index + 1 < len(ordered):
                room_tokens = max(policy.min_trimmed_tokens, int(room_tokens * policy.trim_room_share))
                room_chars = int(room_chars * policy.trim_room_share)
            room_tokens = min(room_tokens, ledger.tokens - extra_tokens)
            if rank <= policy.trim_top and room_tokens >= policy.min_trimmed_tokens:
                trimmed = _trim_code(chunk, path, candidate.reason, room_tokens, room_chars)
            if trimmed is None:
                over_tokens = tokens + extra_tokens > ledger.tokens
                over_chars = utf16_len(block) + extra_chars > ledger.chars
                why = " and ".join(
                    label
                    for label, over in (("token budget", over_tokens), ("character cap", over_chars))
                    if over
                )
                cut.append(_code_item(candidate, tokens, why, path))
                continue
            block, tokens, last_line = trimmed
            note = f"trimmed: lines {chunk.start_line}-{last_line} shown"
        seen_ids.add(chunk.id)
        shown_end = chunk.end_line if not note else max(chunk.start_line, last_line)
        shown.setdefault(path, []).append(
            (chunk.start_line, shown_end, f"{path}:{chunk.start_line}-{chunk.end_line}")
        )
        ledger.take(Section.CODE, _Part(block, tokens, _code_item(candidate, tokens, note, path)))
    return cut


def _overlap(ranges: Sequence[tuple[int, int, str]], start: int, end: int) -> str:
    for shown_start, shown_end, label in ranges:
        if start <= shown_end and shown_start <= end:
            return label
    return ""


def _code_heading(chunk: Chunk, path: str, reason: str) -> str:
    name = chunk.qualified_name or chunk.name or "(anonymous)"
    kind = str(chunk.kind) if chunk.kind else "code"
    tag = f" · {reason}" if reason and reason not in {CandidateReason.SEARCH, CandidateReason.SEED} else ""
    return _one_line(f"{path}:{chunk.start_line}-{chunk.end_line} {kind} {name}{tag}") + "\n"


def _fence(content: str) -> str:
    longest = max((len(run) for run in re.findall(r"`{3,}", content)), default=2)
    return "`" * max(3, longest + 1)


def _render_code(chunk: Chunk, path: str, reason: str, body: str | None = None) -> str:
    content = chunk.content if body is None else body
    if not content.endswith("\n"):
        content += "\n"
    fence = _fence(content)
    language = re.sub(r"[^\w+#-]", "", chunk.language or "")
    return f"{_code_heading(chunk, path, reason)}{fence}{language}\n{content}{fence}\n"


def _trim_code(
    chunk: Chunk, path: str, reason: str, room_tokens: int, room_chars: int
) -> tuple[str, int, int] | None:
    """The chunk's first lines with the rest marked as elided, as (block, tokens, last line shown).

    The signature line is always among the lines shown: when the lines above it (decorators, a long
    docstring before it) leave no room, the block starts at the signature. None when even that fails.
    """
    lines = cut_utf16(chunk.content, room_chars).splitlines()
    if not lines:
        return None
    signature = _signature_index(lines, chunk.signature)
    for first in (0, signature) if signature else (0,):
        trimmed = _trimmed_from(chunk, path, reason, lines, first, room_tokens, room_chars)
        if trimmed is not None and trimmed[2] >= chunk.start_line + signature:
            return trimmed
    return None


def _trimmed_from(
    chunk: Chunk, path: str, reason: str, lines: Sequence[str], first: int, room_tokens: int, room_chars: int
) -> tuple[str, int, int] | None:
    def build(kept: Sequence[str]) -> tuple[str, int]:
        last = chunk.start_line + first + len(kept) - 1
        head = f"… lines {chunk.start_line}-{chunk.start_line + first - 1} elided\n" if first else ""
        tail = f"… lines {last + 1}-{chunk.end_line} elided\n" if last < chunk.end_line else "… rest elided\n"
        return _render_code(
            chunk, path, reason, body=head + "".join(line + "\n" for line in kept) + tail
        ), last

    skeleton, _ = build([])
    kept = _fit_lines(
        lines[first:], room_tokens - count_tokens(skeleton) - 4, room_chars - utf16_len(skeleton) - 16
    )
    while kept:
        block, last = build(kept)
        tokens = count_tokens(block)
        if tokens <= room_tokens and utf16_len(block) <= room_chars:
            return block, tokens, last
        kept = kept[:-1]
    return None


def _signature_index(lines: Sequence[str], signature: str) -> int:
    first = signature.strip().splitlines()[0].strip() if signature.strip() else ""
    if first:
        for i, line in enumerate(lines[:200]):
            if first[:60] in line:
                return i
    return 0


def _fit_lines(lines: Sequence[str], max_tokens: int, max_chars: int) -> list[str]:
    """The longest prefix of `lines` within the limits (a lone over-long first line is cut)."""
    kept: list[str] = []
    tokens = chars = 0
    for line in lines:
        line_tokens = count_tokens(line) + 1
        if tokens + line_tokens > max_tokens or chars + utf16_len(line) + 1 > max_chars:
            if not kept:
                room = min(max_tokens - tokens - 1, (max_chars - chars) // 2)
                piece = cut_utf16(truncate_to_tokens(line, room), max_chars - chars - 1)
                if piece.strip():
                    kept.append(piece)
            break
        kept.append(line)
        tokens += line_tokens
        chars += utf16_len(line) + 1
    return kept


def _code_item(candidate: CodeCandidate, tokens: int, note: str, path: str | None = None) -> ContextItem:
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


# ---------------------------------------------------------------------------------------------------
# Finish: join, verify both limits exactly, drop from the end until they hold


def _finish(
    header: str,
    footer: str,
    ledger: _Ledger,
    route: str,
    cut: list[ContextItem],
    partial: bool,
    budget: int,
    char_cap: int,
) -> AssembledContext:
    parts = {section: list(ledger.parts.get(section, [])) for section in _SECTION_ORDER}
    while True:
        if not any(parts.values()):
            return empty_context(route, cut, partial)
        text = _join(header, footer, parts)
        tokens = count_tokens(text)
        if tokens <= budget and utf16_len(text) <= char_cap:
            break
        # Token counts of the parts do not add up exactly across joins: give up the last, least valuable part.
        section = next(s for s in (Section.MEMORY, Section.OVERVIEW, Section.CODE, Section.FACTS) if parts[s])
        dropped = parts[section].pop()
        if dropped.item is not None:
            cut.append(_with_note(dropped.item, "token budget (final check)"))
    items = tuple(p.item for section in _SECTION_ORDER for p in parts[section] if p.item is not None)
    return AssembledContext(text, tokens, utf16_len(text), route, items, tuple(cut), partial)


def _join(header: str, footer: str, parts: dict[Section, list[_Part]]) -> str:
    pieces = [header]
    for section in _SECTION_ORDER:
        if parts[section]:
            pieces.append(_SECTION_TITLES[section])
            pieces.extend(p.text for p in parts[section])
    pieces.append(footer)
    return "".join(pieces)


# ---------------------------------------------------------------------------------------------------
# Small helpers


def estimate_tokens(text: str) -> int:
    """A rough token count (~4 characters per token) for things too big to be worth counting."""
    return len(text) // 4 + 1


def relative_path(path: str, repo_root: str = "") -> str:
    """`path` relative to the repository root, with forward slashes and no leading `./`."""
    normalised = path.replace("\\", "/")
    root = repo_root.replace("\\", "/").rstrip("/")
    if root and (normalised == root or normalised.startswith(root + "/")):
        normalised = normalised[len(root) :].lstrip("/")
    while normalised.startswith("./"):
        normalised = normalised[2:]
    return normalised


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _with_note(item: ContextItem, note: str) -> ContextItem:
    return ContextItem(
        item.section,
        item.path,
        item.symbol,
        item.start_line,
        item.end_line,
        item.kind,
        item.score,
        item.tokens,
        item.reason,
        item.chunk_id,
        note,
    )


def _route_name(route: Route | str) -> str:
    return str(route.name) if isinstance(route, Route) else str(route)
