"""Engine queries over every backend: callers/callees, ambiguity, dependants, call trees, paths."""

from __future__ import annotations

import pytest

from kit.domain import CallSite, ChunkKind
from services.graph.domain.errors import InvalidArgument, SymbolNotFound
from services.graph.domain.model import Resolution, SymbolRef
from services.graph.tests.graph_builders import FileSpec, load, sid

R = SymbolRef


def _edges(result) -> set[tuple[str, str, Resolution]]:
    return {(e.caller_id, e.callee_id, e.resolution) for e in result.edges}


def _chain(engine, repo) -> None:
    """main → a.step1 → b.step2 → c.step3 → print; two `util` definitions make `util()` ambiguous."""
    load(
        engine,
        repo,
        [
            FileSpec("app/main.py")
            .define("main")
            .call("main", "step1")
            .call("main", "util")
            .imports_("app.a", "app/a.py", names=("step1",)),
            FileSpec("app/a.py")
            .define("step1")
            .call("step1", "step2")
            .call("step1", "step2")
            .imports_("app.b", "app/b.py"),
            FileSpec("app/b.py").define("step2").call("step2", "step3"),
            FileSpec("app/c.py").define("step3").call("step3", "print"),
            FileSpec("lib/x.py").define("util"),
            FileSpec("lib/y.py").define("util"),
        ],
    )


def test_callees_one_hop_include_resolution_count_and_external_edges(engine, repo):
    _chain(engine, repo)
    result = engine.callees(repo, R(name="step1"))
    assert [s.id for s in result.seeds] == [sid("app/a.py", "step1")]
    assert [(n.symbol.id, n.depth) for n in result.nodes] == [(sid("app/b.py", "step2"), 1)]
    (edge,) = result.edges
    assert (edge.callee_id, edge.resolution, edge.calls, edge.candidates) == (
        sid("app/b.py", "step2"),
        Resolution.IMPORTED,
        2,
        1,
    )
    external = engine.callees(repo, R(name="step3")).edges
    assert [(e.callee_name, e.callee_id, e.resolution) for e in external] == [
        ("print", "", Resolution.EXTERNAL)
    ]


def test_callees_with_depth_walk_transitively(engine, repo):
    _chain(engine, repo)
    result = engine.callees(repo, R(name="main"), depth=3)
    assert [(n.symbol.name, n.depth) for n in result.nodes] == [("step1", 1), ("step2", 2), ("step3", 3)]
    assert (sid("app/b.py", "step2"), sid("app/c.py", "step3"), Resolution.GLOBAL_UNIQUE) in _edges(result)


def test_callers_with_depth_and_limit(engine, repo):
    _chain(engine, repo)
    result = engine.callers(repo, R(id=sid("app/c.py", "step3")), depth=5)
    assert [(n.symbol.name, n.depth) for n in result.nodes] == [("step2", 1), ("step1", 2), ("main", 3)]
    assert not result.truncated
    cut = engine.callers(repo, R(id=sid("app/c.py", "step3")), depth=5, limit=2)
    assert [n.symbol.name for n in cut.nodes] == ["step2", "step1"]
    assert cut.truncated


def test_ambiguous_calls_are_hidden_by_default_and_marked_when_included(engine, repo):
    _chain(engine, repo)
    plain = engine.callees(repo, R(name="main"))
    assert [n.symbol.name for n in plain.nodes] == ["step1"]
    with_ambiguous = engine.callees(repo, R(name="main"), include_ambiguous=True)
    ambiguous = [e for e in with_ambiguous.edges if e.callee_name == "util"]
    assert {e.callee_id for e in ambiguous} == {sid("lib/x.py", "util"), sid("lib/y.py", "util")}
    assert {(e.resolution, e.candidates) for e in ambiguous} == {(Resolution.AMBIGUOUS, 2)}
    # Seen from a candidate: main is only a possible caller.
    assert engine.callers(repo, R(id=sid("lib/x.py", "util"))).nodes == ()
    maybe = engine.callers(repo, R(id=sid("lib/x.py", "util")), include_ambiguous=True)
    assert [n.symbol.name for n in maybe.nodes] == ["main"]


