"""In-memory sinks implementing the indexer ports (replace semantics, like the real services), a tiny
deterministic parser, and helpers to build repositories on disk. Shared by the indexer tests."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path

from kit.domain import CallSite, Chunk, ChunkKind, Import, Symbol
from services.indexer.adapters.sqlite_manifest import SqliteManifest
from services.indexer.bootstrap import indexer_engine
from services.indexer.engine import EngineConfig, IndexerEngine
from services.indexer.ports import SinkUnavailable


class SinkFailure(RuntimeError):
    """Raised by a fake sink told to fail."""


@dataclass
class CallLog:
    calls: list[tuple[str, str, str]] = field(default_factory=list)  # (op, repo, path or "")
    # (op, call number) → exception to raise; call numbers count every call of the sink, from 1.
    fail: Callable[[str, int], BaseException | None] | None = None
    gate: asyncio.Event | None = None  # when set by a test, calls wait for it (a slow downstream)
    in_flight: int = 0
    max_in_flight: int = 0

    async def enter(self, op: str, repo: str, path: str = "") -> None:
        self.calls.append((op, repo, path))
        number = len(self.calls)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.gate is not None:
                await self.gate.wait()
            await asyncio.sleep(0)  # not a wait: a real call yields to the event loop, so the fake does too
            if self.fail is not None:
                error = self.fail(op, number)
                if error is not None:
                    raise error
        finally:
            self.in_flight -= 1

    def paths(self, op: str) -> list[str]:
        return [path for kind, _, path in self.calls if kind == op]


class FakeSearch:
    """ports.SearchSink storing chunks per file."""

    def __init__(self) -> None:
        self.log = CallLog()
        self.files: dict[tuple[str, str], tuple[Chunk, ...]] = {}
        self.hashes: dict[tuple[str, str], str] = {}

    async def upsert_file(self, repo: str, path: str, file_hash: str, chunks: Sequence[Chunk]) -> None:
        await self.log.enter("upsert", repo, path)
        if chunks:
            self.files[(repo, path)] = tuple(chunks)
            self.hashes[(repo, path)] = file_hash
        else:
            self.files.pop((repo, path), None)
            self.hashes.pop((repo, path), None)

    async def delete_files(self, repo: str, paths: Sequence[str]) -> None:
        for path in paths:
            await self.log.enter("delete", repo, path)
        for path in paths:
            self.files.pop((repo, path), None)
            self.hashes.pop((repo, path), None)

    async def delete_repo(self, repo: str) -> None:
        await self.log.enter("delete_repo", repo)
        for key in [k for k in self.files if k[0] == repo]:
            del self.files[key]

    def chunk_ids(self, repo: str = "demo") -> list[str]:
        """Every stored chunk id, sorted, duplicates kept (so duplication is visible)."""
        return sorted(c.id for (r, _), chunks in self.files.items() if r == repo for c in chunks)

    def state(self, repo: str = "demo") -> dict[str, tuple[tuple[str, str], ...]]:
        return {
            p: tuple((c.id, c.content_hash) for c in cs) for (r, p), cs in self.files.items() if r == repo
        }


class FakeGraph:
    """ports.GraphSink storing symbols, call sites and imports per file."""

    def __init__(self) -> None:
        self.log = CallLog()
        self.files: dict[
            tuple[str, str], tuple[tuple[Symbol, ...], tuple[CallSite, ...], tuple[Import, ...]]
        ] = {}

    async def replace_file_graph(
        self,
        repo: str,
        path: str,
        file_hash: str,
        symbols: Sequence[Symbol],
        call_sites: Sequence[CallSite],
        imports: Sequence[Import],
    ) -> None:
        await self.log.enter("replace", repo, path)
        if symbols or call_sites or imports:
            self.files[(repo, path)] = (tuple(symbols), tuple(call_sites), tuple(imports))
        else:
            self.files.pop((repo, path), None)

    async def delete_files(self, repo: str, paths: Sequence[str]) -> None:
        for path in paths:
            await self.log.enter("delete", repo, path)
        for path in paths:
            self.files.pop((repo, path), None)

    async def delete_repo(self, repo: str) -> None:
        await self.log.enter("delete_repo", repo)
        for key in [k for k in self.files if k[0] == repo]:
            del self.files[key]

    def state(self, repo: str = "demo") -> dict[str, tuple]:
        return {p: v for (r, p), v in self.files.items() if r == repo}


def fail_on_call(
    n: int, *, ops: tuple[str, ...] = ("upsert", "replace"), error: type[Exception] = SinkFailure
) -> Callable[[str, int], BaseException | None]:
    """Fail exactly the n-th call of the sink (counted over all ops)."""
    return lambda op, number: (
        error(f"injected failure on call {number}") if number == n and op in ops else None
    )


def unavailable_always() -> Callable[[str, int], BaseException | None]:
    return lambda op, number: SinkUnavailable("connection refused")


# -- a tiny parser: `def name` lines become function chunks, `call name` lines become call sites --------


@dataclass(frozen=True)
class FakeParsed:
    language: str
    chunks: tuple[Chunk, ...]
    call_sites: tuple[CallSite, ...]
    imports: tuple[Import, ...]
    warnings: tuple[str, ...] = ()


def fake_parse(repo: str, path: str, source: bytes) -> FakeParsed:
    import xxhash

    text = source.decode("utf-8", errors="replace")
    chunks: list[Chunk] = []
    calls: list[CallSite] = []
    imports: list[Import] = []
    for number, line in enumerate(text.splitlines(), start=1):
        words = line.split()
        if len(words) >= 2 and words[0] == "def":
            name = words[1].split("(")[0]
            chunks.append(
                Chunk(
                    id=xxhash.xxh3_128_hexdigest(f"{repo}|{path}|{name}".encode()),
                    repo=repo,
                    path=path,
                    language="python",
                    kind=ChunkKind.FUNCTION,
                    name=name,
                    qualified_name=name,
                    start_line=number,
                    end_line=number,
                    content=line,
                    content_hash=xxhash.xxh3_64_hexdigest(line.encode()),
                )
            )
        elif len(words) >= 2 and words[0] == "call" and chunks:
            calls.append(CallSite(chunks[-1].id, words[1], number))
        elif len(words) >= 2 and words[0] == "import":
            imports.append(Import(path=path, target=words[1], line=number))
    return FakeParsed("python", tuple(chunks), tuple(calls), tuple(imports))


def keep_imports(
    imports: Sequence[Import], language: str, files: AbstractSet[str], go_module: str | None
) -> Sequence[Import]:
    return [
        Import(
            i.path, i.target, i.target if i.target in files else "", i.target not in files, i.names, i.line
        )
        for i in imports
    ]


# -- repositories and engines ------------------------------------------------------------------------


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def touch_later(path: Path) -> None:
    """Bump mtime past the previous value even on coarse-timestamp file systems."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))


