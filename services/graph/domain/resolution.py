"""Name-based call resolution with honest ambiguity.

A call site names a callee (`save`) and maybe a receiver (`self`, `self.repo`, `os.path`). Without type
information the graph can only say which definitions of that name the call could reach. The rules, in
order (the first tier that yields candidates decides):

1. A receiver bound by an *external* import (`os.path.join` after `import os`) is EXTERNAL, even when the
   repository happens to define a `join` too.
2. `self.save()` / `this.save()` / `cls.save()` (in Go, a call on the method's receiver variable) resolves
   to a `save` defined in the caller's own class (same file; in Go, the same package), else to the
   first one along the class's bases in method resolution order (domain/inheritance.py: bases read
   from the class declaration, each resolved like a name from its file); `super().save()` /
   `super.save()` starts the search after the caller's class. A base that does not resolve to exactly
   one class of the repository ends the search: the call stays AMBIGUOUS, like a call that no known
   class on the way defines.
3. A receiver bound by an internal import (`util.parse()` after `import util`) prefers the top-level
   definitions of the imported file.
4. The call shape filters candidates: a bare call `save()` reaches top-level definitions and those in
   the caller's enclosing scopes, never a method elsewhere; `Store.save()` (a receiver named like the
   definition's class or scope) reaches that class's methods, or, when the receiver resolves to one
   class that does not define the name, the first of its bases that does. A call on any other receiver
   (`kwargs.get()`, `data.items()`, `self.repo.save()`: no type information) is never resolved: its
   candidates stay AMBIGUOUS, even when there is only one. So does a bare call the shape leaves nothing
   for. A bare call to a runtime builtin (`next()`, `len()`, `require()`) is EXTERNAL unless the caller's
   file defines or imports that name.
5. Then: same file → files the caller's file imports (honouring imported names) → the whole repository.
   Non-test callers ignore definitions in test files when a non-test one exists.

One candidate in the deciding tier is a resolved edge (SAME_FILE, IMPORTED, GLOBAL_UNIQUE); several keep
every candidate with AMBIGUOUS and their count; none is EXTERNAL. Nothing is attached to a guess.

Resolution depends on other files' definitions and imports, so it is computed when edges are read (from
raw call sites) rather than stored: a replace or delete of any file is reflected by the next query.
"""

from __future__ import annotations

import builtins
import functools
import re
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import NamedTuple

from kit.domain import CallSite, ChunkKind, Import, Symbol

from .inheritance import ClassHierarchy, FileBindings
from .model import CallEdge, Resolution

CALLABLE_KINDS = frozenset({ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CLASS})
SELF_RECEIVERS = frozenset({"self", "this", "cls", "Self", "static", "@"})
# A name with more definitions than this (`get`, `__init__`, `run`) says nothing about which one is meant:
# such a call is kept as one ambiguous edge without a callee rather than an edge to each candidate.
MAX_CANDIDATES = 16
# Names the language runtimes provide (Python builtins, JavaScript globals): a bare call to one reaches a
# repository definition only when that file defines or imports it, never a same-named method or a far file.
BUILTIN_NAMES = frozenset(name for name in dir(builtins) if not name.startswith("_")) | frozenset(
    {"require", "setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "parseInt",
     "parseFloat", "isNaN", "String", "Number", "Boolean", "Array", "Object", "Promise", "Symbol", "Error",
     "TypeError", "RangeError", "Date", "RegExp", "Map", "Set", "WeakMap", "JSON", "Math", "queueMicrotask",
     "structuredClone", "fetch", "console"}
)  # fmt: skip
# Files of languages where a method is reached only through a receiver (`self.f()`, `this.f()`): there a
# bare `f()` inside a class never means the class's own method `f` (Java/C#/C++/Ruby allow that).
EXPLICIT_RECEIVER_SUFFIXES = (
    ".py", ".pyi", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".rs", ".go", ".php", ".lua",
)  # fmt: skip
_IDENTIFIER = re.compile(r"[^\W\d][\w$]*|\$[\w$]*")
_SEGMENT = re.compile(r"[^/\\.:]+$")
_GO_RECEIVER = re.compile(r"func\s*\(\s*([^\W\d]\w*)\s+\*?\s*[^\W\d]")
_DOTTED_RECEIVER = re.compile(r"[^\W\d][\w$]*(?:\.[^\W\d][\w$]*)*")