def test_deleting_the_only_definition_turns_calls_to_it_external(engine, repo):
    _chain(engine, repo)
    engine.delete_files(repo, ["app/c.py"])
    (edge,) = engine.callees(repo, R(name="step2")).edges
    assert (edge.callee_name, edge.callee_id, edge.resolution) == ("step3", "", Resolution.EXTERNAL)


def test_adding_a_second_definition_makes_calls_ambiguous_and_removing_it_restores(engine, repo):
    _chain(engine, repo)
    load(engine, repo, [FileSpec("other/c2.py").define("step3")])
    edges = engine.callees(repo, R(name="step2"), include_ambiguous=True).edges
    assert {(e.callee_id, e.resolution, e.candidates) for e in edges} == {
        (sid("app/c.py", "step3"), Resolution.AMBIGUOUS, 2),
        (sid("other/c2.py", "step3"), Resolution.AMBIGUOUS, 2),
    }
    engine.replace_file(repo, "other/c2.py", "h", [], [], [])
    (edge,) = engine.callees(repo, R(name="step2")).edges
    assert (edge.callee_id, edge.resolution) == (sid("app/c.py", "step3"), Resolution.GLOBAL_UNIQUE)


def test_an_import_added_later_upgrades_a_global_guess_to_imported(engine, repo):
    _chain(engine, repo)
    load(
        engine,
        repo,
        [
            FileSpec("app/main.py")
            .define("main")
            .call("main", "step1")
            .call("main", "util")
            .imports_("app.a", "app/a.py", names=("step1",))
            .imports_("lib.y", "lib/y.py", names=("util",)),
        ],
    )
    edges = engine.callees(repo, R(name="main")).edges
    assert (sid("app/main.py", "main"), sid("lib/y.py", "util"), Resolution.IMPORTED) in {
        (e.caller_id, e.callee_id, e.resolution) for e in edges
    }


def test_self_method_call_prefers_the_callers_own_class(engine, repo):
    load(
        engine,
        repo,
        [
            FileSpec("m.py")
            .define("Repo", ChunkKind.CLASS)
            .define("Repo.save")
            .define("Repo.flush")
            .define("Cache", ChunkKind.CLASS)
            .define("Cache.save")
            .call("Repo.flush", "save", receiver="self"),
            FileSpec("n.py").define("save"),
        ],
    )
    (edge,) = engine.callees(repo, R(name="Repo.flush")).edges
    assert (edge.callee_id, edge.resolution) == (sid("m.py", "Repo.save"), Resolution.SAME_FILE)


def test_symbol_ref_by_short_qualified_and_suffix_name(engine, repo):
    load(
        engine,
        repo,
        [
            FileSpec("a.py")
            .define("Outer", ChunkKind.CLASS)
            .define("Outer.Inner", ChunkKind.CLASS)
            .define("Outer.Inner.go"),
            FileSpec("b.py").define("go"),
        ],
    )
    assert [s.id for s in engine.find_symbols(repo, R(name="go"))] == [
        sid("a.py", "Outer.Inner.go"),
        sid("b.py", "go"),
    ]
    assert [s.id for s in engine.find_symbols(repo, R(name="Outer.Inner.go"))] == [
        sid("a.py", "Outer.Inner.go")
    ]
    assert [s.id for s in engine.find_symbols(repo, R(name="Inner.go"))] == [sid("a.py", "Outer.Inner.go")]
    with pytest.raises(SymbolNotFound, match="no symbol named 'nothing'"):
        engine.find_symbols(repo, R(name="nothing"))
    with pytest.raises(SymbolNotFound, match="no symbol with id"):
        engine.callers(repo, R(id="missing#id"))
    with pytest.raises(InvalidArgument, match="set either id or name"):
        engine.callers(repo, R())


