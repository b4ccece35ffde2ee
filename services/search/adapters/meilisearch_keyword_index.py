"""Keyword index on a Meilisearch server (team deployments), through the official `meilisearch` client.

Two indexes: `<prefix>chunks` (one document per chunk: the chunk's fields plus code-aware word fields
from domain.keywords) and `<prefix>files` (one per file, so file counts are exact). Settings are set
explicitly at start-up. Every write waits for its task and fails loudly if the task failed, so a read
after a write sees it. Filter values are always quoted and escaped (`filter_value`), and the query
text is only ever plain code words, so nothing a user types becomes filter or query syntax.

Repos are isolated in ranking: every search filters by repo, and the ranking rules (words, typo,
proximity, attribute, exactness) are bucket sorts over each document's own matches, with no
corpus-wide statistics. Which words a query drops first is the one index-wide number Meilisearch
would use (`matchingStrategy: frequency` counts a word over every repo), so the words are instead
ordered by their frequency *in the repo* (one multi-search of `limit: 0` counts, cached) and
searched with `matchingStrategy: last`, which drops the commonest of them first.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

import meilisearch
import xxhash
from meilisearch.errors import MeilisearchApiError

from kit.domain import Chunk, ChunkKind
from services.search.domain.keywords import chunk_fields
from services.search.domain.model import (
    FileCounts,
    ProfileFile,
    RepoProfile,
    ScoredId,
    SearchFilters,
    SymbolMatch,
    TestFilter,
    path_dirs,
    prefix_directory,
)
from services.search.domain.symbols import DEFINITION_KINDS, query_word_prefixes, spread_over_files

TASK_TIMEOUT_MS = 120_000
DF_CACHE_SECONDS = 600.0
_PREFIX_OVERFETCH = 4
_CHUNK_FIELDS = (
    "id",
    "repo",
    "path",
    "language",
    "kind",
    "name",
    "qualified_name",
    "parent",
    "start_line",
    "end_line",
    "signature",
    "doc",
    "content",
    "content_hash",
    "is_test",
)

CHUNK_SETTINGS: dict[str, Any] = {
    # Order matters: the `attribute` ranking rule prefers matches in earlier attributes.
    "searchableAttributes": ["names", "path_words", "signature_words", "doc_words", "body_words"],
    "filterableAttributes": [
        "doc_id",
        "repo",
        "path",
        "path_dirs",
        "language",
        "kind",
        "is_test",
        "name",
        "qualified_name",
    ],
    "sortableAttributes": ["path", "start_line"],
    "displayedAttributes": ["*"],
    "rankingRules": ["words", "typo", "proximity", "attribute", "sort", "exactness"],
    # Identifiers and paths must match as written: "parse" must not find "parser" by typo.
    "typoTolerance": {
        "enabled": True,
        "disableOnAttributes": ["names", "path_words", "signature_words"],
        "minWordSizeForTypos": {"oneTypo": 5, "twoTypos": 9},
    },
    "separatorTokens": ["_", "::", "->", "$", "#"],
    "stopWords": [],
    "pagination": {"maxTotalHits": 1_000_000},
}
FILE_SETTINGS: dict[str, Any] = {
    "searchableAttributes": ["path"],
    "filterableAttributes": ["repo", "path"],
    "pagination": {"maxTotalHits": 1_000_000},
}


def filter_value(value: str | int | bool) -> str:
    """A Meilisearch filter literal: booleans and ints bare, strings double-quoted with \\ and " escaped."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _eq(field: str, value: str | int | bool) -> str:
    return f"{field} = {filter_value(value)}"


def _in(field: str, values: Sequence[str]) -> str:
    return f"{field} IN [{', '.join(filter_value(v) for v in values)}]"


def _doc_id(repo: str, chunk_id: str) -> str:
    # Meilisearch ids allow [A-Za-z0-9_-] only; chunk ids are free-form.
    return xxhash.xxh3_128_hexdigest(f"{repo}\x00{chunk_id}".encode())


