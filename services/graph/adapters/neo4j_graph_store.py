"""Team graph store on Neo4j (official `neo4j` driver 6.x, Neo4j 5+).

Model (all nodes carry `repo`; every value reaches Cypher as a parameter, never as query text):

    (:Repo {name, generation})
    (:File {repo, path, file_hash, indexed})-[:DEFINES]->(:Symbol {repo, id, path, ord, name, …})
    (:Symbol)-[:CALLS {ord, line, receiver}]->(:CalleeName {repo, name})
    (:File)-[:IMPORTS {ord, target, resolved_path, external, names, line}]->(:File | :Module {repo, target})

Calls point at a `CalleeName`, not at a definition: which definitions a name reaches depends on other files,
so resolution happens in the domain when edges are read (see domain/resolution.py). An import of a file
that is not indexed (yet, or any more) points at a placeholder File with `indexed = false`, which goes away
when nothing imports it.

Each ReplaceFileGraph is one managed write transaction that first bumps the repository's generation, which
also takes the Repo node's lock and so serialises writers of one repository (no deadlocks between files
that share callee names).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Collection, Sequence
from typing import Any, LiteralString, TypeVar

from neo4j import Driver, GraphDatabase, ManagedTransaction, NotificationMinimumSeverity, RoutingControl
from neo4j.exceptions import ServiceUnavailable, SessionExpired

from kit.domain import CallSite, ChunkKind, Import, Symbol

from ..domain.errors import InvalidArgument, StoreUnavailable
from ..domain.model import FileGraph, RepoFacts, StoreCounts

SCHEMA: tuple[LiteralString, ...] = (
    "CREATE CONSTRAINT reporecall_repo IF NOT EXISTS FOR (r:Repo) REQUIRE r.name IS UNIQUE",
    "CREATE CONSTRAINT reporecall_file IF NOT EXISTS FOR (f:File) REQUIRE (f.repo, f.path) IS UNIQUE",
    "CREATE CONSTRAINT reporecall_symbol IF NOT EXISTS FOR (s:Symbol) REQUIRE (s.repo, s.id) IS UNIQUE",
    "CREATE CONSTRAINT reporecall_callee_name IF NOT EXISTS "
    "FOR (n:CalleeName) REQUIRE (n.repo, n.name) IS UNIQUE",
    "CREATE CONSTRAINT reporecall_module IF NOT EXISTS FOR (m:Module) REQUIRE (m.repo, m.target) IS UNIQUE",
    "CREATE INDEX reporecall_symbol_name IF NOT EXISTS FOR (s:Symbol) ON (s.repo, s.name)",
    "CREATE INDEX reporecall_symbol_qualified_name IF NOT EXISTS "
    "FOR (s:Symbol) ON (s.repo, s.qualified_name)",
    "CREATE INDEX reporecall_symbol_path IF NOT EXISTS FOR (s:Symbol) ON (s.repo, s.path)",
)

_SYMBOL_FIELDS: LiteralString = (
    "s.id AS id, s.path AS path, s.name AS name, s.qualified_name AS qualified_name, s.kind AS kind, "
    "s.start_line AS start_line, s.end_line AS end_line, s.signature AS signature, s.is_test AS is_test"
)
_CALL_FIELDS: LiteralString = (
    "s.id AS caller_id, n.name AS callee_name, c.line AS line, c.receiver AS receiver"
)
_IMPORT_FIELDS: LiteralString = (
    "f.path AS path, r.target AS target, r.resolved_path AS resolved_path, r.external AS external, "
    "r.names AS names, r.line AS line"
)

_BUMP_GENERATION: LiteralString = (
    "MERGE (r:Repo {name: $repo}) ON CREATE SET r.generation = 0 SET r.generation = r.generation + 1"
)
_CLASHING_SYMBOL: LiteralString = (
    "MATCH (s:Symbol) WHERE s.repo = $repo AND s.id IN $ids AND s.path <> $path "
    "RETURN s.id AS id, s.path AS path LIMIT 1"
)
_CALLED_NAMES: LiteralString = (
    "MATCH (s:Symbol)-[:CALLS]->(n:CalleeName) WHERE s.repo = $repo AND s.path IN $paths "
    "RETURN collect(DISTINCT n.name) AS names"
)
_IMPORT_TARGETS: LiteralString = (
    "MATCH (f:File)-[:IMPORTS]->(t) WHERE f.repo = $repo AND f.path IN $paths "
    "RETURN collect(DISTINCT t.path) AS files, collect(DISTINCT t.target) AS modules"
)
_DELETE_SYMBOLS: LiteralString = (
    "MATCH (s:Symbol) WHERE s.repo = $repo AND s.path IN $paths DETACH DELETE s RETURN count(*) AS removed"
)
_DELETE_IMPORTS: LiteralString = (
    "MATCH (f:File)-[r:IMPORTS]->() WHERE f.repo = $repo AND f.path IN $paths DELETE r"
)
_UNINDEX_FILES: LiteralString = (
    "MATCH (f:File) WHERE f.repo = $repo AND f.path IN $paths SET f.indexed = false REMOVE f.file_hash"
)
_DROP_UNUSED_FILES: LiteralString = (
    "MATCH (f:File) WHERE f.repo = $repo AND f.path IN $paths AND f.indexed = false "
    "AND NOT EXISTS { MATCH ()-[:IMPORTS]->(f) } DETACH DELETE f"
)
_DROP_UNUSED_MODULES: LiteralString = (
    "MATCH (m:Module) WHERE m.repo = $repo AND m.target IN $targets "
    "AND NOT EXISTS { MATCH ()-[:IMPORTS]->(m) } DELETE m"
)
_DROP_UNUSED_NAMES: LiteralString = (
    "MATCH (n:CalleeName) WHERE n.repo = $repo AND n.name IN $names "
    "AND NOT EXISTS { MATCH ()-[:CALLS]->(n) } DELETE n"
)
# The importing-WITH form of CALL works on every Neo4j 5 (the `CALL (n)` scope form needs 5.23+).
_DELETE_REPO: tuple[LiteralString, ...] = tuple(
    "MATCH (n:"
    + label
    + ") WHERE n.repo = $repo CALL { WITH n DETACH DELETE n } IN TRANSACTIONS OF 5000 ROWS"
    for label in ("Symbol", "File", "CalleeName", "Module")
)
_MERGE_FILE: LiteralString = (
    "MERGE (f:File {repo: $repo, path: $path}) SET f.file_hash = $file_hash, f.indexed = true"
)
_MERGE_SYMBOLS: LiteralString = (
    "MATCH (f:File {repo: $repo, path: $path}) "
    "UNWIND $symbols AS s "
    "MERGE (n:Symbol {repo: $repo, id: s.id}) "
    "SET n += s, n.path = $path "
    "MERGE (f)-[:DEFINES]->(n)"
)
_CREATE_CALLS: LiteralString = (
    "UNWIND $calls AS c "
    "MATCH (s:Symbol {repo: $repo, id: c.caller_id}) "
    "MERGE (n:CalleeName {repo: $repo, name: c.callee_name}) "
    "CREATE (s)-[:CALLS {ord: c.ord, line: c.line, receiver: c.receiver}]->(n)"
)
_CREATE_FILE_IMPORTS: LiteralString = (
    "MATCH (f:File {repo: $repo, path: $path}) "
    "UNWIND $imports AS i "
    "MERGE (t:File {repo: $repo, path: i.resolved_path}) ON CREATE SET t.indexed = false "
    "CREATE (f)-[r:IMPORTS]->(t) SET r = i"
)
_CREATE_MODULE_IMPORTS: LiteralString = (
    "MATCH (f:File {repo: $repo, path: $path}) "
    "UNWIND $imports AS i "
    "MERGE (m:Module {repo: $repo, target: i.target}) "
    "CREATE (f)-[r:IMPORTS]->(m) SET r = i"
)


F = TypeVar("F", bound=Callable[..., Any])


def _unavailable_as_domain_error(method: F) -> F:
    """Connection loss becomes StoreUnavailable (the servicer answers UNAVAILABLE, callers retry)."""

    @functools.wraps(method)
    def wrapper(self: Neo4jGraphStore, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except (ServiceUnavailable, SessionExpired) as exc:
            raise StoreUnavailable(f"graph store: Neo4j is unavailable ({exc})") from exc

    return wrapper  # type: ignore[return-value]


def _symbol(rec: Any) -> Symbol:
    return Symbol(
        id=rec["id"],
        path=rec["path"],
        name=rec["name"],
        qualified_name=rec["qualified_name"],
        kind=ChunkKind(rec["kind"]),
        start_line=int(rec["start_line"]),
        end_line=int(rec["end_line"]),
        signature=rec["signature"],
        is_test=bool(rec["is_test"]),
    )


def _call(rec: Any) -> CallSite:
    return CallSite(
        caller_id=rec["caller_id"],
        callee_name=rec["callee_name"],
        line=int(rec["line"]),
        receiver=rec["receiver"],
    )


def _import(rec: Any) -> Import:
    return Import(
        path=rec["path"],
        target=rec["target"],
        resolved_path=rec["resolved_path"],
        external=bool(rec["external"]),
        names=tuple(rec["names"] or ()),
        line=int(rec["line"]),
    )


class Neo4jGraphStore:
    """GraphStore on a Neo4j server."""

    def __init__(
        self,
        uri: str,
        auth: tuple[str, str] | None = None,
        database: str | None = None,
        connect_timeout_s: float = 30.0,
    ) -> None:
        # Notifications off: on a fresh database every query that names a not-yet-created relationship type
        # (CALLS, IMPORTS) gets a "does not exist" warning, which the driver would log on every write.
        self._driver: Driver = GraphDatabase.driver(
            uri, auth=auth, notifications_min_severity=NotificationMinimumSeverity.OFF
        )
        self._database = database or None
        try:
            self._wait_until_available(connect_timeout_s)
            for statement in SCHEMA:
                self._driver.execute_query(statement, database_=self._database)
        except BaseException:
            self._driver.close()
            raise

    def _wait_until_available(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                self._driver.verify_connectivity()
                return
            except ServiceUnavailable:
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.5)

    def _read(self, query: LiteralString, **params: Any) -> list[Any]:
        records, _, _ = self._driver.execute_query(
            query, parameters_=params, routing_=RoutingControl.READ, database_=self._database
        )
        return records

    # -- writes ---------------------------------------------------------------------------------------

    def replace_file(
        self,
        repo: str,
        path: str,
        file_hash: str,
        symbols: Sequence[Symbol],
        call_sites: Sequence[CallSite],
        imports: Sequence[Import],
    ) -> None:
        symbol_rows = [
            {
                "id": s.id,
                "ord": i,
                "name": s.name,
                "qualified_name": s.qualified_name,
                "kind": str(s.kind),
                "start_line": s.start_line,
                "end_line": s.end_line,
                "signature": s.signature,
                "is_test": s.is_test,
                "repo": repo,
            }
            for i, s in enumerate(symbols)
        ]
        call_rows = [
            {
                "ord": i,
                "caller_id": c.caller_id,
                "callee_name": c.callee_name,
                "line": c.line,
                "receiver": c.receiver,
            }
            for i, c in enumerate(call_sites)
        ]
        # An empty `names` is left out rather than stored as an empty list (read back as null → ()).
        import_rows = [
            {
                "ord": i,
                "target": m.target,
                "resolved_path": m.resolved_path,
                "external": m.external,
                "line": m.line,
                **({"names": list(m.names)} if m.names else {}),
            }
            for i, m in enumerate(imports)
        ]

        def work(tx: ManagedTransaction) -> None:
            tx.run(_BUMP_GENERATION, repo=repo).consume()
            clash = tx.run(
                _CLASHING_SYMBOL, repo=repo, ids=[s["id"] for s in symbol_rows], path=path
            ).single()
            if clash is not None:
                raise InvalidArgument(
                    f"symbol id {clash['id']!r} is already stored for file {clash['path']!r}; "
                    "symbol ids must be unique within a repository"
                )
            old_names, old_files, old_modules = self._remove_contents(tx, repo, [path])
            tx.run(_MERGE_FILE, repo=repo, path=path, file_hash=file_hash).consume()
            tx.run(_MERGE_SYMBOLS, repo=repo, path=path, symbols=symbol_rows).consume()
            tx.run(_CREATE_CALLS, repo=repo, calls=call_rows).consume()
            tx.run(
                _CREATE_FILE_IMPORTS,
                repo=repo,
                path=path,
                imports=[r for r in import_rows if r["resolved_path"]],
            ).consume()
            tx.run(
                _CREATE_MODULE_IMPORTS,
                repo=repo,
                path=path,
                imports=[r for r in import_rows if not r["resolved_path"]],
            ).consume()
            self._drop_orphans(tx, repo, old_names, [p for p in old_files if p != path], old_modules)

        with self._driver.session(database=self._database) as session:
            session.execute_write(work)

    def delete_files(self, repo: str, paths: Collection[str]) -> int:
        path_list = sorted(set(paths))

        def work(tx: ManagedTransaction) -> int:
            tx.run(_BUMP_GENERATION, repo=repo).consume()
            removed = self._count_symbols(tx, repo, path_list)
            old_names, old_files, old_modules = self._remove_contents(tx, repo, path_list)
            tx.run(_UNINDEX_FILES, repo=repo, paths=path_list).consume()
            self._drop_orphans(tx, repo, old_names, [*old_files, *path_list], old_modules)
            return removed

        with self._driver.session(database=self._database) as session:
            return session.execute_write(work)

    def delete_repo(self, repo: str) -> int:
        counted = self._read("MATCH (s:Symbol) WHERE s.repo = $repo RETURN count(s) AS n", repo=repo)
        with self._driver.session(database=self._database) as session:
            # Batched in separate transactions (implicit transaction required) so a large repo never
            # builds one huge transaction.
            for label_query in _DELETE_REPO:
                session.run(label_query, repo=repo).consume()
        self._driver.execute_query(_BUMP_GENERATION, repo=repo, database_=self._database)
        return int(counted[0]["n"]) if counted else 0

    @staticmethod
    def _count_symbols(tx: ManagedTransaction, repo: str, paths: list[str]) -> int:
        rec = tx.run(
            "MATCH (s:Symbol) WHERE s.repo = $repo AND s.path IN $paths RETURN count(s) AS n",
            repo=repo,
            paths=paths,
        ).single()
        return int(rec["n"]) if rec else 0

    @staticmethod
    def _remove_contents(
        tx: ManagedTransaction, repo: str, paths: list[str]
    ) -> tuple[list[str], list[str], list[str]]:
        """Delete the files' symbols (with their calls) and imports; return what may now be orphaned."""
        names = tx.run(_CALLED_NAMES, repo=repo, paths=paths).single()
        targets = tx.run(_IMPORT_TARGETS, repo=repo, paths=paths).single()
        tx.run(_DELETE_SYMBOLS, repo=repo, paths=paths).consume()
        tx.run(_DELETE_IMPORTS, repo=repo, paths=paths).consume()
        return (
            list(names["names"]) if names else [],
            [p for p in (targets["files"] if targets else []) if p is not None],
            [t for t in (targets["modules"] if targets else []) if t is not None],
        )

    @staticmethod
    def _drop_orphans(
        tx: ManagedTransaction, repo: str, names: list[str], files: list[str], modules: list[str]
    ) -> None:
        if names:
            tx.run(_DROP_UNUSED_NAMES, repo=repo, names=names).consume()
        if files:
            tx.run(_DROP_UNUSED_FILES, repo=repo, paths=files).consume()
        if modules:
            tx.run(_DROP_UNUSED_MODULES, repo=repo, targets=modules).consume()

    # -- reads ----------------------------------------------------------------------------------------

    def file_graph(self, repo: str, path: str) -> FileGraph | None:
        def work(tx: ManagedTransaction) -> FileGraph | None:
            file = tx.run(
                "MATCH (f:File {repo: $repo, path: $path}) WHERE f.indexed = true "
                "RETURN f.file_hash AS file_hash",
                repo=repo,
                path=path,
            ).single()
            if file is None:
                return None
            symbols = list(
                tx.run(
                    "MATCH (s:Symbol) WHERE s.repo = $repo AND s.path = $path "
                    "RETURN " + _SYMBOL_FIELDS + " ORDER BY s.ord",
                    repo=repo,
                    path=path,
                )
            )
            calls = list(
                tx.run(
                    "MATCH (s:Symbol)-[c:CALLS]->(n:CalleeName) WHERE s.repo = $repo AND s.path = $path "
                    "RETURN " + _CALL_FIELDS + " ORDER BY c.ord",
                    repo=repo,
                    path=path,
                )
            )
            imports = list(
                tx.run(
                    "MATCH (f:File {repo: $repo, path: $path})-[r:IMPORTS]->() "
                    "RETURN " + _IMPORT_FIELDS + " ORDER BY r.ord",
                    repo=repo,
                    path=path,
                )
            )
            return FileGraph(
                path,
                file["file_hash"],
                tuple(map(_symbol, symbols)),
                tuple(map(_call, calls)),
                tuple(map(_import, imports)),
            )

        with self._driver.session(database=self._database, default_access_mode="READ") as session:
            return session.execute_read(work)

    def symbols_by_id(self, repo: str, ids: Collection[str]) -> dict[str, Symbol]:
        if not ids:
            return {}
        records = self._read(
            "MATCH (s:Symbol) WHERE s.repo = $repo AND s.id IN $ids RETURN " + _SYMBOL_FIELDS,
            repo=repo,
            ids=sorted(set(ids)),
        )
        return {r["id"]: _symbol(r) for r in records}

    def symbols_by_name(self, repo: str, names: Collection[str]) -> list[Symbol]:
        if not names:
            return []
        records = self._read(
            "MATCH (s:Symbol) WHERE s.repo = $repo AND s.name IN $names RETURN " + _SYMBOL_FIELDS + " "
            "ORDER BY s.path, s.start_line, s.id",
            repo=repo,
            names=sorted(set(names)),
        )
        return [_symbol(r) for r in records]

    def symbols_by_qualified_name(self, repo: str, qualified_names: Collection[str]) -> list[Symbol]:
        if not qualified_names:
            return []
        records = self._read(
            "MATCH (s:Symbol) WHERE s.repo = $repo AND s.qualified_name IN $names "
            "RETURN " + _SYMBOL_FIELDS + " ORDER BY s.path, s.start_line, s.id",
            repo=repo,
            names=sorted(set(qualified_names)),
        )
        return [_symbol(r) for r in records]

    def call_sites_from(self, repo: str, caller_ids: Collection[str]) -> list[CallSite]:
        if not caller_ids:
            return []
        records = self._read(
            "MATCH (s:Symbol)-[c:CALLS]->(n:CalleeName) WHERE s.repo = $repo AND s.id IN $ids "
            "RETURN " + _CALL_FIELDS + " ORDER BY s.path, c.ord",
            repo=repo,
            ids=sorted(set(caller_ids)),
        )
        return [_call(r) for r in records]

    def call_sites_to(self, repo: str, callee_names: Collection[str]) -> list[CallSite]:
        if not callee_names:
            return []
        records = self._read(
            "MATCH (n:CalleeName)<-[c:CALLS]-(s:Symbol) WHERE n.repo = $repo AND n.name IN $names "
            "RETURN " + _CALL_FIELDS + " ORDER BY s.path, c.ord",
            repo=repo,
            names=sorted(set(callee_names)),
        )
        return [_call(r) for r in records]

    def imports_of(self, repo: str, paths: Collection[str]) -> list[Import]:
        if not paths:
            return []
        records = self._read(
            "MATCH (f:File)-[r:IMPORTS]->() WHERE f.repo = $repo AND f.path IN $paths "
            "RETURN " + _IMPORT_FIELDS + " ORDER BY f.path, r.line, r.target, r.ord",
            repo=repo,
            paths=sorted(set(paths)),
        )
        return [_import(r) for r in records]

    def importers_of(self, repo: str, paths: Collection[str]) -> list[Import]:
        if not paths:
            return []
        records = self._read(
            "MATCH (f:File)-[r:IMPORTS]->(t:File) WHERE t.repo = $repo AND t.path IN $paths "
            "RETURN " + _IMPORT_FIELDS + " ORDER BY f.path, r.line, r.target, r.ord",
            repo=repo,
            paths=sorted(set(paths)),
        )
        return [_import(r) for r in records]

    def facts(self, repo: str) -> RepoFacts:
        def work(tx: ManagedTransaction) -> RepoFacts:
            symbols = list(
                tx.run(
                    "MATCH (s:Symbol) WHERE s.repo = $repo RETURN "
                    + _SYMBOL_FIELDS
                    + " ORDER BY s.path, s.ord",
                    repo=repo,
                )
            )
            calls = list(
                tx.run(
                    "MATCH (s:Symbol)-[c:CALLS]->(n:CalleeName) WHERE s.repo = $repo "
                    "RETURN " + _CALL_FIELDS + " ORDER BY s.path, c.ord",
                    repo=repo,
                )
            )
            imports = list(
                tx.run(
                    "MATCH (f:File)-[r:IMPORTS]->() WHERE f.repo = $repo "
                    "RETURN " + _IMPORT_FIELDS + " ORDER BY f.path, r.ord",
                    repo=repo,
                )
            )
            return RepoFacts(
                tuple(map(_symbol, symbols)), tuple(map(_call, calls)), tuple(map(_import, imports))
            )

        with self._driver.session(database=self._database, default_access_mode="READ") as session:
            return session.execute_read(work)

    def counts(self, repo: str) -> StoreCounts:
        def work(tx: ManagedTransaction) -> StoreCounts:
            def one(query: LiteralString) -> int:
                rec = tx.run(query, repo=repo).single()
                return int(rec["n"]) if rec else 0

            return StoreCounts(
                symbols=one("MATCH (s:Symbol) WHERE $repo = '' OR s.repo = $repo RETURN count(s) AS n"),
                call_sites=one(
                    "MATCH (s:Symbol)-[c:CALLS]->() WHERE $repo = '' OR s.repo = $repo RETURN count(c) AS n"
                ),
                imports=one(
                    "MATCH (f:File)-[r:IMPORTS]->() WHERE $repo = '' OR f.repo = $repo RETURN count(r) AS n"
                ),
                files=one(
                    "MATCH (f:File) WHERE ($repo = '' OR f.repo = $repo) AND f.indexed = true "
                    "RETURN count(f) AS n"
                ),
            )

        with self._driver.session(database=self._database, default_access_mode="READ") as session:
            return session.execute_read(work)

    def repos(self) -> list[str]:
        records = self._read(
            "MATCH (f:File) WHERE f.indexed = true RETURN DISTINCT f.repo AS repo ORDER BY repo"
        )
        return [r["repo"] for r in records]

    def generation(self, repo: str) -> int:
        records = self._read("MATCH (r:Repo {name: $repo}) RETURN r.generation AS generation", repo=repo)
        return int(records[0]["generation"]) if records else 0

    def close(self) -> None:
        self._driver.close()


for _name in (
    "replace_file",
    "delete_files",
    "delete_repo",
    "file_graph",
    "symbols_by_id",
    "symbols_by_name",
    "symbols_by_qualified_name",
    "call_sites_from",
    "call_sites_to",
    "imports_of",
    "importers_of",
    "facts",
    "counts",
    "repos",
    "generation",
):
    setattr(Neo4jGraphStore, _name, _unavailable_as_domain_error(getattr(Neo4jGraphStore, _name)))
