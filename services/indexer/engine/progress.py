"""Progress of one index run: mutable counters the run bumps, immutable snapshots for the caller."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from services.indexer.domain.changes import estimate_eta
from services.indexer.domain.model import MAX_SKIPPED_LISTED, IndexPhase, IndexProgress


@dataclass
class RunTracker:
    """Mutable counters of one run; snapshots go to the caller."""

    phase: IndexPhase = IndexPhase.SCANNING
    files_scanned: int = 0
    files_changed: int = 0
    files_parsed: int = 0
    files_sent: int = 0
    files_deleted: int = 0
    chunks: int = 0
    errors: int = 0
    message: str = ""
    started: float = field(default_factory=time.monotonic)
    indexing_started: float = 0.0
    version: int = 0
    error_messages: list[str] = field(default_factory=list)
    skipped_reasons: dict[str, int] = field(default_factory=dict)
    skipped_files: list[tuple[str, str]] = field(default_factory=list)

    def skip(self, path: str, reason: str) -> None:
        """A file left out of this run (called from the scan thread too: plain dict/list updates)."""
        self.skipped_reasons[reason] = self.skipped_reasons.get(reason, 0) + 1
        if len(self.skipped_files) < MAX_SKIPPED_LISTED:
            self.skipped_files.append((path, reason))

    def bump(self, **changes: Any) -> None:
        for name, value in changes.items():
            setattr(self, name, value)
        self.version += 1

    def error(self, path: str, problem: str) -> None:
        self.errors += 1
        self.message = f"{path}: {problem}"
        self.error_messages.append(self.message)
        self.version += 1

    def summary(self, unwalkable: int, stopped: bool) -> str:
        """The closing message of a run."""
        summary = (
            f"indexed {self.files_sent} of {self.files_changed} changed files, "
            f"deleted {self.files_deleted}, {self.errors} errors"
        )
        if unwalkable:
            summary += (
                f"; {unwalkable} paths skipped (odd names, unreadable folders or too deep; see the log)"
            )
        if self.error_messages:
            summary += f"; last error: {self.error_messages[-1]}"
        if stopped:
            summary += (
                "; stopped early because a downstream service is unavailable — run again when it is back"
            )
        return summary

    def snapshot(self) -> IndexProgress:
        done = self.files_sent + self.errors
        remaining = self.files_changed - done
        eta = 0.0
        if self.phase is IndexPhase.INDEXING and self.indexing_started:
            eta = estimate_eta(done, remaining, time.monotonic() - self.indexing_started)
        return IndexProgress(
            phase=self.phase,
            files_scanned=self.files_scanned,
            files_changed=self.files_changed,
            files_parsed=self.files_parsed,
            files_sent=self.files_sent,
            files_deleted=self.files_deleted,
            chunks=self.chunks,
            errors=self.errors,
            eta_seconds=round(eta, 1),
            message=self.message,
            skipped_reasons=dict(self.skipped_reasons),
            skipped_files=tuple(self.skipped_files),
        )