class Resolved(NamedTuple):
    """Outcome for one call site: the candidate definitions and how they were found.

    `targets` is empty when external, and when ambiguous among more than MAX_CANDIDATES definitions;
    `candidates` always counts the definitions.
    """

    targets: tuple[Symbol, ...]
    resolution: Resolution
    candidates: int
    edge_ids: tuple[str, ...]  # callee id per edge this call yields ("" when no definition is named)


EXTERNAL = Resolved((), Resolution.EXTERNAL, 0, ("",))


def _unsure(candidates: Sequence[Symbol]) -> Resolved:
    """Candidates a call may reach without any of them being known: AMBIGUOUS, however few."""
    unique = tuple(sorted({d.id: d for d in candidates}.values(), key=lambda d: (d.path, d.start_line, d.id)))
    if not unique:
        return EXTERNAL
    if len(unique) > MAX_CANDIDATES:
        return Resolved((), Resolution.AMBIGUOUS, len(unique), ("",))
    return Resolved(unique, Resolution.AMBIGUOUS, len(unique), tuple(d.id for d in unique))


def _scope_tail(d: Symbol) -> str:
    """`pkg.Session.get` → `Session`: the class or scope name a qualified call would use."""
    return scope_of(d.qualified_name).rpartition(".")[2]


def scope_of(qualified_name: str) -> str:
    """`Parser.parse` → `Parser`; `parse` → ``."""
    return qualified_name.rpartition(".")[0]


def enclosing_scopes(qualified_name: str) -> list[str]:
    """Proper enclosing scopes, innermost first: `A.b.c` → [`A.b`, `A`]."""
    scopes: list[str] = []
    scope = scope_of(qualified_name)
    while scope:
        scopes.append(scope)
        scope = scope_of(scope)
    return scopes


def receiver_parts(receiver: str) -> tuple[str, str]:
    """(root, last) identifiers of a receiver: `self.repo` → (self, repo); `os.path` → (os, path)."""
    parts = _IDENTIFIER.findall(receiver)
    if not parts:
        return "", ""
    return parts[0], parts[-1]


@functools.lru_cache(maxsize=65536)
def _module_names(target: str) -> frozenset[str]:
    """Names a module specifier may be bound to: `os.path` → {os, path}; `./util.js` → {util}."""
    names: set[str] = set()
    clean = target.strip().strip("'\"<>")
    if not clean:
        return frozenset()
    first = re.split(r"[./\\:]+", clean.lstrip("./@"))[0]
    if first:
        names.add(first)
    stem = clean.rsplit("/", 1)[-1]
    for suffix in (".js", ".ts", ".tsx", ".jsx", ".mjs", ".cjs", ".py", ".h", ".hpp"):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    match = _SEGMENT.search(stem)
    if match:
        names.add(match.group(0))
    return frozenset(names)


class _FileImports:
    """The import bindings of one file, precomputed for resolution."""

    __slots__ = ("external_bindings", "internal_bindings", "open_paths", "paths_by_name")

    def __init__(self, imports: Sequence[Import]) -> None:
        self.internal_bindings: dict[str, set[str]] = defaultdict(set)
        self.external_bindings: set[str] = set()
        self.open_paths: set[str] = set()  # imported files whose every name is reachable
        self.paths_by_name: dict[str, set[str]] = defaultdict(set)  # imported name or module alias → files
        for imp in imports:
            module_names = _module_names(imp.target)
            bound = set(imp.names) | module_names
            if imp.resolved_path:
                for name in bound:
                    self.internal_bindings[name].add(imp.resolved_path)
                if not imp.names or "*" in imp.names:
                    self.open_paths.add(imp.resolved_path)
                for name in bound:
                    self.paths_by_name[name].add(imp.resolved_path)
            else:
                self.external_bindings |= bound

    def exposing(self, name: str, root: str) -> set[str]:
        """Imported files through which `name` (called on receiver root `root`) is reachable."""
        paths = self.open_paths | self.paths_by_name.get(name, set())
        if root:
            paths |= self.paths_by_name.get(root, set())
        return paths

    def bindings(self) -> FileBindings:
        empty: set[str] = set()
        return FileBindings(
            internal=lambda name: self.internal_bindings.get(name, empty),
            external=lambda name: name in self.external_bindings and not self.internal_bindings.get(name),
            exposing=lambda name: self.exposing(name, ""),
        )


