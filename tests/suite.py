"""Kept for the tests' imports: the suite helpers live in kit/testing.py, importable by bench/ and tools/."""

from kit.testing import FIXTURES, ROOT, Suite, wait_for

__all__ = ["FIXTURES", "ROOT", "Suite", "wait_for"]