def _file_id(repo: str, path: str) -> str:
    return xxhash.xxh3_128_hexdigest(f"{repo}\x00{path}".encode())


def search_filter(repo: str, filters: SearchFilters) -> str:
    clauses = [_eq("repo", repo)]
    if filters.languages:
        clauses.append(_in("language", sorted(filters.languages)))
    if filters.kinds:
        clauses.append(_in("kind", sorted(str(k) for k in filters.kinds)))
    directory = prefix_directory(filters.path_prefix)
    if directory:
        clauses.append(_eq("path_dirs", directory))
    if filters.tests is TestFilter.EXCLUDE:
        clauses.append(_eq("is_test", False))
    elif filters.tests is TestFilter.ONLY:
        clauses.append(_eq("is_test", True))
    return " AND ".join(clauses)


def _to_chunk(doc: dict[str, Any]) -> Chunk:
    return Chunk(
        id=doc["id"],
        repo=doc["repo"],
        path=doc["path"],
        language=doc["language"],
        kind=ChunkKind(doc["kind"]),
        name=doc["name"],
        qualified_name=doc["qualified_name"],
        parent=doc.get("parent", ""),
        start_line=int(doc["start_line"]),
        end_line=int(doc["end_line"]),
        signature=doc.get("signature", ""),
        doc=doc.get("doc", ""),
        content=doc.get("content", ""),
        content_hash=doc.get("content_hash", ""),
        is_test=bool(doc.get("is_test", False)),
    )