_NO_IMPORTS = _FileImports(())


class _NameIndex:
    """Every callable definition of one name, grouped the ways resolution asks for them."""

    __slots__ = ("all", "by_path", "by_scope", "by_scope_tail", "nested", "top_level")

    def __init__(self, definitions: Iterable[Symbol]) -> None:
        self.all = tuple(definitions)
        self.by_path: dict[str, list[Symbol]] = defaultdict(list)
        self.by_scope: dict[str, list[Symbol]] = defaultdict(list)
        self.by_scope_tail: dict[str, list[Symbol]] = defaultdict(list)  # `Outer.User` → `User`
        self.top_level: list[Symbol] = []
        self.nested: list[Symbol] = []
        for d in self.all:
            self.by_path[d.path].append(d)
            scope = scope_of(d.qualified_name)
            self.by_scope[scope].append(d)
            if scope:
                self.nested.append(d)
                self.by_scope_tail[scope.rpartition(".")[2]].append(d)
            else:
                self.top_level.append(d)


def _file_imports(
    known: dict[str, _FileImports], imports_of: Callable[[str], Sequence[Import]] | None, path: str
) -> _FileImports:
    """A caller file's imports, asked for once (`imports_of`) and kept in `known`.

    A function, not a method the class hierarchy calls back: a callback holding the resolver made it a
    reference cycle, so each resolver (~100k objects for a whole repo) outlived `resolve_all` until a
    full garbage collection found it — an ~80 ms pause inside whichever request came next."""
    found = known.get(path)
    if found is None:
        imports = imports_of(path) if imports_of is not None else ()
        found = known[path] = _FileImports(imports) if imports else _NO_IMPORTS
    return found


