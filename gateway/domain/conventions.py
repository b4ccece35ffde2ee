"""Conventions summary for SessionStart: what a newcomer would want to know before touching the code.

From what the index already holds — file paths, definition names, imports, declared scripts and the
graph's communities — detect naming styles per language, test layout and frameworks, entry points
and the main areas of the code. The result is a short factual text (≤ MAX_CHARS characters).
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gateway.domain.assembly import relative_path
from kit.domain import Chunk, Import, Symbol
from kit.paths import is_test_path, tests_folder_index

MAX_CHARS = 2_000
# A style is only reported for a language with at least this many classifiable names of a kind.
MIN_NAMES = 5

_EXTENSION_LANGUAGES = {
    ".py": "python", ".pyi": "python", ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript",
    ".cjs": "javascript", ".ts": "typescript", ".tsx": "typescript", ".go": "go", ".rs": "rust",
    ".java": "java", ".kt": "kotlin", ".rb": "ruby", ".php": "php", ".cs": "csharp", ".cpp": "cpp",
    ".cc": "cpp", ".c": "c", ".h": "c", ".hpp": "cpp", ".swift": "swift", ".scala": "scala",
}  # fmt: skip
_FUNCTION_KINDS = frozenset({"function", "method"})
_TYPE_KINDS = frozenset({"class", "interface", "enum", "type"})
_TEST_FILE_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("test_*.py", re.compile(r"^test_.*\.py$")),
    ("*_test.py", re.compile(r"^.*_test\.py$")),
    ("*_test.go", re.compile(r"^.*_test\.go$")),
    ("*.test.ts/js", re.compile(r"^.*\.test\.[cm]?[jt]sx?$")),
    ("*.spec.ts/js", re.compile(r"^.*\.spec\.[cm]?[jt]sx?$")),
    ("*Test.java/kt", re.compile(r"^.*Tests?\.(?:java|kt)$")),
    ("*_spec.rb", re.compile(r"^.*_spec\.rb$")),
    ("*_test.rs", re.compile(r"^.*_test\.rs$")),
)
_BUILD_FILES = (
    "Makefile", "justfile", "Taskfile.yml", "Dockerfile", "docker-compose.yml", "docker-compose.yaml",
    "compose.yaml", "package.json", "pyproject.toml", "setup.py", "go.mod", "Cargo.toml", "pom.xml",
    "build.gradle", "Gemfile",
)  # fmt: skip
# Test frameworks: (name, import prefixes, file names that prove it).
_FRAMEWORKS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("pytest", ("pytest", "_pytest"), ("conftest.py", "pytest.ini")),
    ("unittest", ("unittest",), ()),
    ("vitest", ("vitest",), ("vitest.config.ts", "vitest.config.js", "vitest.config.mts")),
    (
        "jest",
        ("jest", "@jest/globals"),
        ("jest.config.js", "jest.config.ts", "jest.config.cjs", "jest.config.mjs"),
    ),
    ("mocha", ("mocha", "chai"), (".mocharc.json", ".mocharc.yml", ".mocharc.js")),
    ("playwright", ("@playwright/test",), ("playwright.config.ts", "playwright.config.js")),
    ("cypress", ("cypress",), ("cypress.config.ts", "cypress.config.js")),
    ("go test", (), ()),
    ("JUnit", ("org.junit",), ()),
    ("RSpec", ("rspec",), (".rspec",)),
)
_MAIN_GUARD = re.compile(r"""if\s+__name__\s*==\s*['"]__main__['"]""")


@dataclass(frozen=True, slots=True)
class DefinedName:
    """A definition when no Chunk or Symbol is at hand."""

    name: str
    kind: str
    path: str
    language: str = ""
    is_test: bool = False


Definition = Chunk | Symbol | DefinedName


@dataclass(frozen=True)
class RepoProfile:
    """What the lead gathers from the index for one repository.

    `files`: repo-relative paths of the indexed files. `language_files`: files per language.
    `definitions`: functions/methods/classes (a sample is fine). `imports`: kit Imports (path = the
    importing file). `scripts`: declared commands by source, e.g. {"package.json": {"test": "vitest"},
    "pyproject.toml": {"reporecall": "cli.main:main"}}. `communities`: (label, size), any order.
    """

    repo: str = ""
    files: Sequence[str] = ()
    language_files: Mapping[str, int] = field(default_factory=dict)
    definitions: Sequence[Definition] = ()
    imports: Sequence[Import] = ()
    scripts: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    communities: Sequence[tuple[str, int]] = ()


