"""Indexer domain: language detection, parsing into chunks/call sites/imports, import resolution.

Pure functions over bytes and path sets; no I/O besides reading the packaged query files. The
names below load on first use, so importing a sibling module (e.g. the scanner) does not pay for
tree-sitter and numpy.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from services.indexer.domain.ids import chunk_id, content_hash
    from services.indexer.domain.imports import FileIndex, read_go_module, resolve_imports
    from services.indexer.domain.languages import detect_language
    from services.indexer.domain.parsing import ParsedFile, parse_file

_EXPORTS = {
    "chunk_id": "ids",
    "content_hash": "ids",
    "FileIndex": "imports",
    "read_go_module": "imports",
    "resolve_imports": "imports",
    "detect_language": "languages",
    "ParsedFile": "parsing",
    "parse_file": "parsing",
}

__all__ = [
    "FileIndex",
    "ParsedFile",
    "chunk_id",
    "content_hash",
    "detect_language",
    "parse_file",
    "read_go_module",
    "resolve_imports",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