class MeilisearchKeywordIndex:
    backend = "meilisearch"

    def __init__(
        self,
        url: str,
        api_key: str | None = None,
        index_prefix: str = "reporecall_",
        timeout_seconds: int = 30,
    ) -> None:
        self._client = meilisearch.Client(url, api_key, timeout=timeout_seconds)
        self._chunks = self._client.index(f"{index_prefix}chunks")
        self._files = self._client.index(f"{index_prefix}files")
        self._ensure(self._chunks, "doc_id", CHUNK_SETTINGS)
        self._ensure(self._files, "file_id", FILE_SETTINGS)
        # repo -> word -> (when counted, count); a repo's zeros apart, so a write that may add words
        # drops just those (reads must see writes) and delete_repo drops both.
        self._df_cache: dict[str, dict[str, tuple[float, int]]] = {}
        self._df_absent: dict[str, dict[str, float]] = {}
        self._df_generation: dict[str, int] = {}  # bumped by each forget: a count taken before is not cached
        self._df_lock = threading.Lock()
        self._share_cache: dict[tuple[str, str, SearchFilters], tuple[float, float]] = {}

    def _cached_frequency(self, repo: str, word: str, now: float) -> int | None:
        hit = self._df_cache.get(repo, {}).get(word)
        if hit is not None and now - hit[0] < DF_CACHE_SECONDS:
            return hit[1]
        absent = self._df_absent.get(repo, {}).get(word)
        if absent is not None and now - absent < DF_CACHE_SECONDS:
            return 0
        return None

    def _forget_frequencies(self, repo: str, *, absent_only: bool = False) -> None:
        with self._df_lock:
            self._df_generation[repo] = self._df_generation.get(repo, 0) + 1
            self._df_absent.pop(repo, None)
            if not absent_only:
                self._df_cache.pop(repo, None)
                for key in [k for k in self._share_cache if k[0] == repo]:
                    del self._share_cache[key]

    def _repo_frequencies(self, repo: str, words: Sequence[str]) -> dict[str, int]:
        """How many of the repo's chunks match each word (not the whole index's); zeros are cached too."""
        now = time.monotonic()
        out: dict[str, int] = {}
        with self._df_lock:
            generation = self._df_generation.get(repo, 0)
            for w in words:
                cached = self._cached_frequency(repo, w, now)
                if cached is not None:
                    out[w] = cached
        missing = [w for w in words if w not in out]
        if missing:
            result = self._client.multi_search(
                [
                    {
                        "indexUid": self._chunks.uid,
                        "q": w,
                        "filter": _eq("repo", repo),
                        "limit": 0,
                        "matchingStrategy": "all",
                    }
                    for w in missing
                ]
            )
            with self._df_lock:
                entries = sum(map(len, self._df_cache.values())) + sum(map(len, self._df_absent.values()))
                if entries > 20_000:
                    self._df_cache.clear()
                    self._df_absent.clear()
                current = self._df_generation.get(repo, 0) == generation
                for w, answer in zip(missing, result["results"], strict=True):
                    count = int(answer.get("estimatedTotalHits") or answer.get("totalHits") or 0)
                    out[w] = count
                    if not current:  # a write or delete_repo ran meanwhile: use, do not keep
                        continue
                    if count:
                        self._df_cache.setdefault(repo, {})[w] = (now, count)
                    else:  # replace_file drops these, so a word it adds is seen at once
                        self._df_absent.setdefault(repo, {})[w] = now
        return out

    def _ensure(self, index: meilisearch.index.Index, primary_key: str, settings: dict[str, Any]) -> None:
        try:
            self._client.get_index(index.uid)
        except MeilisearchApiError as exc:
            if exc.code != "index_not_found":
                raise
            created = self._client.create_index(index.uid, {"primaryKey": primary_key})
            task = self._client.wait_for_task(created.task_uid, timeout_in_ms=TASK_TIMEOUT_MS)
            # Another replica may have created it meanwhile; that is as good.
            if task.status != "succeeded" and (task.error or {}).get("code") != "index_already_exists":
                raise RuntimeError(f"Meilisearch could not create index {index.uid}: {task.error}") from exc
        self._wait(index.update_settings(settings))

    def _wait(self, task_info: Any) -> dict[str, Any]:
        task = self._client.wait_for_task(task_info.task_uid, timeout_in_ms=TASK_TIMEOUT_MS)
        if task.status != "succeeded":
            raise RuntimeError(f"Meilisearch task {task.uid} ({task.type}) {task.status}: {task.error}")
        return task.details or {}

    # --- writes ------------------------------------------------------------------------------------

    def _document(self, chunk: Chunk) -> dict[str, Any]:
        fields = chunk_fields(chunk)
        doc: dict[str, Any] = {
            "doc_id": _doc_id(chunk.repo, chunk.id),
            **{name: getattr(chunk, name) for name in _CHUNK_FIELDS},
            "kind": str(chunk.kind),
            "path_dirs": path_dirs(chunk.path),
            "names": fields["names"],
            "path_words": fields["path"],
            "signature_words": fields["signature"],
            "doc_words": fields["doc"],
            "body_words": fields["body"],
        }
        return doc

    def replace_file(self, repo: str, path: str, chunks: Sequence[Chunk]) -> int:
        docs = [self._document(c) for c in chunks]
        # New documents first (same ids replace), then the file's others: never an empty file in between.
        if docs:
            self._wait(self._chunks.add_documents(docs, primary_key="doc_id"))
            self._forget_frequencies(repo, absent_only=True)  # a cached zero may now be wrong
        orphan_filter = f"{_eq('repo', repo)} AND {_eq('path', path)}"
        if docs:
            orphan_filter += f" AND NOT {_in('doc_id', [d['doc_id'] for d in docs])}"
        self._wait(self._chunks.delete_documents(filter=orphan_filter))
        if docs:
            file_doc = {
                "file_id": _file_id(repo, path),
                "repo": repo,
                "path": path,
                "language": chunks[0].language,
                "is_test": any(c.is_test for c in chunks),
                "chunks": len(docs),
            }
            self._wait(self._files.add_documents([file_doc], primary_key="file_id"))
        else:
            self._wait(self._files.delete_documents(filter=f"{_eq('repo', repo)} AND {_eq('path', path)}"))
        return len(docs)

    def delete_files(self, repo: str, paths: Sequence[str]) -> int:
        paths = sorted(set(paths))
        if not paths:
            return 0
        where = f"{_eq('repo', repo)} AND {_in('path', paths)}"
        details = self._wait(self._chunks.delete_documents(filter=where))
        self._wait(self._files.delete_documents(filter=where))
        return int(details.get("deletedDocuments") or 0)

    def delete_repo(self, repo: str) -> int:
        try:
            details = self._wait(self._chunks.delete_documents(filter=_eq("repo", repo)))
            self._wait(self._files.delete_documents(filter=_eq("repo", repo)))
        finally:  # even a half-done delete has changed the counts
            self._forget_frequencies(repo)
        return int(details.get("deletedDocuments") or 0)

    # --- reads -------------------------------------------------------------------------------------

    def search(self, repo: str, words: Sequence[str], filters: SearchFilters, limit: int) -> list[ScoredId]:
        if not words or limit <= 0:
            return []
        exact_prefix = filters.path_prefix == prefix_directory(filters.path_prefix)
        unique = list(dict.fromkeys(words))
        frequencies = self._repo_frequencies(repo, unique)
        ordered = sorted((w for w in unique if frequencies.get(w)), key=lambda w: (frequencies[w], w))
        if not ordered:
            return []
        result = self._chunks.search(
            " ".join(ordered),
            {
                "filter": search_filter(repo, filters),
                "limit": limit if exact_prefix else limit * _PREFIX_OVERFETCH,
                "attributesToRetrieve": ["id", "path"],
                "showRankingScore": True,
                "matchingStrategy": "last",
            },
        )
        hits = [
            ScoredId(h["id"], float(h.get("_rankingScore", 0.0)))
            for h in result["hits"]
            if h["path"].startswith(filters.path_prefix)
        ]
        return hits[:limit]

    def document_share(self, repo: str, word: str, filters: SearchFilters) -> float:
        """Two exhaustive counts in one multi-search (page-based, as `counts`: totalHits is exact), cached."""
        now = time.monotonic()
        key = (repo, word, filters)
        with self._df_lock:
            cached = self._share_cache.get(key)
        if cached is not None and now - cached[0] < DF_CACHE_SECONDS:
            return cached[1]
        flt = search_filter(repo, filters)
        counts = self._client.multi_search(
            [
                {
                    "indexUid": self._chunks.uid,
                    "q": q,
                    "filter": flt,
                    "hitsPerPage": 1,
                    "page": 1,
                    "attributesToRetrieve": ["repo"],
                    **extra,
                }
                for q, extra in (("", {}), (word, {"matchingStrategy": "all"}))
            ]
        )["results"]
        total, matching = (int(c.get("totalHits") or 0) for c in counts)
        share = matching / total if total else 0.0
        with self._df_lock:
            if len(self._share_cache) > 20_000:
                self._share_cache.clear()
            self._share_cache[key] = (now, share)
        return share

    def get_chunks(self, repo: str, ids: Sequence[str], with_content: bool = True) -> list[Chunk]:
        fields = list(_CHUNK_FIELDS) if with_content else [f for f in _CHUNK_FIELDS if f != "content"]
        unique = list(dict.fromkeys(ids))
        out: list[Chunk] = []
        for lo in range(0, len(unique), 500):
            part = unique[lo : lo + 500]
            result = self._chunks.get_documents(
                {
                    "filter": _in("doc_id", [_doc_id(repo, i) for i in part]),
                    "limit": len(part),
                    "fields": fields,
                }
            )
            out.extend(_to_chunk(dict(doc)) for doc in result.results)
        return out

    def symbol_candidates(self, repo: str, name: str, match: SymbolMatch, limit: int) -> list[Chunk]:
        base = _eq("repo", repo)
        if match is SymbolMatch.EXACT:
            flt = f"{base} AND ({_eq('name', name)} OR {_eq('qualified_name', name)})"
            result = self._chunks.search(
                "", {"filter": flt, "limit": limit, "attributesToRetrieve": list(_CHUNK_FIELDS)}
            )
            return [_to_chunk(h) for h in result["hits"]]
        if match is SymbolMatch.PREFIX:
            # The whole identifier is one indexed word; Meilisearch prefix-matches the last query word.
            queries = [name.lower().replace("_", "").replace("$", "")]
        else:
            queries = query_word_prefixes(name)
        found: dict[str, Chunk] = {}
        for q in queries:
            if not q:
                continue
            result = self._chunks.search(
                q,
                {
                    "filter": base,
                    "limit": limit,
                    "attributesToSearchOn": ["names"],
                    "attributesToRetrieve": list(_CHUNK_FIELDS),
                    "matchingStrategy": "all",
                },
            )
            for hit in result["hits"]:
                found.setdefault(hit["id"], _to_chunk(hit))
        return list(found.values())

    def file_chunks(self, repo: str, path: str) -> list[Chunk]:
        docs = self._all_documents(f"{_eq('repo', repo)} AND {_eq('path', path)}", list(_CHUNK_FIELDS))
        return sorted((_to_chunk(d) for d in docs), key=lambda c: (c.start_line, c.end_line, c.id))

    def file_lines(self, repo: str, paths: Sequence[str]) -> dict[str, int]:
        out: dict[str, int] = {}
        unique = list(dict.fromkeys(paths))
        for lo in range(0, len(unique), 100):
            flt = f"{_eq('repo', repo)} AND {_in('path', unique[lo : lo + 100])}"
            for doc in self._all_documents(flt, ["path", "end_line"]):
                out[doc["path"]] = max(out.get(doc["path"], 0), int(doc.get("end_line", 0)))
        return out

    def repos(self) -> list[str]:
        # The files index holds one document per file: fewer to page through than chunks.
        found: set[str] = set()
        offset, page = 0, 1000
        while True:
            result = self._files.get_documents({"fields": ["repo"], "limit": page, "offset": offset})
            found.update(str(dict(doc)["repo"]) for doc in result.results)
            offset += len(result.results)
            if len(result.results) < page:
                return sorted(found)

    def profile(self, repo: str, max_files: int, max_symbols: int) -> RepoProfile:
        files = sorted(
            (
                ProfileFile(d["path"], d.get("language", ""), bool(d.get("is_test", False)))
                for d in self._all_documents(_eq("repo", repo), ["path", "language", "is_test"], self._files)
            ),
            key=lambda f: f.path,
        )[:max_files]
        kinds = _in("kind", [str(k) for k in DEFINITION_KINDS])
        fields = [f for f in _CHUNK_FIELDS if f != "content"]
        definitions = [_to_chunk(d) for d in self._all_documents(f"{_eq('repo', repo)} AND {kinds}", fields)]
        return RepoProfile(files=files, symbols=spread_over_files(definitions, max_symbols))

    def _all_documents(
        self, flt: str, fields: list[str], index: meilisearch.index.Index | None = None, page: int = 1000
    ) -> list[dict[str, Any]]:
        index = index or self._chunks
        out: list[dict[str, Any]] = []
        while True:
            result = index.get_documents({"filter": flt, "fields": fields, "limit": page, "offset": len(out)})
            out.extend(dict(doc) for doc in result.results)
            if len(result.results) < page:
                return out

    def counts(self, repo: str) -> FileCounts:
        flt = _eq("repo", repo) if repo else None
        # Page-based pagination makes totalHits exhaustive (up to pagination.maxTotalHits).
        params: dict[str, Any] = {"hitsPerPage": 1, "page": 1, "attributesToRetrieve": ["repo"]}
        if flt:
            params["filter"] = flt
        chunks = self._chunks.search("", params)
        files = self._files.search("", params)
        return FileCounts(files=int(files.get("totalHits", 0)), chunks=int(chunks.get("totalHits", 0)))

    def close(self) -> None:
        return None
