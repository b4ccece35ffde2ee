"""Adapters of the memory service: the memory folders on disk, the SQLite FTS5 index, the file watcher."""
