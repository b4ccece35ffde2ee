"""Text length as Claude Code measures it: JavaScript string length, in UTF-16 code units.

Claude Code replaces injected hook text longer than 10,000 units by a file path and a preview. A
character outside the Basic Multilingual Plane (an emoji, many CJK extension ideographs) is one Python
character but two UTF-16 units, so `len()` undercounts; every text bound for Claude Code is measured and
cut here instead, against a cap with a safety margin.
"""

from __future__ import annotations

CLAUDE_CODE_TEXT_LIMIT = 10_000
# Room below Claude Code's limit for anything it adds around our text; the caps we apply use this.
SAFETY_MARGIN = 200
TEXT_CAP = CLAUDE_CODE_TEXT_LIMIT - SAFETY_MARGIN


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units (what JavaScript's `String.length` returns)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def cut_utf16(text: str, limit: int) -> str:
    """The longest prefix of `text` at most `limit` UTF-16 units long, never splitting a surrogate pair."""
    if limit <= 0:
        return ""
    if len(text) <= limit // 2 or utf16_len(text) <= limit:
        return text
    units = 0
    for index, char in enumerate(text):
        units += 2 if ord(char) > 0xFFFF else 1
        if units > limit:
            return text[:index]
    return text
