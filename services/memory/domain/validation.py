"""Checks on what clients send: ids, repo names, text sizes. Each failure names the field."""

from __future__ import annotations

import re
import unicodedata

from services.memory.domain.errors import InvalidField

# An id is a file stem: no separators, no leading dot, no "..", bounded length.
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
CLAUDE_ID_PREFIX = "claude."

MAX_REPO_CHARS = 256
MAX_NAME_CHARS = 200
MAX_DESCRIPTION_CHARS = 1000
MAX_BODY_CHARS = 64 * 1024
MAX_LIST_ITEMS = 100
MAX_ITEM_CHARS = 500
MAX_LABEL_CHARS = 200  # branch, user, session


def is_valid_id(memory_id: str) -> bool:
    return bool(_ID.fullmatch(memory_id)) and ".." not in memory_id


def check_id(memory_id: str, field: str = "id") -> str:
    if not memory_id:
        raise InvalidField(field, "is required")
    if not is_valid_id(memory_id):
        raise InvalidField(
            field,
            f"'{_preview(memory_id)}' is not a memory id: use 1-128 letters, digits, '_', '-' or '.', "
            "starting with a letter or digit, without '..' or path separators",
        )
    return memory_id


def check_repo(repo: str, field: str = "repo") -> str:
    """A repo name (any text, e.g. a normalised git remote); "" means the global namespace."""
    if len(repo) > MAX_REPO_CHARS:
        raise InvalidField(field, f"is longer than {MAX_REPO_CHARS} characters")
    if any(unicodedata.category(ch).startswith("C") for ch in repo):
        raise InvalidField(field, "contains control characters")
    if repo != repo.strip():
        raise InvalidField(field, "has leading or trailing whitespace")
    return repo


def check_label(value: str, field: str) -> str:
    """Branch, user and session names: free text but bounded and printable."""
    if len(value) > MAX_LABEL_CHARS:
        raise InvalidField(field, f"is longer than {MAX_LABEL_CHARS} characters")
    if any(unicodedata.category(ch).startswith("C") for ch in value):
        raise InvalidField(field, "contains control characters")
    return value


def check_text(value: str, field: str, limit: int) -> str:
    if len(value) > limit:
        raise InvalidField(field, f"is {len(value)} characters, more than the {limit} allowed")
    if "\x00" in value:
        raise InvalidField(field, "contains a NUL character")
    return value


def check_items(values: list[str] | tuple[str, ...], field: str) -> tuple[str, ...]:
    if len(values) > MAX_LIST_ITEMS:
        raise InvalidField(field, f"has {len(values)} entries, more than the {MAX_LIST_ITEMS} allowed")
    for value in values:
        check_text(value, field, MAX_ITEM_CHARS)
        if "\n" in value:
            raise InvalidField(field, f"entry '{_preview(value)}' contains a line break")
    return tuple(v.strip() for v in values if v.strip())


def check_confidence(value: float, field: str = "confidence") -> float:
    if not 0.0 <= value <= 1.0 or value != value:
        raise InvalidField(field, f"{value} is outside 0..1")
    return float(value)


def _preview(value: str, limit: int = 60) -> str:
    value = value.encode("unicode_escape").decode("ascii")
    return value if len(value) <= limit else value[:limit] + "…"
