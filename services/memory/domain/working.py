"""What observe writes as a session's working memory: where a prompt led, never the prompt.

A prompt stored verbatim and recalled into later sessions echoes the user's own words back to them (and
anything they pasted, secrets included). What helps a later prompt is where the earlier one led: the files
the context block showed. So a working note lists those files (sorted, so the same files make the same
note, which observe then keeps once); the route goes into the frontmatter. Paths that look like secrets are
left out, and a prompt that led nowhere leaves no note.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.memory.domain.model import first_line
from services.memory.domain.secrets import find_secret


@dataclass(frozen=True, slots=True)
class WorkingNote:
    name: str
    description: str
    body: str
    files: tuple[str, ...]


def working_note(hit_paths: Sequence[str], max_files: int) -> WorkingNote | None:
    """The note for a prompt that led to `hit_paths` (None when it led to no file worth noting)."""
    files = tuple(sorted({p for p in hit_paths if p and find_secret(p) is None}))[:max_files]
    if not files:
        return None
    return WorkingNote(
        name=first_line("Files a recent prompt led to: " + ", ".join(files), 80),
        description="where a recent prompt of yours led (working memory)",
        body="\n".join(f"- {path}" for path in files),
        files=files,
    )
