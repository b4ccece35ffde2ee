"""GraphStore contract: every backend stores raw per-file facts with replace semantics, literally."""

from __future__ import annotations

import dataclasses

import pytest

from kit.domain import CallSite, ChunkKind
from services.graph.domain.errors import InvalidArgument
from services.graph.tests.graph_builders import FileSpec, load, sid, sym


def _two_files() -> list[FileSpec]:
    a = FileSpec("pkg/a.py").define("run").define("Runner").define("Runner.go", ChunkKind.METHOD)
    a.call("run", "helper").call("run", "print").call("Runner.go", "run", receiver="self")
    a.imports_("pkg.b", "pkg/b.py", names=("helper",)).imports_("os")
    b = FileSpec("pkg/b.py").define("helper").call("helper", "len")
    return [a, b]


def test_replace_then_read_back_returns_exactly_what_was_stored(store, repo):
    a, b = _two_files()
    load(store, repo, [a, b])

    graph = store.file_graph(repo, "pkg/a.py")
    assert graph is not None
    assert graph.file_hash == "hash-pkg/a.py"
    assert list(graph.symbols) == a.symbols
    assert list(graph.call_sites) == a.calls
    assert list(graph.imports) == a.imports
    assert store.file_graph(repo, "pkg/missing.py") is None


def test_replace_removes_what_the_new_version_no_longer_has(store, repo):
    a, b = _two_files()
    load(store, repo, [a, b])
    smaller = FileSpec("pkg/a.py").define("run").call("run", "other")
    store.replace_file(repo, "pkg/a.py", "h2", smaller.symbols, smaller.calls, [])

    graph = store.file_graph(repo, "pkg/a.py")
    assert graph.file_hash == "h2"
    assert [s.qualified_name for s in graph.symbols] == ["run"]
    assert [c.callee_name for c in graph.call_sites] == ["other"]
    assert graph.imports == ()
    assert store.symbols_by_id(repo, [sid("pkg/a.py", "Runner")]) == {}
    assert store.call_sites_to(repo, ["helper"]) == []
    assert store.importers_of(repo, ["pkg/b.py"]) == []
    # The other file is untouched.
    assert [s.name for s in store.file_graph(repo, "pkg/b.py").symbols] == ["helper"]


def test_replacing_with_the_same_content_is_idempotent(store, repo):
    files = _two_files()
    load(store, repo, files)
    before = (store.facts(repo), store.counts(repo))
    load(store, repo, files)
    assert (store.facts(repo), store.counts(repo)) == before


def test_delete_files_removes_symbols_calls_and_imports(store, repo):
    load(store, repo, _two_files())
    removed = store.delete_files(repo, ["pkg/a.py", "pkg/never-indexed.py"])

    assert removed == 3
    assert store.file_graph(repo, "pkg/a.py") is None
    assert store.call_sites_from(repo, [sid("pkg/a.py", "run")]) == []
    assert store.imports_of(repo, ["pkg/a.py"]) == []
    counts = store.counts(repo)
    assert (counts.symbols, counts.call_sites, counts.imports, counts.files) == (1, 1, 0, 1)


def test_deleting_an_imported_file_keeps_its_importers_edges(store, repo):
    load(store, repo, _two_files())
    store.delete_files(repo, ["pkg/b.py"])
    importers = store.importers_of(repo, ["pkg/b.py"])
    assert [(i.path, i.target) for i in importers] == [("pkg/a.py", "pkg.b")]


def test_delete_repo_removes_everything_and_leaves_other_repos(store, repo):
    load(store, repo, _two_files())
    other = repo + "-other"
    try:
        load(store, other, _two_files())
        assert store.delete_repo(repo) == 4
        assert store.counts(repo).symbols == 0
        assert store.facts(repo).symbols == ()
        assert repo not in store.repos()
        assert store.counts(other).symbols == 4
        assert other in store.repos()
    finally:
        store.delete_repo(other)


