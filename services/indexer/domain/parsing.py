"""Parse one file into chunks, call sites and imports (DESIGN.md §4).

What a language contributes is data: `services/indexer/queries/<language>.scm`, a tree-sitter query
written in a small capture vocabulary (a first line `; inherits: a, b` prepends other query files,
e.g. the shared `_ecmascript.scm`). This module is generic over that vocabulary:

    @definition.function / .method / .class / .interface / .enum / .type   a definition; needs @name,
        optional @body (where the signature ends, default: the node's `body` field), @doc (a docstring
        node, e.g. Python's) and @parent (owner named outside the node, e.g. a Go method's receiver
        type); `(#set! definition.test "true")` flags it as a test (Zig `test "…" {}`)
    @scope / @scope.type     a container that makes no chunk of its own; with @name it qualifies the
                             definitions inside (Rust impl, Ruby module, TS namespace), without it is
                             transparent (C++/C#/PHP namespaces); in a `.type` scope functions are methods
    @call                    a call; needs @call.name, optional @call.receiver
    @import                  an import; needs @import.target, optional @import.name (repeatable);
                             `(#set! import.prefix "…")` prepends to the target (Rust `mod x;` → self::x),
                             `(#set! import.span "true")` joins several captured segments (Scala `a.b.C`)
    @section                 a preferred split point for file-level chunks (Markdown heading, TOML table)
    @skip                    boilerplate lines that alone never make a module-level chunk (Go `package`)
    @comment                 comment lines, likewise ignored when deciding whether module code is trivial
    @embed.content           text in another language (Vue/HTML <script>), parsed with the grammar named by
                             @embed.language or `(#set! embed.language "…")`, in the same line numbering
    @_anything               helper captures for predicates (#eq?, #match?), otherwise ignored

Chunks: each named definition (methods with their class as parent and `Class.method` as qualified
name; functions nested in functions as `outer.inner`, so a closure, a route handler or a factory's
returned function is found by its name; declarations without a body such as interface members, trait
methods and `declare function` are chunks too). Adjacent same-named callables of one container where
the first is a declaration or decorated (TypeScript overload signatures, Python `@overload` stubs, a
property's getter and setter) make one chunk. Classes and functions longer than `LARGE_CLASS_LINES`
become an outline (header, fields, member signatures) beside their members' chunks, smaller ones keep
their full text. A definition whose name is empty, multi-line or longer than `MAX_NAME_CHARS` (minified
code) is dropped on its own with a warning, its lines left to module text: one bad definition never
costs the rest of the file. Lines outside definitions become MODULE chunks unless
trivial (blank, comments, imports, @skip, fewer than `MIN_MODULE_LINES` code lines and no call); a
file without definitions becomes FILE chunks (CSS, TOML, Markdown, JSON, YAML, SQL, text …). Long
module regions are split into pieces of at most `MAX_MODULE_PIECE_LINES` lines and file regions of at
most `MAX_PIECE_LINES`, preferably at sections
or top-level statements, else after a blank line. A chunk's content is its whole lines, starting at
the definition's leading comment/decorator/attribute block. FILE and MODULE chunks are named after
the file (name = base name, qualified name = path); their ordinal tells the pieces apart.

Call sites belong to the innermost chunk containing their line (module-level calls to the MODULE
chunk). Nothing here raises on bad input: a definition containing a syntax error is indexed as
module text, and unparsable or binary content as file-level chunks, each with a warning.
"""

from __future__ import annotations

import bisect
import inspect
import re
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from tree_sitter import Language, Node, Parser, Query, QueryCursor, Tree
from tree_sitter_language_pack import get_language

from kit.domain import CallSite, Chunk, ChunkKind, Import
from kit.paths import is_test_path
from services.indexer.domain.ids import chunk_id, content_hash
from services.indexer.domain.languages import LANGUAGE_ALIASES, TEXT_LANGUAGES, detect_language

QUERY_DIR = Path(__file__).resolve().parent.parent / "queries"

MAX_PIECE_LINES = 150  # longest module/file piece; long regions are split below this
MIN_PIECE_LINES = 40  # a split never leaves a piece shorter than this (unless the region is)
MIN_MODULE_LINES = 2  # module-level code shorter than this (and calling nothing) makes no chunk
LARGE_CLASS_LINES = 120  # classes longer than this are indexed as an outline plus their methods
MAX_SIGNATURE_CHARS = 400
MAX_DOC_CHARS = 2000
MAX_RECEIVER_CHARS = 80
MAX_NAME_CHARS = 200
MAX_MODULE_PIECE_LINES = 60  # module-level residue is split smaller, so it never hides what it holds
MIN_MODULE_PIECE_LINES = 15

