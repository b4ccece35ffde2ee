"""The values context assembly takes and returns (DESIGN.md §6), and the small helpers they share.

Pure data: no I/O, no rendering. `assembly.assemble_context` is the entry point that uses them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import StrEnum

from gateway.domain.routing import Route
from gateway.domain.utf16 import TEXT_CAP
from kit.domain import Chunk

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


REASON_ORDER = {reason.value: i for i, reason in enumerate(CandidateReason)}


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
    # A search hit's own score over the top search hit's (1.0 for every other candidate): fusion ranks
    # by reciprocal ranks, which say nothing of how far below the top a hit scored.
    strength: float = 1.0


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
    # A code block may take at most this share of the budget — the first block and the definitions the
    # prompt named (seeds) `lead_block_max_share`, any other `block_max_share`: a longer one is trimmed
    # to it (signature and first lines, the rest marked as elided with its lines), so one long function
    # at rank 4 does not cost the three short ones after it, nor a 100-line data file at rank 1 the
    # whole block. Measured on the 8 bench corpora: the same symbol NDCG@10 or better, 5–19 % fewer
    # tokens (bench/results/2026-12-02).
    lead_block_max_share: float = 0.4
    block_max_share: float = 0.1
    # A class longer than this many lines is shown as its header (signature, fields, members), a
    # longer module-level chunk gives way to the candidates inside it, and a function at most this long
    # takes the place of a closure (or a type declared in it) that ranked above it (code_select.py).
    header_min_lines: int = 40
    # A function or class overlapping only blocks already shown inside it is shown with them elided when
    # at least this many of its other lines hold code; else it is cut as an overlap (code_section.py).
    enclosing_rest_lines: int = 3
    # Doc comments longer than this many lines are cut to their first sentence (doc_trim.py).
    doc_max_lines: int = 4
    # Adaptive stop: once `stop_min_items` code blocks are in, a candidate scoring below
    # `stop_ratio[route]` × the best candidate's score ends the code section, unless it covers a prompt
    # term that nothing shown covers yet (routes not listed have no such ratio). Fusion scores are
    # reciprocal-rank sums, so a ratio is close to a rank limit for one-source candidates (0.55 ≈ rank 10)
    # while a candidate several sources agree on stays in; the values were chosen on the express and
    # rxjs sets (bench/results), lookups cut hardest.
    stop_min_items: int = 2
    # ...and, on every route (0: never), a search hit scoring below this share of the top search hit's
    # score (search's own scores, not ranks) unless it names an uncovered prompt term. Measured on the
    # bench's code prompts (8 corpus sets, 7 bug-fix commit sets, bench/README): 3 % of the search hits
    # injected below 0.2 of the top were a gold definition, against 24 % of all injected hits. Since the
    # file context scores a hit up to ×1.4, 0.15 is about that same cut (0.2 there: −0.002 / −0.003 sym
    # NDCG@10 on the corpus / commit sets for 6 % fewer tokens).
    stop_search_strength: float = 0.15
    stop_ratio: tuple[tuple[str, float], ...] = (
        ("lookup", 0.55),
        ("bug", 0.5),
        ("flow", 0.45),
        ("architecture", 0.3),
    )


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
    return AssembledContext("", 0, 0, route_name(route), (), tuple(cut), partial)


def route_name(route: Route | str) -> str:
    return str(route.name) if isinstance(route, Route) else str(route)


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


def one_line(text: str) -> str:
    return " ".join(text.split())


def with_note(item: ContextItem, note: str) -> ContextItem:
    return replace(item, note=note)
