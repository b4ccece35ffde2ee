"""Name-based call resolution with honest ambiguity.

A call site names a callee (`save`) and maybe a receiver (`self`, `self.repo`, `os.path`). Without type
information the graph can only say which definitions of that name the call could reach. The rules, in
order (the first tier that yields candidates decides):

1. A receiver bound by an *external* import (`os.path.join` after `import os`) is EXTERNAL, even when the
   repository happens to define a `join` too.
2. `self.save()` / `this.save()` prefers a `save` defined in the caller's own class (same file).
3. A receiver bound by an internal import (`util.parse()` after `import util`) prefers the top-level
   definitions of the imported file.
4. The call shape filters candidates: a bare call `save()` reaches top-level definitions and those in
   the caller's enclosing scopes; `x.save()` reaches methods (defined inside something). When the shape
   leaves nothing (inherited methods, aliases the parser could not see) every definition stays.
5. Then: same file → files the caller's file imports (honouring imported names) → the whole repository.
   Non-test callers ignore definitions in test files when a non-test one exists.

One candidate in the deciding tier is a resolved edge (SAME_FILE, IMPORTED, GLOBAL_UNIQUE); several keep
every candidate with AMBIGUOUS and their count; none is EXTERNAL. Nothing is attached to a guess.

Resolution depends on other files' definitions and imports, so it is computed when edges are read (from
raw call sites) rather than stored: a replace or delete of any file is reflected by the next query.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from kit.domain import CallSite, ChunkKind, Import, Symbol

from .model import CallEdge, Resolution

CALLABLE_KINDS = frozenset({ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CLASS})
SELF_RECEIVERS = frozenset({"self", "this", "cls", "super", "super()", "Self", "static", "@"})
_IDENTIFIER = re.compile(r"[^\W\d][\w$]*|\$[\w$]*")
_SEGMENT = re.compile(r"[^/\\.:]+$")


@dataclass(frozen=True, slots=True)
class Resolved:
    """Outcome for one call site: the candidate definitions and how they were found."""

    targets: tuple[Symbol, ...]
    resolution: Resolution


EXTERNAL = Resolved((), Resolution.EXTERNAL)


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


def _module_names(target: str) -> set[str]:
    """Names a module specifier may be bound to: `os.path` → {os, path}; `./util.js` → {util}."""
    names: set[str] = set()
    clean = target.strip().strip("'\"<>")
    if not clean:
        return names
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
    return names


class _FileImports:
    """The import bindings of one file, precomputed for resolution."""

    __slots__ = ("external_bindings", "internal_bindings", "imports")

    def __init__(self, imports: Sequence[Import]) -> None:
        self.imports = tuple(i for i in imports if i.resolved_path)
        self.internal_bindings: dict[str, set[str]] = defaultdict(set)
        self.external_bindings: set[str] = set()
        for imp in imports:
            bound = set(imp.names) | _module_names(imp.target)
            if imp.resolved_path:
                for name in bound:
                    self.internal_bindings[name].add(imp.resolved_path)
            else:
                self.external_bindings |= bound

    def exposing(self, name: str, root: str) -> set[str]:
        """Imported files through which `name` (called on receiver root `root`) is reachable."""
        paths: set[str] = set()
        for imp in self.imports:
            names = imp.names
            if not names or name in names or "*" in names or (root and root in names):
                paths.add(imp.resolved_path)
            elif root and root in _module_names(imp.target):
                paths.add(imp.resolved_path)
        return paths


_NO_IMPORTS = _FileImports(())


class _NameIndex:
    __slots__ = ("all", "by_path")

    def __init__(self, definitions: Iterable[Symbol]) -> None:
        self.all = tuple(definitions)
        self.by_path: dict[str, list[Symbol]] = defaultdict(list)
        for d in self.all:
            self.by_path[d.path].append(d)


class CallResolver:
    """Resolves call sites against a set of definitions and the callers' imports.

    Give it every callable definition of the names it will see (repo-wide) and the imports of every
    caller file; results are memoised per (caller file, caller scope, name, receiver, caller is_test).
    """

    def __init__(self, definitions: Iterable[Symbol], imports_by_path: Mapping[str, Sequence[Import]]) -> None:
        grouped: dict[str, list[Symbol]] = defaultdict(list)
        for d in definitions:
            if d.kind in CALLABLE_KINDS:
                grouped[d.name].append(d)
        self._names = {name: _NameIndex(defs) for name, defs in grouped.items()}
        self._imports = {path: _FileImports(imps) for path, imps in imports_by_path.items()}
        self._memo: dict[tuple[str, str, str, str, bool], Resolved] = {}

    def resolve(self, site: CallSite, caller: Symbol) -> Resolved:
        key = (caller.path, caller.qualified_name, site.callee_name, site.receiver, caller.is_test)
        found = self._memo.get(key)
        if found is None:
            found = self._resolve(site.callee_name, site.receiver.strip(), caller)
            self._memo[key] = found
        return found

    def _resolve(self, name: str, receiver: str, caller: Symbol) -> Resolved:
        index = self._names.get(name)
        if index is None:
            return EXTERNAL
        file_imports = self._imports.get(caller.path, _NO_IMPORTS)
        root, last = receiver_parts(receiver)
        is_self = receiver in SELF_RECEIVERS
        same_file = index.by_path.get(caller.path, [])
        scopes = enclosing_scopes(caller.qualified_name)

        if receiver and not is_self:
            internal = file_imports.internal_bindings.get(root)
            if root in file_imports.external_bindings and not internal:
                return EXTERNAL
            if internal:
                bound = [d for p in sorted(internal) for d in index.by_path.get(p, [])]
                # `User.create()` after `from models import User`, then `util.parse()` after `import util`.
                qualified = [d for d in bound if scope_of(d.qualified_name).rpartition(".")[2] == last]
                module_level = [d for d in bound if not scope_of(d.qualified_name)]
                if qualified or module_level:
                    return _decide(qualified or module_level, Resolution.IMPORTED)

        if is_self:
            for scope in scopes:
                own = [d for d in same_file if scope_of(d.qualified_name) == scope]
                if own:
                    return _decide(own, Resolution.SAME_FILE)
            shaped = [d for d in index.all if scope_of(d.qualified_name)]
        elif receiver:
            qualified = [d for d in index.all if last and scope_of(d.qualified_name).rpartition(".")[2] == last]
            shaped = qualified or [d for d in index.all if scope_of(d.qualified_name)]
        else:
            visible = {"", *scopes}
            shaped = [d for d in index.all if scope_of(d.qualified_name) in visible]
        if not shaped:
            shaped = list(index.all)

        local = [d for d in shaped if d.path == caller.path]
        if local:
            if len(local) > 1 and not receiver:
                # Lexical scoping: the innermost enclosing scope that defines the name shadows outer ones.
                for scope in scopes:
                    inner = [d for d in local if scope_of(d.qualified_name) == scope]
                    if inner:
                        return _decide(inner, Resolution.SAME_FILE)
                top = [d for d in local if not scope_of(d.qualified_name)]
                return _decide(top or local, Resolution.SAME_FILE)
            return _decide(local, Resolution.SAME_FILE)

        imported_paths = file_imports.exposing(name, root)
        if imported_paths:
            imported = [d for d in shaped if d.path in imported_paths]
            if imported:
                return _decide(_prefer_non_test(imported, caller), Resolution.IMPORTED)

        return _decide(_prefer_non_test(shaped, caller), Resolution.GLOBAL_UNIQUE)


def _prefer_non_test(candidates: list[Symbol], caller: Symbol) -> list[Symbol]:
    if caller.is_test:
        return candidates
    production = [d for d in candidates if not d.is_test]
    return production or candidates


def _decide(candidates: Sequence[Symbol], resolution: Resolution) -> Resolved:
    unique = tuple(sorted({d.id: d for d in candidates}.values(), key=lambda d: (d.path, d.start_line, d.id)))
    if len(unique) == 1:
        return Resolved(unique, resolution)
    return Resolved(unique, Resolution.AMBIGUOUS)


def resolve_edges(
    sites: Iterable[CallSite], callers: Mapping[str, Symbol], resolver: CallResolver
) -> list[CallEdge]:
    """Resolve call sites and aggregate them into edges, one per (caller, callee, name).

    An ambiguous call yields one edge per candidate; an external call one edge without callee id.
    When calls from one caller reach the same callee with different confidence, the edge keeps the
    most confident resolution and counts every call.
    """
    acc: dict[tuple[str, str, str], list] = {}
    for site in sites:
        caller = callers.get(site.caller_id)
        if caller is None:
            continue
        outcome = resolver.resolve(site, caller)
        targets: Sequence[str] = [t.id for t in outcome.targets] or [""]
        candidates = len(outcome.targets)
        for target in targets:
            key = (site.caller_id, target, site.callee_name)
            entry = acc.get(key)
            if entry is None:
                acc[key] = [site.line, outcome.resolution, candidates, 1]
            else:
                entry[0] = min(entry[0], site.line)
                if outcome.resolution < entry[1]:
                    entry[1], entry[2] = outcome.resolution, candidates
                entry[3] += 1
    return [
        CallEdge(caller, callee, name, line, resolution, candidates, count)
        for (caller, callee, name), (line, resolution, candidates, count) in acc.items()
    ]
