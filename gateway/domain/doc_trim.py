"""Long doc comments in injected code are cut to their summary (the first sentence), in any language.

Recognised, by shape rather than by language: block comments (`/** … */`, `/* … */`), docstrings
(a line opening with `\"\"\"` or `'''`), and runs of line comments (`///`, `//!`, `//`, `#`). A comment
of at most `max_lines` lines is left alone; a longer one keeps its opening up to the end of the first
sentence (at most `summary_lines` lines) and says how many lines were left out, in its own syntax.
Code lines are never touched, so the result still parses as the same code.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

DOC_MAX_LINES = 4
SUMMARY_LINES = 2

_BLOCK_OPEN = re.compile(r"^(\s*)/\*")
_DOCSTRING_OPEN = re.compile(r"^(\s*)(?:[rRuUbB]{0,2})(\"\"\"|''')")
_LINE_COMMENT = re.compile(r"^(\s*)(///|//!|//|#)(?=\s|$)")
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")


def trim_doc_comments(
    content: str, max_lines: int = DOC_MAX_LINES, summary_lines: int = SUMMARY_LINES
) -> str:
    """`content` with every doc comment longer than `max_lines` lines cut to its summary."""
    lines = content.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        end, prefix = _comment_end(lines, i)
        if end < 0:
            out.append(lines[i])
            i += 1
            continue
        comment = lines[i : end + 1]
        out.extend(
            _summarise(comment, prefix, max_lines, summary_lines) if len(comment) > max_lines else comment
        )
        i = end + 1
    text = "\n".join(out)
    return text + "\n" if content.endswith("\n") else text


def _comment_end(lines: Sequence[str], i: int) -> tuple[int, str]:
    """(index of the comment's last line, its kind) when a comment starts at line i, else (-1, "")."""
    line = lines[i]
    if _BLOCK_OPEN.match(line):
        for j in range(i, len(lines)):
            if "*/" in (lines[j][line.index("/*") + 2 :] if j == i else lines[j]):
                return j, "block"
        return -1, ""
    docstring = _DOCSTRING_OPEN.match(line)
    if docstring:
        quote = docstring.group(2)
        rest = line[docstring.end() :]
        if quote in rest:
            return i, "docstring"
        for j in range(i + 1, len(lines)):
            if quote in lines[j]:
                return j, "docstring"
        return -1, ""
    marker = _LINE_COMMENT.match(line)
    if marker:
        j = i
        while (
            j + 1 < len(lines) and (m := _LINE_COMMENT.match(lines[j + 1])) and m.group(2) == marker.group(2)
        ):
            j += 1
        return j, "line:" + marker.group(2)
    return -1, ""


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
