"""Search service settings (REPORECALL_* environment variables); the only place that reads the environment."""

from __future__ import annotations

from pydantic import Field, SecretStr

from kit.settings import ServiceSettings


class SearchSettings(ServiceSettings):
    # Keyword index: "" = SQLite FTS5 under data_dir/search/keyword.db, sqlite:///absolute/path.db,
    # or http(s)://host:7700 for Meilisearch.
    keyword_url: str = ""
    meili_api_key: SecretStr = SecretStr("")
    # Vector index: "" = embedded (numpy, durable in data_dir/search/vectors.db), file:///absolute/folder,
    # http(s)://host:6333 for a Qdrant server, or "none" for keyword-only search.
    vector_url: str = ""
    qdrant_api_key: SecretStr = SecretStr("")
    # Embedder: "" or "minilm" = all-MiniLM-L6-v2 int8 on onnxruntime (offline, CPU),
    # openai+http(s)://host:port/v1?model=NAME for an OpenAI-compatible server, or "none" (keyword-only).
    embedder: str = ""
    embedder_api_key: SecretStr = SecretStr("")
    # The off-topic model that reads each query vector (services/search/README "Off-topic reading"): "" =
    # the bundled one, an absolute path to another file made by tools/train_off_topic.py, or "none" (the
    # gateway's relevance gate then decides by its rules alone).
    off_topic_model: str = ""
    # CPU threads of the background embedder (the query embedder always uses one).
    embed_threads: int = Field(default=2, ge=1, le=16)
    # Chunks embedded per batch by the backfill.
    embed_batch: int = Field(default=32, ge=1, le=512)
    # Threads running blocking engine calls for the gRPC handlers.
    search_workers: int = Field(default=8, ge=1, le=64)
