"""Resolve import specs to repo files (DESIGN.md §4).

`parse_file` records what a file imports as written (`Import.target`, `Import.names`); only the
whole repo's file list says which of those name a repo file. `resolve_imports` fills in
`resolved_path` (a repo-relative path) or marks the import `external`:

- Python: relative imports (`from .a import b`, `from .. import c`) and absolute imports of repo
  packages (`from pkg.mod import x` when pkg/mod.py exists, also under src/ or an ancestor folder);
  `from pkg import mod` resolves to pkg/mod.py when that submodule exists.
- TypeScript/JavaScript/Vue: `./x`, `../x` (x.ts, x.tsx, x.js, … x/index.ts …), `@/x` and `~/x` (src/).
- Go: packages under the module path of go.mod → the first non-test .go file of that folder.
- Rust: `mod x;` and `use crate::a::b`, `self::`, `super::`, local module paths → a.rs / a/mod.rs.
- Java, Kotlin, Scala: `com.x.Y` → a file ending in com/x/Y.java (.kt, .scala); `com.x.*` → that folder.
- PHP: `use App\\Models\\User` → …/Models/User.php (PSR-4 style, case-insensitive); require/include paths.
- C/C++: `#include "x.h"` beside the file, at the repo root, under include/, or a unique match.
- Ruby `require_relative`, Lua `require("a.b")`, Bash `source`, Zig `@import("x.zig")`, CSS `@import`,
  HTML `<script src>`: the path relative to the file.

An import that names no repo file is `external=True`; a relative import whose file is missing keeps
`external=False` with an empty `resolved_path` (it cannot be a third-party package).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace

from kit.domain import Import


class FileIndex(AbstractSet[str]):
    """Repo file paths plus the lookups resolution needs. Build it once per scan and reuse it.

    `resolve_imports` accepts any set of paths, but builds this index from a plain set on every call.
    """

    def __init__(self, paths: Iterable[str]) -> None:
        self._paths = frozenset(paths)
        by_dir: dict[str, list[str]] = {}
        by_name: dict[str, list[str]] = {}
        for path in self._paths:
            directory, _, name = path.rpartition("/")
            by_dir.setdefault(directory, []).append(path)
            by_name.setdefault(name.lower(), []).append(path)
        self._by_dir = {key: sorted(value) for key, value in by_dir.items()}
        self._by_name = {
            key: sorted(value, key=lambda p: (p.count("/"), p)) for key, value in by_name.items()
        }

    def __contains__(self, path: object) -> bool:
        return path in self._paths

    def __iter__(self) -> Iterator[str]:
        return iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths)

    def files_in(self, directory: str) -> list[str]:
        """Files directly inside `directory` ("" is the repo root), sorted."""
        return self._by_dir.get(directory.strip("/"), [])

    def ending_with(self, suffix: str, case_sensitive: bool = True) -> list[str]:
        """Paths equal to `suffix` or ending with "/" + suffix, shallowest first."""
        name = suffix.rpartition("/")[2].lower()
        candidates = self._by_name.get(name, [])
        if case_sensitive:
            return [p for p in candidates if p == suffix or p.endswith("/" + suffix)]
        lowered = suffix.lower()
        return [p for p in candidates if p.lower() == lowered or p.lower().endswith("/" + lowered)]

    def directories_ending_with(self, suffix: str) -> list[str]:
        return sorted(d for d in self._by_dir if d == suffix or d.endswith("/" + suffix))


def read_go_module(go_mod: str) -> str | None:
    """The module path declared by a go.mod file's text (`module example.com/app`), if any."""
    match = re.search(r"^\s*module\s+\"?([^\s\"]+)\"?", go_mod, re.MULTILINE)
    return match.group(1) if match else None


def resolve_imports(
    imports: Iterable[Import],
    language: str,
    repo_files: AbstractSet[str],
    go_module: str | None = None,
    go_module_dir: str = "",
) -> tuple[Import, ...]:
    """Copies of `imports` with `resolved_path` / `external` filled in; see the module docstring.

    `repo_files` holds repo-relative paths (forward slashes): a `FileIndex`, or any set (the index
    built for the most recent set object is reused, so pass the same object for every file of a
    run). `go_module` is the module path from go.mod and `go_module_dir` the folder holding that
    go.mod ("" for the repo root). An import may come back split in several, one per repo file its
    names resolve to (`from . import a, b` → a.py and b.py).
    """
    index = _file_index(repo_files)
    context = _Context(index, go_module, go_module_dir.strip("/"))
    resolver = _RESOLVERS.get(language, _external)
    resolved: list[Import] = []
    for item in imports:
        resolved.extend(resolver(item, context))
    return tuple(resolved)