def test_lookups_by_name_qualified_name_and_id(store, repo):
    load(store, repo, _two_files())
    assert [s.id for s in store.symbols_by_name(repo, ["go", "helper"])] == [
        sid("pkg/a.py", "Runner.go"),
        sid("pkg/b.py", "helper"),
    ]
    assert [s.id for s in store.symbols_by_qualified_name(repo, ["Runner.go"])] == [
        sid("pkg/a.py", "Runner.go")
    ]
    assert set(store.symbols_by_id(repo, [sid("pkg/b.py", "helper"), "nope"])) == {sid("pkg/b.py", "helper")}
    assert store.symbols_by_name(repo, []) == []


def test_call_sites_by_caller_and_by_callee_name(store, repo):
    load(store, repo, _two_files())
    from_run = store.call_sites_from(repo, [sid("pkg/a.py", "run")])
    assert [(c.callee_name, c.receiver) for c in from_run] == [("helper", ""), ("print", "")]
    to_run = store.call_sites_to(repo, ["run"])
    assert to_run == [CallSite(sid("pkg/a.py", "Runner.go"), "run", to_run[0].line, "self")]


def test_imports_and_importers(store, repo):
    load(store, repo, _two_files())
    imports = store.imports_of(repo, ["pkg/a.py"])
    assert [(i.target, i.resolved_path, i.external, i.names) for i in imports] == [
        ("pkg.b", "pkg/b.py", False, ("helper",)),
        ("os", "", True, ()),
    ]
    assert [i.path for i in store.importers_of(repo, ["pkg/b.py"])] == ["pkg/a.py"]


def test_symbol_id_owned_by_another_file_is_rejected_without_partial_write(store, repo):
    load(store, repo, _two_files())
    thief = FileSpec("pkg/c.py").define("x")
    stolen = dataclasses.replace(sym("pkg/c.py", "helper"), id=sid("pkg/b.py", "helper"))
    with pytest.raises(InvalidArgument, match="already stored for file 'pkg/b.py'"):
        store.replace_file(repo, "pkg/c.py", "h", [*thief.symbols, stolen], [], [])
    assert store.file_graph(repo, "pkg/c.py") is None
    assert (
        store.symbols_by_id(repo, [sid("pkg/b.py", "helper")])[sid("pkg/b.py", "helper")].path == "pkg/b.py"
    )


def test_generation_changes_on_every_write(store, repo):
    g0 = store.generation(repo)
    load(store, repo, _two_files())
    g1 = store.generation(repo)
    store.delete_files(repo, ["pkg/b.py"])
    g2 = store.generation(repo)
    assert g0 < g1 < g2


def test_repos_are_isolated(store, repo):
    load(store, repo, _two_files())
    assert store.symbols_by_name(repo + "-x", ["helper"]) == []
    assert store.call_sites_to(repo + "-x", ["helper"]) == []


HOSTILE = [
    "x') DETACH DELETE n //",
    'q"uote',
    "back\\slash\\",
    "$param {x} `tick`",
    "naïve_函数_🚀",
    "line\nbreak",
    "MATCH (n) DETACH DELETE n",
    "'; DROP TABLE symbols; --",
]


def test_hostile_names_and_paths_are_stored_and_returned_literally(store, repo):
    files = []
    for i, text in enumerate(HOSTILE):
        path = f"dir {text}/f{i}.py"
        spec = FileSpec(path).define(text).call(text, text, receiver=text)
        spec.imports_(
            text,
            resolved_path=f"dir {HOSTILE[(i + 1) % len(HOSTILE)]}/f{(i + 1) % len(HOSTILE)}.py",
            names=(text,),
        )
        files.append(spec)
    load(store, repo, files)

    for spec, text in zip(files, HOSTILE, strict=True):
        graph = store.file_graph(repo, spec.path)
        assert graph is not None, spec.path
        assert list(graph.symbols) == spec.symbols
        assert list(graph.call_sites) == spec.calls
        assert list(graph.imports) == spec.imports
        assert [s.id for s in store.symbols_by_name(repo, [text])] == [spec.symbols[0].id]
        assert [c.caller_id for c in store.call_sites_to(repo, [text])] == [spec.symbols[0].id]
        assert [i.path for i in store.importers_of(repo, [spec.imports[0].resolved_path])] == [spec.path]
    assert store.counts(repo).symbols == len(HOSTILE)
    store.delete_files(repo, [files[0].path])
    assert store.counts(repo).symbols == len(HOSTILE) - 1
