"""The indexer's own records and reports: registered repos, manifest rows, progress, status. Pure data."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum


class RepoNotFound(LookupError):
    """No repository is registered under the name."""

    def __init__(self, name: str) -> None:
        super().__init__(f"repository {name!r} is not registered; register it first (reporecall index PATH)")
        self.name = name


class InvalidRepoPath(ValueError):
    """A path given for registration is not a usable directory."""


class RepoNameTaken(ValueError):
    """The name is registered for another path or remote; a name is never silently re-pointed."""

    def __init__(self, name: str, existing: str) -> None:
        super().__init__(
            f"name: repository {name!r} is already registered for {existing}; remove it first "
            "(admin: DELETE /api/repos/NAME) or register this one under another name (--name)"
        )
        self.name = name
        self.existing = existing


class DownstreamUnavailable(RuntimeError):
    """Search or graph did not answer after every retry; the affected files stay pending."""


@dataclass(frozen=True, slots=True)
class RepoRecord:
    """A registered repository as the manifest keeps it."""

    name: str
    path: str  # absolute path of the working tree
    remote: str = ""  # normalised git remote ("github.com/org/repo"), empty when none
    registered_at: datetime | None = None
    last_run_started: datetime | None = None
    last_run_finished: datetime | None = None
    indexed_commit: str = ""  # HEAD when the last complete run finished
    parser: str = ""  # the fingerprint every file was last parsed under (parser_version.parser_fingerprint)


class FileStatus(StrEnum):
    INDEXED = "indexed"  # both sinks acknowledged `hash`
    SKIPPED = "skipped"  # binary or generated; nothing of it is stored downstream
    PENDING = "pending"  # a send is due or was attempted and not acknowledged; `hash` is the last acked one


@dataclass(frozen=True, slots=True)
class FileRecord:
    """One manifest row: what search and graph acknowledged for a file, and the stat it was read with."""

    path: str
    mtime_ns: int
    size: int
    hash: str
    chunks: int
    status: FileStatus = FileStatus.INDEXED


@dataclass(frozen=True, slots=True)
class FileCounts:
    files: int  # indexed files
    chunks: int  # chunks of indexed files
    pending: int  # files whose send is due or failed
    skipped: int = 0


class IndexPhase(StrEnum):
    SCANNING = "scanning"
    INDEXING = "indexing"
    DELETING = "deleting"
    DONE = "done"


MAX_SKIPPED_LISTED = 200  # skipped paths a progress report lists (the counts per reason are complete)


@dataclass(frozen=True, slots=True)
class IndexProgress:
    """A snapshot of an indexing run; the last one of a run has phase DONE."""

    phase: IndexPhase
    files_scanned: int = 0
    files_changed: int = 0
    files_parsed: int = 0
    files_sent: int = 0
    files_deleted: int = 0
    chunks: int = 0
    errors: int = 0
    eta_seconds: float = 0.0
    message: str = ""
    skipped_reasons: Mapping[str, int] = field(default_factory=dict)  # files left out this run, by reason
    skipped_files: tuple[tuple[str, str], ...] = ()  # (path, reason), the first MAX_SKIPPED_LISTED


@dataclass(frozen=True, slots=True)
class IndexPathsResult:
    files_sent: int = 0
    files_deleted: int = 0
    rejected: tuple[str, ...] = ()  # "path: reason", one per refused path
    errors: tuple[str, ...] = ()  # "path: problem" for files whose send failed (they stay pending)


@dataclass(frozen=True, slots=True)
class RepoStatus:
    repo: RepoRecord
    indexed_commit: str
    head_commit: str
    files: int
    chunks: int
    pending_files: int
    running: bool
    dirty_files: tuple[str, ...] = field(default_factory=tuple)
    dirty_truncated: bool = False  # more dirty files exist than listed
    branch: str = ""
