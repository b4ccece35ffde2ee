"""resolve_imports: import specs to repo files, per language, including the edge cases."""

from __future__ import annotations

import pytest

from kit.domain import Import
from services.indexer.domain.imports import FileIndex, read_go_module, resolve_imports


def resolve(
    language: str,
    path: str,
    target: str,
    files: set[str],
    names: tuple[str, ...] = (),
    **kwargs: str,
) -> list[tuple[tuple[str, ...], str, bool]]:
    """(names, resolved_path, external) of each import the single spec resolves to."""
    resolved = resolve_imports(
        [Import(path=path, target=target, names=names, line=1)], language, files, **kwargs
    )
    assert all(item.path == path and item.target == target and item.line == 1 for item in resolved)
    return [(item.names, item.resolved_path, item.external) for item in resolved]


PY = {"app/__init__.py", "app/models.py", "app/api/__init__.py", "app/api/routes.py", "app/api/deps.py",
      "src/lib/__init__.py", "src/lib/core.py", "backend/svc/__init__.py", "backend/svc/db.py",
      "backend/main.py", "tools/helpers.py", "tools/run.py"}  # fmt: skip


@pytest.mark.parametrize(
    ("path", "target", "names", "expected"),
    [
        ("app/api/routes.py", ".deps", ("get_db",), [(("get_db",), "app/api/deps.py", False)]),
        ("app/api/routes.py", "..models", ("User",), [(("User",), "app/models.py", False)]),
        ("app/api/routes.py", "..", ("models",), [(("models",), "app/models.py", False)]),
        ("app/api/routes.py", ".", ("deps", "routes"),
         [(("deps",), "app/api/deps.py", False), (("routes",), "app/api/routes.py", False)]),
        ("app/api/__init__.py", ".routes", ("router",), [(("router",), "app/api/routes.py", False)]),
        ("app/api/routes.py", ".", ("VERSION",), [(("VERSION",), "app/api/__init__.py", False)]),
        ("app/api/routes.py", ".missing", ("x",), [(("x",), "", False)]),
        ("app/models.py", "....", ("x",), [(("x",), "", False)]),
        ("app/api/routes.py", "app.models", ("User",), [(("User",), "app/models.py", False)]),
        ("app/api/routes.py", "app.api", (), [((), "app/api/__init__.py", False)]),
        ("app/api/routes.py", "app", ("models", "missing"),
         [(("missing",), "app/__init__.py", False), (("models",), "app/models.py", False)]),
        ("app/models.py", "lib.core", ("run",), [(("run",), "src/lib/core.py", False)]),
        ("backend/main.py", "svc.db", ("Session",), [(("Session",), "backend/svc/db.py", False)]),
        ("tools/run.py", "helpers", (), [((), "tools/helpers.py", False)]),
        ("app/models.py", "os.path", ("join",), [(("join",), "", True)]),
        ("app/models.py", "pydantic", ("BaseModel",), [(("BaseModel",), "", True)]),
        ("app/models.py", ".", ("*",), [(("*",), "app/__init__.py", False)]),
    ],
)  # fmt: skip
def test_python_imports(path: str, target: str, names: tuple[str, ...], expected: list):
    assert resolve("python", path, target, PY, names) == expected


TS = {"web/src/api.ts", "web/src/ui/Button.tsx", "web/src/ui/index.ts", "web/src/legacy.js",
      "web/src/Card.vue", "web/src/data.json", "web/src/types.d.ts", "src/store.ts",
      "web/lib/util.mjs"}  # fmt: skip


@pytest.mark.parametrize(
    ("language", "path", "target", "resolved", "external"),
    [
        ("typescript", "web/src/main.ts", "./api", "web/src/api.ts", False),
        ("typescript", "web/src/main.ts", "./api.js", "web/src/api.ts", False),  # ESM names the emitted file
        ("typescript", "web/src/main.ts", "./ui", "web/src/ui/index.ts", False),
        ("tsx", "web/src/ui/Page.tsx", "./Button", "web/src/ui/Button.tsx", False),
        ("tsx", "web/src/ui/Page.tsx", "../legacy", "web/src/legacy.js", False),
        ("vue", "web/src/App.vue", "./Card.vue", "web/src/Card.vue", False),
        ("javascript", "web/src/x.js", "./data.json", "web/src/data.json", False),
        ("typescript", "web/src/x.ts", "./types", "web/src/types.d.ts", False),
        ("javascript", "web/src/x.js", "../lib/util", "web/lib/util.mjs", False),
        ("typescript", "web/src/x.ts", "@/store", "src/store.ts", False),
        ("typescript", "web/src/x.ts", "./nope", "", False),
        ("typescript", "web/src/x.ts", "../../../../outside", "", False),
        ("typescript", "web/src/x.ts", "react", "", True),
        ("typescript", "web/src/x.ts", "@angular/core", "", True),
    ],
)
def test_script_imports(language: str, path: str, target: str, resolved: str, external: bool):
    assert resolve(language, path, target, TS) == [((), resolved, external)]


