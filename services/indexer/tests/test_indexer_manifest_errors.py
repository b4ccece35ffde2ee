"""The manifest reports an unwritable store as ManifestUnwritable with the cause and the fix, not sqlite3 noise."""

from __future__ import annotations

from pathlib import Path

import pytest

from services.indexer.adapters.sqlite_manifest import SqliteManifest
from services.indexer.ports import ManifestUnwritable


def test_a_read_only_manifest_raises_manifest_unwritable_naming_the_cause(tmp_path: Path) -> None:
    manifest = SqliteManifest(tmp_path / "manifest.db")
    manifest.add_repo("shop", str(tmp_path), "")
    manifest._db.execute("PRAGMA query_only = ON")  # what a read-only filesystem does to every write
    with pytest.raises(ManifestUnwritable) as raised:
        manifest.add_repo("other", str(tmp_path), "")
    assert "read-only" in str(raised.value) and str(tmp_path / "manifest.db") in str(raised.value)
    assert [r.name for r in manifest.list_repos()] == ["shop"]  # reads still work
