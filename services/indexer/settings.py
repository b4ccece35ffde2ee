"""Indexer settings (REPORECALL_* environment variables); the only place that reads the environment."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from kit.settings import ServiceSettings


class IndexerSettings(ServiceSettings):
    # Manifest store: "" = sqlite under data_dir/indexer/manifest.db, or sqlite:///absolute/path.db.
    manifest_url: str = ""
    # Downstream services (host:port or unix:/path).
    search_addr: str = "127.0.0.1:7873"
    graph_addr: str = "127.0.0.1:7874"
    # Watch registered repos and re-index saved files (reporecall watch / up).
    watch: bool = False
    watch_debounce_ms: int = Field(default=300, ge=10, le=10_000)
    # Files larger than this are not indexed.
    max_file_bytes: int = Field(default=1024 * 1024, ge=1024)
    # Parsing off the event loop: "thread" (measured faster on 2 shared cores: ~450 vs ~330 files/s,
    # 30% less CPU) or "process" (spawned workers: scales on idle cores, survives a crashing grammar).
    parse_executor: Literal["process", "thread"] = "thread"
    parse_workers: int = Field(default=2, ge=1, le=64)
    # Files read/parsed/sent at once; a slow downstream fills these and pauses the run.
    max_in_flight: int = Field(default=16, ge=1, le=1024)
    # Attempts per downstream call while it is unavailable, and the deadline of each call.
    send_attempts: int = Field(default=5, ge=1, le=100)
    send_timeout_s: float = Field(default=60.0, gt=0)
    # Seconds between pulls of repositories registered by git URL (cloned under data_dir/repos); 0 = never
    # on a schedule (webhooks and `SyncRepo` still pull).
    pull_interval_seconds: float = Field(default=300.0, ge=0)
    # Directories under which working trees may be registered, comma-separated absolute paths; empty allows
    # any (a local install). Set it on a team server so no token can register /etc or /.
    repo_roots: str = ""
    # Extra gitignore-style patterns applied to every repo, comma-separated.
    extra_ignores: str = ""