GO = {"go.mod", "internal/store/store.go", "internal/store/a_test.go", "internal/store/memory.go",
      "pkg/only/only_test.go", "svc/go.mod", "svc/api/api.go"}  # fmt: skip


@pytest.mark.parametrize(
    ("target", "kwargs", "resolved", "external"),
    [
        (
            "example.com/shop/internal/store",
            {"go_module": "example.com/shop"},
            "internal/store/memory.go",
            False,
        ),
        ("example.com/shop/pkg/only", {"go_module": "example.com/shop"}, "pkg/only/only_test.go", False),
        ("example.com/shop/missing", {"go_module": "example.com/shop"}, "", False),
        ("example.com/shopping/x", {"go_module": "example.com/shop"}, "", True),
        ("fmt", {"go_module": "example.com/shop"}, "", True),
        ("internal/store", {}, "", True),
        (
            "example.com/svc/api",
            {"go_module": "example.com/svc", "go_module_dir": "svc"},
            "svc/api/api.go",
            False,
        ),
    ],
)
def test_go_imports(target: str, kwargs: dict, resolved: str, external: bool):
    assert resolve("go", "cmd/main.go", target, GO, **kwargs) == [((), resolved, external)]


def test_read_go_module():
    assert read_go_module("// comment\nmodule example.com/shop\n\ngo 1.22\n") == "example.com/shop"
    assert read_go_module('module "example.com/quoted"\n') == "example.com/quoted"
    assert read_go_module("go 1.22\n") is None


E = "crates/e/src"
RUST = {f"{E}/lib.rs", f"{E}/geo.rs", f"{E}/geo/shapes.rs", f"{E}/util/mod.rs", f"{E}/util/fmt.rs",
        f"{E}/main.rs", "src/lib.rs", "src/net.rs"}  # fmt: skip


@pytest.mark.parametrize(
    ("path", "target", "names", "expected"),
    [
        (f"{E}/lib.rs", "self::geo", (), [((), f"{E}/geo.rs", False)]),  # mod geo;
        (f"{E}/lib.rs", "self::util", (), [((), f"{E}/util/mod.rs", False)]),
        (f"{E}/geo.rs", "self::shapes", (), [((), f"{E}/geo/shapes.rs", False)]),
        (f"{E}/util/mod.rs", "self::fmt", (), [((), f"{E}/util/fmt.rs", False)]),
        (f"{E}/main.rs", "crate::geo", ("Point",), [(("Point",), f"{E}/geo.rs", False)]),
        (f"{E}/main.rs", "crate::geo", ("shapes",), [(("shapes",), f"{E}/geo/shapes.rs", False)]),
        (f"{E}/main.rs", "crate::geo::shapes", ("Circle",),
         [(("Circle",), f"{E}/geo/shapes.rs", False)]),
        (f"{E}/main.rs", "crate", ("util", "geo"),
         [(("util",), f"{E}/util/mod.rs", False), (("geo",), f"{E}/geo.rs", False)]),
        (f"{E}/util/fmt.rs", "super", ("helper",), [(("helper",), f"{E}/util/mod.rs", False)]),
        (f"{E}/geo/shapes.rs", "super::super::util", ("x",), [(("x",), f"{E}/util/mod.rs", False)]),
        (f"{E}/main.rs", "geo::shapes", (), [((), f"{E}/geo/shapes.rs", False)]),
        ("src/lib.rs", "crate::net", ("Socket",), [(("Socket",), "src/net.rs", False)]),
        ("src/lib.rs", "crate::nothing", ("X",), [(("X",), "", False)]),
        (f"{E}/lib.rs", "std::collections", ("HashMap",), [(("HashMap",), "", True)]),
        (f"{E}/lib.rs", "serde", ("Deserialize",), [(("Deserialize",), "", True)]),
    ],
)  # fmt: skip
def test_rust_imports(path: str, target: str, names: tuple[str, ...], expected: list):
    assert resolve("rust", path, target, RUST, names) == expected


JVM = {"app/src/main/java/com/shop/model/User.java", "app/src/main/java/com/shop/model/Role.java",
       "kt/src/main/kotlin/com/shop/Repo.kt", "sc/src/main/scala/shop/Ledger.scala"}  # fmt: skip


@pytest.mark.parametrize(
    ("language", "target", "names", "resolved", "external"),
    [
        ("java", "com.shop.model.User", (), "app/src/main/java/com/shop/model/User.java", False),
        (
            "java",
            "com.shop.model.User.ADMIN",
            (),
            "app/src/main/java/com/shop/model/User.java",
            False,
        ),  # static
        ("java", "com.shop.model", ("*",), "app/src/main/java/com/shop/model/Role.java", False),
        ("java", "java.util.List", (), "", True),
        ("java", "org.other.model.User", (), "", True),
        ("kotlin", "com.shop.Repo", (), "kt/src/main/kotlin/com/shop/Repo.kt", False),
        ("scala", "shop.Ledger", (), "sc/src/main/scala/shop/Ledger.scala", False),
    ],
)
def test_jvm_imports(language: str, target: str, names: tuple[str, ...], resolved: str, external: bool):
    assert resolve(language, "x/Main.java", target, JVM, names) == [(names, resolved, external)]


