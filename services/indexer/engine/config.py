"""The indexer engine's tuning, and the defaults of what it can be handed (file filter, import resolver)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from pathlib import Path

from kit.domain import Import
from services.indexer.domain.repos import DEFAULT_PROTOCOLS
from services.indexer.domain.scanner import DEFAULT_MAX_FILE_BYTES

# (imports as parsed, language, every repo file, Go module path) → imports with resolved_path/external set
ImportResolver = Callable[[Sequence[Import], str, AbstractSet[str], str | None], Sequence[Import]]


@dataclass(frozen=True)
class EngineConfig:
    """Tuning of the engine; `IndexerSettings` fills it from the environment."""

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    # Files between "read" and "recorded" at once; a slow downstream fills these slots and pauses the scan.
    max_in_flight: int = 16
    # Attempts per downstream call when the sink reports SinkUnavailable (1 = no retry).
    send_attempts: int = 5
    retry_initial_seconds: float = 0.5
    retry_max_seconds: float = 8.0
    delete_batch: int = 256
    record_batch: int = 64
    progress_interval_seconds: float = 0.25
    dirty_limit: int = 1000
    # RepoStatus walks the tree to find dirty files; callers asking more often than this get the last
    # answer (a finished run or index_paths invalidates it at once).
    status_cache_seconds: float = 2.0
    extra_ignores: tuple[str, ...] = ()
    # Where repositories registered by git URL are cloned; None refuses git URLs.
    clone_root: Path | None = None
    # Seconds between pulls of cloned repositories (0: only on SyncRepo, e.g. from a webhook).
    pull_interval_seconds: float = 0.0
    # Directories (resolved) under which working trees may be registered; clones under clone_root always
    # may. An empty tuple allows no working tree at all (git URLs only): a client's token must never turn
    # /etc or / into a searchable "repository". None means unrestricted and is for tests and embedding
    # only; the service always passes a tuple (REPORECALL_REPO_ROOTS).
    repo_roots: tuple[Path, ...] | None = None
    # Transports git may use for git_url registrations and pulls, and whether hosts on loopback,
    # link-local or private addresses may be cloned from (REPORECALL_GIT_ALLOW_*).
    git_protocols: frozenset[str] = DEFAULT_PROTOCOLS
    git_allow_private_hosts: bool = False


def has_known_language(path: str) -> bool:
    from services.indexer.domain.languages import detect_language

    return detect_language(path) is not None


def default_import_resolver(
    imports: Sequence[Import], language: str, repo_files: AbstractSet[str], go_module: str | None
) -> Sequence[Import]:
    from services.indexer.domain.imports import resolve_imports

    return resolve_imports(imports, language, repo_files, go_module=go_module)
