"""Search domain metrics (store latencies are kit.metrics.STORE_SECONDS)."""

from prometheus_client import Counter, Gauge

EMBED_BACKLOG = Gauge("reporecall_embed_backlog_chunks", "Chunks waiting for an embedding.")
EMBEDDED = Counter("reporecall_embedded_chunks_total", "Chunks embedded (cache misses).")
EMBED_CACHE_HITS = Counter("reporecall_embed_cache_hits_total", "Chunks whose vector came from the cache.")
CHUNKS = Gauge("reporecall_search_chunks", "Chunks in the keyword index.")