_last_index: tuple[AbstractSet[str], FileIndex] | None = None


def _file_index(repo_files: AbstractSet[str]) -> FileIndex:
    """`repo_files` as a FileIndex; the index of the last plain set is kept, since callers resolve
    file after file of one repo against the same set."""
    global _last_index
    if isinstance(repo_files, FileIndex):
        return repo_files
    cached = _last_index
    if cached is not None and cached[0] is repo_files:
        return cached[1]
    index = FileIndex(repo_files)
    _last_index = (repo_files, index)
    return index


@dataclass(frozen=True)
class _Context:
    index: FileIndex
    go_module: str | None
    go_module_dir: str


_Resolver = Callable[[Import, _Context], list[Import]]


def _found(item: Import, path: str | None, relative: bool = False) -> list[Import]:
    if path:
        return [replace(item, resolved_path=path, external=False)]
    return [replace(item, resolved_path="", external=not relative)]


def _external(item: Import, context: _Context) -> list[Import]:
    return _found(item, None)


def _directory(path: str) -> str:
    return path.rpartition("/")[0]


def _join(*parts: str) -> str | None:
    """Normalised repo-relative path, or None when it leaves the repo."""
    joined = posixpath.normpath("/".join(part for part in parts if part))
    if joined == "." or joined.startswith("../") or joined == "..":
        return None if joined != "." else ""
    return joined.lstrip("/")


# ---------------------------------------------------------------------------------------------------
# Python


def _python(item: Import, context: _Context) -> list[Import]:
    index = context.index
    target = item.target
    dots = len(target) - len(target.lstrip("."))
    parts = [part for part in target[dots:].split(".") if part]
    if dots:
        base = item.path.split("/")[:-1]
        if dots - 1 > len(base):
            return _found(item, None, relative=True)
        roots = ["/".join(base[: len(base) - (dots - 1)])]
    else:
        directories = item.path.split("/")[:-1]
        ancestors = ["/".join(directories[:i]) for i in range(len(directories), 0, -1)]
        roots = list(dict.fromkeys(["", "src", *ancestors]))
    names = [name for name in item.names if name != "*"]
    for root in roots:
        module = _python_module(index, root, parts)
        submodules: dict[str, str] = {}
        if module is None or module.endswith("/__init__.py") or module == "__init__.py":
            for name in names:
                submodule = _python_module(index, root, [*parts, name])
                if submodule is not None:
                    submodules[name] = submodule
        if module is None and not submodules:
            continue
        results: list[Import] = []
        rest = tuple(name for name in item.names if name not in submodules)
        if module is not None and (rest or not submodules):
            results.append(replace(item, names=rest, resolved_path=module, external=False))
        elif module is None and rest:
            results.append(replace(item, names=rest, resolved_path="", external=not dots))
        for name, submodule in submodules.items():
            results.append(replace(item, names=(name,), resolved_path=submodule, external=False))
        return results
    return _found(item, None, relative=bool(dots))


def _python_module(index: FileIndex, root: str, parts: Sequence[str]) -> str | None:
    stem = "/".join(part for part in (root, *parts) if part)
    if parts:
        for candidate in (f"{stem}.py", f"{stem}/__init__.py", f"{stem}.pyi", f"{stem}/__init__.pyi"):
            if candidate in index:
                return candidate
        return None
    candidate = f"{stem}/__init__.py" if stem else "__init__.py"
    return candidate if candidate in index else None


# ---------------------------------------------------------------------------------------------------
# TypeScript / JavaScript

_SCRIPT_EXTENSIONS = (".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".vue", ".json")
_INDEX_FILES = tuple(f"/index{ext}" for ext in (".ts", ".tsx", ".js", ".jsx", ".mjs", ".vue"))
# ESM TypeScript imports name the emitted file: "./x.js" means x.ts.
_EMITTED = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}


def _script(item: Import, context: _Context) -> list[Import]:
    target = item.target.split("?", 1)[0]
    if target.startswith(("./", "../")) or target in (".", ".."):
        base = _join(_directory(item.path), target)
        relative = True
    elif target.startswith(("@/", "~/")):
        found = _script_file(context.index, _join("src", target[2:])) or _script_file(
            context.index, _join(target[2:])
        )
        return _found(item, found, relative=True)
    else:
        return _found(item, None)
    return _found(item, _script_file(context.index, base), relative=relative)


