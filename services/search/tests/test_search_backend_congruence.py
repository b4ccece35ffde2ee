"""Congruence (as qdrant-client's congruence tests): the same corpus and queries through every backend of
a search port give the same results — numpy vs qdrant-local vectors (same top-k, filters included), and
SQLite FTS5 vs Meilisearch keywords (same matches) when REPORECALL_TEST_MEILI_URL is set.
"""

from __future__ import annotations

import numpy as np
import pytest

from kit.domain import ChunkKind
from services.search.domain.model import SearchFilters, TestFilter, VectorEntry
from services.search.tests.conftest import MEILI_URL, open_keyword_index, open_vector_index
from services.search.tests.search_fakes import chunk

DIM = 32
LANGUAGES = ("python", "typescript", "go")
KINDS = (ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CLASS)
FILTERS = [
    SearchFilters(),
    SearchFilters.of(languages=["python"]),
    SearchFilters.of(kinds=[ChunkKind.METHOD, ChunkKind.CLASS]),
    SearchFilters.of(path_prefix="src/pkg1/"),
    SearchFilters.of(tests=TestFilter.EXCLUDE),
    SearchFilters.of(languages=["go"], tests=TestFilter.EXCLUDE, path_prefix="src/"),
]


def _entries(repo: str, n: int = 600) -> list[VectorEntry]:
    rng = np.random.default_rng(3)
    out = []
    for i in range(n):
        # Forty files of ~15 chunks: qdrant-local's replace_file scans every point, so 200 small files cost
        # the suite half a minute and covered nothing more.
        path = f"{'tests' if i % 7 == 0 else 'src'}/pkg{i % 4}/mod{i % 5}.py"
        vector = rng.standard_normal(DIM).astype(np.float32)
        out.append(
            VectorEntry(
                chunk_id=f"{path}#fn{i}#0",
                repo=repo,
                path=path,
                language=LANGUAGES[i % 3],
                kind=str(KINDS[i % 3]),
                is_test=i % 7 == 0,
                vector=vector / np.linalg.norm(vector),
            )
        )
    return out


def _by_file(entries: list[VectorEntry]) -> dict[str, list[VectorEntry]]:
    files: dict[str, list[VectorEntry]] = {}
    for e in entries:
        files.setdefault(e.path, []).append(e)
    return files


def test_numpy_and_qdrant_local_return_the_same_top_k(tmp_path, cleanups):
    indexes = [
        open_vector_index(backend, tmp_path / backend, DIM, cleanups) for backend in ("numpy", "qdrant-local")
    ]
    entries = _entries("repo")
    other = _entries("other", 50)
    for index in indexes:
        for path, group in _by_file(entries).items():
            index.replace_file("repo", path, group)
        for path, group in _by_file(other).items():
            index.replace_file("other", path, group)
        # An edit and a deletion, so the answers also cover replaced and removed rows.
        index.replace_file("repo", "src/pkg1/mod1.py", _by_file(entries)["src/pkg1/mod1.py"][:1])
        index.delete_files("repo", ["src/pkg2/mod2.py"])
    assert indexes[0].count("repo") == indexes[1].count("repo") > 500

    rng = np.random.default_rng(9)
    compared = 0
    for _ in range(20):
        query = rng.standard_normal(DIM).astype(np.float32)
        query /= np.linalg.norm(query)
        for filters in FILTERS:
            results = [index.search("repo", query, filters, 10) for index in indexes]
            ids = [[hit.chunk_id for hit in result] for result in results]
            assert ids[0] == ids[1], filters
            assert np.allclose([h.score for h in results[0]], [h.score for h in results[1]], atol=1e-3)
            compared += len(ids[0])
    assert compared > 20 * len(FILTERS) * 5
    for index in indexes:
        index.close()


@pytest.mark.skipif(not MEILI_URL, reason="set REPORECALL_TEST_MEILI_URL to run against Meilisearch")
def test_sqlite_fts5_and_meilisearch_match_the_same_chunks(tmp_path, cleanups):
    indexes = [open_keyword_index(b, tmp_path / b, cleanups) for b in ("sqlite", "meilisearch")]
    words = ["ledger", "checksum", "invoice", "parser", "router", "token"]
    for index in indexes:
        for f in range(12):
            path = f"src/mod{f}.py"
            chunks = [
                chunk(
                    f"fn_{f}_{k}",
                    path,
                    body=f"def fn_{f}_{k}():\n    return {words[(f + k) % 6]}_{words[(f * k) % 6]}()\n",
                    doc=f"{words[k % 6]} helper",
                    ordinal=k,
                    start_line=1 + 5 * k,
                )
                for k in range(5)
            ]
            index.replace_file("repo", path, chunks)
    for word in words:
        found = [
            {h.chunk_id for h in index.search("repo", [word], SearchFilters(), 200)} for index in indexes
        ]
        assert found[0] and found[0] == found[1], word
    for index in indexes:
        index.close()
