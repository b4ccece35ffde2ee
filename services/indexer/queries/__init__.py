"""Tree-sitter query files, one per language: data read by services/indexer/domain/parsing.py.

A package only so that the wheel ships the .scm files (package-data "*.scm").
"""
