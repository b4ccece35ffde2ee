"""Memory service settings (REPORECALL_* environment variables); the only place that reads the environment."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from kit.settings import ServiceSettings


def _default_claude_projects_dir() -> Path:
    return Path.home() / ".claude" / "projects"


class MemorySettings(ServiceSettings):
    # Team memory folders (the truth); "" = <data_dir>/memory.
    memory_dir: Path | None = None
    # Index of the memory files: "" = SQLite at <memory_dir>/index.db, or sqlite:///absolute/path.db.
    memory_index_url: str = ""
    # Claude Code's projects folder; each repo's memory is <this>/<sanitized repo path>/memory (read-only).
    claude_projects_dir: Path = Field(default_factory=_default_claude_projects_dir)
    # Read the server user's own Claude Code memory folders, for repos checked out under their home and
    # owned by them. Only the local single-user `reporecall up` turns this on; a team server never should.
    read_claude_memory: bool = False
    # repo name → checkout path, to find each repo's Claude Code memory folder (JSON object in the env).
    claude_repos: dict[str, Path] = Field(default_factory=dict)
    # Recall budget when a request asks for 0 tokens, and the cap on any request (keeps the floor for code).
    memory_default_budget_tokens: int = Field(default=600, ge=1, le=100_000)
    memory_max_budget_tokens: int = Field(default=2000, ge=1, le=100_000)
    # Working memory: observations kept per session, and hours before an idle session's notes expire.
    working_keep: int = Field(default=20, ge=1, le=10_000)
    working_ttl_hours: float = Field(default=72.0, gt=0)
    # Per user and repo: sessions kept (each new session_id starts one) and working notes kept in all.
    working_max_sessions_per_user: int = Field(default=20, ge=1, le=10_000)
    working_max_per_user: int = Field(default=200, ge=1, le=100_000)
    # Watch the memory folders for edits; a full re-scan also runs this often (seconds).
    memory_watch: bool = True
    memory_resync_seconds: float = Field(default=60.0, ge=1.0)
    # Threads running engine calls (bounds concurrent blocking work).
    memory_workers: int = Field(default=4, ge=1, le=64)

    def memory_root(self) -> Path:
        return (self.memory_dir or self.data_dir / "memory").expanduser().resolve()
