"""The parser's fingerprint: what turns a file into chunks, besides the file's own bytes."""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
from pathlib import Path

# The modules, query files and packages a file's chunks depend on.
_SOURCES = ("parsing.py", "languages.py", "ids.py")
_QUERIES = Path(__file__).parent.parent / "queries"
_PACKAGES = ("tree-sitter", "tree-sitter-language-pack")


@functools.cache
def parser_fingerprint() -> str:
    """A digest of the parsing module, the language table, the chunk ids, every query file and the grammars'
    package versions. The manifest records it per repo at the end of each run that went through every
    file; a run under another fingerprint re-parses and re-sends every file (engine/run.py), so an upgrade
    that chunks better also re-chunks what was indexed before it."""
    digest = hashlib.sha256()
    here = Path(__file__).parent
    for path in [*(here / name for name in _SOURCES), *sorted(_QUERIES.glob("*.scm"))]:
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for package in _PACKAGES:
        digest.update(f"{package}={importlib.metadata.version(package)}\0".encode())
    return digest.hexdigest()[:16]
