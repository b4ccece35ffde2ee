"""The `reporecall` command line."""