def _script_file(index: FileIndex, base: str | None) -> str | None:
    if base is None:
        return None
    if base in index:
        return base
    stem, extension = posixpath.splitext(base)
    for emitted in _EMITTED.get(extension, ()):
        if stem + emitted in index:
            return stem + emitted
    for suffix in (*_SCRIPT_EXTENSIONS, *_INDEX_FILES):
        if base + suffix in index:
            return base + suffix
    return None


# ---------------------------------------------------------------------------------------------------
# Go


def _go(item: Import, context: _Context) -> list[Import]:
    module = context.go_module
    target = item.target
    if not module or not (target == module or target.startswith(module + "/")):
        return _found(item, None)
    directory = _join(context.go_module_dir, target[len(module) + 1 :]) or ""
    files = [f for f in context.index.files_in(directory) if f.endswith(".go")]
    preferred = [f for f in files if not f.endswith("_test.go")] or files
    return _found(item, preferred[0] if preferred else None, relative=True)


# ---------------------------------------------------------------------------------------------------
# Rust


def _rust(item: Import, context: _Context) -> list[Import]:
    index = context.index
    segments = [s for s in item.target.split("::") if s]
    if not segments:
        return _found(item, None)
    crate_source = _rust_crate_source(item.path)
    module_dir = _rust_module_dir(item.path)
    first = segments[0]
    if first == "crate":
        bases, rest, relative = [crate_source], segments[1:], True
    elif first in ("self", "super"):
        base = module_dir
        rest = segments
        while rest and rest[0] in ("self", "super"):
            if rest[0] == "super":
                base = _directory(base)
            rest = rest[1:]
        bases, relative = [base], True
    else:  # a module in scope (2018 uniform paths), a crate-root module, or an external crate
        bases, rest, relative = [module_dir, crate_source], segments, False
    names = [name for name in item.names if name not in ("*", "self")]
    for base in bases:
        submodules = {
            name: f for name in names if (f := _rust_module_file(index, base, [*rest, name], exact=True))
        }
        module = _rust_module_file(index, base, rest, exact=False) if rest else None
        if module is None and not rest and relative:
            module = _rust_own_file(index, base, item.path, crate_source)
        if module is None and not submodules:
            continue
        results: list[Import] = []
        remaining = tuple(name for name in item.names if name not in submodules)
        if module is not None and (remaining or not submodules):
            results.append(replace(item, names=remaining, resolved_path=module, external=False))
        for name, found in submodules.items():
            results.append(replace(item, names=(name,), resolved_path=found, external=False))
        return results
    return _found(item, None, relative=relative)


def _rust_crate_source(path: str) -> str:
    parts = path.split("/")[:-1]
    if "src" in parts:
        last = len(parts) - 1 - parts[::-1].index("src")
        return "/".join(parts[: last + 1])
    return "/".join(parts)


def _rust_module_dir(path: str) -> str:
    directory, _, name = path.rpartition("/")
    if name in ("lib.rs", "main.rs", "mod.rs"):
        return directory
    return _join(directory, name[: -len(".rs")] if name.endswith(".rs") else name) or ""


def _rust_module_file(index: FileIndex, base: str, segments: Sequence[str], exact: bool) -> str | None:
    """The file of the longest module prefix of `segments` under `base` (of all of them if `exact`)."""
    lengths = [len(segments)] if exact else range(len(segments), 0, -1)
    for length in lengths:
        stem = "/".join(part for part in (base, *segments[:length]) if part)
        for candidate in (f"{stem}.rs", f"{stem}/mod.rs"):
            if candidate in index:
                return candidate
    return None


def _rust_own_file(index: FileIndex, base: str, path: str, crate_source: str) -> str | None:
    if base == _rust_module_dir(path):
        return path
    if base == crate_source:
        for root in ("lib.rs", "main.rs"):
            candidate = _join(base, root)
            if candidate and candidate in index:
                return candidate
    for candidate in (f"{base}.rs", f"{base}/mod.rs"):
        if candidate in index:
            return candidate
    return None


# ---------------------------------------------------------------------------------------------------
# JVM languages and PHP: package paths mirrored by folders