PHP = {"app/Models/User.php", "src/Support/Money.php", "public/index.php", "bootstrap/app.php"}


@pytest.mark.parametrize(
    ("path", "target", "names", "expected"),
    [
        ("public/index.php", "App\\Models\\User", (), [((), "app/Models/User.php", False)]),
        ("public/index.php", "Acme\\Support\\Money", (), [((), "src/Support/Money.php", False)]),
        ("public/index.php", "App\\Models", ("User", "Post"),
         [(("User",), "app/Models/User.php", False), (("Post",), "", True)]),
        ("public/index.php", "Illuminate\\Http\\Request", (), [((), "", True)]),
        ("public/index.php", "../bootstrap/app.php", (), [((), "bootstrap/app.php", False)]),
        ("public/index.php", "./missing.php", (), [((), "", False)]),
    ],
)  # fmt: skip
def test_php_imports(path: str, target: str, names: tuple[str, ...], expected: list):
    assert resolve("php", path, target, PHP, names) == expected


C = {"src/vec.c", "src/vec.h", "include/shop/api.h", "lib/only.h", "a/dup.h", "b/dup.h"}


@pytest.mark.parametrize(
    ("target", "resolved", "external"),
    [
        ("vec.h", "src/vec.h", False),
        ("shop/api.h", "include/shop/api.h", False),
        ("only.h", "lib/only.h", False),
        ("dup.h", "", True),  # ambiguous
        ("<stdio.h>", "", True),
        ("zlib.h", "", True),
    ],
)
def test_c_includes(target: str, resolved: str, external: bool):
    assert resolve("c", "src/vec.c", target, C) == [((), resolved, external)]
    assert resolve("cpp", "src/vec.c", target, C) == [((), resolved, external)]


OTHER = {"lib/shop.rb", "lib/shop/greeter.rb", "lua/app/util.lua", "lua/app/init.lua", "scripts/lib.sh",
         "zig/src/math.zig", "web/styles/reset.css", "web/src/app.js", "web/index.html"}  # fmt: skip


@pytest.mark.parametrize(
    ("language", "path", "target", "resolved", "external"),
    [
        ("ruby", "lib/shop.rb", "./shop/greeter", "lib/shop/greeter.rb", False),
        ("ruby", "bin/run.rb", "shop/greeter", "lib/shop/greeter.rb", False),
        ("ruby", "lib/shop.rb", "json", "", True),
        ("lua", "lua/main.lua", "app.util", "lua/app/util.lua", False),
        ("lua", "lua/main.lua", "app", "lua/app/init.lua", False),
        ("lua", "lua/main.lua", "socket", "", True),
        ("bash", "scripts/deploy.sh", "./lib.sh", "scripts/lib.sh", False),
        ("bash", "scripts/deploy.sh", '$(dirname "$0")/lib.sh', "scripts/lib.sh", False),
        ("bash", "scripts/deploy.sh", "lib", "scripts/lib.sh", False),
        ("zig", "zig/src/main.zig", "math.zig", "zig/src/math.zig", False),
        ("zig", "zig/src/main.zig", "std", "", True),
        ("css", "web/styles/main.css", "reset.css", "web/styles/reset.css", False),
        ("html", "web/index.html", "src/app.js", "web/src/app.js", False),
        ("html", "web/index.html", "/src/app.js", "", False),
        ("html", "web/index.html", "https://cdn.example.com/x.js", "", True),
        ("swift", "Sources/App.swift", "Foundation", "", True),
        ("csharp", "Program.cs", "System.Linq", "", True),
        ("markdown", "README.md", "anything", "", True),
    ],
)
def test_path_and_module_imports(language: str, path: str, target: str, resolved: str, external: bool):
    assert resolve(language, path, target, OTHER) == [((), resolved, external)]


def test_a_file_index_and_a_plain_set_resolve_alike():
    imports = [Import(path="app/api/routes.py", target=".deps", names=("x",), line=3)]
    assert resolve_imports(imports, "python", FileIndex(PY)) == resolve_imports(
        imports, "python", frozenset(PY)
    )


def test_file_index_is_a_set_of_paths():
    index = FileIndex(["a/b.py", "a/c.py", "d.py"])
    assert (
        "a/b.py" in index
        and "a/x.py" not in index
        and len(index) == 3
        and set(index) == {"a/b.py", "a/c.py", "d.py"}
    )
    assert index.files_in("a") == ["a/b.py", "a/c.py"]
    assert index.files_in("") == ["d.py"]
    assert index.ending_with("b.py") == ["a/b.py"]
