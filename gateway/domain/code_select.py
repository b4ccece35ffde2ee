"""Granular selection: what of a relevant class, long residue chunk or enclosing function goes into the
block.

A class longer than `BudgetPolicy.header_min_lines` is shown as a compact header — its signature,
its fields and the list of its members, one line each — so a whole large class never pushes out the very
methods the prompt is about; those keep their own rank (pulled up behind the header, a class's weak
members — constructors, event callbacks — displaced stronger hits: rxjs-arch-04/06, pytest-arch-04; bench
hook sym NDCG@10 +0.009 rxjs, +0.006 pytest, no set lower).
A long module-level chunk (file residue) that contains other candidates gives way to them at its rank:
dedup keeps the more specific chunk. A function stays whole (its nested closures are fragments of it,
not better answers), and when a closure ranks above the function that encloses it, that function — if
short enough to show whole — takes the closure's place and rank: shown first, the closure would cut its
own enclosing code as an overlap (`ready.runHooks` shown, `ready`, whose body holds the bug, cut). A
longer enclosing function (or class) keeps its own rank and is shown with the blocks already shown inside
it elided (code_section `_enclosed`): measured on the bug-fix commit sets, hook sym NDCG@10 fastify
0.756 → 0.814, express 0.794 → 0.812, mobx 0.420 → 0.446, the rest equal; the corpus sets within −0.008
(a gold hit at rank 10 pushed out on fastify and mobx); 1–5 % more tokens.
A candidate whose every line is on screen inside a block already shown costs nothing more: it is listed
where it ranks, "shown inside" that block, at 0 tokens (code_section), so the reply names each definition
the block shows. Measured on the bug-fix commit sets, whose gold is often a closure: hook sym NDCG@10 rxjs
0.753 → 0.785, fastify 0.814 → 0.864, express 0.812 → 0.821; corpus sets reporecall +0.015, mobx +0.011,
fastify −0.006, express −0.007 (a listed closure taking a slot above a gold hit), the rest within 0.003.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from gateway.domain.context_types import BudgetPolicy, CodeCandidate
from gateway.domain.doc_trim import comment_spans
from kit.domain import Chunk, ChunkKind

CLASS_KINDS = frozenset({ChunkKind.CLASS, ChunkKind.INTERFACE, ChunkKind.ENUM, ChunkKind.TYPE})
# Definitions that enclose closures: a short one takes the place of what it encloses that ranked above it.
FUNCTION_KINDS = frozenset({ChunkKind.FUNCTION, ChunkKind.METHOD})
# Why a closure gave way to its enclosing function; it is then listed inside that block (code_section), or
# placed itself when the function was cut or trimmed before it — never cut with this reason.
ENCLOSED = "shown inside its enclosing function"
# Chunks that are a file's residue rather than one definition: they give way to what they contain.
RESIDUE_KINDS = frozenset({ChunkKind.MODULE, ChunkKind.FILE})
# A member line longer than this is cut (a one-line signature, not a body).
MEMBER_LINE_CHARS = 120
_CLOSERS = re.compile(r"^[\s})\];,]*$")
_COMMENT = re.compile(r"^\s*(//|/\*|\*|#(?=\s|$)|\"\"\"|''')")


@dataclass(frozen=True, slots=True)
class Selected:
    """A candidate as it will be placed: `header` is true when only the class header is shown."""

    candidate: CodeCandidate
    header: bool = False


@dataclass(frozen=True, slots=True)
class Replaced:
    """A candidate that gave way to the more specific candidates inside it, or to the short function
    that encloses it."""

    candidate: CodeCandidate
    why: str = "replaced by the more specific chunks inside it"
    # A closure stood in for by its enclosing function: it is placed after all when that function was
    # cut, or trimmed before the closure's lines.
    unless_missing: bool = False


def select_granular(ordered: Sequence[CodeCandidate], policy: BudgetPolicy) -> list[Selected | Replaced]:
    """The candidates in placing order; large classes become headers, long residue chunks give way, a
    short enclosing function takes the place of the closures inside it that rank above it."""
    inner = _contained(ordered, policy)
    enclosing = _enclosing_functions(ordered, policy)
    out: list[Selected | Replaced] = []
    placed: set[int] = set()

    def place(j: int) -> None:
        if j in placed:
            return
        outer = enclosing.get(j)
        if outer is not None and outer not in placed:
            placed.add(outer)  # at the closure's rank: it stands in for the closure
            out.append(Selected(_stand_in(ordered[outer], ordered[j])))
        if outer is not None:
            placed.add(j)
            out.append(Replaced(ordered[j], ENCLOSED, unless_missing=True))
            return
        placed.add(j)
        candidate = ordered[j]
        if _is_large_class(candidate.chunk, policy):
            out.append(Selected(candidate, header=True))
        elif j in inner:
            out.append(Replaced(candidate))
        else:
            out.append(Selected(candidate))
        for k in inner.get(j, ()):  # the more specific chunks take the residue's rank
            place(k)

    for i in range(len(ordered)):
        place(i)
    return out


def _contained(ordered: Sequence[CodeCandidate], policy: BudgetPolicy) -> dict[int, list[int]]:
    """For each long residue candidate (module or file chunk), the later-or-earlier candidates strictly
    inside its lines."""
    inner: dict[int, list[int]] = {}
    by_path: dict[str, list[int]] = {}
    for i, c in enumerate(ordered):
        by_path.setdefault(c.chunk.path, []).append(i)
    for i, outer in enumerate(ordered):
        o = outer.chunk
        if o.kind not in RESIDUE_KINDS or _lines(o) <= policy.header_min_lines:
            continue
        contained = [
            j
            for j in by_path[o.path]
            if j != i
            and ordered[j].chunk.id != o.id
            and o.start_line <= ordered[j].chunk.start_line
            and ordered[j].chunk.end_line <= o.end_line
            and (ordered[j].chunk.start_line, ordered[j].chunk.end_line) != (o.start_line, o.end_line)
        ]
        if contained:
            inner[i] = contained
    return inner


def _enclosing_functions(ordered: Sequence[CodeCandidate], policy: BudgetPolicy) -> dict[int, int]:
    """Candidate index → the index of the innermost later-ranked function or method that strictly
    encloses it (a closure, or a type or class declared in its body) and is at most `header_min_lines`
    long (a longer one, such as a factory wrapping a whole module, would spend the block on code the
    prompt did not ask for)."""
    by_path: dict[str, list[int]] = {}
    for i, candidate in enumerate(ordered):
        if candidate.chunk.kind not in RESIDUE_KINDS:
            by_path.setdefault(candidate.chunk.path, []).append(i)
    found: dict[int, int] = {}
    for same_file in by_path.values():
        for n, i in enumerate(same_file):
            inner = ordered[i].chunk
            enclosing = [
                k
                for k in same_file[n + 1 :]
                if ordered[k].chunk.kind in FUNCTION_KINDS and _encloses(ordered[k].chunk, inner, policy)
            ]
            if enclosing:
                found[i] = min(enclosing, key=lambda k: _lines(ordered[k].chunk))
    return found


def _stand_in(outer: CodeCandidate, closure: CodeCandidate) -> CodeCandidate:
    """The enclosing function as it takes its closure's place: the stronger of the two's score, reason
    and search strength, so the adaptive stop judges it as it would the closure."""
    lead = closure if closure.score >= outer.score else outer
    return replace(
        outer, score=lead.score, reason=lead.reason, strength=max(outer.strength, closure.strength)
    )


def _encloses(outer: Chunk, inner: Chunk, policy: BudgetPolicy) -> bool:
    return (
        _lines(outer) <= policy.header_min_lines
        and outer.id != inner.id
        and outer.start_line <= inner.start_line
        and inner.end_line <= outer.end_line
        and (outer.start_line, outer.end_line) != (inner.start_line, inner.end_line)
    )


def _lines(chunk: Chunk) -> int:
    return chunk.end_line - chunk.start_line + 1


def _is_large_class(chunk: Chunk, policy: BudgetPolicy) -> bool:
    return chunk.kind in CLASS_KINDS and chunk.end_line - chunk.start_line + 1 > policy.header_min_lines


def class_header(chunk: Chunk) -> str:
    """The class's signature, fields and member list: its first line(s) up to the body, then every
    line at the members' indentation that declares something (comments and closers left out)."""
    return class_header_mapped(chunk)[0]


