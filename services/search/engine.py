"""SearchEngine: the service's use cases over the ports. Synchronous and thread-safe.

Writes (upsert/delete) are serialised by one lock so the keyword index, the vector index and the
embedding backlog move together; reads take no lock. Keywords are written synchronously; a chunk's
vector comes from the cache at once when its text was embedded before, otherwise the chunk joins the
backlog that `start()`'s background thread embeds in batches.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace

import structlog
import xxhash

from kit.domain import Chunk
from kit.paths import is_repo_relative
from services.search.domain.embedding_text import embedding_text, query_for_embedding, reading_windows
from services.search.domain.keywords import query_words
from services.search.domain.model import (
    BackfillProgress,
    IndexStats,
    InvalidRequest,
    NotFound,
    PendingEmbedding,
    RepoProfile,
    ScoredId,
    SearchFilters,
    SearchMode,
    SearchResult,
    StoreUnavailable,
    SymbolMatch,
    TestFilter,
    Vector,
    VectorEntry,
)
from services.search.domain.ranking import CANDIDATES_PER_SIGNAL, QueryIntent, fuse, rank
from services.search.domain.symbols import select_symbols
from services.search.domain.topicality import OffTopicModel
from services.search.ports import Embedder, EmbeddingStore, FeedbackStore, KeywordIndex, VectorIndex

log = structlog.get_logger("search.engine")

MAX_LIMIT = 200
DEFAULT_PROFILE_SYMBOLS = 3000
MAX_PROFILE_SYMBOLS = 20_000
MAX_PROFILE_FILES = 20_000
MAX_QUERY_CHARS = 65_536
USED_QUERY_CHARS = 2000
# A prompt the off-topic model would read in more parts than this (a pasted log, a long story) gets no
# reading: each part costs an embedding on the search's critical path (~2 ms for a 12-word part).
MAX_READING_WINDOWS = 6
SYMBOL_CANDIDATES = 400
BACKLOG_CACHE_SECONDS = 1.0


@dataclass(frozen=True)
class EngineOptions:
    backfill_batch: int = 32
    # How long the backfill waits after an embedding failure before retrying.
    retry_seconds: float = 5.0
    query_cache_size: int = 512
    candidates_per_signal: int = CANDIDATES_PER_SIGNAL


class SearchEngine:
    def __init__(
        self,
        keyword: KeywordIndex,
        vector: VectorIndex | None = None,
        embedder: Embedder | None = None,
        store: EmbeddingStore | None = None,
        options: EngineOptions | None = None,
        query_embedder: Embedder | None = None,
        feedback: FeedbackStore | None = None,
        off_topic_model: OffTopicModel | None = None,
    ) -> None:
        if (vector is None) != (embedder is None) or (vector is not None and store is None):
            raise ValueError("vectors need a vector index, an embedder and an embedding store together")
        self.keyword = keyword
        self.vector = vector
        self.embedder = embedder
        # Query embedding may use its own session so a busy backfill never delays a search.
        self.query_embedder = query_embedder or embedder
        self.store = store
        self.feedback_store = feedback
        self.off_topic_model = off_topic_model  # reads the query vector: how likely it is not about code
        self.options = options or EngineOptions()
        self.progress = BackfillProgress()
        self._write_lock = threading.RLock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._progress = threading.Condition()
        self._query_cache: OrderedDict[str, Vector] = OrderedDict()
        self._query_cache_lock = threading.Lock()
        self._parallel = ThreadPoolExecutor(max_workers=4, thread_name_prefix="search-signal")
        self._listeners: list[Callable[[int], None]] = []
        self._cache_listeners: list[Callable[[int], None]] = []
        self._backlog_cache: dict[str, tuple[float, int]] = {}

    @property
    def vectors_enabled(self) -> bool:
        return self.vector is not None

    def _key(self, text: str) -> str:
        assert self.embedder is not None
        return xxhash.xxh3_128_hexdigest(f"{self.embedder.name}\x00{text}".encode())

    # --- writes ------------------------------------------------------------------------------------

    def upsert_file(self, repo: str, path: str, chunks: Sequence[Chunk]) -> int:
        """Replace everything stored for the file. Returns the number of chunks stored."""
        _require(repo, "repo")
        _require_repo_path(path, "path")
        normalised = _own_chunks(repo, path, chunks)
        with self._write_lock:
            stored = self.keyword.replace_file(repo, path, normalised)
            if self.vector is not None:
                self._replace_vectors(repo, path, normalised)
                self._backlog_cache.pop(repo, None)
        if self.vector is not None:
            self._wake.set()
        return stored

    def _replace_vectors(self, repo: str, path: str, chunks: Sequence[Chunk]) -> None:
        assert self.vector is not None and self.store is not None
        keyed = []
        for c in chunks:
            text = embedding_text(c)
            keyed.append((self._key(text), c, text))
        cached = self._cached([k for k, _, _ in keyed])
        entries = [
            VectorEntry(c.id, repo, path, c.language, str(c.kind), c.is_test, cached[k])
            for k, c, _ in keyed
            if k in cached
        ]
        pending = [
            (k, PendingEmbedding(c.id, repo, path, c.language, str(c.kind), c.is_test, c.content_hash, text))
            for k, c, text in keyed
            if k not in cached
        ]
        self.vector.replace_file(repo, path, entries)
        self.store.replace_pending(repo, path, pending)
        self.progress.cache_hits += len(entries)
        for listener in self._cache_listeners:
            listener(len(entries))

    def _cached(self, keys: Sequence[str]) -> dict[str, Vector]:
        """Cached vectors of these text keys; one of another dimension (the same embedder name serving
        another model size) counts as missing."""
        assert self.store is not None and self.embedder is not None
        dimension = self.embedder.dimension
        return {k: v for k, v in self.store.cached(keys).items() if v.shape[0] == dimension}

    def delete_files(self, repo: str, paths: Sequence[str]) -> int:
        _require(repo, "repo")
        for i, p in enumerate(paths):
            _require_repo_path(p, f"paths[{i}]")
        with self._write_lock:
            removed = self.keyword.delete_files(repo, list(paths))
            if self.vector is not None and self.store is not None:
                self.vector.delete_files(repo, paths)
                self.store.delete_files(repo, list(paths))
        return removed

    def delete_repo(self, repo: str) -> int:
        _require(repo, "repo")
        with self._write_lock:
            removed = self.keyword.delete_repo(repo)
            if self.vector is not None and self.store is not None:
                self.vector.delete_repo(repo)
                self.store.delete_repo(repo)
            if self.feedback_store is not None:
                self.feedback_store.delete_repo(repo)
        return removed

    # --- reads -------------------------------------------------------------------------------------

    def search(
        self,
        query: str,
        repo: str,
        filters: SearchFilters | None = None,
        limit: int = 10,
        mode: SearchMode = SearchMode.HYBRID,
    ) -> SearchResult:
        _require(repo, "repo")
        if not query.strip():
            raise InvalidRequest("query: must not be empty")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidRequest(f"query: {len(query)} characters, at most {MAX_QUERY_CHARS}")
        # A pasted log or a long prompt: its start says what it is about, and the rest would only cost.
        query = query[:USED_QUERY_CHARS]
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidRequest(f"limit: {limit} is out of range 1..{MAX_LIMIT}")
        filters = filters or SearchFilters()
        depth = max(self.options.candidates_per_signal, limit)
        want_keyword = mode in (SearchMode.HYBRID, SearchMode.KEYWORD)
        want_vector = mode in (SearchMode.HYBRID, SearchMode.VECTOR)
        partial = False

        vector_future: Future[tuple[Vector, list[ScoredId]]] | None = None
        if want_vector and self.vector is not None:
            vector_future = self._parallel.submit(self._vector_candidates, query, repo, filters, depth)
        elif want_vector:
            partial = True  # keyword-only deployment asked for vectors
        keyword_hits = self.keyword.search(repo, query_words(query), filters, depth) if want_keyword else []
        # Rank on metadata, then load the text of the winners only (candidates are ~2×32, hits ≤ limit); a
        # query that quotes a message is ranked on the candidates' text (QUOTED_BOOST), read once below.
        # The intent and the keyword candidates' metadata are read while the query is still being embedded.
        intent = self._intent(query, repo)  # its counts may not be cached
        light = {} if intent.quoted else self._metadata(repo, [h.chunk_id for h in keyword_hits], {})
        vector_hits: list[ScoredId] = []
        query_vector: Vector | None = None
        if vector_future is not None:
            try:
                query_vector, vector_hits = vector_future.result()
            except Exception as exc:  # a failing vector backend degrades to keyword results
                log.warning("vector_search_failed", error=str(exc), repo=repo)
                partial = True
            if self._backlog(repo) > 0:
                partial = True

        signals = fuse(keyword_hits, vector_hits)
        if intent.quoted:
            light = {c.id: c for c in self.keyword.get_chunks(repo, list(signals))}
        else:
            light = self._metadata(repo, list(signals), light)
        votes = self.feedback_store.votes(repo, list(signals)) if self.feedback_store is not None else {}
        hits = rank(
            signals,
            {i: c for i, c in light.items() if filters.accepts_chunk(c)},
            intent,
            limit,
            votes,
        )
        full = (
            light
            if intent.quoted
            else {c.id: c for c in self.keyword.get_chunks(repo, [h.chunk.id for h in hits])}
        )
        hits = [replace(h, chunk=full[h.chunk.id]) for h in hits if h.chunk.id in full]
        return SearchResult(hits=hits, partial=partial, off_topic=self._off_topic(query, query_vector))

    def _off_topic(self, query: str, query_vector: Vector | None) -> float | None:
        """The model's reading of the query; None without one. A prompt longer than the embedder reads is
        read part by part (`reading_windows`) and is as off-topic as its most code-like part: one question
        about the code after a chatty preamble keeps it. A prompt of more parts than
        `MAX_READING_WINDOWS` gets no reading. Advisory: it never fails a search."""
        model, embedder = self.off_topic_model, self.query_embedder
        if model is None or query_vector is None or embedder is None:
            return None
        try:
            windows = reading_windows(query)
            if len(windows) == 1:
                return model.probability(embedder.name, query_vector, query)
            if len(windows) > MAX_READING_WINDOWS:
                return None
            vectors = embedder.embed([query_for_embedding(w) for w in windows])
            readings = [model.probability(embedder.name, v, w) for v, w in zip(vectors, windows, strict=True)]
            return None if None in readings else min(r for r in readings if r is not None)
        except Exception as exc:  # a reading is advice for the gateway's gate; the hits are the answer
            log.warning("off_topic_reading_failed", error=str(exc))
            return None

    def _intent(self, query: str, repo: str) -> QueryIntent:
        """The query's intent, with its test words checked against what the repo's own code talks about."""
        intent = QueryIntent.of(query)
        implementation = SearchFilters(tests=TestFilter.EXCLUDE)
        return intent.in_repo(
            {w: self.keyword.document_share(repo, w, implementation) for w in intent.subject_words()}
        )

    def _metadata(self, repo: str, ids: Sequence[str], known: dict[str, Chunk]) -> dict[str, Chunk]:
        """`known` plus the chunks (without their text) of the ids not in it; unknown ids are left out."""
        missing = [i for i in ids if i not in known]
        if not missing:
            return known
        return {**known, **{c.id: c for c in self.keyword.get_chunks(repo, missing, with_content=False)}}

    def _backlog(self, repo: str) -> int:
        """The repo's backlog, cached briefly: it is checked on every search, and only flags `partial`."""
        if self.store is None:
            return 0
        now = time.monotonic()
        cached = self._backlog_cache.get(repo)
        if cached is not None and now - cached[0] < BACKLOG_CACHE_SECONDS:
            return cached[1]
        count = self.store.backlog(repo)
        self._backlog_cache[repo] = (now, count)
        return count

    def _vector_candidates(
        self, query: str, repo: str, filters: SearchFilters, depth: int
    ) -> tuple[Vector, list[ScoredId]]:
        assert self.vector is not None
        vector = self.embed_query(query)
        return vector, self.vector.search(repo, vector, filters, depth)

    def embed_query(self, query: str) -> Vector:
        assert self.query_embedder is not None
        with self._query_cache_lock:
            cached = self._query_cache.get(query)
            if cached is not None:
                self._query_cache.move_to_end(query)
                return cached
        vector = self.query_embedder.embed([query_for_embedding(query)])[0]
        with self._query_cache_lock:
            self._query_cache[query] = vector
            while len(self._query_cache) > self.options.query_cache_size:
                self._query_cache.popitem(last=False)
        return vector

    def clear_query_cache(self) -> None:
        with self._query_cache_lock:
            self._query_cache.clear()

    def get_chunks(self, repo: str, ids: Sequence[str]) -> list[Chunk]:
        """Chunks found, in request order; unknown ids are left out."""
        _require(repo, "repo")
        if len(ids) > 1000:
            raise InvalidRequest(f"ids: {len(ids)} ids, at most 1000 per call")
        found = {c.id: c for c in self.keyword.get_chunks(repo, ids)}
        return [found[i] for i in dict.fromkeys(ids) if i in found]

    def find_symbols(
        self, repo: str, name: str, match: SymbolMatch = SymbolMatch.EXACT, limit: int = 20
    ) -> list[Chunk]:
        _require(repo, "repo")
        _require(name.strip(), "name")
        if not 1 <= limit <= MAX_LIMIT:
            raise InvalidRequest(f"limit: {limit} is out of range 1..{MAX_LIMIT}")
        name = name.strip()
        candidates = self.keyword.symbol_candidates(repo, name, match, max(SYMBOL_CANDIDATES, limit))
        return [replace(c, content="") for c in select_symbols(name, candidates, match, limit)]

    def file_chunks(self, repo: str, path: str) -> list[Chunk]:
        """Every chunk of one file in line order; empty when the file is not indexed."""
        _require(repo, "repo")
        _require_repo_path(path, "path")
        return self.keyword.file_chunks(repo, path)

    def file_lines(self, repo: str, paths: Sequence[str]) -> dict[str, int]:
        """Path → last indexed line, for the indexed ones among `paths` (at most 1000)."""
        _require(repo, "repo")
        if len(paths) > 1000:
            raise InvalidRequest(f"paths: {len(paths)} paths, at most 1000 per call")
        for i, p in enumerate(paths):
            _require_repo_path(p, f"paths[{i}]")
        return self.keyword.file_lines(repo, paths) if paths else {}

    def profile(self, repo: str, max_symbols: int = DEFAULT_PROFILE_SYMBOLS) -> RepoProfile:
        """Indexed files (at most 20,000) and a sample of definitions spread over files, content omitted."""
        _require(repo, "repo")
        if not 1 <= max_symbols <= MAX_PROFILE_SYMBOLS:
            raise InvalidRequest(f"max_symbols: {max_symbols} is out of range 1..{MAX_PROFILE_SYMBOLS}")
        return self.keyword.profile(repo, MAX_PROFILE_FILES, max_symbols)

    def feedback(self, repo: str, chunk_id: str, useful: bool, query: str = "") -> int:
        """Record a vote on a chunk; returns its net useful votes. Unknown chunks are refused."""
        _require(repo, "repo")
        _require(chunk_id, "chunk_id")
        if self.feedback_store is None:
            raise StoreUnavailable("feedback: this search service runs without a feedback store")
        if not self.keyword.get_chunks(repo, [chunk_id], with_content=False):
            raise NotFound(f"chunk_id: no chunk {_shown(chunk_id)} in repo {_shown(repo)}")
        return self.feedback_store.record(repo, chunk_id, useful, query[:USED_QUERY_CHARS])

    def stats(self, repo: str = "") -> IndexStats:
        counts = self.keyword.counts(repo)
        return IndexStats(
            files=counts.files,
            chunks=counts.chunks,
            vectors=self.vector.count(repo) if self.vector is not None else 0,
            embed_backlog=self.store.backlog(repo) if self.store is not None else 0,
            keyword_backend=self.keyword.backend,
            vector_backend=self.vector.backend if self.vector is not None else "none",
            embedder=self.embedder.name if self.embedder is not None else "none",
        )

    # --- backfill ----------------------------------------------------------------------------------

    def start(self) -> None:
        """Start the background embedder (no-op in keyword-only mode or when already running)."""
        if self.vector is None or self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._backfill_loop, name="search-backfill", daemon=True)
        self._thread.start()
        self._wake.set()

    def _backfill_loop(self) -> None:
        try:
            self.realign_vectors()
        except Exception as exc:  # the stored vectors stay as they are; the next start tries again
            log.exception("vectors.realign_failed", error=str(exc))
        while not self._stop.is_set():
            try:
                worked = self.backfill_once()
            except Exception as exc:  # never let the thread die; the backlog stays and is retried
                log.exception("backfill_failed", error=str(exc))
                self.progress.last_error = str(exc)
                self._stop.wait(self.options.retry_seconds)
                continue
            with self._progress:
                self._progress.notify_all()
            if not worked:
                self._wake.wait(timeout=1.0)
                self._wake.clear()

    @property
    def vectors_model(self) -> str:
        assert self.embedder is not None
        return f"{self.embedder.name} ({self.embedder.dimension} dimensions)"

    def realign_vectors(self) -> int:
        """After an embedder change (REPORECALL_EMBEDDER, another model or dimension), vectors of the old
        model are meaningless to the new model's queries: drop them and queue every chunk for the new
        one. Returns the files queued (0 when the embedder is the one the vectors came from)."""
        if self.vector is None or self.store is None or self.embedder is None:
            return 0
        model, stored = self.vectors_model, self.store.vectors_model()
        if stored == model:
            return 0
        queued = 0
        if stored is not None:  # None: vectors from before the model was recorded, by this same default
            log.warning("vectors.embedder_changed", was=stored, now=model)
            for repo in self.keyword.repos():
                profile = self.keyword.profile(repo, MAX_PROFILE_FILES * 50, 1)
                with self._write_lock:
                    self.vector.delete_repo(repo)
                    self._backlog_cache.pop(repo, None)
                for f in profile.files:
                    if self._stop.is_set():  # shutting down: the next start begins again (model not recorded)
                        return queued
                    with self._write_lock:
                        self._replace_vectors(repo, f.path, self.keyword.file_chunks(repo, f.path))
                        self._backlog_cache.pop(repo, None)
                    queued += 1
            log.info("vectors.requeued", files=queued, backlog=self.store.backlog(""))
        self.store.set_vectors_model(model)
        return queued

    def backfill_once(self) -> int:
        """Embed one batch of the backlog; returns how many chunks got a vector (0 when idle)."""
        if self.vector is None or self.store is None or self.embedder is None:
            return 0
        batch = self.store.next_pending(self.options.backfill_batch)
        if not batch:
            return 0
        keys = list(dict.fromkeys(k for k, _ in batch))
        vectors = self._cached(keys)
        missing = [k for k in keys if k not in vectors]
        if missing:
            texts = {k: item.text for k, item in batch}
            started = time.perf_counter()
            try:
                embedded = self.embedder.embed([texts[k] for k in missing])
            except Exception as exc:
                self.store.fail(batch, str(exc))
                self.progress.failures += len(batch)
                self.progress.last_error = str(exc)
                raise
            self.progress.seconds += time.perf_counter() - started
            self.progress.embedded += len(missing)
            fresh = list(zip(missing, embedded, strict=True))
            self.store.put_cached(fresh)
            vectors.update(fresh)
        with self._write_lock:
            # Only items still pending with the same text get their vector: a file re-upserted or
            # deleted while we were embedding has replaced or dropped its backlog rows.
            current = self.store.complete(batch)
            self.vector.upsert([item.entry(vectors[k]) for k, item in current])
            self._backlog_cache.clear()
        for listener in self._listeners:
            listener(len(current))
        return len(current)

    def on_backfill(self, listener: Callable[[int], None]) -> None:
        """Call `listener(n)` after each backfill batch (metrics)."""
        self._listeners.append(listener)

    def on_cache_hits(self, listener: Callable[[int], None]) -> None:
        """Call `listener(n)` when n upserted chunks took their vector from the cache (metrics)."""
        self._cache_listeners.append(listener)

    def wait_idle(self, timeout: float) -> bool:
        """Block until the backlog is empty; False if it is not within `timeout` (e.g. failing embedder)."""
        deadline = time.monotonic() + timeout
        with self._progress:
            while self.store is not None and self.store.backlog("") > 0:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self._thread is None:
                    return False
                self._wake.set()
                self._progress.wait(timeout=min(remaining, 0.5))
        return True

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
            self._thread = None
        self._parallel.shutdown(wait=True)
        parts = (
            self.keyword,
            self.vector,
            self.store,
            self.embedder,
            self.query_embedder,
            self.feedback_store,
        )
        for closable in {id(p): p for p in parts if p is not None}.values():
            closable.close()