_DEFINITION_KINDS: dict[str, ChunkKind] = {
    "definition.function": ChunkKind.FUNCTION,
    "definition.method": ChunkKind.METHOD,
    "definition.class": ChunkKind.CLASS,
    "definition.interface": ChunkKind.INTERFACE,
    "definition.enum": ChunkKind.ENUM,
    "definition.type": ChunkKind.TYPE,
}
# When two patterns capture the same node, the more specific kind wins (Go `type X struct` is a class).
_PRIORITY = {ChunkKind.ENUM: 0, ChunkKind.INTERFACE: 0, ChunkKind.FUNCTION: 0, ChunkKind.METHOD: 0,
             ChunkKind.CLASS: 1, ChunkKind.TYPE: 2}  # fmt: skip
_CALLABLE = frozenset({ChunkKind.FUNCTION, ChunkKind.METHOD})
_CONTAINER = frozenset({ChunkKind.CLASS, ChunkKind.INTERFACE, ChunkKind.ENUM})
# Nodes that only wrap a definition (export, decorators, templates): its chunk starts where they start.
_WRAPPER_TYPES = frozenset(
    {"decorated_definition", "export_statement", "template_declaration", "ambient_declaration"}
)
# Siblings directly above a definition that belong to it: doc comments and attributes/annotations.
_ATTRIBUTE_TYPES = frozenset(
    {"decorator", "attribute_item", "inner_attribute_item", "attribute", "annotation", "marker_annotation",
     "attribute_list", "attributes", "modifiers"}
)  # fmt: skip
_TEST_QUALIFIERS = frozenset({"test", "tests"})
_CONTROL_BYTES = bytes(b for b in range(32) if b not in b"\t\n\r\f\v")
_OPENING_BRACKET = re.compile(rb"[{(\[]")
_TRIVIAL_LINE = re.compile(rb"^[\s{}()\[\];,]*(?:end|fi|done|esac|\?>|<\?php)?[\s{}()\[\];,]*$")
_STRING_PREFIX = re.compile(r"^[rRuUbBfF]{0,2}(\"\"\"|'''|\"|')")
_COMMENT_START = re.compile(r"^\s*(?:/\*+!?|\*+(?!/)|///?!?|#+!?|--+(?:\[=*\[)?|;+|<!--|%+|'+)\s?")
_COMMENT_END = re.compile(r"\s*(?:\*+/|-->|\]=*\])\s*$")


@dataclass(frozen=True)
class ParsedFile:
    """Everything one file contributes to search (chunks) and to the graph (call sites, imports).

    `imports` are unresolved here (resolved_path empty, external False); resolve them with
    `services.indexer.domain.imports.resolve_imports` once the repo's file list is known.
    """

    language: str
    chunks: tuple[Chunk, ...]
    call_sites: tuple[CallSite, ...]
    imports: tuple[Import, ...]
    warnings: tuple[str, ...]


def parse_file(repo: str, path: str, source: bytes, language: str | None = None) -> ParsedFile:
    """Chunks, call sites and imports of one file. Never raises; problems become `warnings`.

    `path` is repo-relative with forward slashes; `language` overrides `detect_language(path)`.
    Unknown languages and text kinds give file-level chunks only.
    """
    language = language or detect_language(path) or "text"
    source_file = _SourceFile(source)
    warnings: list[str] = []
    if source_file.looks_binary():
        warnings.append(f"{path}: content looks binary; indexed as plain text")
        return _file_only(repo, path, language, source_file, warnings)
    try:
        grammar = _grammar(language)
    except Exception as error:  # a broken query file or grammar must not abort a run
        warnings.append(f"{path}: no usable grammar for {language!r} ({error}); indexed as plain text")
        return _file_only(repo, path, language, source_file, warnings)
    if grammar is None:
        return _file_only(repo, path, language, source_file, warnings)
    try:
        return _parse_structured(repo, path, language, grammar, source_file, warnings)
    except Exception as error:  # defensive: a grammar quirk must degrade to text, not abort a run
        warnings.append(f"{path}: parsing failed ({type(error).__name__}: {error}); indexed as plain text")
        return _file_only(repo, path, language, source_file, warnings)


# ---------------------------------------------------------------------------------------------------
# grammars


@dataclass(frozen=True)
class _Grammar:
    name: str
    language: Language
    query: Query
    settings: tuple[dict[str, str | None], ...]  # per pattern: its `#set!` properties


_grammar_lock = threading.Lock()
_grammars: dict[str, _Grammar | None] = {}
_thread_parsers = threading.local()


def _grammar(name: str) -> _Grammar | None:
    """The grammar and compiled query for `name`; None when the language has no query file."""
    try:
        return _grammars[name]
    except KeyError:
        pass
    with _grammar_lock:
        if name not in _grammars:
            text = _query_text(name)
            if text is None:
                _grammars[name] = None
            else:
                language = get_language(name)  # type: ignore[arg-type]
                query = Query(language, text)
                settings = tuple(query.pattern_settings(i) for i in range(query.pattern_count))
                _grammars[name] = _Grammar(name, language, query, settings)
        return _grammars[name]


