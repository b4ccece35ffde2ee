"""Long doc comments in injected code are cut to their summary (the first sentence).

Which comments are recognised depends on the chunk's language: block comments (`/** … */`, `/* … */`)
and `//` / `///` / `//!` line-comment runs in the C family, `#` line-comment runs in the script
languages, and — in Python only — a docstring, i.e. a string that is the first statement after a
`def` / `class` line or at the top of the chunk (a string literal anywhere else is code). Prose
(Markdown, reStructuredText, text) and languages not listed are never trimmed. A comment of at most
`max_lines` lines is left alone; a longer one keeps its opening up to the end of the first sentence
(at most `summary_lines` lines) and says how many lines were left out, in its own syntax. Code lines
are never touched, so the result still parses as the same code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

DOC_MAX_LINES = 4
SUMMARY_LINES = 2

_SLASH_LANGUAGES = frozenset(
    [
        "c",
        "cpp",
        "csharp",
        "css",
        "dart",
        "go",
        "groovy",
        "java",
        "javascript",
        "kotlin",
        "less",
        "objc",
        "php",
        "proto",
        "rust",
        "scala",
        "scss",
        "svelte",
        "swift",
        "tsx",
        "typescript",
        "vue",
        "zig",
    ]
)
_HASH_LANGUAGES = frozenset(
    [
        "bash",
        "cmake",
        "dockerfile",
        "elixir",
        "graphql",
        "hcl",
        "julia",
        "make",
        "nix",
        "perl",
        "php",
        "powershell",
        "python",
        "r",
        "ruby",
        "terraform",
        "toml",
        "yaml",
    ]
)
_DOCSTRING_LANGUAGES = frozenset({"python"})

_BLOCK_OPEN = re.compile(r"^(\s*)/\*")
_DOCSTRING_OPEN = re.compile(r"^(\s*)(?:[rRuUbB]{0,2})(\"\"\"|''')")
_SLASH_COMMENT = re.compile(r"^(\s*)(///|//!|//)(?=\s|$)")
_HASH_COMMENT = re.compile(r"^(\s*)(#)(?=\s|$)")
_DEF_LINE = re.compile(r"^\s*(?:async\s+def|def|class)\b")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")


def trim_doc_comments(
    content: str,
    language: str = "",
    max_lines: int = DOC_MAX_LINES,
    summary_lines: int = SUMMARY_LINES,
) -> str:
    """`content` with every doc comment longer than `max_lines` lines cut to its summary."""
    return trim_doc_comments_mapped(content, language, max_lines, summary_lines)[0]


def trim_doc_comments_mapped(
    content: str,
    language: str = "",
    max_lines: int = DOC_MAX_LINES,
    summary_lines: int = SUMMARY_LINES,
) -> tuple[str, list[int]]:
    """The trimmed content and, for each of its lines, the index of the content line it shows (an
    inserted "… trimmed" note counts as the last kept comment line), so line numbers stay exact."""
    lines = content.splitlines()
    out: list[str] = []
    line_map: list[int] = []
    i = 0
    while i < len(lines):
        end, kind = comment_end(lines, i, language)
        if end < 0:
            out.append(lines[i])
            line_map.append(i)
            i += 1
            continue
        comment = lines[i : end + 1]
        kept = _summarise(comment, kind, max_lines, summary_lines) if len(comment) > max_lines else comment
        if kept is comment or len(kept) == len(comment):
            out.extend(comment)
            line_map.extend(range(i, end + 1))
        else:
            keep = len(kept) - (1 if kind.startswith("line:") else 2)
            out.extend(kept)
            line_map.extend(range(i, i + keep))
            line_map.append(i + keep - 1)  # the note
            if not kind.startswith("line:"):
                line_map.append(end)  # the closing `*/` / quotes
        i = end + 1
    text = "\n".join(out)
    return (text + "\n" if content.endswith("\n") else text), line_map


def comment_spans(lines: Sequence[str], language: str) -> set[int]:
    """Indexes of the lines that belong to a comment or docstring in `language`."""
    inside: set[int] = set()
    i = 0
    while i < len(lines):
        end, _ = comment_end(lines, i, language)
        if end < 0:
            i += 1
            continue
        inside.update(range(i, end + 1))
        i = end + 1
    return inside


def comment_end(lines: Sequence[str], i: int, language: str) -> tuple[int, str]:
    """(index of the comment's last line, its kind) when a comment starts at line i, else (-1, "")."""
    language = (language or "").lower()
    line = lines[i]
    if language in _SLASH_LANGUAGES and _BLOCK_OPEN.match(line):
        for j in range(i, len(lines)):
            if "*/" in (lines[j][line.index("/*") + 2 :] if j == i else lines[j]):
                return j, "block"
        return -1, ""
    docstring = _DOCSTRING_OPEN.match(line)
    if language in _DOCSTRING_LANGUAGES and docstring and _first_statement(lines, i):
        quote = docstring.group(2)
        rest = line[docstring.end() :]
        if quote in rest:
            return i, "docstring"
        for j in range(i + 1, len(lines)):
            if quote in lines[j]:
                return j, "docstring"
        return -1, ""
    pattern = (
        _SLASH_COMMENT
        if language in _SLASH_LANGUAGES
        else _HASH_COMMENT
        if language in _HASH_LANGUAGES
        else None
    )
    marker = pattern.match(line) if pattern else None
    if pattern and marker:
        j = i
        while j + 1 < len(lines) and (m := pattern.match(lines[j + 1])) and m.group(2) == marker.group(2):
            j += 1
        return j, "line:" + marker.group(2)
    return -1, ""


def _first_statement(lines: Sequence[str], i: int) -> bool:
    """True when line i starts the first statement of the chunk or of a `def` / `class` body."""
    previous: list[int] = []  # up to 30 code lines above line i, nearest last
    for j in range(i - 1, -1, -1):
        if lines[j].strip() and not lines[j].lstrip().startswith("#"):
            previous.insert(0, j)
            if len(previous) == 30:
                break
    if not previous:
        return True
    last = previous[-1]
    if not lines[last].split("#", 1)[0].rstrip().endswith(":"):
        return False
    # Walk back over a signature that spans lines, to the line where its brackets open.
    depth = 0
    for j in reversed(previous):
        code = lines[j].split("#", 1)[0]
        depth += sum(code.count(c) for c in ")]}") - sum(code.count(c) for c in "([{")
        if depth <= 0:
            return bool(_DEF_LINE.match(lines[j]))
    return False


def _summarise(comment: Sequence[str], kind: str, max_lines: int, summary_lines: int) -> list[str]:
    keep = _summary_length(comment, summary_lines)
    dropped = len(comment) - keep - (0 if kind.startswith("line:") else 1)
    if dropped <= 0 or len(comment) <= max_lines:
        return list(comment)
    indent = re.match(r"\s*", comment[0]).group(0)  # type: ignore[union-attr]
    note = f"… {dropped} more comment lines trimmed"
    if kind == "block":
        closing = comment[-1].strip()
        closing = closing if closing.startswith("*/") or closing == "*/" else "*/"
        return [*comment[:keep], f"{indent} * {note}", f"{indent} {closing}"]
    if kind == "docstring":
        quote = _DOCSTRING_OPEN.match(comment[0]).group(2)  # type: ignore[union-attr]
        return [*comment[:keep], f"{indent}{note}", f"{indent}{quote}"]
    marker = kind.removeprefix("line:")
    return [*comment[:keep], f"{indent}{marker} {note}"]


def _summary_length(comment: Sequence[str], summary_lines: int) -> int:
    """Lines kept: up to the one where the first sentence ends (skipping an opener with no text)."""
    kept = 0
    text_lines = 0
    for line in comment:
        kept += 1
        words = re.sub(r"^\s*(/\*\*?|\*|///?|//!|#|[rRuUbB]{0,2}(\"\"\"|'''))", "", line).strip()
        if not words:
            if text_lines:
                break  # a blank line ends the summary paragraph
            continue
        text_lines += 1
        if _SENTENCE_END.search(words) or text_lines >= summary_lines:
            break
    return min(kept, len(comment) - 1) if len(comment) > 1 else kept
