"""Indexer service: scans repositories, parses files and pushes chunks and graphs downstream."""
