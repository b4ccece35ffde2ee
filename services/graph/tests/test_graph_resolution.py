"""Unit tests of name-based call resolution (pure: no store)."""

from __future__ import annotations

from kit.domain import CallSite, ChunkKind, Import
from services.graph.domain.model import Resolution
from services.graph.domain.resolution import MAX_CANDIDATES, CallResolver, receiver_parts, resolve_edges
from services.graph.tests.graph_builders import sym


def resolve(caller, name, receiver="", definitions=(), imports=()):
    by_path: dict[str, list[Import]] = {}
    for imp in imports:
        by_path.setdefault(imp.path, []).append(imp)
    resolver = CallResolver(definitions, by_path)
    outcome = resolver.resolve(CallSite(caller.id, name, 1, receiver), caller)
    return outcome.resolution, sorted(t.id for t in outcome.targets)


def test_receiver_parts():
    assert receiver_parts("self.repo") == ("self", "repo")
    assert receiver_parts("os.path") == ("os", "path")
    assert receiver_parts("super()") == ("super", "super")
    assert receiver_parts("a::b") == ("a", "b")
    assert receiver_parts("") == ("", "")


def test_unknown_name_is_external():
    caller = sym("a.py", "f")
    assert resolve(caller, "print", definitions=[caller]) == (Resolution.EXTERNAL, [])


def test_receiver_bound_to_an_external_import_is_external_even_when_the_repo_defines_the_name():
    caller = sym("a.py", "f")
    join = sym("b.py", "join")
    external = Import("a.py", "os.path", "", True)
    assert resolve(caller, "join", "os.path", [caller, join], [external]) == (Resolution.EXTERNAL, [])


def test_receiver_bound_to_an_internal_module_resolves_into_that_file():
    caller = sym("a.py", "f")
    defs = [caller, sym("util.py", "parse"), sym("other.py", "parse")]
    imp = Import("a.py", "util", "util.py")
    assert resolve(caller, "parse", "util", defs, [imp]) == (Resolution.IMPORTED, ["util.py#parse"])


def test_class_imported_by_name_resolves_its_method():
    caller = sym("svc.py", "f")
    defs = [caller, sym("models.py", "User.create"), sym("models.py", "create"), sym("x.py", "Order.create")]
    imp = Import("svc.py", "models", "models.py", names=("User",))
    assert resolve(caller, "create", "User", defs, [imp]) == (Resolution.IMPORTED, ["models.py#User.create"])


def test_bare_call_prefers_the_innermost_enclosing_scope_then_top_level():
    outer = sym("a.py", "outer")
    inner = sym("a.py", "outer.helper", ChunkKind.FUNCTION)
    top = sym("a.py", "helper")
    assert resolve(outer, "helper", definitions=[outer, inner, top]) == (
        Resolution.SAME_FILE,
        ["a.py#outer.helper"],
    )
    other = sym("a.py", "other")
    assert resolve(other, "helper", definitions=[other, inner, top]) == (
        Resolution.SAME_FILE,
        ["a.py#helper"],
    )


def test_method_call_on_an_object_does_not_reach_a_top_level_function_of_the_same_file():
    caller = sym("a.py", "f")
    top = sym("a.py", "save")
    method = sym("repo.py", "Repo.save")
    # `self.repo` has no known type: the method is a candidate, never a resolved edge
    assert resolve(caller, "save", "self.repo", [caller, top, method]) == (
        Resolution.AMBIGUOUS,
        ["repo.py#Repo.save"],
    )


def test_bare_call_does_not_reach_another_classs_method_when_a_function_exists():
    caller = sym("a.py", "main")
    defs = [caller, sym("a.py", "Cache.save"), sym("b.py", "save")]
    assert resolve(caller, "save", "", defs) == (Resolution.GLOBAL_UNIQUE, ["b.py#save"])


def test_imported_name_wins_over_other_global_definitions():
    caller = sym("a.py", "f")
    defs = [caller, sym("x.py", "fmt"), sym("y.py", "fmt")]
    imports = [Import("a.py", "y", "y.py", names=("fmt",)), Import("a.py", "x", "x.py", names=("other",))]
    assert resolve(caller, "fmt", "", defs, imports) == (Resolution.IMPORTED, ["y.py#fmt"])


def test_several_definitions_and_no_preference_is_ambiguous_with_all_candidates():
    caller = sym("a.py", "f")
    defs = [caller, sym("x.py", "fmt"), sym("y.py", "fmt")]
    assert resolve(caller, "fmt", "", defs) == (Resolution.AMBIGUOUS, ["x.py#fmt", "y.py#fmt"])


def test_production_callers_ignore_test_definitions_but_tests_see_both():
    caller = sym("src/a.py", "f")
    real = sym("src/db.py", "insert")
    fake = sym("tests/fakes.py", "insert", is_test=True)
    assert resolve(caller, "insert", "", [caller, real, fake]) == (
        Resolution.GLOBAL_UNIQUE,
        ["src/db.py#insert"],
    )
    test_caller = sym("tests/test_a.py", "test_f", is_test=True)
    assert resolve(test_caller, "insert", "", [test_caller, real, fake])[0] is Resolution.AMBIGUOUS


def test_non_callable_definitions_are_not_call_targets():
    caller = sym("a.py", "f")
    module = sym("b.py", "config", ChunkKind.MODULE)
    assert resolve(caller, "config", "", [caller, module]) == (Resolution.EXTERNAL, [])


