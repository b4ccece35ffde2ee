"""What keeps a query cheap on the hook's path, without changing what it finds: keyword readers map the
database file (shared OS pages instead of a page cache per connection) and still see every write."""

from __future__ import annotations

import threading
from pathlib import Path

from services.search.adapters.sqlite_keyword_index import SqliteKeywordIndex
from services.search.domain.model import SearchFilters
from services.search.tests.search_fakes import chunk

REPO = "acme/app"


def _search_in_thread(index: SqliteKeywordIndex, words: list[str]) -> list[str]:
    found: list[str] = []
    worker = threading.Thread(
        target=lambda: found.extend(h.chunk_id for h in index.search(REPO, words, SearchFilters(), 10))
    )
    worker.start()
    worker.join()
    return found


def test_keyword_readers_map_the_file_and_see_each_committed_write(tmp_path: Path) -> None:
    index = SqliteKeywordIndex(tmp_path / "keyword.db")
    first = chunk("parse_flags", "src/cli.py", repo=REPO, body="def parse_flags():\n    return argv\n")
    index.replace_file(REPO, "src/cli.py", [first])
    assert index._reader().execute("PRAGMA mmap_size").fetchone()[0] > 0
    assert _search_in_thread(index, ["argv"]) == [first.id]
    # A reader thread that already mapped the file sees the next write (it lands in the WAL first).
    second = chunk("read_config", "src/cli.py", repo=REPO, body="def read_config():\n    return toml\n")
    index.replace_file(REPO, "src/cli.py", [second])
    assert _search_in_thread(index, ["argv"]) == []
    assert _search_in_thread(index, ["toml"]) == [second.id]
    index.close()