class CallResolver:
    """Resolves call sites against a set of definitions and the callers' imports.

    Give it every callable definition of the names it will see (repo-wide) and the imports of every
    caller file. Class bases are looked up through `classes_named` (definitions by short name) and
    `imports_of` (a file's imports) when given, else among `definitions` and `imports_by_path`.
    Outcomes are memoised per (caller file, name, receiver, caller is_test), plus the caller's
    qualified name when the name is defined in a scope enclosing the caller, or the caller's scope when
    the call is on `self`/`super` (its class decides).
    """

    def __init__(
        self,
        definitions: Iterable[Symbol],
        imports_by_path: Mapping[str, Sequence[Import]],
        *,
        classes_named: Callable[[Collection[str]], Iterable[Symbol]] | None = None,
        imports_of: Callable[[str], Sequence[Import]] | None = None,
    ) -> None:
        grouped: dict[str, list[Symbol]] = defaultdict(list)
        classes: dict[str, list[Symbol]] = defaultdict(list)
        for d in definitions:
            if d.kind in CALLABLE_KINDS:
                grouped[d.name].append(d)
                if d.kind is ChunkKind.CLASS:
                    classes[d.name].append(d)
        # Most names have one definition; they skip the grouping (and most of the rules) below.
        self._single = {name: defs[0] for name, defs in grouped.items() if len(defs) == 1}
        self._names = {name: _NameIndex(defs) for name, defs in grouped.items() if len(defs) > 1}
        self._imports = {path: _FileImports(imps) for path, imps in imports_by_path.items()}
        self._imports_of = imports_of
        known = self._imports  # the hierarchy's callbacks hold no reference to `self` (see _file_imports)
        self._hierarchy = ClassHierarchy(
            classes_named or (lambda names: [d for name in names for d in classes.get(name, ())]),
            lambda path: _file_imports(known, imports_of, path).bindings(),
        )
        self._memo: dict[tuple[str, str, str, str, bool], Resolved] = {}
        self._single_memo: dict[tuple[str, str, str, str], Resolved] = {}

    def _file_imports(self, path: str) -> _FileImports:
        return _file_imports(self._imports, self._imports_of, path)

    def _inherited(
        self, cls: Symbol | None, name: str, definitions: Sequence[Symbol], skip: int
    ) -> Resolved | None:
        """The `name` defined first along `cls`'s method resolution order (after `skip` entries);
        None when the order reaches an unknown base first, or ends without one."""
        if cls is None:
            return None
        for ancestor in self._hierarchy.order(cls)[skip:]:
            owner = ancestor.symbol
            if owner is None:
                return None
            found = [
                d
                for d in definitions
                if d.path == owner.path and scope_of(d.qualified_name) == owner.qualified_name
            ]
            if found:
                return _decide(found, ancestor.resolution)
        return None

    def _receiver_class(self, receiver: str, caller: Symbol) -> Symbol | None:
        """The class a receiver names (`Store`, `models.Store`), when it names exactly one."""
        if not _DOTTED_RECEIVER.fullmatch(receiver):
            return None
        return self._hierarchy.resolve_class(receiver, caller.path)[0]

    def _super_class(self, receiver: str, caller: Symbol) -> Symbol | None:
        """The class whose bases `super()` searches: the caller's, unless `super(Other, self)` names another."""
        cls = self._hierarchy.class_of(caller)
        arguments = receiver.partition("(")[2].rstrip(")").split(",")[0].strip()
        if cls is not None and arguments and arguments != cls.name:
            return None
        return cls

    def resolve(self, site: CallSite, caller: Symbol) -> Resolved:
        receiver = site.receiver
        if receiver and receiver == method_receiver(caller.signature, caller.path):
            receiver = "self"  # Go: `func (s *Server) Start() { s.listen() }`
        single = self._single.get(site.callee_name)
        if single is not None:
            key1 = (caller.qualified_name, caller.path, site.callee_name, receiver)
            found = self._single_memo.get(key1)
            if found is None:
                found = self._single_memo[key1] = self._resolve_single(single, receiver.strip(), caller)
            return found
        index = self._names.get(site.callee_name)
        if index is None:
            return EXTERNAL
        lexical: list[str] = []
        scope_key = ""
        if index.nested:
            lexical = [caller.qualified_name, *enclosing_scopes(caller.qualified_name)]
            if any(scope in index.by_scope for scope in lexical):
                scope_key = caller.qualified_name
        if receiver in SELF_RECEIVERS or receiver.startswith("super"):
            scope_key = scope_of(caller.qualified_name)  # the caller's class (and its bases) decide
        key = (caller.path, scope_key, site.callee_name, receiver, caller.is_test)
        found = self._memo.get(key)
        if found is None:
            found = self._resolve(index, receiver.strip(), caller, lexical)
            self._memo[key] = found
        return found

    def _resolve_single(self, d: Symbol, receiver: str, caller: Symbol) -> Resolved:
        """The rules below, for a name with one definition: only the label can differ (or it is external)."""
        file_imports = self._imports.get(caller.path, _NO_IMPORTS)
        root, last = receiver_parts(receiver) if receiver else ("", "")
        scope = scope_of(d.qualified_name)
        if root == "super":
            inherited = self._inherited(self._super_class(receiver, caller), d.name, (d,), 1)
            return inherited or _unsure((d,))  # the base's method, when the bases say which
        if receiver and receiver not in SELF_RECEIVERS:
            internal = file_imports.internal_bindings.get(root)
            if root in file_imports.external_bindings and not internal:
                return EXTERNAL
            if internal and d.path in internal and (not scope or _scope_tail(d) == last):
                return _decide((d,), Resolution.IMPORTED)  # `util.parse()`, `models.User.create()`
            if not scope:
                return _unsure((d,))
            if _scope_tail(d) != last:
                # `Store.save()` with `save` inherited from Store's base; `kwargs.get()` is not `Session.get`
                inherited = self._inherited(self._receiver_class(receiver, caller), d.name, (d,), 0)
                return inherited or _unsure((d,))
        elif receiver:
            if not _same_unit(d.path, caller.path) or scope not in enclosing_scopes(caller.qualified_name):
                # not the caller's own class: inherited along its bases, or a stranger's
                inherited = self._inherited(self._hierarchy.class_of(caller), d.name, (d,), 0)
                return inherited or _unsure((d,))
        else:
            if d.name in BUILTIN_NAMES and (
                scope or (d.path != caller.path and d.path not in file_imports.exposing(d.name, ""))
            ):
                return EXTERNAL  # `next()` is the builtin unless this file defines or imports a function
            if scope and scope not in (caller.qualified_name, *enclosing_scopes(caller.qualified_name)):
                return _unsure((d,))  # a bare call does not reach another class's method
            if d.kind is ChunkKind.METHOD and caller.path.endswith(EXPLICIT_RECEIVER_SUFFIXES):
                return _unsure((d,))  # nor, in Python or JavaScript, its own class's
        if d.path == caller.path:
            return _decide((d,), Resolution.SAME_FILE)
        if d.path in file_imports.exposing(d.name, root):
            return _decide((d,), Resolution.IMPORTED)
        return _decide((d,), Resolution.GLOBAL_UNIQUE)

    def _resolve(self, index: _NameIndex, receiver: str, caller: Symbol, lexical: list[str]) -> Resolved:
        file_imports = self._imports.get(caller.path, _NO_IMPORTS)
        root, last = receiver_parts(receiver) if receiver else ("", "")
        is_self = receiver in SELF_RECEIVERS
        scopes = lexical[1:]  # enclosing scopes of the caller, innermost first (empty when nothing nested)

        if receiver and not is_self:
            internal = file_imports.internal_bindings.get(root)
            if root in file_imports.external_bindings and not internal:
                return EXTERNAL
            if internal:
                # `User.create()` after `from models import User`, then `util.parse()` after `import util`.
                qualified = [d for d in index.by_scope_tail.get(last, ()) if d.path in internal]
                module_level = [d for d in index.top_level if d.path in internal]
                if qualified or module_level:
                    return _decide(qualified or module_level, Resolution.IMPORTED)

        shaped: Sequence[Symbol]
        if root == "super":  # the parent's method, when the bases say which
            inherited = self._inherited(
                self._super_class(receiver, caller), index.all[0].name, index.nested, 1
            )
            return inherited or _unsure([d for d in index.nested if scope_of(d.qualified_name) not in scopes])
        if is_self:
            for scope in scopes:
                own = [d for d in index.by_scope.get(scope, ()) if d.path == caller.path]
                if own:
                    return _decide(own, Resolution.SAME_FILE)
                package = [d for d in index.by_scope.get(scope, ()) if _same_unit(d.path, caller.path)]
                if package:  # Go: the type's methods in the package's other files
                    return _decide(package, Resolution.GLOBAL_UNIQUE)
            cls = self._hierarchy.class_of(caller)
            inherited = self._inherited(cls, index.all[0].name, index.nested, 0)
            return inherited or _unsure(index.nested)  # mixed in, or past an unknown base: not known
        if receiver:
            shaped = index.by_scope_tail.get(last, [])
            if not shaped:
                cls = self._receiver_class(receiver, caller)
                inherited = self._inherited(cls, index.all[0].name, index.nested, 0)
                return inherited or _unsure(
                    index.nested or index.all
                )  # an unknown receiver: no type, no edge
        else:
            shaped = [*index.top_level, *(d for scope in lexical for d in index.by_scope.get(scope, ()))]
            if caller.path.endswith(EXPLICIT_RECEIVER_SUFFIXES):
                shaped = [d for d in shaped if d.kind is not ChunkKind.METHOD]
            if not shaped:
                return _unsure(index.all)  # only methods elsewhere: a bare call does not reach them
            if index.all[0].name in BUILTIN_NAMES:
                reachable = file_imports.exposing(index.all[0].name, "") | {caller.path}
                shaped = [d for d in index.top_level if d.path in reachable]
                if not shaped:
                    return EXTERNAL

        local = [d for d in shaped if d.path == caller.path]
        if local:
            if len(local) > 1 and not receiver:
                # Lexical scoping: the innermost enclosing scope that defines the name shadows outer ones.
                for scope in lexical:
                    inner = [d for d in local if scope_of(d.qualified_name) == scope]
                    if inner:
                        return _decide(inner, Resolution.SAME_FILE)
                top = [d for d in local if not scope_of(d.qualified_name)]
                return _decide(top or local, Resolution.SAME_FILE)
            return _decide(local, Resolution.SAME_FILE)

        imported_paths = file_imports.exposing(index.all[0].name, root)
        if imported_paths:
            imported = [d for d in shaped if d.path in imported_paths]
            if imported:
                return _decide(_prefer_non_test(imported, caller), Resolution.IMPORTED)

        return _decide(_prefer_non_test(list(shaped), caller), Resolution.GLOBAL_UNIQUE)