def test_edges_aggregate_call_sites_and_keep_the_first_line():
    caller = sym("a.py", "f")
    g = sym("a.py", "g")
    resolver = CallResolver([caller, g], {})
    sites = [CallSite(caller.id, "g", 9), CallSite(caller.id, "g", 4), CallSite(caller.id, "print", 5)]
    edges = sorted(resolve_edges(sites, {caller.id: caller}, resolver), key=lambda e: e.callee_name)
    assert [(e.callee_name, e.callee_id, e.line, e.calls, e.resolution) for e in edges] == [
        ("g", "a.py#g", 4, 2, Resolution.SAME_FILE),
        ("print", "", 5, 1, Resolution.EXTERNAL),
    ]


def test_super_call_never_resolves_to_the_callers_own_method_and_stays_ambiguous():
    caller = sym("a.py", "Child.save")
    parent = sym("a.py", "Base.save")
    # without the class's bases the parent is a guess: a candidate, not a fact
    assert resolve(caller, "save", "super()", [caller, parent]) == (Resolution.AMBIGUOUS, ["a.py#Base.save"])


def test_a_name_with_too_many_definitions_is_one_ambiguous_edge_without_callee():
    caller = sym("a.py", "f")
    defs = [caller, *(sym(f"m{i}.py", f"C{i}.get") for i in range(MAX_CANDIDATES + 1))]
    resolver = CallResolver(defs, {})
    (edge,) = resolve_edges([CallSite(caller.id, "get", 3, "obj")], {caller.id: caller}, resolver)
    assert (edge.callee_id, edge.resolution, edge.candidates) == (
        "",
        Resolution.AMBIGUOUS,
        MAX_CANDIDATES + 1,
    )


# --- call-edge precision (issue 17): false facts from the call graph ---------------------------------


def test_a_call_on_an_unknown_receiver_never_resolves_to_a_same_file_method_of_that_name():
    caller = sym("sessions.py", "Session.request")
    get = sym("sessions.py", "Session.get")
    for receiver in ("kwargs", "data", "x", "self.adapter"):
        assert resolve(caller, "get", receiver, [caller, get]) == (
            Resolution.AMBIGUOUS,
            ["sessions.py#Session.get"],
        )


def test_a_builtin_called_bare_is_external_not_a_user_method_or_a_far_function():
    caller = sym("models.py", "Response.iter_content")
    method = sym("models.py", "Response.next")
    far = sym("compat.py", "next")
    assert resolve(caller, "next", "", [caller, method]) == (Resolution.EXTERNAL, [])
    assert resolve(caller, "next", "", [caller, method, far]) == (Resolution.EXTERNAL, [])
    local = sym("models.py", "next")
    assert resolve(caller, "next", "", [caller, method, local]) == (Resolution.SAME_FILE, ["models.py#next"])


def test_a_bare_call_resolves_to_functions_not_to_methods_of_other_classes():
    caller = sym("a.py", "helper")
    method = sym("a.py", "Other.run")
    assert resolve(caller, "run", "", [caller, method]) == (Resolution.AMBIGUOUS, ["a.py#Other.run"])
    function = sym("b.py", "run")
    two_methods = [caller, method, sym("c.py", "Third.run"), function]
    assert resolve(caller, "run", "", two_methods) == (Resolution.GLOBAL_UNIQUE, ["b.py#run"])


def test_self_and_class_qualified_calls_resolve_within_that_class():
    caller = sym("a.py", "Session.send")
    own = sym("a.py", "Session.merge")
    other = sym("b.py", "Adapter.merge")
    assert resolve(caller, "merge", "self", [caller, own, other]) == (
        Resolution.SAME_FILE,
        ["a.py#Session.merge"],
    )
    assert resolve(caller, "merge", "cls", [caller, own]) == (Resolution.SAME_FILE, ["a.py#Session.merge"])
    assert resolve(caller, "merge", "Adapter", [caller, own, other]) == (
        Resolution.GLOBAL_UNIQUE,
        ["b.py#Adapter.merge"],
    )
    # a self call the caller's class does not define (inherited?) is never attached to a stranger's method
    lone = sym("b.py", "Adapter.close")
    assert resolve(caller, "close", "self", [caller, lone]) == (Resolution.AMBIGUOUS, ["b.py#Adapter.close"])


def test_a_bare_call_in_a_python_method_does_not_reach_its_own_class_method_but_does_in_java():
    caller = sym("core.py", "Command.main_completion")
    own = sym("core.py", "Command.shell_complete")
    function = sym("shell_completion.py", "shell_complete")
    # click: `shell_complete(...)` (imported inside the method) is the module function, not Command's
    assert resolve(caller, "shell_complete", "", [caller, own, function]) == (
        Resolution.GLOBAL_UNIQUE,
        ["shell_completion.py#shell_complete"],
    )
    assert resolve(caller, "shell_complete", "", [caller, own])[0] is Resolution.AMBIGUOUS
    java_caller = sym("Cmd.java", "Cmd.main")
    java_own = sym("Cmd.java", "Cmd.complete")
    assert resolve(java_caller, "complete", "", [java_caller, java_own]) == (
        Resolution.SAME_FILE,
        ["Cmd.java#Cmd.complete"],
    )
