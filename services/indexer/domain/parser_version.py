"""The parser's fingerprint: what turns a file into what the indexer sends, besides the file's own bytes."""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
import sys
from pathlib import Path

# The modules, query files and packages a file's chunks, calls and imports depend on: the parsing itself,
# the language table, chunk ids, import resolution, the test-path rule, the chunk fields, which contents
# are skipped, and the parse job that ties them together.
_MODULES = (
    "services.indexer.domain.parsing",
    "services.indexer.domain.languages",
    "services.indexer.domain.ids",
    "services.indexer.domain.imports",
    "services.indexer.domain.ignore_rules",
    "services.indexer.worker",
    "kit.paths",
    "kit.domain",
)
_QUERIES = Path(__file__).parent.parent / "queries"
_PACKAGES = ("tree-sitter", "tree-sitter-language-pack")


@functools.cache
def parser_fingerprint() -> str:
    """A digest of those modules' sources, every query file, the grammars' package versions and the Python
    version. The manifest records it per repo at the end of each run that went through every file; a run
    under another fingerprint re-parses and re-sends every file (engine/run.py), so an upgrade that chunks
    better also re-chunks what was indexed before it. A source it cannot read (an install without .py
    files) counts by its module name only."""
    digest = hashlib.sha256(f"python {sys.version_info.major}.{sys.version_info.minor}\0".encode())
    for module in _MODULES:
        spec = importlib.util.find_spec(module)
        origin = Path(spec.origin) if spec is not None and spec.origin else None
        source = origin.read_bytes() if origin is not None and origin.suffix == ".py" else b""
        digest.update(module.encode() + b"\0" + source + b"\0")
    for path in sorted(_QUERIES.glob("*.scm")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    for package in _PACKAGES:
        try:
            version = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            version = "?"
        digest.update(f"{package}={version}\0".encode())
    return digest.hexdigest()[:16]
