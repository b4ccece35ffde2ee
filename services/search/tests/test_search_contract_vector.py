"""The VectorIndex port on every backend, and its congruence with brute-force cosine in numpy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from kit.domain import ChunkKind
from services.search.domain.model import SearchFilters, TestFilter, VectorEntry
from services.search.ports import VectorIndex
from services.search.tests.conftest import VECTOR_BACKENDS, open_vector_index

DIM = 32
LANGUAGES = ("python", "go", "rust")
KINDS = ("function", "method", "class")


def fixture_entries(n: int = 240, seed: int = 3) -> list[VectorEntry]:
    rng = np.random.default_rng(seed)
    entries = []
    for i in range(n):
        v = rng.standard_normal(DIM).astype(np.float32)
        entries.append(
            VectorEntry(
                chunk_id=f"c{i}",
                repo="main" if i % 3 else "side",
                path=f"{'src' if i % 4 else 'tests'}/{'a' if i % 5 else 'b/deep'}/f{i % 17}.py",
                language=LANGUAGES[i % 3],
                kind=KINDS[(i // 3) % 3],
                is_test=i % 4 == 0,
                vector=v / np.linalg.norm(v),
            )
        )
    return entries


def brute_force(entries: list[VectorEntry], repo: str, query: np.ndarray, filters: SearchFilters, k: int):
    allowed = [
        e
        for e in entries
        if e.repo == repo
        and filters.accepts(path=e.path, language=e.language, kind=e.kind, is_test=e.is_test)
    ]
    if not allowed:
        return []
    matrix = np.stack([e.vector for e in allowed])
    scores = matrix @ (query / np.linalg.norm(query))
    order = np.argsort(-scores, kind="stable")[:k]
    return [(allowed[i].chunk_id, float(scores[i])) for i in order]


@pytest.fixture(params=VECTOR_BACKENDS)
def index(request, tmp_path: Path, cleanups: list) -> Iterator[VectorIndex]:
    built = open_vector_index(request.param, tmp_path, DIM, cleanups)
    yield built
    built.close()


FILTERS = [
    SearchFilters(),
    SearchFilters.of(languages=["go"]),
    SearchFilters.of(kinds=[ChunkKind.CLASS, ChunkKind.METHOD]),
    SearchFilters.of(path_prefix="src/"),
    SearchFilters.of(path_prefix="src/b/de"),
    SearchFilters.of(tests=TestFilter.EXCLUDE),
    SearchFilters.of(tests=TestFilter.ONLY, languages=["python", "rust"]),
]


def test_top_k_agrees_with_brute_force_cosine(index: VectorIndex) -> None:
    entries = fixture_entries()
    index.upsert(entries)
    rng = np.random.default_rng(11)
    for _ in range(2):
        query = rng.standard_normal(DIM).astype(np.float32)
        for filters in FILTERS:
            for repo in ("main", "side"):
                expected = brute_force(entries, repo, query, filters, 10)
                got = index.search(repo, query, filters, 10)
                assert [h.chunk_id for h in got] == [cid for cid, _ in expected], (repo, filters)
                assert np.allclose([h.score for h in got], [s for _, s in expected], atol=1e-4)


def test_replace_file_keeps_exactly_the_given_vectors(index: VectorIndex) -> None:
    entries = fixture_entries(30)
    index.upsert(entries)
    path = entries[1].path
    same_file = [e for e in entries if e.repo == "main" and e.path == path]
    assert len(same_file) >= 1
    kept = same_file[0]
    moved = VectorEntry(kept.chunk_id, "main", path, "go", "function", False, -kept.vector)
    index.replace_file("main", path, [moved])
    remaining = {h.chunk_id for h in index.search("main", kept.vector, SearchFilters(), 100)}
    assert {e.chunk_id for e in same_file[1:]}.isdisjoint(remaining)
    top = index.search("main", -kept.vector, SearchFilters(), 1)[0]
    assert (top.chunk_id, round(top.score, 4)) == (kept.chunk_id, 1.0)
    assert index.count("main") == sum(1 for e in entries if e.repo == "main") - len(same_file) + 1


def test_deletes_by_ids_files_and_repo(index: VectorIndex) -> None:
    entries = fixture_entries(60)
    index.upsert(entries)
    main = [e for e in entries if e.repo == "main"]
    index.delete_ids("main", [main[0].chunk_id, "unknown"])
    assert index.count("main") == len(main) - 1
    doomed = {e.path for e in main[1:4]}
    index.delete_files("main", doomed)
    left = [e for e in main[1:] if e.path not in doomed]
    assert index.count("main") == len(left)
    assert {h.chunk_id for h in index.search("main", left[0].vector, SearchFilters(), 100)} == {
        e.chunk_id for e in left
    }
    index.delete_repo("main")
    assert index.count("main") == 0
    assert index.count("side") == len(entries) - len(main)
    assert index.count("") == len(entries) - len(main)


def test_upsert_overwrites_by_chunk_id_within_a_repo_only(index: VectorIndex) -> None:
    v = np.eye(DIM, dtype=np.float32)
    index.upsert([VectorEntry("same", "r1", "a.py", "python", "function", False, v[0])])
    index.upsert([VectorEntry("same", "r2", "a.py", "python", "function", False, v[1])])
    index.upsert([VectorEntry("same", "r1", "b.py", "python", "function", False, v[2])])
    assert index.count("r1") == 1 and index.count("r2") == 1
    hit = index.search("r1", v[2], SearchFilters(), 5)
    assert [(h.chunk_id, round(h.score, 4)) for h in hit] == [("same", 1.0)]
    assert index.search("r1", v[2], SearchFilters.of(path_prefix="a.py"), 5) == []


def test_numpy_index_is_durable_across_reopen(tmp_path: Path) -> None:
    from services.search.adapters.numpy_vector_index import NumpyVectorIndex

    entries = fixture_entries(50)
    first = NumpyVectorIndex(tmp_path / "v.db", DIM)
    first.upsert(entries)
    first.delete_files("main", [entries[1].path])
    query = entries[2].vector
    before = first.search("main", query, SearchFilters(), 10)
    first.close()
    reopened = NumpyVectorIndex(tmp_path / "v.db", DIM)
    assert reopened.search("main", query, SearchFilters(), 10) == before
    reopened.close()
    # Another embedder (dimension) makes old vectors meaningless: they are dropped, not mixed.
    other = NumpyVectorIndex(tmp_path / "v.db", DIM * 2)
    assert other.count("") == 0
    other.close()
