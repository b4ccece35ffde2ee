"""Memory ids: readable slugs with a random suffix, and the ids observe gives to working memory."""

from __future__ import annotations

import re
import uuid

_NON_SLUG = re.compile(r"[^a-z0-9]+")
# working-<owner tag>--<session>-<stamp>; "--" never occurs in a session slug, so the owner part is unambiguous.
# Ids from before owners (working-<session>-<stamp>) still parse, with the session alone as their key.
_WORKING = re.compile(r"working-(?P<session>(?:u[0-9a-f]{12}--)?[A-Za-z0-9-]+)-(?P<stamp>\d{20})")
OWNER_SEPARATOR = "--"
MAX_SLUG = 48


def slug(text: str) -> str:
    return _NON_SLUG.sub("-", text.lower()).strip("-")[:MAX_SLUG].strip("-")


def new_memory_id(title: str) -> str:
    """`use-pytest-fixtures-3f9a1c2b`: readable, and unique without coordination between writers."""
    return f"{slug(title) or 'memory'}-{uuid.uuid4().hex[:8]}"


def session_slug(session_id: str) -> str:
    """A session id as an id fragment (Claude Code session ids are UUIDs; anything else is tidied)."""
    return re.sub(r"[^A-Za-z0-9]+", "-", session_id).strip("-")[:40] or "session"


def session_key(owner_tag: str, session_id: str) -> str:
    """A session of one user: the same session id sent by two users names two sessions."""
    return f"{owner_tag}{OWNER_SEPARATOR}{session_slug(session_id)}"


def session_owner(key: str) -> str:
    """The owner tag of a session key; "" for working memory written before owners were recorded."""
    owner, sep, _ = key.partition(OWNER_SEPARATOR)
    return owner if sep else ""


def working_id(session: str, written_ns: int) -> str:
    """`session` is a `session_key`."""
    return f"working-{session}-{written_ns:020d}"


def parse_working_id(memory_id: str) -> tuple[str, int] | None:
    """(session key, written_ns) of an id made by `working_id`, else None."""
    match = _WORKING.fullmatch(memory_id)
    return (match["session"], int(match["stamp"])) if match else None
