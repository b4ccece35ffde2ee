"""Every file indexes (issue 17): the real parser's output is accepted by the real graph and search engines,
and one bad definition never costs the rest of its file.

The incident: a vendored minified JS file gave a definition with an empty name, the graph refused the
whole file (INVALID_ARGUMENT), 80 of 85 files were indexed and the run exited 1. Here the indexer runs with
the real parser and import resolver against sinks that call the real GraphEngine and SearchEngine (their
validation is what refused the file), so any per-definition rejection on either side fails the run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import structlog

from kit.domain import CallSite, Chunk, Import, Symbol
from services.graph.adapters.sqlite_graph_store import SqliteGraphStore
from services.graph.domain.model import SymbolRef
from services.graph.engine import GraphEngine
from services.indexer.adapters.sqlite_manifest import SqliteManifest
from services.indexer.bootstrap import indexer_engine
from services.indexer.domain.imports import resolve_imports
from services.indexer.domain.parsing import MAX_NAME_CHARS, parse_file
from services.indexer.engine import EngineConfig
from services.indexer.tests.indexer_fakes import write
from services.search.adapters.sqlite_keyword_index import SqliteKeywordIndex
from services.search.engine import SearchEngine

MINIFIED = (
    'var a={"":function(){return 1},ok:function(){return 2}};'
    "function good(){return a.ok()}function better(){return good()}"
    + "".join(f"function f{i}(n){{return n+{i}}}" for i in range(200))
    + "\n"
)
LONG_NAME = "x" * (MAX_NAME_CHARS + 1)  # a valid Python identifier no symbol may carry
ONE_BAD_DEFINITION = f'''"""Good definitions around one whose name no symbol may carry."""


def before(x):
    return after(x)


def {LONG_NAME}(y):
    return before(y)


class Keeper:
    def keep(self):
        return before(1)


def after(z):
    return z
'''


class GraphEngineSink:
    """indexer ports.GraphSink over the real GraphEngine, as the graph servicer would call it."""

    def __init__(self, engine: GraphEngine) -> None:
        self.engine = engine

    async def replace_file_graph(
        self,
        repo: str,
        path: str,
        file_hash: str,
        symbols: Sequence[Symbol],
        call_sites: Sequence[CallSite],
        imports: Sequence[Import],
    ) -> None:
        await asyncio.to_thread(self.engine.replace_file, repo, path, file_hash, symbols, call_sites, imports)

    async def delete_files(self, repo: str, paths: Sequence[str]) -> None:
        await asyncio.to_thread(self.engine.delete_files, repo, paths)

    async def delete_repo(self, repo: str) -> None:
        await asyncio.to_thread(self.engine.delete_repo, repo)


class SearchEngineSink:
    """indexer ports.SearchSink over the real SearchEngine (keyword index only)."""

    def __init__(self, engine: SearchEngine) -> None:
        self.engine = engine

    async def upsert_file(self, repo: str, path: str, file_hash: str, chunks: Sequence[Chunk]) -> None:
        await asyncio.to_thread(self.engine.upsert_file, repo, path, chunks)

    async def delete_files(self, repo: str, paths: Sequence[str]) -> None:
        await asyncio.to_thread(self.engine.delete_files, repo, paths)

    async def delete_repo(self, repo: str) -> None:
        await asyncio.to_thread(self.engine.delete_repo, repo)


async def test_a_minified_file_and_a_file_with_one_bad_definition_index_completely(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, "static/lib.js", MINIFIED)  # vendored and minified, not named *.min.js
    write(root, "pkg/mixed.py", ONE_BAD_DEFINITION)
    write(root, "pkg/plain.py", "from pkg.mixed import before\n\n\ndef use():\n    return before(2)\n")
    graph = GraphEngine(SqliteGraphStore(tmp_path / "graph.db"), settle_seconds=0)
    search = SearchEngine(SqliteKeywordIndex(tmp_path / "keyword.db"))
    indexer = indexer_engine(
        SqliteManifest(tmp_path / "manifest.db"),
        SearchEngineSink(search),
        GraphEngineSink(graph),
        config=EngineConfig(send_attempts=1, retry_initial_seconds=0.0, progress_interval_seconds=0.01),
        parse=parse_file,
        resolve_imports=resolve_imports,
    )
    await indexer.register_repo(str(root), "demo")
    try:
        with structlog.testing.capture_logs() as logs:
            final = await indexer.run_index("demo")
    finally:
        await indexer.close()

    # every file seen is indexed, none failed
    assert (final.files_scanned, final.files_sent, final.errors) == (3, 3, 0)
    names = {
        s.qualified_name for s in graph.store.symbols_by_name("demo", ["ok", "good", "better", "f0", "f199"])
    }
    assert names == {"ok", "good", "better", "f0", "f199"}
    kept = graph.store.symbols_by_name("demo", ["before", "after", "Keeper", "keep", LONG_NAME])
    assert {s.qualified_name for s in kept} == {"before", "after", "Keeper", "Keeper.keep"}
    # the good definitions' calls resolve as usual; the bad one's lines stay searchable module text
    before = next(s for s in kept if s.name == "before")
    callers = graph.callers("demo", SymbolRef(id=before.id))
    assert {s.qualified_name for s in callers.seeds} == {"before"}
    caller_names = {n.symbol.qualified_name for n in callers.nodes}
    assert {"Keeper.keep", "use"} <= caller_names
    mixed = search.file_chunks("demo", "pkg/mixed.py")
    assert {"before", "after", "Keeper", "Keeper.keep"} <= {c.qualified_name for c in mixed}
    assert any(LONG_NAME in c.content and c.qualified_name == "pkg/mixed.py" for c in mixed)
    assert {"good", "better", "f199"} <= {
        c.qualified_name for c in search.file_chunks("demo", "static/lib.js")
    }
    # the bad definition is counted and logged, with the file it came from
    warnings = [e for e in logs if e.get("event") == "index.parse_warning"]
    assert any(
        e["path"] == "pkg/mixed.py" and "1 definition(s) without a usable name" in e["warning"]
        for e in warnings
    )
    assert any(e["path"] == "static/lib.js" and "without a usable name" in e["warning"] for e in warnings)
    graph.close()
    search.close()
