"""A fixture with a known call graph: same-named functions in several modules, methods, tests, externals.

The truth below is what the code does (a reader with type knowledge would agree). Name-based resolution
must never attach a call to the wrong definition (precision 1.0); where it cannot tell, the call must stay
AMBIGUOUS with its candidates. Recall is reported, and must not regress below the level measured here.
"""

from __future__ import annotations

from kit.domain import ChunkKind
from services.graph.domain.communities import resolve_all
from services.graph.domain.model import Resolution, SymbolRef
from services.graph.tests.graph_builders import FileSpec, load, sid

CLASS = ChunkKind.CLASS


def fixture_files() -> list[FileSpec]:
    util = (
        FileSpec("pkg/util.py")
        .define("format_name")
        .define("log")
        .define("join")
        .call("log", "print")
        .call("format_name", "join")
    )
    text = (
        FileSpec("pkg/text.py")
        .define("format_name")
        .define("clean")
        .define("join")
        .call("clean", "format_name")
        .call("clean", "strip", receiver="s")
    )
    models = (
        FileSpec("pkg/models.py")
        .define("User", CLASS)
        .define("User.save")
        .define("User.validate")
        .define("Order", CLASS)
        .define("Order.save")
        .define("Order.validate")
        .call("User.save", "validate", receiver="self")
        .call("User.save", "insert", receiver="db")
        .call("User.validate", "clean")
        .call("Order.save", "validate", receiver="self")
        .call("Order.save", "insert", receiver="db")
        .imports_("pkg", "pkg/db.py", names=("db",))
        .imports_("pkg.text", "pkg/text.py", names=("clean",))
    )
    db = (
        FileSpec("pkg/db.py")
        .define("insert")
        .define("connect")
        .call("insert", "connect")
        .call("insert", "log")
        .call("connect", "connect", receiver="sqlite3")
        .imports_("pkg.util", "pkg/util.py", names=("log",))
        .imports_("sqlite3", external=True)
    )
    service = (
        FileSpec("pkg/service.py")
        .define("register")
        .define("checkout")
        .call("register", "format_name")
        .call("register", "User")
        .call("register", "save", receiver="user")
        .call("register", "audit")
        .call("checkout", "Order")
        .call("checkout", "save", receiver="order")
        .call("checkout", "join", receiver="os.path")
        .imports_("pkg.models", "pkg/models.py", names=("User", "Order"))
        .imports_("pkg.util", "pkg/util.py", names=("format_name",))
        .imports_("os", external=True)
    )
    audit = FileSpec("pkg/audit.py").define("audit").call("audit", "log")
    cli = (
        FileSpec("pkg/cli.py")
        .define("main")
        .call("main", "register")
        .call("main", "insert")
        .call("main", "format_name")
        .imports_("pkg.service", "pkg/service.py", names=("register",))
    )
    tests = (
        FileSpec("tests/test_db.py", is_test=True)
        .define("insert")
        .define("test_register")
        .call("test_register", "register")
        .call("test_register", "insert")
        .imports_("pkg.service", "pkg/service.py", names=("register",))
    )
    return [util, text, models, db, service, audit, cli, tests]


U, T, M, D, S, A, C, X = (
    "pkg/util.py",
    "pkg/text.py",
    "pkg/models.py",
    "pkg/db.py",
    "pkg/service.py",
    "pkg/audit.py",
    "pkg/cli.py",
    "tests/test_db.py",
)