@functools.lru_cache(maxsize=65536)
def method_receiver(signature: str, path: str) -> str:
    """The variable a Go method names its receiver (`func (s *Server) Start()` → `s`); empty elsewhere."""
    if not path.endswith(".go"):
        return ""
    match = _GO_RECEIVER.match(signature)
    return match.group(1) if match else ""


def _same_unit(path: str, other: str) -> bool:
    """Whether one class's methods may live in both files: the same file, or (Go) the same package folder."""
    if path == other:
        return True
    return (
        path.endswith(".go") and other.endswith(".go") and path.rpartition("/")[0] == other.rpartition("/")[0]
    )


def _prefer_non_test(candidates: list[Symbol], caller: Symbol) -> list[Symbol]:
    if caller.is_test:
        return candidates
    production = [d for d in candidates if not d.is_test]
    return production or candidates


def _decide(candidates: Sequence[Symbol], resolution: Resolution) -> Resolved:
    if len(candidates) == 1:
        return Resolved((candidates[0],), resolution, 1, (candidates[0].id,))
    unique = tuple(sorted({d.id: d for d in candidates}.values(), key=lambda d: (d.path, d.start_line, d.id)))
    if len(unique) == 1:
        return Resolved(unique, resolution, 1, (unique[0].id,))
    if len(unique) > MAX_CANDIDATES:
        return Resolved((), Resolution.AMBIGUOUS, len(unique), ("",))
    return Resolved(unique, Resolution.AMBIGUOUS, len(unique), tuple(d.id for d in unique))