def test_call_tree_goes_both_ways_with_signed_depths(engine, repo):
    _chain(engine, repo)
    tree = engine.call_tree(repo, R(name="step2"), up=2, down=2, branch=8)
    assert tree.seed.id == sid("app/b.py", "step2")
    assert sorted((n.symbol.name, n.depth) for n in tree.nodes) == [("main", -2), ("step1", -1), ("step3", 1)]
    assert {(e.caller_id, e.callee_id) for e in tree.edges} == {
        (sid("app/main.py", "main"), sid("app/a.py", "step1")),
        (sid("app/a.py", "step1"), sid("app/b.py", "step2")),
        (sid("app/b.py", "step2"), sid("app/c.py", "step3")),
    }


def test_call_tree_branching_keeps_the_most_relevant_neighbours(engine, repo):
    hub = FileSpec("hub.py").define("target")
    callers = FileSpec("callers.py")
    for i in range(6):
        callers.define(f"caller{i}")
        for _ in range(i + 1):  # caller5 calls most often
            callers.call(f"caller{i}", "target")
    tests = FileSpec("tests/test_hub.py", is_test=True).define("test_target")
    for _ in range(10):
        tests.call("test_target", "target")
    load(engine, repo, [hub, callers, tests])

    tree = engine.call_tree(repo, R(name="target"), up=1, down=0, branch=3)
    assert [n.symbol.name for n in tree.nodes] == ["caller5", "caller4", "caller3"]  # production before tests


def test_call_tree_reports_alternatives_for_an_ambiguous_seed_name(engine, repo):
    _chain(engine, repo)
    tree = engine.call_tree(repo, R(name="util"), up=1, down=1)
    assert tree.seed.id == sid("lib/x.py", "util")
    assert [s.id for s in tree.alternatives] == [sid("lib/y.py", "util")]


def test_shortest_path_follows_resolved_calls_only(engine, repo):
    _chain(engine, repo)
    path = engine.shortest_path(repo, R(name="main"), R(name="step3"))
    assert [s.name for s in path.symbols] == ["main", "step1", "step2", "step3"]
    assert [(e.caller_id, e.callee_id) for e in path.edges] == [
        (sid("app/main.py", "main"), sid("app/a.py", "step1")),
        (sid("app/a.py", "step1"), sid("app/b.py", "step2")),
        (sid("app/b.py", "step2"), sid("app/c.py", "step3")),
    ]
    assert engine.shortest_path(repo, R(name="main"), R(name="step3"), max_depth=2).symbols == ()
    assert engine.shortest_path(repo, R(name="step3"), R(name="main")).symbols == ()  # calls are directed
    assert (
        engine.shortest_path(repo, R(name="main"), R(id=sid("lib/x.py", "util"))).symbols == ()
    )  # ambiguous


def test_imports_and_importers_of_a_file(engine, repo):
    _chain(engine, repo)
    assert [(i.target, i.resolved_path) for i in engine.imports(repo, "app/main.py")] == [
        ("app.a", "app/a.py")
    ]
    assert [i.path for i in engine.importers(repo, "app/a.py")] == ["app/main.py"]
    assert engine.importers(repo, "app/main.py") == []


def test_invalid_requests_name_the_field(engine, repo):
    spec = FileSpec("a.py").define("f")
    with pytest.raises(InvalidArgument, match=r"call_sites\[0\].caller_id"):
        engine.replace_file(repo, "a.py", "h", spec.symbols, [CallSite("other#id", "g", 1)], [])
    with pytest.raises(InvalidArgument, match=r"symbols\[1\].id 'a.py#f' appears twice"):
        engine.replace_file(repo, "a.py", "h", spec.symbols * 2, [], [])
    with pytest.raises(InvalidArgument, match="depth must be between 1 and 5"):
        engine.callers(repo, R(name="f"), depth=6)
    with pytest.raises(InvalidArgument, match="repo is required"):
        engine.callers("", R(name="f"))
    assert engine.store.file_graph(repo, "a.py") is None  # nothing partial was written
