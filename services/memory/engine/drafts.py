"""What Store receives, and the checks on it that need no file: where it goes, what it may hold, who may
change what it replaces. Pure."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from services.memory.domain.errors import InvalidField, MemoryNotFound, NotAllowed
from services.memory.domain.model import (
    GLOBAL_REPO,
    Memory,
    MemoryClass,
    MemoryFields,
    MemoryType,
    Scope,
    Status,
)
from services.memory.domain.ownership import Caller, is_personal, may_change
from services.memory.domain.secrets import find_secret
from services.memory.domain.validation import (
    MAX_BODY_CHARS,
    MAX_DESCRIPTION_CHARS,
    MAX_NAME_CHARS,
    check_confidence,
    check_id,
    check_items,
    check_label,
    check_repo,
    check_text,
)


@dataclass(frozen=True, slots=True)
class MemoryDraft:
    """What Store receives. None / empty means "use the default" (see domain/model.py)."""

    repo: str
    body: str
    id: str = ""
    name: str = ""
    description: str = ""
    type: MemoryType | None = None
    memory_class: MemoryClass | None = None
    scope: Scope | None = None
    status: Status | None = None
    pinned: bool = False
    confidence: float | None = None
    supersedes: tuple[str, ...] = ()
    reason: str = ""
    related_files: tuple[str, ...] = ()
    related_symbols: tuple[str, ...] = ()
    branch: str = ""
    user: str = ""


def draft_namespace(draft: MemoryDraft) -> str:
    """The namespace a draft is stored in: its repo, or global for a global-scoped memory."""
    check_repo(draft.repo, "memory.repo")
    if draft.scope is Scope.GLOBAL:
        return GLOBAL_REPO
    if not draft.repo and draft.scope is not None:
        raise InvalidField("memory.repo", f"is required for a {draft.scope.value}-scoped memory")
    return draft.repo


def check_draft(draft: MemoryDraft) -> None:
    if draft.id:
        check_id(draft.id, "memory.id")
    check_text(draft.body, "memory.body", MAX_BODY_CHARS)
    check_text(draft.name, "memory.name", MAX_NAME_CHARS)
    check_text(draft.description, "memory.description", MAX_DESCRIPTION_CHARS)
    check_text(draft.reason, "memory.reason", MAX_DESCRIPTION_CHARS)
    if not (draft.body.strip() or draft.description.strip() or draft.name.strip()):
        raise InvalidField("memory.body", "is empty (give a body, a description or a name)")
    if draft.confidence is not None:
        check_confidence(draft.confidence, "memory.confidence")
    for target in draft.supersedes:
        check_id(target, "memory.supersedes")
    check_items(draft.related_files, "memory.related_files")
    check_items(draft.related_symbols, "memory.related_symbols")
    check_label(draft.branch, "memory.branch")
    check_label(draft.user, "memory.user")
    _check_no_secret(draft)
    if draft.scope is Scope.BRANCH and not draft.branch:
        raise InvalidField("memory.branch", "is required for a branch-scoped memory")
    if draft.scope is Scope.USER and not draft.user:
        raise InvalidField("memory.user", "is required for a user-scoped memory")


def _check_no_secret(draft: MemoryDraft) -> None:
    for field_name, value in (
        ("memory.body", draft.body),
        ("memory.name", draft.name),
        ("memory.description", draft.description),
        ("memory.related_files", " ".join(draft.related_files)),
        ("memory.related_symbols", " ".join(draft.related_symbols)),
    ):
        if (kind := find_secret(value)) is not None:
            raise InvalidField(
                field_name,
                f"looks like it holds {kind}; memories are shared as plain text and recalled into "
                "prompts, so store where the secret lives (e.g. 'in the vault under payments/'), "
                "not the secret",
            )


def draft_fields(draft: MemoryDraft, memory_id: str, existing: Memory | None, now: datetime) -> MemoryFields:
    """The frontmatter fields of the memory a draft stores (a replaced memory keeps created and extras)."""
    return MemoryFields(
        name=draft.name or None,
        description=draft.description or None,
        type=draft.type,
        memory_class=draft.memory_class,
        scope=draft.scope,
        status=draft.status,
        pinned=draft.pinned,
        confidence=draft.confidence,
        supersedes=tuple(dict.fromkeys(s for s in draft.supersedes if s != memory_id)),
        reason=draft.reason,
        related_files=draft.related_files,
        related_symbols=draft.related_symbols,
        branch=draft.branch,
        user=draft.user,
        created=existing.created if existing else now,
        updated=now,
        extra=existing.extra if existing else {},
    )


def check_may_change(repo: str, memory: Memory, caller: Caller, action: str) -> None:
    """Another user's personal memory does not exist for the caller; a team memory they may not change
    is refused by name (it is visible to them anyway)."""
    if may_change(memory, caller):
        return
    if is_personal(memory):
        raise MemoryNotFound(repo, memory.id)
    raise NotAllowed(memory.id, action, "ask an admin, or store a new memory of your own")


def lookup_namespaces(repo: str) -> list[str]:
    """Where a memory id is looked up from a repo: the repo, then the global namespace."""
    return [repo, GLOBAL_REPO] if repo else [GLOBAL_REPO]
