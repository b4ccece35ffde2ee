"""Indexer settings (REPORECALL_* environment variables); the only place that reads the environment."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

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
    # Directories under which working trees may be registered, comma-separated absolute paths (symlinks
    # are resolved before the check). Empty allows NO working tree, only git URLs cloned under
    # data_dir/repos: nobody can register /etc or / by default. `reporecall up` sets it to the folder it
    # was started in (and its --index path); "/" allows everything, explicitly.
    repo_roots: str = ""
    # Transports git may use for git_url (comma-separated of https, ssh, http, git, file). git itself is
    # held to the same list (GIT_ALLOW_PROTOCOL), insteadOf rewrites and redirects included.
    git_allow_protocols: str = "https,ssh"
    # Clone from hosts that resolve to loopback, link-local or private addresses (an internal git server).
    git_allow_private_hosts: bool = False
    # Extra gitignore-style patterns applied to every repo, comma-separated.
    extra_ignores: str = ""

    @field_validator("repo_roots")
    @classmethod
    def _absolute_roots(cls, value: str) -> str:
        for root in (r.strip() for r in value.split(",")):
            if root and not root.startswith("/"):
                raise ValueError(f"root {root!r} must be an absolute path (comma-separated list)")
        return value

    @field_validator("git_allow_protocols")
    @classmethod
    def _known_protocols(cls, value: str) -> str:
        known = {"https", "ssh", "http", "git", "file"}
        unknown = {p.strip() for p in value.split(",") if p.strip()} - known
        if unknown:
            names, choices = ", ".join(sorted(unknown)), ", ".join(sorted(known))
            raise ValueError(f"unknown protocol(s) {names}; choose from {choices}")
        return value
