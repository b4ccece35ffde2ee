"""Errors of the memory service; the servicer maps each to one gRPC status code."""

from __future__ import annotations

from dataclasses import dataclass


class MemoryServiceError(Exception):
    """Base of the errors the memory engine raises on purpose."""


class InvalidFileName(ValueError):
    """A memory file whose name is no valid memory id (the scan skips it and reports the problem)."""


class InvalidField(MemoryServiceError):
    """Bad input; `field` names it the way a client spells it (e.g. `memory.id`)."""

    def __init__(self, field: str, message: str) -> None:
        self.field, self.message = field, message
        super().__init__(f"{field}: {message}")


class MemoryNotFound(MemoryServiceError):
    """No memory with that id is visible to the caller (other users' memories count as absent)."""

    def __init__(self, repo: str, memory_id: str) -> None:
        self.repo, self.memory_id = repo, memory_id
        super().__init__(f"no memory '{memory_id}' in repo '{repo or '(global)'}'")


class NotAllowed(MemoryServiceError):
    """The caller sees the memory (a team memory) but may not change it: only its author or an admin may."""

    def __init__(self, memory_id: str, action: str, fix: str = "") -> None:
        self.memory_id, self.action = memory_id, action
        super().__init__(
            f"may not {action} memory '{memory_id}': team memories are changed by their author or an admin"
            + (f"; {fix}" if fix else "")
        )


class ReadOnlyMemory(MemoryServiceError):
    """The memory comes from a read-only source (Claude Code's own folder)."""

    def __init__(self, memory_id: str) -> None:
        self.memory_id = memory_id
        super().__init__(
            f"memory '{memory_id}' comes from Claude Code's memory folder, which is read-only; "
            "store a new memory that supersedes it (promote) instead"
        )


@dataclass(frozen=True, slots=True)
class Problem:
    """A memory file that was skipped: which file, which frontmatter field, and why."""

    path: str
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.field}: {self.message}"


class FrontmatterError(ValueError):
    """A memory file's frontmatter is unusable; `field` is the offending key or `frontmatter`."""

    def __init__(self, field: str, message: str) -> None:
        self.field, self.message = field, message
        super().__init__(f"{field}: {message}")
