"""Inherited calls (issue 17): `self.`/`cls.`/`super()`/class-qualified calls resolve along the class's bases
when every base on the way is known; anything unsure stays AMBIGUOUS (and so out of the hook's Facts)."""

from __future__ import annotations

import dataclasses

import pytest

from kit.domain import CallSite, ChunkKind, Import, Symbol
from services.graph.domain.inheritance import OPAQUE, base_names
from services.graph.domain.model import Resolution, SymbolRef
from services.graph.domain.resolution import CallResolver, resolve_edges
from services.graph.tests.graph_builders import sym

CLASS = ChunkKind.CLASS


def cls(path: str, qualified_name: str, signature: str) -> Symbol:
    return dataclasses.replace(sym(path, qualified_name, CLASS), signature=signature)


def resolve(caller, name, receiver, definitions, imports=()):
    by_path: dict[str, list[Import]] = {}
    for imp in imports:
        by_path.setdefault(imp.path, []).append(imp)
    outcome = CallResolver(definitions, by_path).resolve(CallSite(caller.id, name, 1, receiver), caller)
    return outcome.resolution, sorted(t.id for t in outcome.targets)


@pytest.mark.parametrize(
    ("path", "signature", "expected"),
    [
        ("a.py", "class A(x.Base, B, metaclass=M)", ("x.Base", "B")),
        ("a.py", "class A(Generic[T], object)", ("Generic",)),
        ("a.py", "class A", ()),
        ("a.py", "class A(make_base())", (OPAQUE,)),
        ("a.js", "class A extends mixin(B)", (OPAQUE,)),
        ("a.js", "export default class C extends A", ("A",)),
        ("a.ts", "export abstract class A<T> extends B<T> implements I", ("B",)),
        ("a.ts", "export class A<T extends Base = Base> extends Subject<T>", ("Subject",)),
        ("A.java", "public final class A<T> extends pkg.B<T> implements I, J", ("pkg.B",)),
        ("a.rb", "class A < Foo::B", ("Foo.B",)),
        ("a.kt", "class A(val x: Int) : B(x), I", ("B", "I")),
        ("a.cs", "public class A<T> : B, IFoo where T : new()", ("B", "IFoo")),
        ("a.cpp", "class A final : public ns::B, private C", ("ns.B", "C")),
        ("a.php", "class A extends B implements I", ("B",)),
        ("a.go", "type A struct", ()),
    ],
)
def test_bases_are_read_from_the_class_declaration(path: str, signature: str, expected: tuple) -> None:
    assert base_names(signature, path) == expected


def test_an_inherited_self_call_resolves_to_the_base_that_defines_it() -> None:
    base = cls("base.py", "Base", "class Base")
    base_save = sym("base.py", "Base.save")
    child = cls("a.py", "Child", "class Child(Base)")
    caller = sym("a.py", "Child.run")
    stranger = sym("c.py", "Other.save")
    imp = Import("a.py", "base", "base.py", names=("Base",))
    defs = [base, base_save, child, caller, stranger]
    assert resolve(caller, "save", "self", defs, [imp]) == (Resolution.IMPORTED, ["base.py#Base.save"])
    assert resolve(caller, "save", "cls", defs, [imp]) == (Resolution.IMPORTED, ["base.py#Base.save"])
    # the only definition of the name: the single-definition path decides the same way
    assert resolve(caller, "save", "self", [base, base_save, child, caller], [imp]) == (
        Resolution.IMPORTED,
        ["base.py#Base.save"],
    )
    # without the import the base is unknown in Python: nothing is attached
    assert resolve(caller, "save", "self", defs)[0] is Resolution.AMBIGUOUS


def test_the_nearest_override_wins_and_python_follows_c3_order() -> None:
    path = "m.py"
    a = cls(path, "A", "class A")
    b = cls(path, "B", "class B(A)")
    c = cls(path, "C", "class C(A)")
    d = cls(path, "D", "class D(B, C)")
    a_m, c_m, b_n, a_n = sym(path, "A.m"), sym(path, "C.m"), sym(path, "B.n"), sym(path, "A.n")
    caller = sym(path, "D.run")
    defs = [a, b, c, d, a_m, c_m, b_n, a_n, caller]
    # MRO D, B, C, A: C.m comes before A.m although A is B's base
    assert resolve(caller, "m", "self", defs) == (Resolution.SAME_FILE, ["m.py#C.m"])
    assert resolve(caller, "n", "self", defs) == (Resolution.SAME_FILE, ["m.py#B.n"])


