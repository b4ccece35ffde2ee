"""Indexer domain: language detection, parsing into chunks/call sites/imports, import resolution.

Pure functions over bytes and path sets; no I/O besides reading the packaged query files.
"""

from services.indexer.domain.ids import chunk_id, content_hash
from services.indexer.domain.imports import FileIndex, read_go_module, resolve_imports
from services.indexer.domain.languages import detect_language, is_test_path
from services.indexer.domain.parsing import ParsedFile, parse_file

__all__ = [
    "FileIndex",
    "ParsedFile",
    "chunk_id",
    "content_hash",
    "detect_language",
    "is_test_path",
    "parse_file",
    "read_go_module",
    "resolve_imports",
]
