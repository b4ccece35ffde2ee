"""Composition root: settings → keyword index, vector index, embedder (each chosen by URL, here only)
→ engine → servicer."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

from kit.metrics import TimedStore
from kit.service import ServiceParts
from kit.settings import ConfigError, check_url_scheme
from reporecall.search.v1 import search_pb2_grpc
from services.search import metrics
from services.search.adapters.sqlite_embedding_store import SqliteEmbeddingStore
from services.search.adapters.sqlite_feedback_store import SqliteFeedbackStore
from services.search.domain.topicality import BUNDLED_MODEL, OffTopicModel
from services.search.engine import EngineOptions, SearchEngine
from services.search.ports import Embedder, KeywordIndex, VectorIndex
from services.search.servicer import SERVICE_NAME, SearchServicer
from services.search.settings import SearchSettings

# Queries are embedded by a session that reads at most this many word pieces (see query_for_embedding).
QUERY_TOKENS = 32

_KEYWORD_SCHEMES = {
    "": "embedded SQLite FTS5 under the data dir",
    "sqlite": "SQLite FTS5 file",
    "http": "Meilisearch server",
    "https": "Meilisearch server over TLS",
}
_VECTOR_SCHEMES = {
    "": "embedded vector index under the data dir",
    "file": "embedded vector index in this folder",
    "http": "Qdrant server",
    "https": "Qdrant server over TLS",
    "none": "keyword-only search",
}
_EMBEDDER_SCHEMES = {
    "": "all-MiniLM-L6-v2 int8 on onnxruntime, offline",
    "minilm": "all-MiniLM-L6-v2 int8 on onnxruntime, offline",
    "openai+http": "OpenAI-compatible embedding server",
    "openai+https": "OpenAI-compatible embedding server over TLS",
    "none": "no embeddings: keyword-only search",
}


def _local_path(setting: str, url: str, scheme: str, example: str) -> Path:
    rest = url.removeprefix(f"{scheme}://")
    if not url.startswith(f"{scheme}:///") or not rest.strip("/"):
        raise ConfigError(
            f"REPORECALL_{setting.upper()}={url}", f"a {scheme} URL needs an absolute path", f"use {example}"
        )
    return Path("/" + rest.lstrip("/"))


def build_keyword_index(url: str, data_dir: Path, api_key: str = "") -> KeywordIndex:
    """ "" or sqlite:///path → SQLite FTS5; http(s)://host:7700 → Meilisearch."""
    scheme = check_url_scheme("keyword_url", url, _KEYWORD_SCHEMES)
    if scheme in ("", "sqlite"):
        from services.search.adapters.sqlite_keyword_index import SqliteKeywordIndex

        path = (
            data_dir / "search" / "keyword.db"
            if not url
            else _local_path("keyword_url", url, "sqlite", "sqlite:///absolute/path/keyword.db")
        )
        return SqliteKeywordIndex(path)
    from services.search.adapters.meilisearch_keyword_index import MeilisearchKeywordIndex

    return MeilisearchKeywordIndex(url, api_key or None)


def build_vector_index(url: str, data_dir: Path, dimension: int, api_key: str = "") -> VectorIndex | None:
    """ "" or file:///folder → embedded numpy index; http(s)://host:6333 → Qdrant; none → no vectors."""
    scheme = check_url_scheme("vector_url", url, _VECTOR_SCHEMES)
    if scheme == "none":
        return None
    if scheme in ("", "file"):
        from services.search.adapters.numpy_vector_index import NumpyVectorIndex

        folder = (
            data_dir / "search"
            if not url
            else _local_path("vector_url", url, "file", "file:///absolute/folder")
        )
        return NumpyVectorIndex(folder / "vectors.db", dimension)
    from services.search.adapters.qdrant_vector_index import QdrantVectorIndex  # ~0.85 s import

    return QdrantVectorIndex.connect(url, dimension, api_key=api_key or None)


