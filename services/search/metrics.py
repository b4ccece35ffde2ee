"""The search service's domain metrics (the gRPC ones come from kit.metrics)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

EMBED_BACKLOG = Gauge("reporecall_search_embed_backlog", "Chunks waiting for an embedding.")
CHUNKS_EMBEDDED = Counter(
    "reporecall_search_chunks_embedded_total", "Chunks that got a vector from the backfill."
)
