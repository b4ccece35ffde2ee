"""GraphEngine: the graph service's use cases over a GraphStore. Synchronous and thread-safe.

Writes store raw facts per file; nothing resolved is stored. Reads resolve call sites on the way
(domain/resolution.py), so results always reflect the latest replace/delete of *any* file: deleting the
only `foo` turns calls to it external, adding a second makes them ambiguous, with nothing to invalidate.

Community detection needs every edge, so it resolves a full snapshot of the repository, debounced: when
asked for and the repository has been quiet for `settle_seconds` (at once when there is no report yet, or
when forced), and from a background thread for repositories seen changing. The resolved edges of that
snapshot are kept in memory (domain/snapshot.py) and serve traversals while the store's generation still
matches, which is the steady state once indexing settles; any write sends traversals back to the store.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import structlog

from kit.domain import CallSite, ChunkKind, Import, Symbol
from kit.paths import is_repo_relative

from .domain.communities import detect_communities, resolve_all
from .domain.errors import InvalidArgument, SymbolNotFound
from .domain.model import (
    CallEdge,
    CallPath,
    CallTree,
    CommunityReport,
    GraphStats,
    SymbolRef,
    Traversal,
)
from .domain.resolution import SELF_RECEIVERS, CallResolver, receiver_parts, resolve_edges, scope_of
from .domain.snapshot import GraphSnapshot
from .domain.traversal import EdgeSource, call_tree, shortest_path, walk
from .ports import GraphStore

log = structlog.get_logger(__name__)

MAX_DEPTH = 5
MAX_LIMIT = 1000
MAX_BRANCH = 50
MAX_PATH_DEPTH = 16
CALL_TREE_MAX_NODES = 256
MAX_ALTERNATIVES = 10
_PREFERRED_SEED_KINDS = (ChunkKind.FUNCTION, ChunkKind.METHOD)
_EPOCH = datetime.min.replace(tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class ReplaceResult:
    symbols: int
    call_sites: int


class _EdgeReader:
    """EdgeSource for one request: reads raw facts from the store and resolves them, caching lookups."""

    def __init__(self, store: GraphStore, repo: str) -> None:
        self._store = store
        self._repo = repo
        self._symbols: dict[str, Symbol | None] = {}
        self._defs: dict[str, list[Symbol]] = {}
        self._imports: dict[str, list[Import]] = {}

    def symbols(self, ids: Collection[str]) -> dict[str, Symbol]:
        missing = [i for i in ids if i not in self._symbols]
        if missing:
            found = self._store.symbols_by_id(self._repo, missing)
            for i in missing:
                self._symbols[i] = found.get(i)
        return {i: s for i in ids if (s := self._symbols.get(i)) is not None}

    def out_edges(self, ids: Collection[str]) -> list[CallEdge]:
        callers = self.symbols(ids)
        sites = self._store.call_sites_from(self._repo, list(callers))
        return self._resolve(sites, callers)

    def in_edges(self, ids: Collection[str]) -> list[CallEdge]:
        targets = self.symbols(ids)
        if not targets:
            return []
        sites = self._store.call_sites_to(self._repo, {t.name for t in targets.values()})
        callers = self.symbols({s.caller_id for s in sites})
        return [e for e in self._resolve(sites, callers) if e.callee_id in targets]

    def _resolve(self, sites: Sequence[CallSite], callers: dict[str, Symbol]) -> list[CallEdge]:
        if not sites:
            return []
        names = {s.callee_name for s in sites}
        missing = (names | _class_names(sites, callers)) - self._defs.keys()
        if missing:
            grouped: dict[str, list[Symbol]] = defaultdict(list)
            for d in self._store.symbols_by_name(self._repo, missing):
                grouped[d.name].append(d)
                self._symbols.setdefault(d.id, d)
            for name in missing:
                self._defs[name] = grouped.get(name, [])
        paths = {c.path for c in callers.values()}
        missing_paths = paths - self._imports.keys()
        if missing_paths:
            grouped_imports: dict[str, list[Import]] = defaultdict(list)
            for imp in self._store.imports_of(self._repo, missing_paths):
                grouped_imports[imp.path].append(imp)
            for path in missing_paths:
                self._imports[path] = grouped_imports.get(path, [])
        resolver = CallResolver(
            (d for name in names for d in self._defs[name]),
            {p: self._imports[p] for p in paths},
            classes_named=self._definitions_named,
            imports_of=self._imports_of,
        )
        return resolve_edges(sites, callers, resolver)

    def _definitions_named(self, names: Collection[str]) -> list[Symbol]:
        """Definitions by short name, for class bases (read once per request)."""
        missing = [n for n in names if n not in self._defs]
        if missing:
            grouped: dict[str, list[Symbol]] = defaultdict(list)
            for d in self._store.symbols_by_name(self._repo, missing):
                grouped[d.name].append(d)
                self._symbols.setdefault(d.id, d)
            for name in missing:
                self._defs[name] = grouped.get(name, [])
        return [d for n in names for d in self._defs[n]]

    def _imports_of(self, path: str) -> list[Import]:
        if path not in self._imports:
            self._imports[path] = self._store.imports_of(self._repo, [path])
        return self._imports[path]


def _class_names(sites: Sequence[CallSite], callers: dict[str, Symbol]) -> set[str]:
    """Names of the classes resolution may look up (a receiver's `Store.save()`, a self call's own class),
    fetched with the callee names in one query rather than one by one."""
    out: set[str] = set()
    for site in sites:
        receiver = site.receiver
        if not receiver:
            continue
        if receiver in SELF_RECEIVERS or receiver.startswith("super"):
            caller = callers.get(site.caller_id)
            if caller is not None:
                out.update(part for part in scope_of(caller.qualified_name).split(".") if part)
        else:
            out.add(receiver_parts(receiver)[1])
    out.discard("")
    return out


class GraphEngine:
    """Use cases of the graph service. Every method may be called from any thread."""

    def __init__(
        self,
        store: GraphStore,
        *,
        settle_seconds: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._store = store
        self._settle = settle_seconds
        self._clock = clock
        self._now = now
        self._state_lock = threading.Lock()
        self._reports: dict[str, CommunityReport] = {}
        self._snapshots: dict[str, GraphSnapshot] = {}  # resolved graph of the last report's generation
        self._observed: dict[str, tuple[int, float]] = {}  # repo → (generation, when it was first seen)
        self._dirty: set[str] = set()  # repos seen changing since their last report
        self._compute_locks: dict[str, threading.Lock] = defaultdict(threading.Lock)
        self._background: threading.Thread | None = None
        self._stop = threading.Event()

    @property
    def store(self) -> GraphStore:
        return self._store

    # -- writes ---------------------------------------------------------------------------------------

    def replace_file(
        self,
        repo: str,
        path: str,
        file_hash: str,
        symbols: Sequence[Symbol],
        call_sites: Sequence[CallSite],
        imports: Sequence[Import],
    ) -> ReplaceResult:
        """Replace everything stored for one file (its symbols, its outgoing calls, its imports)."""
        _require(repo, "repo")
        _require_repo_path(path, "path")
        symbols = _validate_symbols(path, symbols)
        ids = {s.id for s in symbols}
        for i, site in enumerate(call_sites):
            if site.caller_id not in ids:
                raise InvalidArgument(
                    f"call_sites[{i}].caller_id {site.caller_id!r} is not the id of one of this file's "
                    "symbols; "
                    "send the calling chunk as a symbol too"
                )
            if not site.callee_name:
                raise InvalidArgument(f"call_sites[{i}].callee_name is empty")
        checked_imports = []
        for i, imp in enumerate(imports):
            if imp.path and imp.path != path:
                raise InvalidArgument(
                    f"imports[{i}].path {imp.path!r} differs from the request path {path!r}"
                )
            if not imp.target:
                raise InvalidArgument(f"imports[{i}].target is empty")
            checked_imports.append(imp if imp.path else dataclasses.replace(imp, path=path))
        self._store.replace_file(repo, path, file_hash, symbols, call_sites, checked_imports)
        self._mark_written(repo)
        return ReplaceResult(len(symbols), len(call_sites))

    def delete_files(self, repo: str, paths: Sequence[str]) -> int:
        _require(repo, "repo")
        for i, p in enumerate(paths):
            _require_repo_path(p, f"paths[{i}]")
        if not paths:
            return 0
        removed = self._store.delete_files(repo, paths)
        self._mark_written(repo)
        return removed

    def delete_repo(self, repo: str) -> int:
        _require(repo, "repo")
        removed = self._store.delete_repo(repo)
        with self._state_lock:
            self._reports.pop(repo, None)
            self._snapshots.pop(repo, None)
            self._dirty.discard(repo)
            self._observed.pop(repo, None)
        return removed

    def _mark_written(self, repo: str) -> None:
        generation = self._store.generation(repo)
        with self._state_lock:
            self._observed[repo] = (generation, self._clock())
            self._dirty.add(repo)

    # -- symbol lookup --------------------------------------------------------------------------------

    def find_symbols(self, repo: str, ref: SymbolRef, field: str = "symbol") -> list[Symbol]:
        """Definitions a SymbolRef names, best first (production code, functions and methods, then path).

        Raises SymbolNotFound when nothing matches, InvalidArgument when the ref is empty.
        """
        _require(repo, "repo")
        if ref.id:
            found = self._store.symbols_by_id(repo, [ref.id])
            if ref.id not in found:
                raise SymbolNotFound(f"{field}: no symbol with id {ref.id!r} in repo {repo!r}")
            return [found[ref.id]]
        name = ref.name.strip()
        if not name:
            raise InvalidArgument(f"{field}: set either id or name")
        if "." not in name:
            matches = self._store.symbols_by_name(repo, [name])
        else:  # qualified: exact, else as a suffix (`Parser.parse` finds `Outer.Parser.parse`)
            matches = self._store.symbols_by_qualified_name(repo, [name])
            if not matches:
                short = name.rsplit(".", 1)[1]
                matches = [
                    s
                    for s in self._store.symbols_by_name(repo, [short])
                    if s.qualified_name.endswith("." + name)
                ]
        if not matches:
            raise SymbolNotFound(f"{field}: no symbol named {name!r} in repo {repo!r}")
        return sorted(
            matches,
            key=lambda s: (s.is_test, s.kind not in _PREFERRED_SEED_KINDS, s.path, s.start_line, s.id),
        )

    # -- traversals -----------------------------------------------------------------------------------

    def callers(
        self, repo: str, ref: SymbolRef, depth: int = 1, limit: int = 50, include_ambiguous: bool = False
    ) -> Traversal:
        """Who calls the symbol (every definition the ref names), up to `depth` hops."""
        return self._walk(repo, ref, "in", depth, limit, include_ambiguous)

    def callees(
        self, repo: str, ref: SymbolRef, depth: int = 1, limit: int = 50, include_ambiguous: bool = False
    ) -> Traversal:
        """What the symbol calls, up to `depth` hops; external calls appear as edges without a callee id."""
        return self._walk(repo, ref, "out", depth, limit, include_ambiguous)

    def _walk(
        self, repo: str, ref: SymbolRef, direction: str, depth: int, limit: int, include_ambiguous: bool
    ) -> Traversal:
        depth = _bounded(depth, "depth", default=1, low=1, high=MAX_DEPTH)
        limit = _bounded(limit, "limit", default=50, low=1, high=MAX_LIMIT)
        seeds = self.find_symbols(repo, ref)
        nodes, edges, truncated = walk(
            self._edges(repo), seeds, "in" if direction == "in" else "out", depth, limit, include_ambiguous
        )
        return Traversal(tuple(seeds), tuple(nodes), tuple(edges), truncated)

    def call_tree(self, repo: str, seed: SymbolRef, up: int = 2, down: int = 2, branch: int = 8) -> CallTree:
        """Callers `up` levels and callees `down` levels around the best match for `seed`."""
        up = _bounded(up, "up", default=0, low=0, high=MAX_DEPTH)
        down = _bounded(down, "down", default=0, low=0, high=MAX_DEPTH)
        branch = _bounded(branch, "branch", default=8, low=1, high=MAX_BRANCH)
        candidates = self.find_symbols(repo, seed, "seed")
        nodes, edges = call_tree(self._edges(repo), candidates[0], up, down, branch, CALL_TREE_MAX_NODES)
        return CallTree(
            candidates[0], tuple(nodes), tuple(edges), tuple(candidates[1 : 1 + MAX_ALTERNATIVES])
        )

    def shortest_path(self, repo: str, source: SymbolRef, target: SymbolRef, max_depth: int = 8) -> CallPath:
        """Fewest resolved call hops from (any definition of) `source` to `target`; empty when none."""
        max_depth = _bounded(max_depth, "max_depth", default=8, low=1, high=MAX_PATH_DEPTH)
        starts = self.find_symbols(repo, source, "from")
        ends = self.find_symbols(repo, target, "to")
        return shortest_path(self._edges(repo), starts, ends, max_depth)

    def _edges(self, repo: str) -> EdgeSource:
        """The in-memory graph when it matches the store's generation, else resolve from the store.

        A repository seen changing is scheduled for a background recompute once it has settled, so
        replicas that did not do the writes converge on the fast path too.
        """
        generation = self._store.generation(repo)
        with self._state_lock:
            snapshot = self._snapshots.get(repo)
            if snapshot is not None and snapshot.generation == generation:
                return snapshot
            seen = self._observed.get(repo)
            if seen is None or seen[0] != generation:
                self._observed[repo] = (generation, self._clock())
            self._dirty.add(repo)
        return _EdgeReader(self._store, repo)

    # -- imports --------------------------------------------------------------------------------------

    def imports(self, repo: str, path: str) -> list[Import]:
        _require(repo, "repo")
        _require_repo_path(path, "path")
        return self._store.imports_of(repo, [path])

    def importers(self, repo: str, path: str) -> list[Import]:
        _require(repo, "repo")
        _require_repo_path(path, "path")
        return self._store.importers_of(repo, [path])

    # -- communities and stats ------------------------------------------------------------------------

    def communities(self, repo: str, limit: int = 20, recompute: bool = False) -> CommunityReport:
        """The repository's communities, hubs and bridges (at most `limit` communities)."""
        _require(repo, "repo")
        limit = _bounded(limit, "limit", default=20, low=1, high=MAX_LIMIT)
        report = self._report(repo, force=recompute)
        return dataclasses.replace(report, communities=report.communities[:limit])

    def stats(self, repo: str = "") -> GraphStats:
        """Counts for one repository or all; edge counts and communities as of the last recompute."""
        repos = [repo] if repo else self._store.repos()
        counts = self._store.counts(repo)
        reports = [self._report(r, force=False) for r in repos]
        stamps = [r.computed_at for r in reports]
        return GraphStats(
            symbols=counts.symbols,
            resolved_edges=sum(r.edge_counts.resolved for r in reports),
            ambiguous_edges=sum(r.edge_counts.ambiguous for r in reports),
            external_calls=sum(r.edge_counts.external for r in reports),
            imports=counts.imports,
            communities=sum(len(r.communities) for r in reports),
            last_recompute=max(stamps) if stamps else None,
        )

    def _report(self, repo: str, force: bool) -> CommunityReport:
        generation = self._store.generation(repo)
        with self._state_lock:
            now = self._clock()
            seen = self._observed.get(repo)
            if seen is None or seen[0] != generation:
                self._observed[repo] = seen = (generation, now)
            report = self._reports.get(repo)
            settled = now - seen[1] >= self._settle
        if report is not None and not force and (report.generation == generation or not settled):
            return report
        return self._recompute(repo, asked_at=self._now() if force else _EPOCH)

    def _recompute(self, repo: str, asked_at: datetime = _EPOCH) -> CommunityReport:
        with self._state_lock:
            lock = self._compute_locks[repo]
        with lock:
            generation = self._store.generation(repo)
            with self._state_lock:
                report = self._reports.get(repo)
            # Whoever held the lock before may already have computed what this caller needs.
            if report is not None and report.generation == generation and report.computed_at >= asked_at:
                return report
            started = time.perf_counter()
            facts = self._store.facts(repo)
            edges = resolve_all(facts)
            report = detect_communities(facts, generation=generation, now=self._now(), edges=edges)
            snapshot = GraphSnapshot(generation, facts.symbols, edges)
            with self._state_lock:
                self._reports[repo] = report
                self._snapshots[repo] = snapshot
                if self._store.generation(repo) == generation:
                    self._dirty.discard(repo)
            log.info(
                "graph.communities.recomputed",
                repo=repo,
                symbols=len(facts.symbols),
                communities=len(report.communities),
                seconds=round(time.perf_counter() - started, 3),
            )
            return report

    def recompute_settled(self) -> list[str]:
        """Recompute reports (and in-memory graphs) of repositories that changed and have been quiet since."""
        with self._state_lock:
            now = self._clock()
            due = [
                repo
                for repo in self._dirty
                if (seen := self._observed.get(repo)) is not None and now - seen[1] >= self._settle
            ]
        done = []
        for repo in due:
            with self._state_lock:
                report = self._reports.get(repo)
            if report is None or report.generation != self._store.generation(repo):
                self._recompute(repo)
                done.append(repo)
            else:
                with self._state_lock:
                    self._dirty.discard(repo)
        return done

    def start_background(self, interval_s: float = 1.0) -> None:
        """Recompute settled repositories every `interval_s` seconds on a daemon thread.

        Reports live in memory, so every stored repository is computed first, at start: otherwise the
        first prompt after a restart that needs communities (or a call tree) would pay for it."""
        if self._background is not None:
            return
        self._stop.clear()

        def loop() -> None:
            try:
                self._mark_stored_repos_due()
            except Exception:  # a store that is not up yet: the first request computes instead
                log.exception("graph.communities.startup_scan_failed")
            first = True
            while first or not self._stop.wait(interval_s):
                first = False
                try:
                    self.recompute_settled()
                except Exception:  # a failed recompute must not kill the scheduler
                    log.exception("graph.communities.recompute_failed")

        self._background = threading.Thread(target=loop, name="graph-communities", daemon=True)
        self._background.start()

    def _mark_stored_repos_due(self) -> None:
        repos = {repo: self._store.generation(repo) for repo in self._store.repos()}
        with self._state_lock:
            long_ago = self._clock() - self._settle
            for repo, generation in repos.items():
                self._observed.setdefault(repo, (generation, long_ago))
                self._dirty.add(repo)

    def stop_background(self) -> None:
        self._stop.set()
        if self._background is not None:
            self._background.join(timeout=10)
            self._background = None

    def close(self) -> None:
        self.stop_background()
        self._store.close()


