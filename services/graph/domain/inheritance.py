"""Class bases read from declarations, and the method resolution order they give (issue 17).

The indexer stores each class's declaration line as its signature (`class Session(SessionRedirectMixin)`,
`export class A<T> extends B<T> implements I`, `class A : public ns::B`). `base_names` reads the bases
written there; `ClassHierarchy` resolves each to a class of the repository the way a call would be
(same file, then the file's imports, then a unique name where the language has no imports) and
linearises them (C3, as Python does; single inheritance is a chain).

A base that is not known — written as an expression (`extends mixin(B)`), bound by an external import
(`dict`, `threading.local`), or naming several classes — is *opaque*: it may define any method. A method
lookup along the order stops at the first class that defines the name; reaching an opaque base first
means nobody can say which method is meant, and the caller keeps the call ambiguous.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from typing import NamedTuple

from kit.domain import ChunkKind, Symbol

from .model import Resolution

_PYTHON = (".py", ".pyi")
_EXTENDS = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".java", ".php", ".scala", ".dart",
            ".groovy")  # fmt: skip
_COLON = (".kt", ".kts", ".cs", ".cpp", ".cc", ".cxx", ".hpp", ".hh", ".h", ".swift")
_RUBY = (".rb",)
# Languages whose supertype list calls the base's constructor (`class A(x: Int) : B(x)`, `extends B(x)`).
_CONSTRUCTOR_CALLS = (".kt", ".kts", ".scala")
# Languages where naming a class from another file needs an import: a base found nowhere else is opaque.
IMPORT_BOUND = _PYTHON
_MODIFIERS = frozenset({"public", "private", "protected", "virtual", "open", "internal", "sealed"})
_DOTTED = re.compile(r"[^\W\d][\w$]*(?:\.[^\W\d][\w$]*)*")
_CLASS_KEYWORD = re.compile(r"\b(?:class|struct)\s+[^\W\d][\w$]*")
_EXTENDS_CLAUSE = re.compile(r"\bextends\b(.*?)(?=\bimplements\b|\bwith\b|$)", re.DOTALL)
_COLON_CUT = re.compile(r"\bwhere\b|{")
MAX_DEPTH = 32  # longest ancestry followed; deeper (or cyclic, through a wrong guess) is opaque
OPAQUE = ""


def base_names(signature: str, path: str) -> tuple[str, ...]:
    """The bases a class declaration names, dotted (`mod.Base`, `ns.B`); OPAQUE for one that is no name."""
    if path.endswith(_PYTHON):
        return _python_bases(signature)
    if path.endswith(_EXTENDS):
        match = _EXTENDS_CLAUSE.search(_without_type_arguments(signature))
        return _names(_split(match.group(1)), path) if match else ()
    if path.endswith(_RUBY):
        _, sep, rest = signature.partition("<")
        return _names([rest], path) if sep else ()
    if path.endswith(_COLON):
        return _colon_bases(signature, path)
    return ()


def _python_bases(signature: str) -> tuple[str, ...]:
    head = _CLASS_KEYWORD.search(signature)
    if head is None:
        return ()
    rest = signature[head.end() :].lstrip()
    if rest.startswith("["):  # PEP 695 type parameters
        rest = rest[_closing(rest, 0) + 1 :].lstrip()
    if not rest.startswith("("):
        return ()
    inner = rest[1 : _closing(rest, 0)]
    bases = []
    for part in _split(inner):
        part = part.strip()
        if not part or part.startswith("*") or _top_level_index(part, "=") >= 0:
            continue  # metaclass=…, **kwargs
        part = _strip_brackets(part, "[")
        if part != "object":
            bases.append(part)
    return tuple(part if _DOTTED.fullmatch(part) else OPAQUE for part in bases)


def _colon_bases(signature: str, path: str) -> tuple[str, ...]:
    head = _CLASS_KEYWORD.search(signature)
    if head is None:
        return ()
    rest = signature[head.end() :]
    depth = 0
    for i, char in enumerate(rest):
        if char in "(<[":
            depth += 1
        elif char in ")>]":
            depth -= 1
        elif char == ":" and depth == 0 and rest[i - 1 : i] != ":" and rest[i + 1 : i + 2] != ":":
            tail = _COLON_CUT.split(rest[i + 1 :], maxsplit=1)[0]
            return _names(_split(tail), path)
    return ()


def _names(parts: Iterable[str], path: str) -> tuple[str, ...]:
    names = []
    for part in parts:
        words = [w for w in part.split() if w not in _MODIFIERS]
        text = " ".join(words).replace("::", ".").replace("\\", ".").lstrip(".")
        text = _strip_brackets(text, "<")
        if path.endswith(_CONSTRUCTOR_CALLS):
            text = _strip_brackets(text, "(")
        text = text.strip()
        if text:
            names.append(text if _DOTTED.fullmatch(text) else OPAQUE)
    return tuple(names)


_PAIRS = {"(": ")", "[": "]", "<": ">", "{": "}"}


def _closing(text: str, start: int) -> int:
    """Index of the bracket closing the one at `start` (the end of the text when unbalanced)."""
    opener, closer, depth = text[start], _PAIRS[text[start]], 0
    for i in range(start, len(text)):
        if text[i] == opener:
            depth += 1
        elif text[i] == closer:
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def _strip_brackets(text: str, opener: str) -> str:
    """`Generic[T]` → `Generic`, `B<T>` → `B`: type arguments do not change which class is meant."""
    index = text.find(opener)
    if index <= 0:
        return text
    end = _closing(text, index)
    return (text[:index] + text[end + 1 :]).strip()


def _without_type_arguments(text: str) -> str:
    """`class A<T extends B> extends C<T>` → `class A extends C`: a constraint's `extends` is no base."""
    out, depth = [], 0
    for char in text:
        if char == "<":
            depth += 1
        elif char == ">" and depth:
            depth -= 1
        elif depth == 0:
            out.append(char)
    return "".join(out)