_INHERITS = re.compile(r"^;\s*inherits:\s*(.+)$", re.MULTILINE)


def _query_text(name: str) -> str | None:
    """The query file of `name`, with the files named on its `; inherits: a, b` line prepended."""
    query_file = QUERY_DIR / f"{name}.scm"
    if not query_file.is_file():
        return None
    text = query_file.read_text(encoding="utf-8")
    parts: list[str] = []
    match = _INHERITS.search(text)
    if match:
        for parent in match.group(1).split(","):
            inherited = _query_text(parent.strip())
            if inherited is None:
                raise FileNotFoundError(f"{query_file.name} inherits missing query {parent.strip()!r}")
            parts.append(inherited)
    parts.append(text)
    return "\n".join(parts)


def _parser(grammar: _Grammar) -> Parser:
    """A parser per thread and language: tree-sitter parsers are not safe to share between threads."""
    parsers: dict[str, Parser] | None = getattr(_thread_parsers, "parsers", None)
    if parsers is None:
        parsers = _thread_parsers.parsers = {}
    parser = parsers.get(grammar.name)
    if parser is None:
        parser = parsers[grammar.name] = Parser(grammar.language)
    return parser


# ---------------------------------------------------------------------------------------------------
# source text


class _SourceFile:
    """The file's bytes with a line index; rows are 0-based here and 1-based in chunks."""

    def __init__(self, source: bytes) -> None:
        self.data = source
        starts = [0]
        starts.extend((np.flatnonzero(np.frombuffer(source, dtype=np.uint8) == 10) + 1).tolist())
        if len(starts) > 1 and starts[-1] == len(source):
            starts.pop()  # a final newline does not open another line
        self.line_starts = starts
        self.line_count = len(starts) if source else 0
        self.data_end = len(source) - 1 if source.endswith(b"\n") else len(source)

    def looks_binary(self) -> bool:
        head = self.data[:8192]
        if b"\x00" in head:
            return True
        control = len(head) - len(head.translate(None, _CONTROL_BYTES))
        try:
            head.decode("utf-8")
            invalid = 0
        except UnicodeDecodeError as error:
            invalid = (
                0 if error.start >= len(head) - 4 else head.decode("utf-8", errors="replace").count("\ufffd")
            )
        return control + invalid > len(head) * 0.1

    def line(self, row: int) -> bytes:
        end = self.line_starts[row + 1] - 1 if row + 1 < len(self.line_starts) else self.data_end
        return self.data[self.line_starts[row] : end]

    def lines_text(self, first: int, last: int) -> str:
        """Rows first..last (inclusive) as text, without the final line break."""
        start = self.line_starts[first]
        end = self.line_starts[last + 1] - 1 if last + 1 < len(self.line_starts) else self.data_end
        text = _decode(self.data[start:end])
        return text[:-1] if text.endswith("\r") else text

    def is_blank(self, row: int) -> bool:
        return not self.line(row).strip()

    def is_trivial(self, row: int) -> bool:
        return _TRIVIAL_LINE.match(self.line(row)) is not None

    def starts_line(self, node: Node) -> bool:
        """Whether only whitespace precedes `node` on its first line."""
        start = node.start_byte
        return not self.data[self.line_starts[node.start_point.row] : start].strip()

    def indent(self, row: int) -> int:
        line = self.line(row)
        return len(line) - len(line.lstrip())