def build_embedder(
    spec: str, *, threads: int = 1, api_key: str = "", max_tokens: int = 128
) -> Embedder | None:
    """ "" or minilm → offline MiniLM (ONNX); openai+http(s)://…/v1?model=x → HTTP server; none → None."""
    scheme = check_url_scheme("embedder", spec, _EMBEDDER_SCHEMES)
    if scheme == "none":
        return None
    if scheme in ("", "minilm"):
        from services.search.adapters.onnx_embedder import EmbedderUnavailable, OnnxEmbedder

        try:
            return OnnxEmbedder(threads=threads, max_tokens=max_tokens)
        except EmbedderUnavailable as exc:
            raise ConfigError(
                f"REPORECALL_EMBEDDER={spec or 'minilm'}",
                str(exc),
                "fix the install, or set REPORECALL_EMBEDDER=none for keyword-only search",
            ) from None
    from services.search.adapters.openai_http_embedder import OpenAIHttpEmbedder

    return OpenAIHttpEmbedder(spec, api_key=api_key)


def build_engine(settings: SearchSettings) -> SearchEngine:
    data_dir = settings.data_dir
    off_topic = load_off_topic_model(settings.off_topic_model)  # before any store is opened
    keyword = TimedStore(
        build_keyword_index(settings.keyword_url, data_dir, settings.meili_api_key.get_secret_value()),
        "keyword",
    )
    embedder = query_embedder = vector = store = None
    if settings.vector_url.lower() != "none":
        embedder = build_embedder(
            settings.embedder,
            threads=settings.embed_threads,
            api_key=settings.embedder_api_key.get_secret_value(),
        )
    if embedder is not None:
        built = build_vector_index(
            settings.vector_url, data_dir, embedder.dimension, settings.qdrant_api_key.get_secret_value()
        )
        vector = TimedStore(built, "vector") if built is not None else None
        local = urlsplit(settings.embedder).scheme == "" and settings.embedder.lower() in ("", "minilm")
        # A separate single-threaded session answers queries while the backfill keeps its own busy.
        query_embedder = (
            build_embedder(settings.embedder, threads=1, max_tokens=QUERY_TOKENS) if local else embedder
        )
        store = SqliteEmbeddingStore(settings.store_path("search") / "embeddings.db")
    if vector is None:
        embedder = query_embedder = store = None
    feedback = SqliteFeedbackStore(settings.store_path("search") / "feedback.db")
    return SearchEngine(
        keyword,
        vector,
        embedder,
        store,
        EngineOptions(backfill_batch=settings.embed_batch),
        query_embedder,
        feedback,
        # Its weights read only the vectors of the embedder it was trained on.
        off_topic if off_topic and query_embedder and off_topic.embedder == query_embedder.name else None,
    )


def load_off_topic_model(setting: str) -> OffTopicModel | None:
    """REPORECALL_OFF_TOPIC_MODEL: the bundled model (""), another file (an absolute path) or none."""
    if setting.strip().lower() == "none":
        return None
    path = Path(setting.strip()) if setting.strip() else BUNDLED_MODEL
    if not path.is_absolute():
        raise ConfigError(
            "REPORECALL_OFF_TOPIC_MODEL", f"{setting!r} is not an absolute path", "give one, or none"
        )
    try:
        return OffTopicModel.load(path)
    except ValueError as exc:
        raise ConfigError(
            "REPORECALL_OFF_TOPIC_MODEL", str(exc), "restore it, re-run tools/train_off_topic.py, or set none"
        ) from None


def bootstrap(settings: SearchSettings) -> ServiceParts:
    engine = build_engine(settings)
    servicer = SearchServicer(engine, workers=settings.search_workers)
    closed = False

    def scraped(read: Callable[[], float]) -> Callable[[], float]:
        """Gauges read the stores at scrape time; after close (or on a store error) they read 0."""

        def value() -> float:
            if closed:
                return 0.0
            try:
                return float(read())
            except Exception:
                return 0.0

        return value

    if engine.store is not None:
        store = engine.store
        metrics.EMBED_BACKLOG.set_function(scraped(lambda: store.backlog("")))
    metrics.CHUNKS.set_function(scraped(lambda: engine.stats("").chunks))
    engine.on_backfill(lambda n: metrics.CHUNKS_EMBEDDED.inc(n))
    engine.on_cache_hits(lambda n: metrics.EMBED_CACHE_HITS.inc(n))

    async def on_start() -> None:
        engine.start()

    async def on_stop() -> None:
        nonlocal closed
        closed = True
        servicer.close()
        engine.close()

    return ServiceParts(
        servicers=[(search_pb2_grpc.add_SearchServiceServicer_to_server, servicer, SERVICE_NAME)],
        on_start=on_start,
        on_stop=on_stop,
        extra={"engine": engine},
    )