def _top_level_index(text: str, char: str) -> int:
    depth = 0
    for i, c in enumerate(text):
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        elif c == char and depth == 0:
            return i
    return -1


def _split(text: str) -> list[str]:
    """Split at commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts if p.strip()]


class Ancestor(NamedTuple):
    """One entry of a method resolution order: a known class and how it was reached, or opaque (None)."""

    symbol: Symbol | None
    resolution: Resolution  # the least confident link from the starting class to this one


class FileBindings(NamedTuple):
    """What a file's imports bind, as the resolver knows it (see resolution._FileImports)."""

    internal: Callable[[str], Collection[str]]  # name → files it is imported from
    external: Callable[[str], bool]  # name bound by an import from outside the repository
    exposing: Callable[[str], Collection[str]]  # files through which a bare name is reachable


class ClassHierarchy:
    """Bases and method resolution orders of a repository's classes, looked up lazily and memoised.

    `classes_named(names)` returns the definitions with those short names (any kind; non-classes are
    ignored); `bindings(path)` tells what the imports of one file bind.
    """

    def __init__(
        self,
        classes_named: Callable[[Collection[str]], Iterable[Symbol]],
        bindings: Callable[[str], FileBindings],
    ) -> None:
        self._classes_named = classes_named
        self._bindings = bindings
        self._by_name: dict[str, list[Symbol]] = {}
        self._orders: dict[str, tuple[Ancestor, ...]] = {}

    def classes(self, name: str) -> list[Symbol]:
        found = self._by_name.get(name)
        if found is None:
            found = self._by_name[name] = [
                d for d in self._classes_named((name,)) if d.kind is ChunkKind.CLASS and d.name == name
            ]
        return found

    def class_of(self, caller: Symbol) -> Symbol | None:
        """The innermost class enclosing `caller` in its file (a method's own class)."""
        scope = caller.qualified_name.rpartition(".")[0]
        while scope:
            name = scope.rpartition(".")[2]
            for d in self.classes(name):
                if d.path == caller.path and d.qualified_name == scope:
                    return d
            scope = scope.rpartition(".")[0]
        return None

    def resolve_class(self, written: str, path: str, exclude: str = "") -> tuple[Symbol | None, Resolution]:
        """The one class `written` (`Base`, `mod.Base`) names from file `path`; (None, EXTERNAL) if unsure."""
        unknown = (None, Resolution.EXTERNAL)
        if not written:
            return unknown
        parts = written.split(".")
        root, last = parts[0], parts[-1]
        candidates = [d for d in self.classes(last) if d.id != exclude]
        if not candidates:
            return unknown
        bindings = self._bindings(path)
        if len(parts) > 1:
            internal = bindings.internal(root)
            if internal:
                return _one([d for d in candidates if d.path in internal], Resolution.IMPORTED)
            if bindings.external(root) or path.endswith(IMPORT_BOUND):
                return unknown
            return _one(
                [d for d in candidates if d.qualified_name.endswith(written)], Resolution.GLOBAL_UNIQUE
            )
        local = [d for d in candidates if d.path == path]
        if local:
            top = [d for d in local if d.qualified_name == last]
            return _one(top or local, Resolution.SAME_FILE)
        imported = bindings.exposing(last)
        if imported:
            return _one([d for d in candidates if d.path in imported], Resolution.IMPORTED)
        if bindings.external(last) or path.endswith(IMPORT_BOUND):
            return unknown
        production = [d for d in candidates if not d.is_test]
        return _one(production or candidates, Resolution.GLOBAL_UNIQUE)

    def order(self, cls: Symbol) -> tuple[Ancestor, ...]:
        """`cls` and its ancestors in method resolution order; an opaque base ends what is known."""
        return self._linearise(cls, Resolution.SAME_FILE, (), {})[0]

    def _linearise(
        self,
        cls: Symbol,
        reached: Resolution,
        visiting: tuple[str, ...],
        partial: dict[str, tuple[Ancestor, ...]],
    ) -> tuple[tuple[Ancestor, ...], bool]:
        """The order and whether it is whole. One cut short by the cycle check or MAX_DEPTH depends on
        the path it was reached by, so it is not memoised across calls (else the answer would depend on
        which class was asked first); `partial` keeps it for the rest of this one `order` call only,
        so a lattice of diamonds is still walked once."""
        memo = self._orders.get(cls.id)
        if memo is not None:
            return tuple(Ancestor(a.symbol, max(a.resolution, reached)) for a in memo), True
        if cls.id in visiting or len(visiting) >= MAX_DEPTH:
            return (Ancestor(None, Resolution.EXTERNAL),), False
        cut = partial.get(cls.id)
        if cut is not None:
            return tuple(Ancestor(a.symbol, max(a.resolution, reached)) for a in cut), False
        whole = True
        chains: list[list[Ancestor]] = []
        heads: list[Ancestor] = []
        for written in base_names(cls.signature, cls.path):
            base, how = self.resolve_class(written, cls.path, exclude=cls.id)
            if base is None:
                entry = Ancestor(None, Resolution.EXTERNAL)
                chains.append([entry])
            else:
                entry = Ancestor(base, how)
                chain, chain_whole = self._linearise(base, how, (*visiting, cls.id), partial)
                chains.append(list(chain))
                whole = whole and chain_whole
            heads.append(entry)
        merged = _c3([*chains, heads])
        order = (Ancestor(cls, Resolution.SAME_FILE), *merged)
        (self._orders if whole else partial)[cls.id] = order
        return tuple(Ancestor(a.symbol, max(a.resolution, reached)) for a in order), whole


