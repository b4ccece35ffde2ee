"""Indexer domain metrics."""

from prometheus_client import Counter, Gauge

FILES = Counter("reporecall_index_files_total", "Files handled by indexing runs.", ("repo", "outcome"))
CHUNKS = Counter("reporecall_index_chunks_total", "Chunks sent downstream.", ("repo",))
BACKLOG = Gauge("reporecall_index_backlog_files", "Changed files not yet acknowledged downstream.", ("repo",))
LAST_RUN = Gauge(
    "reporecall_index_last_run_timestamp_seconds", "When the last indexing run finished.", ("repo",)
)
RUN_SECONDS = Gauge(
    "reporecall_index_last_run_duration_seconds", "Duration of the last indexing run.", ("repo",)
)
