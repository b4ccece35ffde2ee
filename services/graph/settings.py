"""Graph service settings (REPORECALL_* environment variables); the only place that reads the environment."""

from __future__ import annotations

from pydantic import Field, SecretStr

from kit.settings import ServiceSettings


class GraphSettings(ServiceSettings):
    # Graph store: "" = SQLite under data_dir/graph/graph.db, sqlite:///absolute/path.db,
    # or bolt://host:7687 / neo4j://host:7687 (credentials in the URL or below; ?database=name optional).
    graph_url: str = ""
    graph_user: str = ""
    graph_password: SecretStr = SecretStr("")
    # Communities are recomputed once the graph has had no writes for this long.
    community_settle_seconds: float = Field(default=5.0, ge=0, le=3600)
    # Threads running store queries and traversals (bounds concurrent blocking work).
    graph_workers: int = Field(default=4, ge=1, le=64)
