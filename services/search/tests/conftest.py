"""Backends for the search contract suites.

Embedded backends always run (SQLite FTS5, the numpy vector index, and the Qdrant adapter on
qdrant-client's local mode). Meilisearch and a Qdrant server run when REPORECALL_TEST_MEILI_URL /
REPORECALL_TEST_QDRANT_URL are set; each test gets its own index / collection, dropped afterwards.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from services.search.adapters.numpy_vector_index import NumpyVectorIndex
from services.search.adapters.sqlite_embedding_store import SqliteEmbeddingStore
from services.search.adapters.sqlite_feedback_store import SqliteFeedbackStore
from services.search.adapters.sqlite_keyword_index import SqliteKeywordIndex
from services.search.engine import SearchEngine
from services.search.ports import KeywordIndex, VectorIndex
from services.search.tests.search_fakes import WordHashEmbedder

MEILI_URL = os.environ.get("REPORECALL_TEST_MEILI_URL", "")
MEILI_KEY = os.environ.get("REPORECALL_TEST_MEILI_KEY", "") or None
QDRANT_URL = os.environ.get("REPORECALL_TEST_QDRANT_URL", "")
QDRANT_KEY = os.environ.get("REPORECALL_TEST_QDRANT_KEY", "") or None

_needs_meili = pytest.mark.skipif(
    not MEILI_URL, reason="set REPORECALL_TEST_MEILI_URL to run against Meilisearch"
)
_needs_qdrant = pytest.mark.skipif(
    not QDRANT_URL, reason="set REPORECALL_TEST_QDRANT_URL to run against Qdrant"
)

KEYWORD_BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("meilisearch", id="meili", marks=_needs_meili),
]
VECTOR_BACKENDS = [
    pytest.param("numpy", id="numpy"),
    pytest.param("qdrant-local", id="qdrant-local"),
    pytest.param("qdrant", id="qdrant-server", marks=_needs_qdrant),
]
# Engine-level contract: every keyword backend with the default vectors, every vector backend with SQLite.
ENGINE_BACKENDS = [
    pytest.param(("sqlite", "numpy"), id="sqlite+numpy"),
    pytest.param(("sqlite", "qdrant-local"), id="sqlite+qdrant-local"),
    pytest.param(("meilisearch", "numpy"), id="meili+numpy", marks=_needs_meili),
    pytest.param(("sqlite", "qdrant"), id="sqlite+qdrant-server", marks=_needs_qdrant),
]


def open_keyword_index(backend: str, tmp_path: Path, cleanups: list) -> KeywordIndex:
    if backend == "sqlite":
        return SqliteKeywordIndex(tmp_path / "keyword.db")
    import meilisearch

    from services.search.adapters.meilisearch_keyword_index import MeilisearchKeywordIndex

    prefix = f"test_{uuid.uuid4().hex[:12]}_"
    index = MeilisearchKeywordIndex(MEILI_URL, MEILI_KEY, index_prefix=prefix)

    def drop() -> None:
        client = meilisearch.Client(MEILI_URL, MEILI_KEY)
        for name in ("chunks", "files"):
            client.wait_for_task(client.delete_index(prefix + name).task_uid, timeout_in_ms=60_000)

    cleanups.append(drop)
    return index


def open_vector_index(backend: str, tmp_path: Path, dimension: int, cleanups: list) -> VectorIndex:
    if backend == "numpy":
        return NumpyVectorIndex(tmp_path / "vectors.db", dimension)
    from qdrant_client import QdrantClient

    from services.search.adapters.qdrant_vector_index import QdrantVectorIndex

    if backend == "qdrant-local":
        return QdrantVectorIndex(
            QdrantClient(path=str(tmp_path / "qdrant")), dimension, backend="qdrant-local"
        )
    collection = f"test_{uuid.uuid4().hex[:12]}"
    index = QdrantVectorIndex.connect(QDRANT_URL, dimension, api_key=QDRANT_KEY, collection=collection)

    def drop() -> None:
        client = QdrantClient(url=QDRANT_URL, api_key=QDRANT_KEY)
        client.delete_collection(collection)
        client.close()

    cleanups.append(drop)
    return index


@pytest.fixture
def cleanups() -> Iterator[list]:
    pending: list = []
    yield pending
    for cleanup in reversed(pending):
        cleanup()


@pytest.fixture(params=ENGINE_BACKENDS)
def engine(request, tmp_path: Path, cleanups: list) -> Iterator[SearchEngine]:
    keyword_backend, vector_backend = request.param
    embedder = WordHashEmbedder()
    built = SearchEngine(
        open_keyword_index(keyword_backend, tmp_path, cleanups),
        open_vector_index(vector_backend, tmp_path, embedder.dimension, cleanups),
        embedder,
        SqliteEmbeddingStore(tmp_path / "embeddings.db"),
        feedback=SqliteFeedbackStore(tmp_path / "feedback.db"),
    )
    yield built
    built.close()