def class_header_mapped(chunk: Chunk) -> tuple[str, list[int]]:
    """The class header and, for each of its lines, the index of the content line it shows (the
    `…` line counts as the last member), so trimmed headers report exact source lines."""
    lines = chunk.content.splitlines()
    if not lines:
        return "", []
    # Whole comment and docstring spans are left out, not just the lines that open them.
    in_comment = comment_spans(lines, chunk.language)

    def comment(k: int) -> bool:
        return k in in_comment or bool(_COMMENT.match(lines[k]))

    start = _declaration_index(lines, chunk.signature)
    # Decorators / attributes just above the declaration belong to it; comments do not.
    head = [k for k in range(start + 1) if lines[k].strip() and (k == start or not comment(k))][-4:]
    body = range(start + 1, len(lines))
    indents = [
        _indent(lines[k])
        for k in body
        if lines[k].strip() and not comment(k) and not _CLOSERS.match(lines[k])
    ]
    if not indents:
        return "\n".join(lines[k] for k in head) + "\n", head
    member_indent = min(indents)
    # A body that closes at the class's own indent (`}` / `};`): its last line ends the header.
    members = [
        k
        for k in body
        if lines[k].strip()
        and _indent(lines[k]) == member_indent
        and not _CLOSERS.match(lines[k])
        and not comment(k)
    ]
    last = len(lines) - 1
    tail = (
        [last]
        if last > start and _CLOSERS.match(lines[last]) and _indent(lines[last]) < member_indent
        else []
    )
    text = [*(lines[k] for k in head), *(_cut(lines[k]) for k in members)]
    line_map = [*head, *members]
    if members:
        text.append(" " * member_indent + "…")
        line_map.append(members[-1])
    text += [lines[k] for k in tail]
    line_map += tail
    return "\n".join(text) + "\n", line_map


def header_chunk(chunk: Chunk) -> Chunk:
    """The chunk with its content replaced by its class header (same path, lines and names)."""
    return replace(chunk, content=class_header(chunk))


def _declaration_index(lines: Sequence[str], signature: str) -> int:
    first = signature.strip().splitlines()[0].strip()[:60] if signature.strip() else ""
    for i, line in enumerate(lines[:200]):
        if first and first in line:
            return i
    for i, line in enumerate(lines[:200]):
        if line.strip() and not _COMMENT.match(line) and not line.lstrip().startswith("@"):
            return i
    return 0


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _cut(line: str) -> str:
    line = line.rstrip()
    return line if len(line) <= MEMBER_LINE_CHARS else line[: MEMBER_LINE_CHARS - 1] + "…"