def summarize_conventions(profile: RepoProfile, max_chars: int = MAX_CHARS) -> str:
    """A short factual summary of the repository's conventions (empty when nothing is known)."""
    files = sorted({relative_path(p) for p in profile.files})
    lines = [
        _languages_line(profile, files),
        _naming_line(profile.definitions),
        _tests_line(files, profile.definitions, profile.imports),
        _entry_points_line(files, profile.definitions, profile.scripts),
        _build_files_line(files),
        _areas_line(profile.communities),
    ]
    body = [line for line in lines if line]
    if not body:
        return ""
    title = (
        f"Repository conventions ({profile.repo}, detected from the index):"
        if profile.repo
        else ("Repository conventions (detected from the index):")
    )
    return _fit([title, *body], max_chars)


# ---------------------------------------------------------------------------------------------------
# Languages and naming


def _languages_line(profile: RepoProfile, files: Sequence[str]) -> str:
    counts = Counter({lang: n for lang, n in profile.language_files.items() if n > 0 and lang})
    if not counts:
        counts = Counter(lang for path in files if (lang := _language_of(path)))
    if not counts:
        return ""
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:6]
    first, *rest = ranked
    text = f"{first[0]} {first[1]} files" + "".join(f", {lang} {n}" for lang, n in rest)
    return f"- Languages: {text}."


def name_style(name: str) -> str:
    """snake_case | camelCase | PascalCase | UPPER_CASE | lower (one lowercase word) | other."""
    core = name.strip("_")
    if not core or (name.startswith("__") and name.endswith("__")):
        return "other"
    has_lower, has_upper = any(c.islower() for c in core), any(c.isupper() for c in core)
    if not has_lower and has_upper:
        return "UPPER_CASE"
    if "_" in core:
        return "snake_case" if not has_upper else "other"
    if not has_upper:
        return "lower" if core[0].isalpha() else "other"
    return "PascalCase" if core[0].isupper() else "camelCase"


def _naming_line(definitions: Sequence[Definition]) -> str:
    styles: dict[tuple[str, str], Counter[str]] = {}
    for definition in definitions:
        kind = str(definition.kind)
        group = "functions" if kind in _FUNCTION_KINDS else "classes" if kind in _TYPE_KINDS else ""
        language = getattr(definition, "language", "") or _language_of(definition.path)
        if not group or not language:
            continue
        style = name_style(definition.name)
        if style in {"lower", "other"}:
            continue  # "run" fits every style; dunders and mixed names say nothing
        styles.setdefault((language, group), Counter())[style] += 1
    per_language: dict[str, list[str]] = {}
    for (language, group), counter in sorted(styles.items()):
        total = sum(counter.values())
        if total < MIN_NAMES:
            continue
        ranked = sorted(counter.items(), key=lambda item: (-item[1], item[0]))
        parts = [f"{ranked[0][0]} {_percent(ranked[0][1], total)}"]
        if len(ranked) > 1 and ranked[1][1] / total >= 0.2:
            parts.append(f"{ranked[1][0]} {_percent(ranked[1][1], total)}")
        per_language.setdefault(language, []).append(f"{group} " + " / ".join(parts))
    if not per_language:
        return ""
    ordered = sorted(per_language.items(), key=lambda item: item[0])
    return "- Naming: " + "; ".join(f"{language} {', '.join(groups)}" for language, groups in ordered) + "."


# ---------------------------------------------------------------------------------------------------
# Tests


def _tests_line(files: Sequence[str], definitions: Sequence[Definition], imports: Sequence[Import]) -> str:
    test_files = {p for p in files if is_test_path(p) and _language_of(p)}
    test_files.update(relative_path(d.path) for d in definitions if getattr(d, "is_test", False) and d.path)
    if not test_files:
        return ""
    in_dirs: Counter[str] = Counter()
    colocated = 0
    for path in test_files:
        parts = path.split("/")
        index = tests_folder_index(parts)
        if index is None:
            colocated += 1
        else:
            in_dirs["/".join(parts[: index + 1]) + "/"] += 1
    total = len(test_files)
    layout: list[str] = []
    if in_dirs:
        roots = [root for root, _ in sorted(in_dirs.items(), key=lambda item: (-item[1], item[0]))]
        shown = ", ".join(roots[:3]) + (f" +{len(roots) - 3} more" if len(roots) > 3 else "")
        layout.append(f"in test folders ({shown}) {_percent(sum(in_dirs.values()), total)}")
    if colocated:
        layout.append(f"beside the code {_percent(colocated, total)}")
    names = Counter(
        label
        for path in test_files
        for label, pattern in _TEST_FILE_PATTERNS
        if pattern.match(path.rsplit("/", 1)[-1])
    )
    frameworks = _frameworks(files, test_files, imports)
    parts = [f"{total} files"]
    if frameworks:
        parts.append(", ".join(frameworks))
    parts.append(" and ".join(layout))
    if names:
        parts.append(
            "files named "
            + ", ".join(label for label, _ in sorted(names.items(), key=lambda item: (-item[1], item[0]))[:2])
        )
    return "- Tests: " + "; ".join(parts) + "."


