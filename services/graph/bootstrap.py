"""Composition root: settings → graph store (chosen by URL, here only) → engine → servicer."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

from kit.metrics import TimedStore
from kit.service import ServiceParts
from kit.settings import ConfigError, check_url_scheme
from reporecall.graph.v1 import graph_pb2_grpc

from .engine import GraphEngine
from .ports import GraphStore
from .servicer import SERVICE_NAME, GraphServicer
from .settings import GraphSettings

_SCHEMES = {
    "": "embedded SQLite under the data dir",
    "sqlite": "embedded SQLite file",
    "bolt": "Neo4j server",
    "neo4j": "Neo4j server (routing)",
    "bolt+s": "Neo4j server over TLS",
    "neo4j+s": "Neo4j cluster over TLS",
}


def build_graph_store(url: str, data_dir: Path, user: str = "", password: str = "") -> GraphStore:
    """The one place a graph backend is chosen: "" or sqlite:///path → SQLite; bolt:// or neo4j:// → Neo4j."""
    scheme = check_url_scheme("graph_url", url, _SCHEMES)
    if scheme in ("", "sqlite"):
        from .adapters.sqlite_graph_store import SqliteGraphStore

        return SqliteGraphStore(sqlite_path(url, data_dir))
    from .adapters.neo4j_graph_store import Neo4jGraphStore  # imported only when used (~0.25 s)

    parts = urlsplit(url)
    user = unquote(parts.username or "") or user
    password = unquote(parts.password or "") or password
    database = (parse_qs(parts.query).get("database") or [""])[0]
    host = parts.hostname or ""
    netloc = f"[{host}]" if ":" in host else host
    if parts.port:
        netloc += f":{parts.port}"
    clean = f"{parts.scheme}://{netloc}"
    return Neo4jGraphStore(clean, auth=(user, password) if user else None, database=database or None)


def sqlite_path(url: str, data_dir: Path) -> Path:
    """`sqlite:///abs/graph.db` (or SQLAlchemy's `sqlite:////abs/graph.db`) → /abs/graph.db; "" → data dir."""
    if not url:
        return data_dir / "graph" / "graph.db"
    rest = url.removeprefix("sqlite://").lstrip("/")
    if not url.startswith("sqlite:///") or not rest:
        raise ConfigError(
            f"REPORECALL_GRAPH_URL={url}",
            "a sqlite URL needs a file path",
            "use sqlite:///absolute/path/graph.db",
        )
    return Path("/" + rest)


def bootstrap(settings: GraphSettings) -> ServiceParts:
    store = TimedStore(
        build_graph_store(
            settings.graph_url,
            settings.data_dir,
            settings.graph_user,
            settings.graph_password.get_secret_value(),
        ),
        "graph",
    )
    engine = GraphEngine(store, settle_seconds=settings.community_settle_seconds)
    servicer = GraphServicer(engine, workers=settings.graph_workers)

    async def on_start() -> None:
        engine.start_background(interval_s=max(0.5, min(settings.community_settle_seconds, 5.0)))

    async def on_stop() -> None:
        servicer.close()
        engine.close()

    return ServiceParts(
        servicers=[(graph_pb2_grpc.add_GraphServiceServicer_to_server, servicer, SERVICE_NAME)],
        on_start=on_start,
        on_stop=on_stop,
        extra={"engine": engine},
    )
