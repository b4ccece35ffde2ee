"""Watch mode inside `reporecall up`: a file saved in a registered repo becomes searchable by itself."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from tests.e2e.conftest import SPINE
from tests.suite import Suite, wait_for

pytestmark = pytest.mark.e2e


def test_a_saved_edit_becomes_searchable_within_two_seconds(indexed: Suite, tmp_path: Path) -> None:
    repo = tmp_path / "watched"
    shutil.copytree(SPINE, repo)
    assert indexed.cli("index", str(repo), "--name", "watched", "--json").returncode == 0
    target = repo / "src/shop/tax.py"
    target.write_text(
        target.read_text() + "\n\ndef reverse_charge_applies(country):\n    return country == 'EU'\n"
    )
    saved = time.monotonic()

    def searchable() -> bool:
        reply = indexed.post(
            "/api/search", {"query": "reverse_charge_applies", "repo": "watched", "mode": "keyword"}
        )
        return any(h["chunk"]["name"] == "reverse_charge_applies" for h in reply.json().get("hits", []))

    wait_for(searchable, 10, "the saved edit to be indexed by the watcher", interval=0.05)
    assert time.monotonic() - saved < 2.0

    (repo / "web/cart.ts").unlink()  # a deleted file disappears from search too

    def gone() -> bool:
        reply = indexed.post(
            "/api/search", {"query": "estimateShipping", "repo": "watched", "mode": "keyword"}
        )
        return not any(h["chunk"]["path"] == "web/cart.ts" for h in reply.json().get("hits", []))

    wait_for(gone, 10, "the deleted file to leave the index")