def test_super_resolves_to_the_bases_method_never_the_callers_own() -> None:
    base = cls("a.py", "Base", "class Base")
    child = cls("a.py", "Child", "class Child(Base)")
    own, parent = sym("a.py", "Child.save"), sym("a.py", "Base.save")
    defs = [base, child, own, parent]
    assert resolve(own, "save", "super()", defs) == (Resolution.SAME_FILE, ["a.py#Base.save"])
    assert resolve(own, "save", "super(Child, self)", defs) == (Resolution.SAME_FILE, ["a.py#Base.save"])
    # `super(Other, self)` starts elsewhere: not decided here
    assert resolve(own, "save", "super(Base, self)", defs)[0] is Resolution.AMBIGUOUS
    # a base that defines nothing of that name: stays ambiguous (the call reaches beyond what is known)
    lonely = cls("a.py", "Lonely", "class Lonely(Base)")
    caller = sym("a.py", "Lonely.save")
    assert resolve(caller, "close", "super()", [base, lonely, caller, sym("b.py", "X.close")])[0] is (
        Resolution.AMBIGUOUS
    )


def test_an_unknown_base_before_the_definer_keeps_the_call_ambiguous() -> None:
    path = "a.py"
    mixin = cls(path, "Mixin", "class Mixin")
    mixin_m = sym(path, "Mixin.m")
    external = Import(path, "threading", "", True, names=("local",))
    # Child(local, Mixin): `local` may define m, and it comes first
    first = cls(path, "Child", "class Child(local, Mixin)")
    caller = sym(path, "Child.run")
    assert (
        resolve(caller, "m", "self", [mixin, mixin_m, first, caller], [external])[0] is Resolution.AMBIGUOUS
    )
    # Child(Mixin, local): Mixin comes first whatever `local` is
    second = cls(path, "Child", "class Child(Mixin, local)")
    assert resolve(caller, "m", "self", [mixin, mixin_m, second, caller], [external]) == (
        Resolution.SAME_FILE,
        ["a.py#Mixin.m"],
    )
    # B(A), Child(B, local): A's method could come after `local`'s hidden ancestors: not decided
    a = cls(path, "A", "class A")
    b = cls(path, "B", "class B(A)")
    third = cls(path, "Child", "class Child(B, local)")
    a_m = sym(path, "A.m")
    assert resolve(caller, "m", "self", [a, b, third, a_m, caller], [external])[0] is Resolution.AMBIGUOUS


def test_a_base_that_names_several_classes_or_a_cycle_is_not_followed() -> None:
    child = cls("a.js", "Child", "class Child extends Base")
    caller = sym("a.js", "Child.run")
    one, two = cls("b.js", "Base", "class Base"), cls("c.js", "Base", "class Base")
    m1, m2 = sym("b.js", "Base.m"), sym("c.js", "Base.m")
    assert resolve(caller, "m", "this", [child, caller, one, two, m1, m2])[0] is Resolution.AMBIGUOUS
    # with one Base in the repository, JavaScript's unique global name decides
    assert resolve(caller, "m", "this", [child, caller, one, m1, m2]) == (
        Resolution.GLOBAL_UNIQUE,
        ["b.js#Base.m"],
    )
    loop_a = cls("x.ts", "A", "class A extends B")
    loop_b = cls("x.ts", "B", "class B extends A")
    runner = sym("x.ts", "A.run")
    assert resolve(runner, "m", "this", [loop_a, loop_b, runner, m1, m2])[0] is Resolution.AMBIGUOUS


def test_a_class_qualified_call_reaches_an_inherited_static_method() -> None:
    base = cls("Base.java", "Base", "public class Base")
    helper = sym("Base.java", "Base.helper")
    child = cls("Child.java", "Child", "public class Child extends Base")
    caller = sym("Main.java", "Main.main")
    other = sym("Other.java", "Other.helper")
    assert resolve(caller, "helper", "Child", [base, helper, child, caller, other]) == (
        Resolution.GLOBAL_UNIQUE,
        ["Base.java#Base.helper"],
    )
    assert resolve(caller, "helper", "Child", [base, helper, child, caller]) == (
        Resolution.GLOBAL_UNIQUE,
        ["Base.java#Base.helper"],
    )
    # an unknown receiver still resolves nothing, inherited or not
    assert resolve(caller, "helper", "child", [base, helper, child, caller, other])[0] is Resolution.AMBIGUOUS


def test_the_engine_resolves_inherited_calls_from_stored_facts(engine, repo) -> None:
    """Reads go through the store (definitions fetched by name, imports per file): same outcome."""
    base = cls("pkg/base.py", "Base", "class Base")
    base_close = sym("pkg/base.py", "Base.close")
    child = cls("pkg/child.py", "Child", "class Child(Base)")
    run = sym("pkg/child.py", "Child.run")
    engine.replace_file(repo, "pkg/base.py", "h1", [base, base_close], [], [])
    engine.replace_file(
        repo,
        "pkg/child.py",
        "h2",
        [child, run],
        [CallSite(run.id, "close", 3, "self")],
        [Import("pkg/child.py", "pkg.base", "pkg/base.py", names=("Base",))],
    )
    out = engine.callees(repo, SymbolRef(id=run.id))
    assert [(e.callee_id, e.resolution) for e in out.edges] == [(base_close.id, Resolution.IMPORTED)]
    into = engine.callers(repo, SymbolRef(id=base_close.id))
    assert [e.caller_id for e in into.edges] == [run.id]
    # the base moves away from the import: the call is ambiguous again on the next read
    engine.replace_file(repo, "pkg/child.py", "h3", [child, run], [CallSite(run.id, "close", 3, "self")], [])
    assert engine.callees(repo, SymbolRef(id=run.id)).edges == ()
    out = engine.callees(repo, SymbolRef(id=run.id), include_ambiguous=True)
    assert [(e.callee_id, e.resolution) for e in out.edges] == [(base_close.id, Resolution.AMBIGUOUS)]


