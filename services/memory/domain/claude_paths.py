"""Where Claude Code keeps its memory for a project: ~/.claude/projects/<sanitized path>/memory/.

Claude Code names a project's folder after the absolute project path with every character outside
[A-Za-z0-9] replaced by '-' (per UTF-16 code unit, so a character outside the BMP gives two dashes; no
collapsing of runs; case kept). Names longer than 200 characters are cut to 200 and get '-' plus a hash
suffix whose algorithm has changed between releases, so for those we only accept a folder found on disk
whose name starts with the 200-character prefix, and only when exactly one does.
"""

from __future__ import annotations

MAX_SANITIZED_LENGTH = 200


def sanitize_project_path(path: str) -> str:
    out: list[str] = []
    for ch in path:
        if ch.isascii() and ch.isalnum():
            out.append(ch)
        else:
            out.append("--" if ord(ch) > 0xFFFF else "-")
    return "".join(out)


def js_string_hash(text: str) -> int:
    """The 32-bit `(h << 5) - h + charCode` hash some Claude Code releases append to long names."""
    value = 0
    for unit in _utf16_units(text):
        value = (value * 31 + unit) & 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def long_name_candidates(path: str) -> tuple[str, str]:
    """(exact name for the djb2-style hash, 200-character prefix) for a path whose name is too long."""
    sanitized = sanitize_project_path(path)
    prefix = sanitized[:MAX_SANITIZED_LENGTH]
    return f"{prefix}-{_base36(abs(js_string_hash(path)))}", prefix


def _utf16_units(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]


def _base36(number: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    if number == 0:
        return "0"
    out = []
    while number:
        number, rem = divmod(number, 36)
        out.append(digits[rem])
    return "".join(reversed(out))
