"""Per-file work that runs off the event loop (in a process or thread pool): read, hash, sniff, parse.

Module-level functions with picklable arguments and results, so a spawned pool process can run them.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import xxhash

from services.indexer.adapters.fs_tree import confine
from services.indexer.domain.scanner import PathOutsideRepo, content_skip_reason

# (repo, path, source, language) → an object with .language, .chunks, .call_sites, .imports, .warnings
ParseFn = Callable[[str, str, bytes], object]


class Outcome(StrEnum):
    PARSED = "parsed"  # content changed (or forced): send it
    UNCHANGED = "unchanged"  # hash equals the acknowledged one: only the stat needs recording
    SKIPPED = "skipped"  # binary, generated or too large: nothing of it goes downstream
    MISSING = "missing"  # vanished (or became a non-file) since the scan: delete downstream


@dataclass(frozen=True, slots=True)
class PrepareJob:
    repo: str
    root: str
    path: str
    known_hash: str  # last acknowledged hash, "" when none
    force: bool  # parse and send even when the hash is unchanged
    max_file_bytes: int


@dataclass(frozen=True, slots=True)
class Prepared:
    path: str
    outcome: Outcome
    file_hash: str = ""
    mtime_ns: int = 0
    size: int = 0
    parsed: object | None = None  # ParsedFile when outcome is PARSED
    reason: str = ""  # why skipped/missing, or the parse error that fell back


def content_hash(data: bytes) -> str:
    return xxhash.xxh3_64_hexdigest(data)


def prepare_file(parse: ParseFn, job: PrepareJob) -> Prepared:
    """Read one file and, when it must be sent, parse it. Never raises for a bad file."""
    try:
        confine(Path(job.root), job.path)  # the file may have become a symlink out of the root since the scan
        abs_path = os.path.join(job.root, job.path)
        # Non-blocking open and a check of the open descriptor: a file swapped for a FIFO or a device since
        # the scan is refused instead of hanging the worker. Stat before reading: if the file changes
        # during the read, the recorded mtime is the old one and the next run looks again.
        fd = os.open(abs_path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                return Prepared(job.path, Outcome.MISSING, reason="not a regular file")
            if st.st_size > job.max_file_bytes:
                return Prepared(job.path, Outcome.SKIPPED, "", st.st_mtime_ns, st.st_size, reason="too large")
            data = _read_at_most(fd, job.max_file_bytes + 1)
        finally:
            os.close(fd)
    except PathOutsideRepo as exc:
        return Prepared(job.path, Outcome.MISSING, reason=str(exc))
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop while confining
        return Prepared(job.path, Outcome.MISSING, reason=getattr(exc, "strerror", None) or str(exc))
    if len(data) > job.max_file_bytes:
        return Prepared(job.path, Outcome.SKIPPED, "", st.st_mtime_ns, st.st_size, reason="too large")
    file_hash = content_hash(data)
    skip = content_skip_reason(data)
    if skip is not None:
        return Prepared(job.path, Outcome.SKIPPED, file_hash, st.st_mtime_ns, st.st_size, reason=skip)
    if file_hash == job.known_hash and not job.force:
        return Prepared(job.path, Outcome.UNCHANGED, file_hash, st.st_mtime_ns, st.st_size)
    parsed = parse(job.repo, job.path, data)
    return Prepared(job.path, Outcome.PARSED, file_hash, st.st_mtime_ns, st.st_size, parsed=parsed)


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks: list[bytes] = []
    while limit > 0:
        chunk = os.read(fd, min(limit, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        limit -= len(chunk)
    return b"".join(chunks)


def default_parse(repo: str, path: str, source: bytes) -> object:
    """The real parser, imported lazily so pool processes pay for tree-sitter only when they parse."""
    from services.indexer.domain.parsing import parse_file

    return parse_file(repo, path, source)


def warm_up() -> None:
    """Pool initializer: import the parser once per process before the first file arrives."""
    from services.indexer.domain import parsing  # noqa: F401