def resolve_edges(
    sites: Iterable[CallSite], callers: Mapping[str, Symbol], resolver: CallResolver
) -> list[CallEdge]:
    """Resolve call sites and aggregate them into edges, one per (caller, callee, name).

    An ambiguous call yields one edge per candidate (one without callee id past MAX_CANDIDATES); an
    external call one edge without callee id.
    When calls from one caller reach the same callee with different confidence, the edge keeps the
    most confident resolution, the first line of a call resolved that way, and counts every call.
    """
    acc: dict[tuple[str, str, str], list] = {}
    get_caller, resolve, get_entry = callers.get, resolver.resolve, acc.get
    for site in sites:
        caller = get_caller(site.caller_id)
        if caller is None:
            continue
        outcome = resolve(site, caller)
        for target in outcome.edge_ids:
            key = (site.caller_id, target, site.callee_name)
            entry = get_entry(key)
            if entry is None:
                acc[key] = [site.line, outcome.resolution, outcome.candidates, 1]
            else:
                if outcome.resolution < entry[1]:  # the line shown is that of the most confident call
                    entry[0], entry[1], entry[2] = site.line, outcome.resolution, outcome.candidates
                elif outcome.resolution == entry[1] and site.line < entry[0]:
                    entry[0] = site.line
                entry[3] += 1
    return [
        CallEdge(caller, callee, name, line, resolution, candidates, count)
        for (caller, callee, name), (line, resolution, candidates, count) in acc.items()
    ]