def _frameworks(files: Sequence[str], test_files: set[str], imports: Sequence[Import]) -> list[str]:
    basenames = {posixpath.basename(p) for p in files}
    targets = [imp.target for imp in imports]
    found: list[str] = []
    for name, prefixes, proof_files in _FRAMEWORKS:
        imported = any(t == p or t.startswith((p + ".", p + "/")) for t in targets for p in prefixes)
        if name == "go test":
            imported = any(p.endswith("_test.go") for p in test_files)  # `testing` alone is ambiguous
        if imported or basenames.intersection(proof_files):
            found.append(name)
    if "pytest" not in found and "unittest" not in found and any(p.endswith(".py") for p in test_files):
        found.append("pytest-style (no runner import seen)")
    return found


# ---------------------------------------------------------------------------------------------------
# Entry points, build files, areas


def _entry_points_line(
    files: Sequence[str], definitions: Sequence[Definition], scripts: Mapping[str, Mapping[str, str]]
) -> str:
    parts: list[str] = []
    mains = sorted(p for p in files if posixpath.basename(p) == "__main__.py")
    if mains:
        parts.append("__main__.py in " + _listing([posixpath.dirname(p) or "." for p in mains], 4))
    main_functions = sorted(
        {
            relative_path(d.path)
            for d in definitions
            if d.name == "main" and str(d.kind) == "function" and not getattr(d, "is_test", False)
        }
    )
    main_functions = [p for p in main_functions if posixpath.basename(p) != "__main__.py"]
    if main_functions:
        main_functions.sort(key=lambda p: (not p.startswith("cmd/") and "/cmd/" not in p, p))
        parts.append("main() in " + _listing(main_functions, 4))
    guarded = sorted(
        {
            relative_path(d.path)
            for d in definitions
            if isinstance(d, Chunk)
            and _MAIN_GUARD.search(d.content)
            and posixpath.basename(d.path) != "__main__.py"
        }
    )
    if guarded:
        parts.append('`if __name__ == "__main__"` in ' + _listing(guarded, 3))
    bins = sorted(p for p in files if p.startswith("bin/") or "/bin/" in p)
    if bins:
        parts.append("bin/: " + _listing(bins, 3))
    for source in sorted(scripts):
        names = sorted(scripts[source])
        if names:
            label = "npm scripts" if source.endswith("package.json") else f"{source} scripts"
            parts.append(f"{label}: " + _listing(names, 6))
    return "- Entry points: " + "; ".join(parts) + "." if parts else ""


def _build_files_line(files: Sequence[str]) -> str:
    top = {p for p in files if "/" not in p}
    present = [name for name in _BUILD_FILES if name in top]
    return "- Build and run files: " + ", ".join(present) + "." if present else ""


def _areas_line(communities: Sequence[tuple[str, int]]) -> str:
    ranked = sorted(
        ((label or "(unnamed)", size) for label, size in communities if size > 0), key=lambda c: (-c[1], c[0])
    )
    if not ranked:
        return ""
    shown = ", ".join(f"{label} ({size} symbols)" for label, size in ranked[:6])
    more = f", and {len(ranked) - 6} smaller" if len(ranked) > 6 else ""
    return f"- Main areas (call-graph communities): {shown}{more}."


# ---------------------------------------------------------------------------------------------------
# Helpers


def _language_of(path: str) -> str:
    return _EXTENSION_LANGUAGES.get(posixpath.splitext(path)[1].lower(), "")


def _percent(part: int, total: int) -> str:
    return f"{round(100 * part / total)}%" if total else "0%"


def _listing(values: Sequence[str], limit: int) -> str:
    shown = ", ".join(values[:limit])
    return shown + (f" (+{len(values) - limit} more)" if len(values) > limit else "")


def _fit(lines: list[str], max_chars: int) -> str:
    """Join lines; over the cap, clip the longest lines first, then drop lines from the end."""
    if max_chars <= 0:
        return ""
    clipped = [line if len(line) <= 400 else line[:399] + "…" for line in lines]
    while len(clipped) > 1 and len("\n".join(clipped)) > max_chars:
        clipped.pop()
    text = "\n".join(clipped)
    return text if len(text) <= max_chars else text[: max(0, max_chars - 1)] + "…"