# (caller, callee) for every call that reaches a definition in the repository.
TRUTH = {
    (sid(U, "format_name"), sid(U, "join")),
    (sid(T, "clean"), sid(T, "format_name")),
    (sid(M, "User.save"), sid(M, "User.validate")),
    (sid(M, "User.save"), sid(D, "insert")),
    (sid(M, "User.validate"), sid(T, "clean")),
    (sid(M, "Order.save"), sid(M, "Order.validate")),
    (sid(M, "Order.save"), sid(D, "insert")),
    (sid(D, "insert"), sid(D, "connect")),
    (sid(D, "insert"), sid(U, "log")),
    (sid(S, "register"), sid(U, "format_name")),
    (sid(S, "register"), sid(M, "User")),
    (sid(S, "register"), sid(M, "User.save")),
    (sid(S, "register"), sid(A, "audit")),
    (sid(S, "checkout"), sid(M, "Order")),
    (sid(S, "checkout"), sid(M, "Order.save")),
    (sid(A, "audit"), sid(U, "log")),
    (sid(C, "main"), sid(S, "register")),
    (sid(C, "main"), sid(D, "insert")),
    (sid(X, "test_register"), sid(S, "register")),
    (sid(X, "test_register"), sid(X, "insert")),
}
# Calls that name-based resolution cannot settle: (caller, callee name) → candidates it must report.
AMBIGUOUS = {
    (sid(S, "register"), "save"): {sid(M, "User.save"), sid(M, "Order.save")},
    (sid(S, "checkout"), "save"): {sid(M, "User.save"), sid(M, "Order.save")},
    (sid(C, "main"), "format_name"): {sid(U, "format_name"), sid(T, "format_name")},
}
EXTERNAL = {
    (sid(U, "log"), "print"),
    (sid(T, "clean"), "strip"),
    (sid(D, "connect"), "connect"),
    (sid(S, "checkout"), "join"),
}


def test_resolution_never_attaches_a_call_to_the_wrong_definition(engine, repo):
    load(engine, repo, fixture_files())
    edges = resolve_all(engine.store.facts(repo))

    resolved = {(e.caller_id, e.callee_id) for e in edges if e.resolution.is_resolved}
    correct = resolved & TRUTH
    precision = len(correct) / len(resolved)
    recall = len(correct) / len(TRUTH)
    print(
        f"\nfixture call graph: {len(TRUTH)} true edges, {len(resolved)} resolved, "
        f"precision {precision:.3f}, recall {recall:.3f}, {len(AMBIGUOUS)} calls left ambiguous"
    )
    assert resolved - TRUTH == set(), "wrongly resolved edges"
    assert precision == 1.0
    assert recall >= 0.9

    ambiguous: dict[tuple[str, str], set[str]] = {}
    for e in edges:
        if e.resolution is Resolution.AMBIGUOUS:
            ambiguous.setdefault((e.caller_id, e.callee_name), set()).add(e.callee_id)
            assert e.candidates == len(AMBIGUOUS[(e.caller_id, e.callee_name)])
    assert ambiguous == AMBIGUOUS

    external = {(e.caller_id, e.callee_name) for e in edges if e.resolution is Resolution.EXTERNAL}
    assert external == EXTERNAL


def test_exact_callers_and_callees_on_the_fixture(engine, repo):
    load(engine, repo, fixture_files())

    def callers(ref: SymbolRef) -> set[str]:
        return {n.symbol.id for n in engine.callers(repo, ref).nodes}

    def callees(ref: SymbolRef) -> set[str]:
        return {n.symbol.id for n in engine.callees(repo, ref).nodes}

    assert callers(SymbolRef(id=sid(D, "insert"))) == {
        sid(M, "User.save"),
        sid(M, "Order.save"),
        sid(C, "main"),
    }
    assert callers(SymbolRef(id=sid(X, "insert"))) == {sid(X, "test_register")}
    assert callers(SymbolRef(id=sid(U, "log"))) == {sid(D, "insert"), sid(A, "audit")}
    assert callers(SymbolRef(id=sid(U, "format_name"))) == {sid(S, "register")}
    assert callers(SymbolRef(id=sid(T, "format_name"))) == {sid(T, "clean")}
    # `user.save()` / `order.save()` could be either class's method: not definite callers of either ...
    assert callers(SymbolRef(id=sid(M, "User.save"))) == set()
    # ... but both are reported as possible callers when asked for.
    possible = engine.callers(repo, SymbolRef(id=sid(M, "User.save")), include_ambiguous=True)
    assert {n.symbol.id for n in possible.nodes} == {sid(S, "register"), sid(S, "checkout")}
    assert callees(SymbolRef(name="register")) == {sid(U, "format_name"), sid(M, "User"), sid(A, "audit")}
    assert callees(SymbolRef(name="User.save")) == {sid(M, "User.validate"), sid(D, "insert")}
    assert callees(SymbolRef(name="main")) == {sid(S, "register"), sid(D, "insert")}
    # Both `save` methods stay possible callees of register, marked ambiguous.
    maybe = engine.callees(repo, SymbolRef(name="register"), include_ambiguous=True)
    assert {e.callee_id for e in maybe.edges if e.resolution is Resolution.AMBIGUOUS} == {
        sid(M, "User.save"),
        sid(M, "Order.save"),
    }
