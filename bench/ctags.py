"""Definition recall of the indexer's chunks against Universal Ctags (issue 17).

`python -m bench ctags [--corpus NAME ...] [--misses N] [--out DIR]`: for every file of a corpus that the
indexer would index (same scanner, same language detection), Universal Ctags (Debian `universal-ctags`,
installed by the bench setup: `make bench-setup`) lists the function/method/class definitions; a tag is
*recalled* when the innermost definition chunk of `parse_file` that covers the tag's line carries the
tag's name (its name, or the last segment of its qualified name) and starts at most `MAX_LEAD_LINES`
before it (the doc comment / decorator block that the chunk includes). A definition folded into a
module or an enclosing chunk is therefore a miss.

Tags left out, each counted in the report: ctags' anonymous placeholders (`AnonymousFunction…`,
`__anon…`), and JavaScript/TypeScript `class` tags on lines that define no class or function (ctags
reads `X.prototype.y = …` and object literals as a class `X`; `Array.prototype.push.apply(…)` makes a
class `Array`).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from bench.corpora import Corpus, fetch, load_corpora
from kit.domain import Chunk, ChunkKind
from services.indexer.adapters.fs_tree import RepoScanner
from services.indexer.domain.languages import detect_language
from services.indexer.domain.parsing import parse_file

# Our language name → ctags' parser name (only languages both sides extract definitions for).
CTAGS_LANGUAGES: dict[str, str] = {
    "python": "Python",
    "javascript": "JavaScript",
    "typescript": "TypeScript",
    "go": "Go",
    "rust": "Rust",
    "java": "Java",
    "c": "C",
    "cpp": "C++",
    "csharp": "C#",
    "ruby": "Ruby",
    "php": "PHP",
    "kotlin": "Kotlin",
    "lua": "Lua",
    "bash": "Sh",
}
# ctags kind names (full names, across its parsers) that are function/method/class definitions.
DEFINITION_KINDS = frozenset(
    {"function", "func", "method", "member", "class", "struct", "getter", "setter", "generator",
     "singletonMethod", "object", "trait"}
)  # fmt: skip
MAX_LEAD_LINES = 40  # a chunk may start this far above the tag: doc comments and decorators
TARGET = 0.95
_ANONYMOUS = re.compile(r"^(?:AnonymousFunction|__anon|<lambda>)")
_DEFINES = re.compile(r"\b(?:class|function|=>|interface)\b|=>")
_LEAD_LINE = re.compile(r"^\s*(?:$|/\*|\*|//|#|@|--|\[|\]|\)|\"\"\")")
_NOT_DEFINITIONS = frozenset({ChunkKind.MODULE, ChunkKind.FILE})


@dataclass(frozen=True)
class Tag:
    path: str
    name: str
    line: int
    kind: str
    pattern: str = ""


@dataclass
class LanguageRecall:
    tags: int = 0
    recalled: int = 0
    excluded: Counter[str] = field(default_factory=Counter)
    misses: list[tuple[Tag, str]] = field(default_factory=list)  # tag, what covered its line

    @property
    def recall(self) -> float:
        return self.recalled / self.tags if self.tags else 1.0


def ctags_available() -> bool:
    return shutil.which("ctags") is not None and "Universal Ctags" in _ctags_version()


def _ctags_version() -> str:
    try:
        return subprocess.run(["ctags", "--version"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return ""


def run_ctags(root: Path, language: str, paths: list[str]) -> list[Tag]:
    """ctags' definitions in `paths` (repo-relative), parsed as `language` whatever their extension."""
    if not paths:
        return []
    command = [
        "ctags", "--output-format=json", "--fields=+nK", "--extras=-F", "-f", "-",
        f"--language-force={CTAGS_LANGUAGES[language]}", "-L", "-",
    ]  # fmt: skip
    result = subprocess.run(
        command, cwd=root, input="\n".join(paths), capture_output=True, text=True, check=True
    )
    tags = []
    for line in result.stdout.splitlines():
        entry = json.loads(line)
        kind = entry.get("kind")
        if entry.get("_type") != "tag" or kind not in DEFINITION_KINDS:
            continue
        if kind == "member" and language != "python":  # struct fields elsewhere; Python's methods
            continue
        pattern = entry.get("pattern", "")
        tags.append(Tag(entry["path"], entry["name"], int(entry["line"]), entry["kind"], pattern))
    return tags


def _exclusion(tag: Tag, language: str) -> str | None:
    if _ANONYMOUS.match(tag.name):
        return "anonymous"
    if language in ("javascript", "typescript") and tag.kind == "class" and not _DEFINES.search(tag.pattern):
        return "js class that is no definition"
    return None


def _covering(chunks: tuple[Chunk, ...], line: int) -> Chunk | None:
    """The innermost chunk covering `line` (definitions before module pieces of the same span)."""
    best: Chunk | None = None
    for chunk in chunks:
        if chunk.start_line <= line <= chunk.end_line and (
            best is None
            or chunk.end_line - chunk.start_line < best.end_line - best.start_line
            or (best.kind in _NOT_DEFINITIONS and chunk.kind not in _NOT_DEFINITIONS)
        ):
            best = chunk
    return best