def _key(entry: Ancestor) -> object:
    return entry.symbol.id if entry.symbol is not None else id(entry)


def _c3(sequences: Sequence[list[Ancestor]]) -> list[Ancestor]:
    """C3 merge; an inconsistent hierarchy ends in an opaque entry (nothing after it is relied on)."""
    pending = [list(s) for s in sequences if s]
    out: list[Ancestor] = []
    while pending:
        for sequence in pending:
            head = _key(sequence[0])
            if not any(head in (_key(e) for e in s[1:]) for s in pending):
                break
        else:
            out.append(Ancestor(None, Resolution.EXTERNAL))
            return out
        chosen = sequence[0]
        if chosen.symbol is None or not _surely_before_opaque(chosen, pending):
            out.append(Ancestor(None, Resolution.EXTERNAL))
            return out  # an opaque base may hide ancestors that come before what follows
        out.append(chosen)
        key = _key(chosen)
        pending = [[e for e in s if _key(e) != key] for s in pending]
        pending = [s for s in pending if s]
    return out


def _surely_before_opaque(chosen: Ancestor, pending: Sequence[list[Ancestor]]) -> bool:
    """Whether `chosen` precedes every pending opaque base in some list: its hidden ancestors (which
    could include `chosen`) come after it, so only such an order holds whatever they are."""
    key = _key(chosen)
    opaque = {_key(e) for s in pending for e in s if e.symbol is None}
    for other in opaque:
        if not any(
            key in keys and other in keys and keys.index(key) < keys.index(other)
            for keys in ([_key(e) for e in s] for s in pending)
        ):
            return False
    return True


def _one(candidates: Sequence[Symbol], resolution: Resolution) -> tuple[Symbol | None, Resolution]:
    unique = {d.id: d for d in candidates}
    if len(unique) == 1:
        return next(iter(unique.values())), resolution
    return None, Resolution.EXTERNAL
