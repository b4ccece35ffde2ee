"""Memory files: markdown with a YAML frontmatter block. Parsing checks field by field; rendering is stable.

```
---
name: Use pytest fixtures for temp dirs
type: feedback
class: rule
...
---

The body, in markdown.
```

A file without a frontmatter block is a memory made of defaults (its body is the whole file). Anything
unusable raises `FrontmatterError` naming the field, so a scan can report the file and move on.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time
from typing import Any

import yaml

from services.memory.domain.errors import FrontmatterError
from services.memory.domain.model import (
    Memory,
    MemoryClass,
    MemoryFields,
    MemoryType,
    Scope,
    Status,
    utc,
)

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_Dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

DELIMITER = "---"
# Frontmatter keys in the order they are written.
KNOWN_KEYS = (
    "name",
    "description",
    "type",
    "class",
    "scope",
    "status",
    "pinned",
    "confidence",
    "fingerprint",
    "supersedes",
    "reason",
    "related_files",
    "related_symbols",
    "branch",
    "user",
    "session",
    "created",
    "updated",
)


@dataclass(frozen=True, slots=True)
class ParsedFile:
    fields: MemoryFields
    body: str
    has_frontmatter: bool


def split_document(text: str) -> tuple[dict[str, Any] | None, str]:
    """(frontmatter mapping or None when the file has no block, body)."""
    text = text.removeprefix("\ufeff").replace("\r\n", "\n")
    lines = text.split("\n")
    if not lines or lines[0].rstrip() != DELIMITER:
        return None, text
    for index in range(1, len(lines)):
        if lines[index].rstrip() in (DELIMITER, "..."):
            header = "\n".join(lines[1:index])
            body = "\n".join(lines[index + 1 :])
            break
    else:
        raise FrontmatterError("frontmatter", "the opening '---' has no closing '---' line")
    try:
        data = yaml.load(header, Loader=_Loader)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FrontmatterError("frontmatter", f"is not valid YAML{where}: {problem}") from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        kind = type(data).__name__
        raise FrontmatterError("frontmatter", f"must be a mapping of keys to values, not a {kind}")
    for key in data:
        if not isinstance(key, str):
            raise FrontmatterError("frontmatter", f"key {key!r} is not a string")
    return data, body


def parse_memory_text(text: str) -> ParsedFile:
    data, body = split_document(text)
    if data is None:
        return ParsedFile(MemoryFields(), body.strip(), has_frontmatter=False)
    return ParsedFile(parse_fields(data), body.strip(), has_frontmatter=True)


def parse_fields(data: dict[str, Any]) -> MemoryFields:
    """Typed, validated fields from a frontmatter mapping; absent or null keys stay None/empty."""

    def get(key: str) -> Any:
        return data.get(key)

    return MemoryFields(
        name=_text(get("name"), "name"),
        description=_text(get("description"), "description"),
        type=_enum(get("type"), "type", MemoryType),
        memory_class=_enum(get("class"), "class", MemoryClass),
        scope=_enum(get("scope"), "scope", Scope),
        status=_enum(get("status"), "status", Status),
        pinned=_bool(get("pinned"), "pinned"),
        confidence=_confidence(get("confidence")),
        fingerprint=_text(get("fingerprint"), "fingerprint"),
        supersedes=_list(get("supersedes"), "supersedes"),
        reason=_text(get("reason"), "reason") or "",
        related_files=_list(get("related_files"), "related_files"),
        related_symbols=_list(get("related_symbols"), "related_symbols"),
        branch=_text(get("branch"), "branch") or "",
        user=_text(get("user"), "user") or "",
        session=_text(get("session"), "session") or "",
        created=_time(get("created"), "created"),
        updated=_time(get("updated"), "updated"),
        extra={k: v for k, v in data.items() if k not in KNOWN_KEYS},
    )


def render_memory(memory: Memory) -> str:
    """The file text for `memory`. Empty optional fields are left out; unknown keys are kept at the end."""
    data: dict[str, Any] = {
        "name": memory.name,
        "description": memory.description,
        "type": memory.type.value,
        "class": memory.memory_class.value,
        "scope": memory.scope.value,
        "status": memory.status.value,
        "pinned": memory.pinned,
        "confidence": round(memory.confidence, 4),
        "fingerprint": memory.fingerprint,
    }
    optional: dict[str, Any] = {
        "supersedes": list(memory.supersedes),
        "reason": memory.reason,
        "related_files": list(memory.related_files),
        "related_symbols": list(memory.related_symbols),
        "branch": memory.branch,
        "user": memory.user,
        "session": memory.session,
    }
    data.update({k: v for k, v in optional.items() if v})
    data["created"] = _format_time(memory.created)
    data["updated"] = _format_time(memory.updated)
    data.update({k: v for k, v in memory.extra.items() if k not in KNOWN_KEYS})
    header = yaml.dump(
        data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1000
    )
    return f"{DELIMITER}\n{header}{DELIMITER}\n\n{memory.body.strip()}\n"


def _format_time(value: datetime) -> str:
    return utc(value).isoformat(timespec="seconds").replace("+00:00", "Z")


def _text(value: Any, field: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, (bool, dict, list)):
        raise FrontmatterError(field, f"must be text, not {type(value).__name__}")
    if isinstance(value, (int, float, date)):
        return str(value)
    if not isinstance(value, str):
        raise FrontmatterError(field, f"must be text, not {type(value).__name__}")
    return value.strip()


def _enum(value: Any, field: str, enum: type[Any]) -> Any:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise FrontmatterError(field, f"must be one of {', '.join(e.value for e in enum)}, not {value!r}")
    try:
        return enum(value.strip().lower())
    except ValueError:
        raise FrontmatterError(field, f"'{value}' is not one of {', '.join(e.value for e in enum)}") from None


def _bool(value: Any, field: str) -> bool | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
        return value.strip().lower() in ("true", "yes")
    raise FrontmatterError(field, f"must be true or false, not {value!r}")


def _confidence(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise FrontmatterError("confidence", f"must be a number between 0 and 1, not {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise FrontmatterError("confidence", f"must be a number between 0 and 1, not {value!r}") from None
    if not 0.0 <= number <= 1.0:
        raise FrontmatterError("confidence", f"{number} is outside 0..1")
    return number


def _list(value: Any, field: str) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        raise FrontmatterError(field, f"must be a list of text, not {type(value).__name__}")
    items: list[str] = []
    for item in value:
        if isinstance(item, (dict, list)) or item is None:
            raise FrontmatterError(field, f"entry {item!r} is not text")
        text = str(item).strip()
        if text:
            items.append(text)
    return tuple(items)


def _time(value: Any, field: str) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return utc(value)
    if isinstance(value, date):
        return utc(datetime.combine(value, time()))
    if isinstance(value, str):
        try:
            return utc(datetime.fromisoformat(value.strip().replace("Z", "+00:00")))
        except ValueError:
            pass
    raise FrontmatterError(field, f"'{value}' is not an ISO 8601 date or time (e.g. 2025-01-31T12:00:00Z)")
