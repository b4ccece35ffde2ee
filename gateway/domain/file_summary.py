"""A file described from the index (not the disk): purpose, declarations, imports and importers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kit.domain import Chunk, Import

# Each list in the summary is capped so one huge file cannot make an unbounded reply.
MAX_ENTRIES = 200
MAX_PURPOSE_CHARS = 500
MAX_SIGNATURE_CHARS = 300


def file_summary_json(
    path: str, chunks: Sequence[Chunk], imports: Sequence[Import], importers: Sequence[Import]
) -> dict[str, Any]:
    """The JSON reply for `path`, given its indexed `chunks` (at least one) and its import edges."""
    purpose = next((c.doc for c in chunks if c.doc), "")
    return {
        "path": path,
        "language": chunks[0].language,
        "lines": max(c.end_line for c in chunks),
        "purpose": purpose.strip().split("\n\n")[0][:MAX_PURPOSE_CHARS],
        "declarations": [
            {
                "kind": c.kind.value,
                "name": c.qualified_name,
                "lines": f"{c.start_line}-{c.end_line}",
                "signature": c.signature[:MAX_SIGNATURE_CHARS],
            }
            for c in chunks
            if c.kind.value != "module"
        ][:MAX_ENTRIES],
        "imports": [
            {"target": i.target, "resolved_path": i.resolved_path, "external": i.external} for i in imports
        ][:MAX_ENTRIES],
        "imported_by": sorted({i.path for i in importers})[:MAX_ENTRIES],
    }