def _decode(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace")
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    if "\x00" in text:
        text = text.replace("\x00", "\ufffd")
    return text


def _text(node: Node) -> str:
    return _decode(node.text or b"")


# ---------------------------------------------------------------------------------------------------
# raw captures


@dataclass(eq=False)
class _Definition:
    kind: ChunkKind
    node: Node
    name: str
    name_key: int
    parent_hint: str = ""
    body: Node | None = None
    doc_node: Node | None = None
    is_test: bool = False
    outer: Node | None = None  # the node with its wrappers (export, decorators); set by _place
    container: _Definition | _Scope | None = None
    children: list[_Definition] = field(default_factory=list)
    emitted: bool = True
    qualifiers: tuple[str, ...] = ()
    start_row: int = 0
    end_row: int = 0
    doc: str = ""
    pattern: int = 0  # index of the query pattern that captured it: the first one wins for one node

    @property
    def start(self) -> int:
        return self.node.start_byte

    @property
    def end(self) -> int:
        return self.node.end_byte


@dataclass(eq=False)
class _Scope:
    node: Node
    name: str
    typed: bool
    container: _Definition | _Scope | None = None

    @property
    def start(self) -> int:
        return self.node.start_byte

    @property
    def end(self) -> int:
        return self.node.end_byte


@dataclass
class _Captures:
    definitions: list[_Definition] = field(default_factory=list)
    scopes: list[_Scope] = field(default_factory=list)
    calls: dict[int, tuple[int, str, str]] = field(default_factory=dict)  # name start byte → row, name, recv
    # (import node start, target) → (first row, last row, imported names)
    imports: dict[tuple[int, str], tuple[int, int, list[str]]] = field(default_factory=dict)
    sections: dict[int, str] = field(default_factory=dict)  # row → header text
    skip_rows: set[int] = field(default_factory=set)  # boilerplate: @skip nodes, scope headers and closers
    comment_rows: set[int] = field(default_factory=set)
    spans: dict[int, list[int]] = field(default_factory=dict)  # import node start → target byte span
    trees: list[Tree] = field(default_factory=list)  # keeps embedded trees alive with their nodes
    error_rows: list[int] = field(default_factory=list)
    has_error: bool = False
    bad_names: int = 0  # definitions dropped for a name no symbol can carry


def _collect(
    grammar: _Grammar, tree: Tree, source_file: _SourceFile, captures: _Captures, depth: int
) -> None:
    """Run the language's query over `tree` and sort what it captured into `captures`."""
    captures.trees.append(tree)
    root = tree.root_node
    if root.has_error:
        captures.has_error = True
        captures.error_rows.extend(_error_rows(grammar, root))
    embeds: dict[int, tuple[Node, str | None]] = {}
    data = source_file.data
    calls = captures.calls
    for pattern, caps in QueryCursor(grammar.query).matches(root):
        if "call" in caps:  # the most frequent capture by far: keep this branch lean
            names = caps.get("call.name")
            if names:
                name_node = names[-1]
                start = name_node.start_byte
                receiver_nodes = caps.get("call.receiver")
                if receiver_nodes:
                    receiver_node = receiver_nodes[0]
                    receiver = data[receiver_node.start_byte : receiver_node.end_byte].decode(
                        "utf-8", "replace"
                    )
                    if len(receiver) > MAX_RECEIVER_CHARS or "\n" in receiver:
                        receiver = " ".join(receiver.split())[-MAX_RECEIVER_CHARS:]
                elif start in calls:
                    continue
                else:
                    receiver = ""
                if receiver or start not in calls:
                    name = data[start : name_node.end_byte].decode("utf-8", "replace")
                    calls[start] = (name_node.start_point.row, name, receiver)
            continue
        if "import" in caps:
            targets = caps.get("import.target")
            if targets:
                node = caps["import"][0]
                settings = grammar.settings[pattern]
                if settings.get("import.span"):
                    # one node per path segment: the target is the text they span together
                    span = captures.spans.setdefault(
                        node.start_byte, [targets[0].start_byte, targets[-1].end_byte]
                    )
                    span[0] = min(span[0], targets[0].start_byte)
                    span[1] = max(span[1], targets[-1].end_byte)
                    key = (node.start_byte, "")
                else:
                    key = (
                        node.start_byte,
                        (settings.get("import.prefix") or "") + _clean_spec(_text(targets[0])),
                    )
                entry = captures.imports.setdefault(key, (node.start_point.row, node.end_point.row, []))
                for name_node in caps.get("import.name", ()):
                    name = _clean_spec(_text(name_node))
                    if name and name not in entry[2]:
                        entry[2].append(name)
            continue
        kind_key = next((key for key in caps if key in _DEFINITION_KINDS), None)
        if kind_key is not None:
            name_nodes = caps.get("name")
            if not name_nodes:
                continue
            name = _clean_spec(" ".join(_text(name_nodes[0]).split()))
            if not _valid_name(name):
                captures.bad_names += (
                    1  # e.g. `{"": function(){}}` in minified code: its lines stay module text
                )
                continue
            parent_nodes = caps.get("parent")
            body_nodes = caps.get("body")
            doc_nodes = caps.get("doc")
            captures.definitions.append(
                _Definition(
                    kind=_DEFINITION_KINDS[kind_key],
                    node=caps[kind_key][0],
                    name=name,
                    name_key=name_nodes[0].start_byte,
                    parent_hint=_text(parent_nodes[0]) if parent_nodes else "",
                    body=body_nodes[0] if body_nodes else None,
                    doc_node=doc_nodes[0] if doc_nodes else None,
                    is_test=bool(grammar.settings[pattern].get("definition.test")),
                    pattern=pattern,
                )
            )
            continue
        if "scope" in caps or "scope.type" in caps:
            typed = "scope.type" in caps
            name_nodes = caps.get("name")
            node = caps["scope.type" if typed else "scope"][0]
            captures.scopes.append(_Scope(node, _text(name_nodes[0]) if name_nodes else "", typed))
            # its header (`impl Foo {`, `module Greeting`) and closing lines are no module code of their own
            body_nodes = caps.get("body")
            body = body_nodes[0] if body_nodes else node.child_by_field_name("body")
            first = node.start_point.row
            header_end = max(first, body.start_point.row - 1) if body is not None else first
            captures.skip_rows.update(range(first, header_end + 1))
            if node.end_point.row > header_end:
                captures.skip_rows.add(node.end_point.row)
            continue
        if "section" in caps:
            node = caps["section"][0]
            row = node.start_point.row
            captures.sections.setdefault(row, _decode(source_file.line(row)).strip())
            continue
        if "skip" in caps:
            node = caps["skip"][0]
            captures.skip_rows.update(range(node.start_point.row, node.end_point.row + 1))
            continue
        if "comment" in caps:
            node = caps["comment"][0]
            row = node.start_point.row
            if source_file.starts_line(node):
                captures.comment_rows.update(range(row, node.end_point.row + 1))
            continue
        if "embed.content" in caps:
            node = caps["embed.content"][0]
            language_nodes = caps.get("embed.language")
            if language_nodes:  # an explicit lang/type attribute overrides the pattern's default
                embeds[node.start_byte] = (
                    node,
                    LANGUAGE_ALIASES.get(_text(language_nodes[0]).strip().lower()),
                )
            elif node.start_byte not in embeds:
                default = grammar.settings[pattern].get("embed.language")
                embeds[node.start_byte] = (node, LANGUAGE_ALIASES.get(default or ""))
    if depth == 0:
        for node, embedded_language in embeds.values():
            if embedded_language is None or node.start_byte == node.end_byte:
                continue
            embedded = _grammar(embedded_language)
            if embedded is None:
                continue
            parser = Parser(embedded.language, included_ranges=[node.range])
            _collect(embedded, parser.parse(source_file.data), source_file, captures, depth + 1)


def _error_rows(grammar: _Grammar, root: Node) -> list[int]:
    query = _error_query(grammar)
    rows = [node.start_point.row for node in QueryCursor(query).captures(root).get("error", [])]
    return rows


_error_queries: dict[str, Query] = {}


def _error_query(grammar: _Grammar) -> Query:
    query = _error_queries.get(grammar.name)
    if query is None:
        query = _error_queries[grammar.name] = Query(grammar.language, "(ERROR) @error")
    return query


def _valid_name(name: str) -> bool:
    """A name a symbol can carry: non-empty, one line, bounded, no control characters."""
    return 0 < len(name) <= MAX_NAME_CHARS and name.isprintable()


def _clean_spec(text: str) -> str:
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'`":
        text = text[1:-1]
    return text


# ---------------------------------------------------------------------------------------------------
# structure


def _parse_structured(
    repo: str, path: str, language: str, grammar: _Grammar, source_file: _SourceFile, warnings: list[str]
) -> ParsedFile:
    tree = _parser(grammar).parse(source_file.data)
    captures = _Captures()
    _collect(grammar, tree, source_file, captures, depth=0)
    if captures.has_error and language not in TEXT_LANGUAGES:
        rows = sorted(set(captures.error_rows))
        where = f"line {rows[0] + 1}" if rows else "a missing token"
        more = f" (and {len(rows) - 1} more)" if len(rows) > 1 else ""
        warnings.append(f"{path}: syntax error at {where}{more}; affected definitions indexed as text")

    if captures.bad_names:
        warnings.append(
            f"{path}: {captures.bad_names} definition(s) without a usable name (empty, multi-line or over "
            f"{MAX_NAME_CHARS} characters); their lines are indexed as module text"
        )
    definitions = _arrange(captures)
    for definition in definitions:
        _place(definition, source_file)
    _merge_overloads(definitions, source_file)
    emitted = [d for d in definitions if d.emitted]

    test_file = is_test_path(path)
    drafts = [_definition_draft(definition, source_file, test_file) for definition in emitted]
    if drafts:
        drafts.extend(_module_drafts(path, tree, source_file, captures, emitted, test_file))
    else:  # nothing extractable: the file itself is the chunk (split at sections when long)
        drafts = _file_drafts(path, source_file, captures.sections, test_file)

    chunks = _finish(repo, path, language, drafts)
    call_sites = _call_sites(chunks, captures, source_file)
    imports = _imports(path, captures, source_file)
    return ParsedFile(language, chunks, call_sites, imports, tuple(warnings))


def _imports(path: str, captures: _Captures, source_file: _SourceFile) -> tuple[Import, ...]:
    """Imports in source order; two patterns seeing the same import on one line merge their names."""
    merged: dict[tuple[int, str], list[str]] = {}
    for (start, target), (row, _, names) in sorted(
        captures.imports.items(), key=lambda item: (item[1][0], item[0])
    ):
        if not target and start in captures.spans:
            first, last = captures.spans[start]
            target = "".join(_decode(source_file.data[first:last]).split())
        if target:
            known = merged.setdefault((row, target), [])
            known.extend(name for name in names if name not in known)
    return tuple(
        Import(path=path, target=target, names=tuple(names), line=row + 1)
        for (row, target), names in merged.items()
    )


def _arrange(captures: _Captures) -> list[_Definition]:
    """Deduplicate definitions, link each to its container, and decide which become chunks."""
    by_node: dict[tuple[int, int], _Definition] = {}
    for definition in sorted(
        captures.definitions, key=lambda d: (_PRIORITY[d.kind], not d.parent_hint, d.pattern)
    ):
        by_node.setdefault((definition.start, definition.end), definition)  # one node, one name
    unique: dict[int, _Definition] = {}
    for definition in sorted(
        by_node.values(), key=lambda d: (d.start, -d.end, _PRIORITY[d.kind], not d.parent_hint)
    ):
        unique.setdefault(definition.name_key, definition)  # the outermost, most specific capture wins
    definitions = list(unique.values())

    items: list[_Definition | _Scope] = [*definitions, *captures.scopes]
    items.sort(key=lambda item: (item.start, -item.end, isinstance(item, _Definition)))
    stack: list[_Definition | _Scope] = []
    for item in items:
        while stack and stack[-1].end <= item.start:
            stack.pop()
        while stack and stack[-1].end < item.end:  # partial overlap (error recovery): not a container
            stack.pop()
        item.container = stack[-1] if stack else None
        if isinstance(item.container, _Definition) and isinstance(item, _Definition):
            item.container.children.append(item)
        stack.append(item)

    for definition in definitions:  # sorted outer before inner: containers are settled first
        container = definition.container
        qualifiers: list[str] = []
        owner = container
        while owner is not None:
            if isinstance(owner, _Definition) or owner.name:
                qualifiers.append(owner.name)
            owner = owner.container
        qualifiers.reverse()
        if definition.parent_hint:
            qualifiers.append(definition.parent_hint)
        definition.qualifiers = tuple(qualifiers)
        if definition.kind in _CALLABLE:
            in_type = (
                bool(definition.parent_hint)
                or (isinstance(container, _Definition) and container.kind in _CONTAINER)
                or (isinstance(container, _Scope) and container.typed)
            )
            definition.kind = ChunkKind.METHOD if in_type else ChunkKind.FUNCTION
        if definition.node.has_error and not any(child.node.has_error for child in definition.children):
            definition.emitted = False  # the error is its own: its lines are indexed as module text
        if definition.node.has_error and definition.kind in _CALLABLE:
            definition.emitted = False
    return definitions


def _place(definition: _Definition, source_file: _SourceFile) -> None:
    """Line range (with leading comments, decorators and attributes) and doc of a definition."""
    node = definition.node
    outer = node
    while True:  # climb wrappers: export/decorator nodes, or a parent holding nothing but this definition
        parent = outer.parent
        if parent is None or parent.parent is None:
            break
        if parent.type not in _WRAPPER_TYPES and (
            parent.named_child_count != 1
            or parent.start_point.row != outer.start_point.row
            or _OPENING_BRACKET.search(source_file.data, parent.start_byte, outer.start_byte) is not None
        ):
            break  # a body or block around the definition is not a wrapper of it
        outer = parent
    start_row = outer.start_point.row
    comments: list[Node] = []
    sibling = outer.prev_named_sibling
    while sibling is not None and sibling.end_point.row >= start_row - 1:
        sibling_type = sibling.type
        is_comment = "comment" in sibling_type
        if not is_comment and sibling_type not in _ATTRIBUTE_TYPES:
            break
        row = sibling.start_point.row
        if not source_file.starts_line(sibling):
            break  # a trailing comment on a code line belongs to that line
        if is_comment:
            comments.append(sibling)
        start_row = row
        sibling = sibling.prev_named_sibling
    end_row = node.end_point.row
    if node.end_point.column == 0 and end_row > start_row:
        end_row -= 1
    definition.outer = outer
    definition.start_row = start_row
    definition.end_row = end_row
    if definition.doc_node is not None:
        definition.doc = _docstring(_text(definition.doc_node))
    elif comments:
        definition.doc = _comment_doc([_text(c) for c in reversed(comments)])


def _merge_overloads(definitions: list[_Definition], source_file: _SourceFile) -> None:
    """Adjacent same-named callables of one container that are declarations (TS overload signatures,
    Python `@overload` stubs, a property's getter before its setter) join the next one's chunk."""
    previous: dict[int, _Definition] = {}  # container id → last emitted callable seen in it
    for definition in sorted((d for d in definitions if d.emitted), key=lambda d: d.start_row):
        key = id(definition.container)
        before = previous.get(key)
        previous[key] = definition
        if (
            before is None
            or before.name != definition.name
            or before.kind not in _CALLABLE
            or definition.kind not in _CALLABLE
            or before.end_row >= definition.start_row
            or not (_is_declaration(before) or before.outer is not before.node)
            or any(not source_file.is_blank(row) for row in range(before.end_row + 1, definition.start_row))
        ):
            continue
        before.emitted = False
        definition.start_row = before.start_row
        definition.doc = definition.doc or before.doc


def _is_declaration(definition: _Definition) -> bool:
    return definition.body is None and definition.node.child_by_field_name("body") is None


def _docstring(text: str) -> str:
    match = _STRING_PREFIX.match(text)
    if match:
        quote = match.group(1)
        text = text[match.end() :]
        if text.endswith(quote):
            text = text[: -len(quote)]
    return inspect.cleandoc(text)[:MAX_DOC_CHARS]


def _comment_doc(comments: Iterable[str]) -> str:
    lines: list[str] = []
    for comment in comments:
        for line in comment.splitlines():
            line = _COMMENT_END.sub("", _COMMENT_START.sub("", line, count=1), count=1)
            lines.append(line.rstrip())
    while lines and not lines[0].strip():
        lines.pop(0)
    while lines and not lines[-1].strip():
        lines.pop()
    return inspect.cleandoc("\n".join(lines))[:MAX_DOC_CHARS]


def _signature(definition: _Definition, source_file: _SourceFile) -> str:
    """The declaration without its body, on one line: `def f(a: int) -> str`, `export function f()`."""
    node = definition.node
    outer = definition.outer or node
    start = outer.start_byte if outer.start_point.row == node.start_point.row else node.start_byte
    body = definition.body or node.child_by_field_name("body")
    if body is not None and body.start_byte > start:
        text = _decode(source_file.data[start : body.start_byte])
    else:
        row = node.start_point.row
        text = _decode(source_file.line(row)[start - source_file.line_starts[row] :])
    signature = " ".join(text.split()).rstrip(" {:")
    return signature[:MAX_SIGNATURE_CHARS]


# ---------------------------------------------------------------------------------------------------
# chunk drafts


@dataclass
class _Draft:
    kind: ChunkKind
    name: str
    qualified_name: str
    start_row: int
    end_row: int
    content: str
    parent: str = ""
    signature: str = ""
    doc: str = ""
    is_test: bool = False


def _definition_draft(definition: _Definition, source_file: _SourceFile, test_file: bool) -> _Draft:
    signature = _signature(definition, source_file)
    callable_ = definition.kind in _CALLABLE
    members = [
        child for child in definition.children if child.emitted and (callable_ or child.kind in _CALLABLE)
    ]
    rows = definition.end_row - definition.start_row + 1
    if members and rows > LARGE_CLASS_LINES:
        content = _outline(definition, members, source_file)
    else:
        content = source_file.lines_text(definition.start_row, definition.end_row)
    qualified = ".".join((*definition.qualifiers, definition.name))
    return _Draft(
        kind=definition.kind,
        name=definition.name,
        qualified_name=qualified,
        start_row=definition.start_row,
        end_row=definition.end_row,
        content=content,
        parent=".".join(definition.qualifiers),
        signature=signature,
        doc=definition.doc,
        is_test=test_file
        or definition.is_test
        or any(q.lower() in _TEST_QUALIFIERS for q in definition.qualifiers),
    )


def _outline(definition: _Definition, members: list[_Definition], source_file: _SourceFile) -> str:
    """A large class as its header and fields, with each member reduced to its signature line."""
    by_start = {member.start_row: member for member in members}
    lines: list[str] = []
    row = definition.start_row
    while row <= definition.end_row:
        member = by_start.get(row)
        if member is None:
            lines.append(source_file.lines_text(row, row))
            row += 1
            continue
        node_row = member.node.start_point.row
        indent = source_file.lines_text(node_row, node_row)[: source_file.indent(node_row)]
        lines.append(indent + _signature(member, source_file))
        row = member.end_row + 1
    return "\n".join(lines)


def _module_drafts(
    path: str,
    tree: Tree,
    source_file: _SourceFile,
    captures: _Captures,
    emitted: list[_Definition],
    test_file: bool,
) -> list[_Draft]:
    """Lines outside every definition, grouped into runs; runs with nothing but boilerplate are skipped."""
    covered = bytearray(source_file.line_count)
    for definition in emitted:
        covered[definition.start_row : definition.end_row + 1] = b"\x01" * (
            definition.end_row - definition.start_row + 1
        )
    skip = captures.skip_rows
    trivial = skip | captures.comment_rows
    for first_row, last_row, _ in captures.imports.values():
        trivial.update(range(first_row, last_row + 1))
    call_rows = {row for row, _, _ in captures.calls.values()}
    drafts: list[_Draft] = []
    statement_rows: list[int] | None = None
    row = 0
    count = source_file.line_count
    while row < count:
        if covered[row]:
            row += 1
            continue
        first = row
        meaningful = 0
        calls = False
        while row < count and not covered[row]:
            if row not in trivial and not source_file.is_trivial(row):
                meaningful += 1
                calls = calls or row in call_rows
            row += 1
        if meaningful < MIN_MODULE_LINES and not calls:
            continue  # e.g. a lone `return M` or `module.exports = {…}`: not worth a chunk
        last = row - 1
        while first in skip or source_file.is_blank(first):
            first += 1
        while last in skip or source_file.is_blank(last):
            last -= 1
        if last - first + 1 > MAX_MODULE_PIECE_LINES and statement_rows is None:
            statement_rows = sorted({child.start_point.row for child in tree.root_node.named_children})
        pieces = _split(
            first, last, statement_rows or [], source_file, MAX_MODULE_PIECE_LINES, MIN_MODULE_PIECE_LINES
        )
        for start, end in pieces:
            drafts.append(_region_draft(ChunkKind.MODULE, path, start, end, source_file, "", test_file))
    return drafts


def _file_drafts(
    path: str, source_file: _SourceFile, sections: dict[int, str], test_file: bool
) -> list[_Draft]:
    if source_file.line_count == 0:
        return []
    first, last = 0, source_file.line_count - 1
    while first <= last and source_file.is_blank(first):
        first += 1
    while last >= first and source_file.is_blank(last):
        last -= 1
    if first > last:
        return []
    section_rows = sorted(sections)
    drafts = []
    for start, end in _split(first, last, section_rows, source_file):
        index = bisect.bisect_left(section_rows, start)
        header = (
            sections[section_rows[index]] if index < len(section_rows) and section_rows[index] <= end else ""
        )
        drafts.append(_region_draft(ChunkKind.FILE, path, start, end, source_file, header, test_file))
    return drafts


def _region_draft(
    kind: ChunkKind, path: str, start: int, end: int, source_file: _SourceFile, signature: str, is_test: bool
) -> _Draft:
    return _Draft(
        kind=kind,
        name=path.rpartition("/")[2],
        qualified_name=path,
        start_row=start,
        end_row=end,
        content=source_file.lines_text(start, end),
        signature=signature[:MAX_SIGNATURE_CHARS],
        is_test=is_test,
    )


def _split(
    first: int,
    last: int,
    breaks: list[int],
    source_file: _SourceFile,
    longest: int = MAX_PIECE_LINES,
    shortest: int = MIN_PIECE_LINES,
) -> list[tuple[int, int]]:
    """Cut rows first..last into pieces of at most `longest` lines, at `breaks` or after blank lines."""
    pieces: list[tuple[int, int]] = []
    start = first
    while last - start + 1 > longest:
        low, high = start + shortest, start + longest
        index = bisect.bisect_right(breaks, high) - 1
        cut = breaks[index] if index >= 0 and breaks[index] > low else None
        if cut is None:
            cut = next((r + 1 for r in range(high - 1, low - 1, -1) if source_file.is_blank(r)), high)
        end = cut - 1
        while end > start and source_file.is_blank(end):
            end -= 1
        pieces.append((start, end))
        start = cut
        while start < last and source_file.is_blank(start):
            start += 1
    pieces.append((start, last))
    return pieces


def _file_only(
    repo: str, path: str, language: str, source_file: _SourceFile, warnings: list[str]
) -> ParsedFile:
    drafts = _file_drafts(path, source_file, {}, is_test_path(path))
    return ParsedFile(language, _finish(repo, path, language, drafts), (), (), tuple(warnings))


def _finish(repo: str, path: str, language: str, drafts: list[_Draft]) -> tuple[Chunk, ...]:
    drafts.sort(key=lambda d: (d.start_row, -d.end_row))
    ordinals: dict[tuple[ChunkKind, str], int] = {}
    chunks: list[Chunk] = []
    for draft in drafts:
        key = (draft.kind, draft.qualified_name)
        ordinal = ordinals.get(key, 0)
        ordinals[key] = ordinal + 1
        chunks.append(
            Chunk(
                id=chunk_id(repo, path, draft.kind, draft.qualified_name, ordinal),
                repo=repo,
                path=path,
                language=language,
                kind=draft.kind,
                name=draft.name,
                qualified_name=draft.qualified_name,
                start_line=draft.start_row + 1,
                end_line=draft.end_row + 1,
                content=draft.content,
                content_hash=content_hash(draft.content),
                parent=draft.parent,
                signature=draft.signature,
                doc=draft.doc,
                is_test=draft.is_test,
            )
        )
    return tuple(chunks)


def _call_sites(
    chunks: tuple[Chunk, ...], captures: _Captures, source_file: _SourceFile
) -> tuple[CallSite, ...]:
    """Each call, attributed to the innermost chunk whose lines contain it."""
    if not captures.calls or not chunks:
        return ()
    owner: list[int] = [-1] * (source_file.line_count + 1)
    order = sorted(range(len(chunks)), key=lambda i: chunks[i].start_line - chunks[i].end_line)
    for index in order:  # largest first, so inner chunks overwrite their containers
        chunk = chunks[index]
        owner[chunk.start_line - 1 : chunk.end_line] = [index] * (chunk.end_line - chunk.start_line + 1)
    sites: list[CallSite] = []
    for _, (row, name, receiver) in sorted(captures.calls.items()):
        index = owner[row] if row < len(owner) else -1
        if index >= 0 and name:
            sites.append(
                CallSite(caller_id=chunks[index].id, callee_name=name, line=row + 1, receiver=receiver)
            )
    return tuple(sites)
