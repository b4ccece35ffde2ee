"""The search service's domain metrics (the gRPC ones and store latencies come from kit.metrics)."""

from __future__ import annotations

from prometheus_client import Counter, Gauge

EMBED_BACKLOG = Gauge("reporecall_embed_backlog_chunks", "Chunks waiting for an embedding.")
CHUNKS_EMBEDDED = Counter("reporecall_embedded_chunks_total", "Chunks that got a vector from the backfill.")
EMBED_CACHE_HITS = Counter("reporecall_embed_cache_hits_total", "Chunks whose vector came from the cache.")
CHUNKS = Gauge("reporecall_search_chunks", "Chunks in the keyword index.")
