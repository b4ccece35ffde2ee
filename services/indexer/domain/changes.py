"""Change detection: compare a scan with the manifest (mtime+size pre-filter), estimate time left. Pure."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from services.indexer.domain.model import FileRecord, FileStatus
from services.indexer.domain.scanner import ScannedFile


@dataclass(frozen=True, slots=True)
class Candidate:
    """A file that must be read: new, changed by stat, pending, or part of a full run."""

    file: ScannedFile
    previous: FileRecord | None
    # Send even when the content hash equals the recorded one: downstream may hold something else.
    force: bool


@dataclass(frozen=True, slots=True)
class RunPlan:
    candidates: tuple[Candidate, ...]
    unchanged: int  # files skipped by the stat pre-filter
    vanished: tuple[str, ...]  # recorded paths that are no longer indexable: delete downstream


def stat_matches(file: ScannedFile, record: FileRecord) -> bool:
    return file.mtime_ns == record.mtime_ns and file.size == record.size


def needs_read(file: ScannedFile, record: FileRecord | None, full: bool) -> bool:
    if full or record is None or record.status is FileStatus.PENDING:
        return True
    return not stat_matches(file, record)


def plan_run(scanned: Iterable[ScannedFile], recorded: Mapping[str, FileRecord], *, full: bool) -> RunPlan:
    candidates: list[Candidate] = []
    seen: set[str] = set()
    unchanged = 0
    for file in scanned:
        seen.add(file.path)
        previous = recorded.get(file.path)
        if needs_read(file, previous, full):
            force = full or previous is None or previous.status is FileStatus.PENDING
            candidates.append(Candidate(file, previous, force))
        else:
            unchanged += 1
    vanished = tuple(sorted(path for path in recorded if path not in seen))
    return RunPlan(tuple(candidates), unchanged, vanished)


def dirty_paths(scanned: Iterable[ScannedFile], recorded: Mapping[str, FileRecord]) -> list[str]:
    """Paths whose disk state differs from what was indexed: new, modified (by stat), deleted, pending."""
    dirty: list[str] = []
    seen: set[str] = set()
    for file in scanned:
        seen.add(file.path)
        record = recorded.get(file.path)
        if record is None or record.status is FileStatus.PENDING or not stat_matches(file, record):
            dirty.append(file.path)
    dirty.extend(path for path in recorded if path not in seen)
    return sorted(dirty)


def estimate_eta(done: int, remaining: int, elapsed_seconds: float) -> float:
    """Seconds left at the rate seen so far; 0 when unknown (nothing done yet) or nothing remains."""
    if done <= 0 or remaining <= 0 or elapsed_seconds <= 0:
        return 0.0
    return remaining * elapsed_seconds / done
