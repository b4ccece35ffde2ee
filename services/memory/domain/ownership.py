"""Who may change a memory, and whose copies a tombstone or a compaction touches.

The authorization model (services/memory/README.md, "Ownership"):

- Personal memories (scope `user`, and the working notes observe writes for a user) belong to their user.
  Only that user may update, forget, archive, supersede or compact them; for anyone else, admins
  included, they do not exist (the answer is the same as for an id that was never stored).
- Team memories (scope project, branch or global) are written by any member; their `user` is the author.
  The author may change them, and admins may change every team memory, including ones nobody authored
  (files edited by hand, Claude Code's read-only memories).
- A tombstone (what forget leaves) and a duplicate group (what compaction merges) are keyed by the
  content fingerprint *and* the owner: a personal tombstone hides only its owner's personal copies, a team
  tombstone only team copies, so forgetting words never hides another user's memory.

`user` and `admin` come from the gateway's authenticated principal, never from a client field.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from services.memory.domain.model import Memory, MemoryClass, Scope


@dataclass(frozen=True, slots=True)
class Caller:
    """The principal a call acts for: its user name ("" when unknown) and whether it is an admin."""

    user: str = ""
    admin: bool = False


def is_personal(memory: Memory) -> bool:
    """A memory that belongs to one user: user scope, or a user's working note."""
    if memory.scope is Scope.USER:
        return True
    return memory.memory_class is MemoryClass.WORKING and bool(memory.user)


def may_change(memory: Memory, caller: Caller) -> bool:
    """Whether `caller` may update, forget, archive, supersede or compact `memory`."""
    if is_personal(memory):
        return bool(memory.user) and memory.user == caller.user
    if caller.admin:
        return True
    return bool(memory.user) and memory.user == caller.user and not memory.read_only


def user_tag(user: str) -> str:
    """A user name as a short, path-safe tag (file names of tombstones and working notes)."""
    return "u" + hashlib.sha256(user.encode("utf-8")).hexdigest()[:12]


def owner_key(fingerprint: str, owner: str) -> str:
    """The key of content as held by `owner` ("" = the team): tombstone file stem, duplicate group."""
    return f"{fingerprint}-{user_tag(owner)}" if owner else fingerprint


def content_key(memory: Memory) -> str:
    """`owner_key` of a memory: personal memories are keyed with their user, team ones by content alone."""
    return owner_key(memory.fingerprint, memory.user if is_personal(memory) else "")