def _shown(value: str, limit: int = 120) -> str:
    """A caller's value quoted in an error, cut short: error details travel in gRPC metadata (≤ 16 KiB)."""
    return repr(value if len(value) <= limit else value[:limit] + "…")


def _require(value: str, field: str) -> None:
    if not value:
        raise InvalidRequest(f"{field}: must not be empty")
    if "\x00" in value:
        raise InvalidRequest(f"{field}: must not contain NUL characters")


def _require_repo_path(value: str, field: str) -> None:
    """A stored path is repo-relative POSIX; anything that could name a place outside the repo is refused."""
    _require(value, field)
    if not is_repo_relative(value):
        raise InvalidRequest(
            f"{field}: {_shown(value)} must be relative to the repository root, without '..'"
        )


def _own_chunks(repo: str, path: str, chunks: Sequence[Chunk]) -> list[Chunk]:
    """Chunks stamped with the file they were sent for; rejects chunks of another file and duplicate ids."""
    seen: set[str] = set()
    out = []
    for i, c in enumerate(chunks):
        if not c.id:
            raise InvalidRequest(f"chunks[{i}].id: must not be empty")
        if c.id in seen:
            raise InvalidRequest(f"chunks[{i}].id: duplicate id {_shown(c.id)} in one file")
        seen.add(c.id)
        if (c.repo and c.repo != repo) or (c.path and c.path != path):
            raise InvalidRequest(
                f"chunks[{i}]: belongs to {_shown(f'{c.repo}:{c.path}')}, not to {_shown(f'{repo}:{path}')}"
            )
        out.append(c if (c.repo, c.path) == (repo, path) else replace(c, repo=repo, path=path))
    return out