def _packaged(extensions: tuple[str, ...]) -> _Resolver:
    def resolve(item: Import, context: _Context) -> list[Import]:
        segments = [s for s in item.target.split(".") if s]
        if item.names == ("*",):
            folders = context.index.directories_ending_with("/".join(segments))
            for folder in folders:
                files = [f for f in context.index.files_in(folder) if f.endswith(extensions)]
                if files:
                    return _found(item, files[0])
            return _found(item, None)
        for length in range(len(segments), 1, -1):  # `import static a.b.C.member` names a member of C
            for extension in extensions:
                matches = context.index.ending_with("/".join(segments[:length]) + extension)
                if matches:
                    return _found(item, matches[0])
        return _found(item, None)

    return resolve


def _php(item: Import, context: _Context) -> list[Import]:
    target = item.target
    if "/" in target or target.endswith((".php", ".inc")):
        return _relative_path(item, context)
    segments = [s for s in target.strip("\\").split("\\") if s]
    names = [name for name in item.names if name != "*"]
    if names:
        results: list[Import] = []
        for name in names:
            found = _php_class_file(context.index, [*segments, name])
            results.append(replace(item, names=(name,), resolved_path=found or "", external=found is None))
        return results
    return _found(item, _php_class_file(context.index, segments))


def _php_class_file(index: FileIndex, segments: Sequence[str]) -> str | None:
    # PSR-4 maps the leading namespace segments to a folder (App\ → app/ or src/): drop them one by one
    for start in range(len(segments) - 1):
        matches = index.ending_with("/".join(segments[start:]) + ".php", case_sensitive=False)
        if matches:
            return matches[0]
    return None


# ---------------------------------------------------------------------------------------------------
# C / C++


def _include(item: Import, context: _Context) -> list[Import]:
    target = item.target
    if target.startswith("<"):
        return _found(item, None)
    index = context.index
    for candidate in (_join(_directory(item.path), target), _join(target), _join("include", target)):
        if candidate and candidate in index:
            return _found(item, candidate)
    matches = index.ending_with(target.lstrip("./"))
    return _found(item, matches[0] if len(matches) == 1 else None)


# ---------------------------------------------------------------------------------------------------
# path-like imports: Ruby, Lua, Bash, Zig, CSS, HTML


def _relative_path(item: Import, context: _Context, extensions: tuple[str, ...] = ("",)) -> list[Import]:
    target = item.target
    if "://" in target or target.startswith(("//", "data:", "mailto:")):
        return _found(item, None)
    if target.startswith("$") and "/" in target:  # "$DIR/lib.sh": a variable naming the script's folder
        target = "./" + target.split("/", 1)[1]
    base = _join(target) if target.startswith("/") else _join(_directory(item.path), target)
    if base is not None:
        for extension in extensions:
            if base + extension in context.index:
                return _found(item, base + extension)
    return _found(item, None, relative=True)


def _ruby(item: Import, context: _Context) -> list[Import]:
    if item.target.startswith(("./", "../")):
        return _relative_path(item, context, ("", ".rb"))
    for root in ("lib", "", "app"):
        candidate = _join(root, item.target)
        if candidate and candidate + ".rb" in context.index:
            return _found(item, candidate + ".rb")
    return _found(item, None)


def _lua(item: Import, context: _Context) -> list[Import]:
    stem = item.target.replace(".", "/")
    for root in ("", "lua", "src", _directory(item.path)):
        for candidate in (_join(root, stem + ".lua"), _join(root, stem, "init.lua")):
            if candidate and candidate in context.index:
                return _found(item, candidate)
    return _found(item, None)


def _zig(item: Import, context: _Context) -> list[Import]:
    if not item.target.endswith(".zig"):
        return _found(item, None)  # @import("std") and build-declared modules
    return _relative_path(item, context)


def _bash(item: Import, context: _Context) -> list[Import]:
    return _relative_path(item, context, ("", ".sh"))


_RESOLVERS: dict[str, _Resolver] = {
    "python": _python,
    "typescript": _script,
    "tsx": _script,
    "javascript": _script,
    "vue": _script,
    "go": _go,
    "rust": _rust,
    "java": _packaged((".java",)),
    "kotlin": _packaged((".kt", ".kts", ".java")),
    "scala": _packaged((".scala", ".java")),
    "php": _php,
    "c": _include,
    "cpp": _include,
    "ruby": _ruby,
    "lua": _lua,
    "zig": _zig,
    "bash": _bash,
    "css": _relative_path,
    "html": _relative_path,
}