def module_text(index: int) -> str:
    return (
        f"def func_{index}(x):\n    call helper_{index % 7}\n\n"
        f"def helper_{index}(y):\n    call func_{index}\n"
    )


def make_repo(root: Path, files: int, *, per_dir: int = 100) -> list[str]:
    paths = []
    for i in range(files):
        rel = f"pkg{i // per_dir}/mod_{i}.py"
        write(root, rel, module_text(i))
        paths.append(rel)
    return paths


@dataclass
class Rig:
    engine: IndexerEngine
    manifest: SqliteManifest
    search: FakeSearch
    graph: FakeGraph
    root: Path
    name: str = "demo"


async def make_rig(
    root: Path,
    db: Path,
    *,
    search: FakeSearch | None = None,
    graph: FakeGraph | None = None,
    **config: object,
) -> Rig:
    manifest = SqliteManifest(db)
    search = search or FakeSearch()
    graph = graph or FakeGraph()
    defaults: dict[str, object] = {
        "send_attempts": 1,
        "retry_initial_seconds": 0.0,
        "progress_interval_seconds": 0.01,
    }
    defaults.update(config)
    engine = indexer_engine(
        manifest,
        search,
        graph,
        config=EngineConfig(**defaults),  # type: ignore[arg-type]
        parse=fake_parse,
        resolve_imports=keep_imports,
        watch_debounce_ms=50,
    )
    await engine.register_repo(str(root), "demo")
    return Rig(engine, manifest, search, graph, root)