def _require(value: str, field: str) -> None:
    if not value or not value.strip():
        raise InvalidArgument(f"{field} is required")


def _require_repo_path(value: str, field: str) -> None:
    """A stored path is repo-relative POSIX; anything that could name a place outside the repo is refused."""
    _require(value, field)
    if "\x00" in value:
        raise InvalidArgument(f"{field} must not contain NUL bytes")
    if not is_repo_relative(value):
        raise InvalidArgument(f"{field} must be relative to the repository root and must not contain '..'")


def _bounded(value: int, field: str, *, default: int, low: int, high: int) -> int:
    if value == 0:
        return default if default else 0
    if value < low or value > high:
        raise InvalidArgument(f"{field} must be between {low} and {high} (0 means {default}), got {value}")
    return value


def _validate_symbols(path: str, symbols: Sequence[Symbol]) -> list[Symbol]:
    seen: set[str] = set()
    checked: list[Symbol] = []
    for i, s in enumerate(symbols):
        if not s.id:
            raise InvalidArgument(f"symbols[{i}].id is empty")
        if s.id in seen:
            raise InvalidArgument(f"symbols[{i}].id {s.id!r} appears twice in the file")
        seen.add(s.id)
        if not s.name:
            raise InvalidArgument(f"symbols[{i}].name is empty")
        if s.path and s.path != path:
            raise InvalidArgument(f"symbols[{i}].path {s.path!r} differs from the request path {path!r}")
        checked.append(s if s.path else dataclasses.replace(s, path=path))
    return checked
