"""Vector index on Qdrant through qdrant-client: a server (`http(s)://host:6333`) in team deployments.

One collection holds every repo; `repo` is a tenant-optimised keyword index, so a repo's search only
visits its own points. Every write passes `wait=True`, so a read after it sees it. Point ids are
UUIDv5 of (repo, chunk id): chunk ids are free-form strings, Qdrant wants ints or UUIDs.

The same class also runs on qdrant-client's local mode (`QdrantClient(path=…)` / `":memory:"`), which
the congruence tests use; local mode is too slow to be the embedded default (see README.md).
"""

from __future__ import annotations

import uuid
import warnings
from collections.abc import Iterable, Sequence
from typing import Any

from qdrant_client import QdrantClient, models

from services.search.domain.model import (
    ScoredId,
    SearchFilters,
    TestFilter,
    Vector,
    VectorEntry,
    path_dirs,
    prefix_directory,
)

_NAMESPACE = uuid.UUID("6c3f2a8e-0d4b-4c55-9a55-2b1f6f3e9c01")
_PREFIX_OVERFETCH = 4


def point_id(repo: str, chunk_id: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"{repo}\x00{chunk_id}"))


def _must(repo: str, filters: SearchFilters) -> list[Any]:
    must: list[Any] = [models.FieldCondition(key="repo", match=models.MatchValue(value=repo))]
    if filters.languages:
        must.append(
            models.FieldCondition(key="language", match=models.MatchAny(any=sorted(filters.languages)))
        )
    if filters.kinds:
        kinds = sorted(str(k) for k in filters.kinds)
        must.append(models.FieldCondition(key="kind", match=models.MatchAny(any=kinds)))
    directory = prefix_directory(filters.path_prefix)
    if directory:
        must.append(models.FieldCondition(key="path_dirs", match=models.MatchValue(value=directory)))
    if filters.tests is not TestFilter.INCLUDE:
        wanted = filters.tests is TestFilter.ONLY
        must.append(models.FieldCondition(key="is_test", match=models.MatchValue(value=wanted)))
    return must


class QdrantVectorIndex:
    """`VectorIndex` over a qdrant-client (server URL or local path)."""

    def __init__(
        self,
        client: QdrantClient,
        dimension: int,
        collection: str = "reporecall_chunks",
        backend: str = "qdrant",
    ) -> None:
        self._client = client
        self._collection = collection
        self._dim = dimension
        self.backend = backend
        self._ensure_collection()

    @classmethod
    def connect(
        cls,
        url: str,
        dimension: int,
        api_key: str | None = None,
        collection: str = "reporecall_chunks",
        timeout: int = 30,
    ) -> QdrantVectorIndex:
        return cls(QdrantClient(url=url, api_key=api_key, timeout=timeout), dimension, collection)

    def _ensure_collection(self) -> None:
        if self._client.collection_exists(self._collection):
            info = self._client.get_collection(self._collection)
            params = info.config.params.vectors
            size = params.size if isinstance(params, models.VectorParams) else None
            if size != self._dim:
                raise ValueError(
                    f"Qdrant collection {self._collection!r} holds {size}-d vectors, the embedder makes "
                    f"{self._dim}-d ones: delete the collection or use another name"
                )
        else:
            self._client.create_collection(
                self._collection,
                vectors_config=models.VectorParams(size=self._dim, distance=models.Distance.COSINE),
            )
        indexes: dict[str, Any] = {
            "repo": models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True),
            "chunk_id": models.PayloadSchemaType.KEYWORD,
            "path": models.PayloadSchemaType.KEYWORD,
            "path_dirs": models.PayloadSchemaType.KEYWORD,
            "language": models.PayloadSchemaType.KEYWORD,
            "kind": models.PayloadSchemaType.KEYWORD,
            "is_test": models.PayloadSchemaType.BOOL,
        }
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="Payload indexes have no effect in the local Qdrant")
            for field, schema in indexes.items():
                self._client.create_payload_index(
                    self._collection, field_name=field, field_schema=schema, wait=True
                )

    def _point(self, entry: VectorEntry) -> models.PointStruct:
        return models.PointStruct(
            id=point_id(entry.repo, entry.chunk_id),
            vector=[float(x) for x in entry.vector],
            payload={
                "repo": entry.repo,
                "chunk_id": entry.chunk_id,
                "path": entry.path,
                "path_dirs": path_dirs(entry.path),
                "language": entry.language,
                "kind": entry.kind,
                "is_test": entry.is_test,
            },
        )

    # --- writes ------------------------------------------------------------------------------------

    def upsert(self, entries: Sequence[VectorEntry]) -> None:
        for lo in range(0, len(entries), 256):
            batch = [self._point(e) for e in entries[lo : lo + 256]]
            self._client.upsert(self._collection, points=batch, wait=True)

    def replace_file(self, repo: str, path: str, entries: Sequence[VectorEntry]) -> None:
        # New points first, then the file's others: a reader never sees the file with no vectors.
        self.upsert(entries)
        keep: list[models.ExtendedPointId] = [point_id(repo, e.chunk_id) for e in entries]
        must_not: list[Any] = [models.HasIdCondition(has_id=keep)] if keep else []
        self._delete(
            models.Filter(
                must=[
                    models.FieldCondition(key="repo", match=models.MatchValue(value=repo)),
                    models.FieldCondition(key="path", match=models.MatchValue(value=path)),
                ],
                must_not=must_not,
            )
        )

    def delete_ids(self, repo: str, chunk_ids: Iterable[str]) -> None:
        ids: list[models.ExtendedPointId] = [point_id(repo, cid) for cid in chunk_ids]
        if ids:
            self._client.delete(self._collection, points_selector=models.PointIdsList(points=ids), wait=True)

    def delete_files(self, repo: str, paths: Iterable[str]) -> None:
        paths = sorted(set(paths))
        if paths:
            self._delete(
                models.Filter(
                    must=[
                        models.FieldCondition(key="repo", match=models.MatchValue(value=repo)),
                        models.FieldCondition(key="path", match=models.MatchAny(any=paths)),
                    ]
                )
            )

    def delete_repo(self, repo: str) -> None:
        self._delete(
            models.Filter(must=[models.FieldCondition(key="repo", match=models.MatchValue(value=repo))])
        )

    def _delete(self, selector: models.Filter) -> None:
        self._client.delete(
            self._collection, points_selector=models.FilterSelector(filter=selector), wait=True
        )

    # --- reads -------------------------------------------------------------------------------------

    def search(self, repo: str, vector: Vector, filters: SearchFilters, limit: int) -> list[ScoredId]:
        if limit <= 0:
            return []
        exact_prefix = filters.path_prefix == prefix_directory(filters.path_prefix)
        fetch = limit if exact_prefix else limit * _PREFIX_OVERFETCH
        response = self._client.query_points(
            self._collection,
            query=[float(x) for x in vector],
            query_filter=models.Filter(must=_must(repo, filters)),
            limit=fetch,
            with_payload=["chunk_id", "path"],
        )
        hits = [
            ScoredId(str(p.payload["chunk_id"]), float(p.score))
            for p in response.points
            if p.payload and str(p.payload.get("path", "")).startswith(filters.path_prefix)
        ]
        return hits[:limit]

    def count(self, repo: str) -> int:
        flt = (
            models.Filter(must=[models.FieldCondition(key="repo", match=models.MatchValue(value=repo))])
            if repo
            else None
        )
        return int(self._client.count(self._collection, count_filter=flt, exact=True).count)

    def close(self) -> None:
        self._client.close()
