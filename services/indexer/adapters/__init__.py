"""Adapters implementing the indexer ports: the SQLite manifest and the gRPC sinks."""