def test_an_edge_shows_the_line_of_its_most_confident_call() -> None:
    """requests: `Compat.__init__(self)` (unknown class, ambiguous) on line 41, then `Base.__init__(self)`
    (resolved through the bases) on line 42: the edge to RequestException.__init__ cites line 42."""
    path = "exceptions.py"
    root = cls(path, "RequestException", "class RequestException(IOError)")
    root_init = sym(path, "RequestException.__init__")
    middle = cls(path, "InvalidJSONError", "class InvalidJSONError(RequestException)")
    leaf = cls(path, "JSONDecodeError", "class JSONDecodeError(InvalidJSONError, Compat)")
    leaf_init = sym(path, "JSONDecodeError.__init__")
    defs = [root, root_init, middle, leaf, leaf_init]
    resolver = CallResolver(defs, {})
    sites = [
        CallSite(leaf_init.id, "__init__", 41, "Compat"),
        CallSite(leaf_init.id, "__init__", 42, "InvalidJSONError"),
    ]
    edges = resolve_edges(sites, {leaf_init.id: leaf_init}, resolver)
    resolved = [(e.callee_id, e.line, e.resolution, e.calls) for e in edges if e.resolution.is_resolved]
    assert resolved == [(root_init.id, 42, Resolution.SAME_FILE, 2)]


def test_a_receiver_named_like_an_imported_module_never_reaches_a_method_of_a_class_in_it() -> None:
    """click: `parser.add_option()` on a parameter `parser`, in a file that did `from .parser import
    OptionParser`: right by luck at best, so not an edge; `util.parse()` and `models.User.create()` are."""
    caller = sym("core.py", "Option.add_to_parser")
    method = sym("parser.py", "OptionParser.add_option")
    imp = Import("core.py", ".parser", "parser.py", names=("OptionParser",))
    assert resolve(caller, "add_option", "parser", [caller, method], [imp])[0] is Resolution.AMBIGUOUS
    function = sym("parser.py", "split_opt")
    assert resolve(caller, "split_opt", "parser", [caller, function], [imp]) == (
        Resolution.IMPORTED,
        ["parser.py#split_opt"],
    )
    create = sym("models.py", "User.create")
    models = Import("core.py", "models", "models.py")
    assert resolve(caller, "create", "models.User", [caller, create], [models]) == (
        Resolution.IMPORTED,
        ["models.py#User.create"],
    )


def test_a_go_call_on_the_methods_receiver_variable_is_a_self_call_within_the_package() -> None:
    def method(path: str, qualified_name: str, signature: str) -> Symbol:
        return dataclasses.replace(sym(path, qualified_name), signature=signature)

    start = method("srv/server.go", "Server.Start", "func (s *Server) Start() error")
    listen = method("srv/listen.go", "Server.listen", "func (srv Server) listen()")
    other = method("client/client.go", "Client.listen", "func (c *Client) listen()")
    defs = [start, listen, other]
    # `s.listen()`: the receiver variable is the Server; its method lives in another file of the package
    assert resolve(start, "listen", "s", defs) == (Resolution.GLOBAL_UNIQUE, ["srv/listen.go#Server.listen"])
    assert resolve(start, "listen", "s", [start, listen]) == (
        Resolution.GLOBAL_UNIQUE,
        ["srv/listen.go#Server.listen"],
    )
    # any other variable is an unknown receiver; a method of the same type in another package is no match
    assert resolve(start, "listen", "c", defs)[0] is Resolution.AMBIGUOUS
    far = method("other/server.go", "Server.listen", "func (s Server) listen()")
    assert resolve(start, "listen", "s", [start, far])[0] is Resolution.AMBIGUOUS


def test_a_resolver_is_freed_when_dropped_without_waiting_for_the_cycle_collector() -> None:
    """A resolver of a whole repo is ~100k objects: in a reference cycle it lived until a full collection,
    which then paused a later request for ~80 ms."""
    import gc
    import weakref

    base = cls("base.py", "Base", "class Base")
    child = cls("a.py", "Child", "class Child(Base)")
    caller = sym("a.py", "Child.run")
    definitions = [base, sym("base.py", "Base.save"), child, caller, sym("c.py", "Other.save")]
    imp = Import("a.py", "base", "base.py", names=("Base",))
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        resolver = CallResolver(definitions, {"a.py": [imp]}, imports_of=lambda path: [])
        outcome = resolver.resolve(CallSite(caller.id, "save", 1, "self"), caller)
        assert outcome.resolution is Resolution.IMPORTED  # found through the class hierarchy
        freed = weakref.ref(resolver)
        del resolver
        assert freed() is None
    finally:
        if was_enabled:
            gc.enable()