def _names(chunk: Chunk) -> set[str]:
    names = {chunk.name, chunk.qualified_name.rpartition(".")[2], chunk.qualified_name.rpartition("::")[2]}
    return {name for name in names if name}


def is_recalled(tag: Tag, chunks: tuple[Chunk, ...]) -> tuple[bool, str]:
    """Whether a definition chunk of its own, named like the tag, holds it: the chunk starts at the tag's
    line or above it by no more than its leading doc comment / decorators (`MAX_LEAD_LINES`, or any run of
    comment lines), or it is the innermost definition chunk there (an overload group: signatures joined
    to their implementation, a property's getter and setter)."""
    definitions = tuple(chunk for chunk in chunks if chunk.kind not in _NOT_DEFINITIONS)
    for chunk in definitions:
        if chunk.start_line <= tag.line <= chunk.end_line and tag.name in _names(chunk):
            lead = chunk.content.splitlines()[: tag.line - chunk.start_line]
            if len(lead) <= MAX_LEAD_LINES or all(_LEAD_LINE.match(line) for line in lead):
                return True, ""
    inner = _covering(definitions, tag.line)
    if inner is not None and tag.name in _names(inner):
        return True, ""
    holder = _covering(chunks, tag.line)
    return False, (f"{holder.kind.name.lower()} {holder.qualified_name}" if holder else "no chunk")


def corpus_recall(corpus: Corpus) -> dict[str, LanguageRecall]:
    root = fetch(corpus)
    by_language: dict[str, list[str]] = defaultdict(list)
    for scanned in RepoScanner(root, accept=lambda p: detect_language(p) is not None).walk(sniff=True):
        language = detect_language(scanned.path)
        if language in CTAGS_LANGUAGES:
            by_language[language].append(scanned.path)
    results: dict[str, LanguageRecall] = {}
    for language, paths in sorted(by_language.items()):
        tags_by_path: dict[str, list[Tag]] = defaultdict(list)
        for tag in run_ctags(root, language, paths):
            tags_by_path[tag.path].append(tag)
        stats = results[language] = LanguageRecall()
        for path in paths:
            tags = tags_by_path.get(path)
            if not tags:
                continue
            chunks = parse_file(corpus.name, path, (root / path).read_bytes(), language).chunks
            for tag in sorted(tags, key=lambda t: t.line):
                reason = _exclusion(tag, language)
                if reason:
                    stats.excluded[reason] += 1
                    continue
                stats.tags += 1
                recalled, holder = is_recalled(tag, chunks)
                if recalled:
                    stats.recalled += 1
                else:
                    stats.misses.append((tag, holder))
    return results


def render(results: dict[str, dict[str, LanguageRecall]], misses: int) -> str:
    lines = [
        f"# ctags definition recall — {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        "",
        f"`python -m bench ctags` · {_ctags_version().splitlines()[0] if _ctags_version() else 'ctags ?'}"
        f" · target ≥ {TARGET:.2f} per language",
        "",
        "| corpus | language | ctags definitions | recalled | recall | excluded |",
        "|---|---|---|---|---|---|",
    ]
    totals: dict[str, LanguageRecall] = defaultdict(LanguageRecall)
    for corpus, languages in results.items():
        for language, stats in languages.items():
            excluded = ", ".join(f"{n} {why}" for why, n in sorted(stats.excluded.items())) or "—"
            lines.append(
                f"| {corpus} | {language} | {stats.tags} | {stats.recalled} | {stats.recall:.3f} | {excluded} |"
            )
            totals[language].tags += stats.tags
            totals[language].recalled += stats.recalled
    lines += ["", "| language (all corpora) | definitions | recall |", "|---|---|---|"]
    for language, stats in sorted(totals.items()):
        verdict = "ok" if stats.recall >= TARGET else "BELOW TARGET"
        lines.append(f"| {language} | {stats.tags} | {stats.recall:.3f} {verdict} |")
    if misses:
        lines += ["", f"## Misses (first {misses} per corpus and language)", ""]
        for corpus, languages in results.items():
            for language, stats in languages.items():
                for tag, holder in stats.misses[:misses]:
                    lines.append(
                        f"- {corpus}/{language} `{tag.path}:{tag.line}` {tag.kind} `{tag.name}` → {holder}"
                    )
    return "\n".join(lines) + "\n"


def run(only: list[str] | None, misses: int, out_dir: Path | None) -> int:
    if not ctags_available():
        raise SystemExit(
            "bench ctags: Universal Ctags not found; run `make bench-setup` (apt-get universal-ctags)"
        )
    corpora = load_corpora()
    names = only or list(corpora)
    unknown = [name for name in names if name not in corpora]
    if unknown:
        raise SystemExit(f"bench ctags: unknown corpus {unknown}; known: {', '.join(corpora)}")
    results = {name: corpus_recall(corpora[name]) for name in names}
    text = render(results, misses)
    print(text, end="")
    if out_dir is not None:
        out_dir.mkdir(parents=True, exist_ok=True)
        target = out_dir / f"{datetime.now(UTC):%Y-%m-%d}-ctags.md"
        target.write_text(text)
        print(f"bench ctags: wrote {target}")
    below = [
        language
        for languages in results.values()
        for language, stats in languages.items()
        if stats.recall < TARGET
    ]
    return 1 if below else 0
