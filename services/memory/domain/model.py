"""The memory record, its enums, and the defaults a file or a request gets for the fields it leaves out.

Defaults (the policy, in one place):

| type given | class   | scope                                   |
|------------|---------|-----------------------------------------|
| feedback   | rule    | project                                 |
| project    | fact    | project                                 |
| reference  | fact    | project                                 |
| user       | fact    | user when a user is known, else project |

- Only a class given: rule → type feedback; fact, episode, working → type project.
- Neither given: type project, class fact.
- Class working defaults to branch scope (a session's notes belong to the branch it ran on).
- A memory in the global folder defaults to global scope.
- status active, pinned false, confidence 1.0, name = id, description = first line of the body,
  created = the file's mtime, updated = created.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import xxhash


class MemoryType(StrEnum):
    USER = "user"
    FEEDBACK = "feedback"
    PROJECT = "project"
    REFERENCE = "reference"


class MemoryClass(StrEnum):
    RULE = "rule"
    FACT = "fact"
    EPISODE = "episode"
    WORKING = "working"


class Scope(StrEnum):
    GLOBAL = "global"
    PROJECT = "project"
    BRANCH = "branch"
    USER = "user"


class Status(StrEnum):
    ACTIVE = "active"
    ARCHIVED = "archived"
    SUPERSEDED = "superseded"


class Source(StrEnum):
    TEAM = "team"  # the service's own, writable folder
    CLAUDE = "claude"  # Claude Code's memory folder for the project, read-only


CLASS_FROM_TYPE = {
    MemoryType.FEEDBACK: MemoryClass.RULE,
    MemoryType.PROJECT: MemoryClass.FACT,
    MemoryType.REFERENCE: MemoryClass.FACT,
    MemoryType.USER: MemoryClass.FACT,
}
TYPE_FROM_CLASS = {
    MemoryClass.RULE: MemoryType.FEEDBACK,
    MemoryClass.FACT: MemoryType.PROJECT,
    MemoryClass.EPISODE: MemoryType.PROJECT,
    MemoryClass.WORKING: MemoryType.PROJECT,
}

GLOBAL_REPO = ""  # the namespace of memories visible in every repository


@dataclass(frozen=True, slots=True)
class Memory:
    """One memory as its file states it (after defaults). `repo` is "" for global memories."""

    id: str
    repo: str
    name: str
    description: str
    body: str
    type: MemoryType
    memory_class: MemoryClass
    scope: Scope
    created: datetime
    updated: datetime
    status: Status = Status.ACTIVE
    pinned: bool = False
    confidence: float = 1.0
    fingerprint: str = ""
    supersedes: tuple[str, ...] = ()
    reason: str = ""
    related_files: tuple[str, ...] = ()
    related_symbols: tuple[str, ...] = ()
    branch: str = ""
    user: str = ""
    session: str = ""
    source: Source = Source.TEAM
    # Frontmatter keys we do not know, kept so that rewriting a file never drops them.
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def read_only(self) -> bool:
        return self.source is not Source.TEAM

    def with_changes(self, **changes: Any) -> Memory:
        return replace(self, **changes)


@dataclass(frozen=True, slots=True)
class MemoryFields:
    """Fields as a file or a request gives them; None means "not given, use the default"."""

    name: str | None = None
    description: str | None = None
    type: MemoryType | None = None
    memory_class: MemoryClass | None = None
    scope: Scope | None = None
    status: Status | None = None
    pinned: bool | None = None
    confidence: float | None = None
    fingerprint: str | None = None
    supersedes: tuple[str, ...] = ()
    reason: str = ""
    related_files: tuple[str, ...] = ()
    related_symbols: tuple[str, ...] = ()
    branch: str = ""
    user: str = ""
    session: str = ""
    created: datetime | None = None
    updated: datetime | None = None
    extra: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)


def build_memory(
    fields: MemoryFields,
    *,
    memory_id: str,
    repo: str,
    body: str,
    source: Source = Source.TEAM,
    fallback_time: datetime,
) -> Memory:
    """A complete memory from the given fields plus the documented defaults."""
    memory_type = fields.type
    memory_class = fields.memory_class
    if memory_class is None:
        memory_class = CLASS_FROM_TYPE[memory_type] if memory_type else MemoryClass.FACT
    if memory_type is None:
        memory_type = TYPE_FROM_CLASS[memory_class]
    scope = fields.scope
    if scope is None:
        if repo == GLOBAL_REPO:
            scope = Scope.GLOBAL
        elif memory_class is MemoryClass.WORKING:
            scope = Scope.BRANCH
        elif memory_type is MemoryType.USER and fields.user:
            scope = Scope.USER
        else:
            scope = Scope.PROJECT
    body = body.strip()
    created = fields.created or fallback_time
    name = (fields.name or "").strip() or memory_id
    description = (fields.description or "").strip() or first_line(body)
    return Memory(
        id=memory_id,
        repo=repo,
        name=name,
        description=description,
        body=body,
        type=memory_type,
        memory_class=memory_class,
        scope=scope,
        status=fields.status or Status.ACTIVE,
        pinned=bool(fields.pinned),
        confidence=1.0 if fields.confidence is None else fields.confidence,
        # The stored fingerprint is informational: identity is always recomputed from the content, so a
        # hand edit that forgets to update it cannot make two different notes look like duplicates.
        fingerprint=content_fingerprint(name, description, body),
        supersedes=fields.supersedes,
        reason=fields.reason,
        related_files=fields.related_files,
        related_symbols=fields.related_symbols,
        branch=fields.branch,
        user=fields.user,
        session=fields.session,
        source=source,
        created=created,
        updated=fields.updated or created,
        extra=dict(fields.extra),
    )


def first_line(body: str, limit: int = 120) -> str:
    for line in body.splitlines():
        line = line.strip().lstrip("#").strip()
        if line:
            return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"
    return ""


_FINGERPRINT_WORD = re.compile(r"\w+", re.UNICODE)


def content_fingerprint(name: str, description: str, body: str) -> str:
    """Identity of a memory's content: its words, case and punctuation ignored.

    The body decides; a memory with no body is identified by its description, then its name. Two memories
    with the same fingerprint are duplicates for compaction and share a tombstone when one is forgotten.
    """
    for text in (body, description, name):
        words = _FINGERPRINT_WORD.findall(text.lower())
        if words:
            return xxhash.xxh3_64_hexdigest(" ".join(words).encode())
    return xxhash.xxh3_64_hexdigest(b"")


def utc(value: datetime) -> datetime:
    """`value` as an aware UTC datetime (naive values are taken to be UTC)."""
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
