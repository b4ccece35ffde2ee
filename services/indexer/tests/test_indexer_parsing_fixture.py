"""The polyglot fixture parsed file by file: exact chunks, call sites and resolved imports per language.

tests/fixtures/polyglot/ is a small multi-language shop (Python package with relative imports, TS/TSX
importing each other, a Go module, a Rust crate, Java packages, C/C++, Ruby, C#, PHP, Kotlin, Swift,
Scala, Bash, Lua, Zig, Vue, HTML, CSS, TOML, Markdown, JSON, YAML, SQL). Same-named functions live in
different modules (`validate` in pyshop/util.py, pyshop/pricing.py, web/src/models.ts, Go's store).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from kit.domain import ChunkKind
from services.indexer.domain.imports import FileIndex, read_go_module, resolve_imports
from services.indexer.domain.parsing import parse_file

FIXTURE = Path(__file__).resolve().parents[3] / "tests" / "fixtures" / "polyglot"
REPO_FILES = FileIndex(p.relative_to(FIXTURE).as_posix() for p in FIXTURE.rglob("*") if p.is_file())
GO_MODULE = read_go_module((FIXTURE / "go.mod").read_text())

FUNCTION, METHOD, CLASS = ChunkKind.FUNCTION, ChunkKind.METHOD, ChunkKind.CLASS
INTERFACE, ENUM, TYPE = ChunkKind.INTERFACE, ChunkKind.ENUM, ChunkKind.TYPE
MODULE, FILE = ChunkKind.MODULE, ChunkKind.FILE

Chunk = tuple[ChunkKind, str, str, int, int]  # kind, name, qualified name, start line, end line
Call = tuple[str, str, int, str]  # caller's qualified name, callee, line, receiver
Imported = tuple[str, tuple[str, ...], int, str, bool]  # target, names, line, resolved path, external


@dataclass(frozen=True)
class Expected:
    language: str
    chunks: list[Chunk]
    calls: list[Call] = field(default_factory=list)
    imports: list[Imported] = field(default_factory=list)


EXPECTED: dict[str, Expected] = {
    "README.md": Expected(
        language="markdown",
        chunks=[
            (FILE, "README.md", "README.md", 1, 13),
        ],
    ),
    "cmd/server/main.go": Expected(
        language="go",
        chunks=[
            (FUNCTION, "main", "main", 9, 13),
        ],
        calls=[
            ("main", "New", 10, "store"),
            ("main", "Put", 11, "s"),
            ("main", "Println", 12, "fmt"),
            ("main", "Get", 12, "s"),
        ],
        imports=[
            ("fmt", (), 4, "", True),
            ("example.com/polyglot/internal/store", (), 6, "internal/store/store.go", False),
        ],
    ),
    "config/app.json": Expected(
        language="json",
        chunks=[
            (FILE, "app.json", "config/app.json", 1, 5),
        ],
    ),
    "config/settings.yaml": Expected(
        language="yaml",
        chunks=[
            (FILE, "settings.yaml", "config/settings.yaml", 1, 5),
        ],
    ),
    "crates/engine/Cargo.toml": Expected(
        language="toml",
        chunks=[
            (FILE, "Cargo.toml", "crates/engine/Cargo.toml", 1, 6),
        ],
    ),
    "crates/engine/src/geometry.rs": Expected(
        language="rust",
        chunks=[
            (CLASS, "Point", "Point", 1, 5),
            (INTERFACE, "Shape", "Shape", 7, 9),
            (METHOD, "area", "Shape.area", 8, 8),  # a trait's required method is a chunk of its own
            (METHOD, "new", "Point.new", 12, 14),
            (ENUM, "Kind", "Kind", 17, 20),
        ],
    ),
    "crates/engine/src/lib.rs": Expected(
        language="rust",
        chunks=[
            (CLASS, "Engine", "Engine", 9, 12),
            (METHOD, "new", "Engine.new", 15, 17),
            (METHOD, "price", "Engine.price", 19, 21),
            (FUNCTION, "origin", "origin", 24, 26),
        ],
        calls=[
            ("Engine.new", "new", 16, "HashMap"),
            ("Engine.price", "validate", 20, "util"),
            ("Engine.price", "get", 20, "self.prices"),
            ("Engine.price", "unwrap_or", 20, "self.prices.get(name)"),
            ("origin", "new", 25, "Point"),
        ],
        imports=[
            ("self::geometry", (), 3, "crates/engine/src/geometry.rs", False),
            ("self::util", (), 4, "crates/engine/src/util/mod.rs", False),
            ("crate::geometry", ("Point",), 6, "crates/engine/src/geometry.rs", False),
            ("std::collections", ("HashMap",), 7, "", True),
        ],
    ),
    "crates/engine/src/util/mod.rs": Expected(
        language="rust",
        chunks=[
            (FUNCTION, "validate", "validate", 1, 3),
            (FUNCTION, "clamps_negative", "tests.clamps_negative", 7, 10),
        ],
        calls=[
            ("validate", "max", 2, "value"),
        ],
    ),
    "db/schema.sql": Expected(
        language="sql",
        chunks=[
            (FILE, "schema.sql", "db/schema.sql", 1, 6),
        ],
    ),
    "dotnet/Services/OrderService.cs": Expected(
        language="csharp",
        chunks=[
            (CLASS, "OrderService", "OrderService", 6, 17),
            (METHOD, "Add", "OrderService.Add", 11, 14),
            (METHOD, "Validate", "OrderService.Validate", 16, 16),
            (INTERFACE, "IOrderService", "IOrderService", 19, 22),
            (METHOD, "Add", "IOrderService.Add", 21, 21),  # interface members are chunks of their own
        ],
        calls=[
            ("OrderService", "List", 9, ""),
            ("OrderService.Add", "Add", 13, "_prices"),
            ("OrderService.Add", "Validate", 13, ""),
            ("OrderService.Validate", "Max", 16, "Math"),
        ],
        imports=[
            ("System", (), 1, "", True),
            ("System.Collections.Generic", (), 2, "", True),
        ],
    ),
    "go.mod": Expected(
        language="text",
        chunks=[
            (FILE, "go.mod", "go.mod", 1, 3),
        ],
    ),
    "internal/store/store.go": Expected(
        language="go",
        chunks=[
            (CLASS, "Store", "Store", 4, 7),
            (INTERFACE, "Reader", "Reader", 9, 12),
            (FUNCTION, "New", "New", 14, 17),
            (METHOD, "Put", "Store.Put", 19, 22),
            (METHOD, "Get", "Store.Get", 24, 27),
            (FUNCTION, "validate", "validate", 29, 34),
        ],
        calls=[
            ("Store.Put", "validate", 21, ""),
        ],
    ),
    "internal/store/store_test.go": Expected(
        language="go",
        chunks=[
            (FUNCTION, "TestPut", "TestPut", 5, 11),
        ],
        calls=[
            ("TestPut", "New", 6, ""),
            ("TestPut", "Put", 7, "s"),
            ("TestPut", "Get", 8, "s"),
            ("TestPut", "Fatal", 9, "t"),
        ],
        imports=[
            ("testing", (), 3, "", True),
        ],
    ),
    "java/src/main/java/com/polyglot/app/App.java": Expected(
        language="java",
        chunks=[
            (CLASS, "App", "App", 6, 23),
            (METHOD, "App", "App.App", 10, 12),
            (METHOD, "greet", "App.greet", 14, 17),
            (METHOD, "main", "App.main", 19, 22),
        ],
        calls=[
            ("App.greet", "get", 15, "users"),
            ("App.greet", "displayName", 16, "user"),
            ("App.main", "App", 20, ""),
            ("App.main", "of", 20, "List"),
            ("App.main", "User", 20, ""),
            ("App.main", "println", 21, "System.out"),
            ("App.main", "greet", 21, "app"),
        ],
        imports=[
            ("com.polyglot.model.User", (), 3, "java/src/main/java/com/polyglot/model/User.java", False),
            ("java.util.List", (), 4, "", True),
        ],
    ),
    "java/src/main/java/com/polyglot/model/User.java": Expected(
        language="java",
        chunks=[
            (CLASS, "User", "User", 3, 18),
            (METHOD, "User", "User.User", 6, 8),
            (METHOD, "displayName", "User.displayName", 10, 12),
            (ENUM, "Role", "User.Role", 14, 17),
        ],
        calls=[
            ("User.displayName", "toUpperCase", 11, "name"),
        ],
    ),
    "kotlin/src/main/kotlin/com/polyglot/Inventory.kt": Expected(
        language="kotlin",
        chunks=[
            (CLASS, "Inventory", "Inventory", 5, 13),
            (METHOD, "add", "Inventory.add", 8, 10),
            (METHOD, "total", "Inventory.total", 12, 12),
        ],
        calls=[
            ("Inventory", "mutableListOf", 6, ""),
            ("Inventory.add", "add", 9, "items"),
            ("Inventory.total", "sumOf", 12, "items"),
        ],
        imports=[
            ("com.polyglot.model.Item", (), 3, "kotlin/src/main/kotlin/com/polyglot/model/Item.kt", False),
        ],
    ),
    "kotlin/src/main/kotlin/com/polyglot/model/Item.kt": Expected(
        language="kotlin",
        chunks=[
            (CLASS, "Item", "Item", 3, 3),
        ],
    ),
    "lua/app/util.lua": Expected(
        language="lua",
        chunks=[
            (METHOD, "clamp", "M.clamp", 3, 5),
        ],
        calls=[
            ("M.clamp", "max", 4, "math"),
            ("M.clamp", "min", 4, "math"),
        ],
    ),
    "lua/main.lua": Expected(
        language="lua",
        chunks=[
            (FUNCTION, "run", "run", 3, 5),
            (MODULE, "main.lua", "lua/main.lua", 7, 7),
        ],
        calls=[
            ("run", "print", 4, ""),
            ("run", "clamp", 4, "util"),
            ("lua/main.lua", "run", 7, ""),
        ],
        imports=[
            ("app.util", (), 1, "lua/app/util.lua", False),
        ],
    ),
    "native/c/vec.c": Expected(
        language="c",
        chunks=[
            (FUNCTION, "vec_dot", "vec_dot", 4, 6),
            (FUNCTION, "vec_length", "vec_length", 8, 11),
        ],
        calls=[
            ("vec_length", "sqrt", 10, ""),
            ("vec_length", "vec_dot", 10, ""),
        ],
        imports=[
            ("<math.h>", (), 1, "", True),
            ("vec.h", (), 2, "native/c/vec.h", False),
        ],
    ),
    "native/c/vec.h": Expected(
        language="c",
        chunks=[
            (TYPE, "Vec", "Vec", 4, 7),
        ],
    ),
    "native/cpp/shape.cpp": Expected(
        language="cpp",
        chunks=[
            (FUNCTION, "square", "square", 7, 7),
            (METHOD, "area", "Circle.area", 9, 10),
        ],
        calls=[
            ("Circle.area", "square", 10, ""),
        ],
        imports=[
            ("shape.hpp", (), 1, "native/cpp/shape.hpp", False),
            ("<cmath>", (), 3, "", True),
        ],
    ),
    "native/cpp/shape.hpp": Expected(
        language="cpp",
        chunks=[
            (CLASS, "Shape", "Shape", 5, 9),
            (METHOD, "~Shape", "Shape.~Shape", 7, 7),
            (CLASS, "Circle", "Circle", 11, 18),
            (METHOD, "Circle", "Circle.Circle", 13, 13),
        ],
    ),
    "php/src/Models/Product.php": Expected(
        language="php",
        chunks=[
            (CLASS, "Product", "Product", 7, 17),
            (METHOD, "__construct", "Product.__construct", 9, 11),
            (METHOD, "label", "Product.label", 13, 16),
        ],
        calls=[
            ("Product.label", "format", 15, "Money"),
        ],
        imports=[
            ("App\\Support\\Money", (), 5, "php/src/Support/Money.php", False),
        ],
    ),
    "php/src/Support/Money.php": Expected(
        language="php",
        chunks=[
            (CLASS, "Money", "Money", 5, 11),
            (METHOD, "format", "Money.format", 7, 10),
        ],
        calls=[
            ("Money.format", "number_format", 9, ""),
        ],
    ),
    "pyshop/__init__.py": Expected(
        language="python",
        chunks=[
            (FILE, "__init__.py", "pyshop/__init__.py", 1, 6),
        ],
        imports=[
            (".models", ("Order",), 3, "pyshop/models.py", False),
            (".pricing", ("total",), 4, "pyshop/pricing.py", False),
        ],
    ),
    "pyshop/models.py": Expected(
        language="python",
        chunks=[
            (CLASS, "Order", "Order", 8, 19),
            (METHOD, "add", "Order.add", 14, 16),
            (METHOD, "count", "Order.count", 18, 19),
        ],
        calls=[
            ("Order", "field", 12, ""),
            ("Order.add", "validate", 15, ""),
            ("Order.add", "append", 16, "self.items"),
            ("Order.count", "len", 19, ""),
        ],
        imports=[
            ("dataclasses", ("dataclass", "field"), 3, "", True),
            (".util", ("validate",), 5, "pyshop/util.py", False),
        ],
    ),
    "pyshop/pricing.py": Expected(
        language="python",
        chunks=[
            (MODULE, "pricing.py", "pyshop/pricing.py", 1, 8),
            (FUNCTION, "validate", "validate", 11, 13),
            (FUNCTION, "total", "total", 16, 19),
            (FUNCTION, "report", "report", 22, 23),
        ],
        calls=[
            ("pyshop/pricing.py", "Order", 8, ""),
            ("validate", "count", 13, "order"),
            ("total", "validate", 17, ""),
            ("total", "sum", 18, ""),
            ("total", "format_price", 19, ""),
            ("total", "ceil", 19, "math"),
            ("report", "format_price", 23, "util"),
            ("report", "len", 23, ""),
        ],
        imports=[
            ("math", (), 1, "", True),
            (".", ("util",), 3, "pyshop/util.py", False),
            (".models", ("Order",), 4, "pyshop/models.py", False),
            ("pyshop.util", ("format_price",), 5, "pyshop/util.py", False),
        ],
    ),
    "pyshop/util.py": Expected(
        language="python",
        chunks=[
            (FUNCTION, "validate", "validate", 1, 5),
            (FUNCTION, "format_price", "format_price", 8, 9),
        ],
        calls=[
            ("validate", "ValueError", 4, ""),
        ],
    ),
    "ruby/lib/shop.rb": Expected(
        language="ruby",
        chunks=[
            (METHOD, "greet", "Shop.greet", 7, 9),
        ],
        calls=[
            ("Shop.greet", "new", 8, "Greeter"),
            ("Shop.greet", "greet", 8, "Greeter.new(name)"),
        ],
        imports=[
            ("json", (), 1, "", True),
            ("./shop/greeter", (), 2, "ruby/lib/shop/greeter.rb", False),
        ],
    ),
    "ruby/lib/shop/greeter.rb": Expected(
        language="ruby",
        chunks=[
            (CLASS, "Greeter", "Shop.Greeter", 2, 17),
            (METHOD, "initialize", "Shop.Greeter.initialize", 4, 6),
            (METHOD, "greet", "Shop.Greeter.greet", 8, 10),
            (METHOD, "format_name", "Shop.Greeter.format_name", 14, 16),
        ],
        calls=[
            ("Shop.Greeter.format_name", "capitalize", 15, "@name"),
        ],
    ),
    "scala/src/main/scala/shop/Ledger.scala": Expected(
        language="scala",
        chunks=[
            (CLASS, "Ledger", "Ledger", 5, 13),
            (METHOD, "record", "Ledger.record", 8, 10),
            (METHOD, "balance", "Ledger.balance", 12, 12),
            (CLASS, "Ledger", "Ledger", 15, 17),
            (METHOD, "empty", "Ledger.empty", 16, 16),
        ],
        calls=[
            ("Ledger.balance", "map", 12, "entries"),
            ("Ledger.empty", "Ledger", 16, ""),
        ],
        imports=[
            ("shop.model.Entry", (), 3, "scala/src/main/scala/shop/model/Entry.scala", False),
        ],
    ),
    "scala/src/main/scala/shop/model/Entry.scala": Expected(
        language="scala",
        chunks=[
            (CLASS, "Entry", "Entry", 3, 3),
        ],
    ),
    "scripts/deploy.sh": Expected(
        language="bash",
        chunks=[
            (MODULE, "deploy.sh", "scripts/deploy.sh", 1, 3),
            (FUNCTION, "deploy", "deploy", 5, 9),
            (MODULE, "deploy.sh", "scripts/deploy.sh", 11, 11),
        ],
        calls=[
            ("scripts/deploy.sh", "set", 2, ""),
            ("scripts/deploy.sh", "source", 3, ""),
            ("scripts/deploy.sh", "dirname", 3, ""),
            ("deploy", "log", 7, ""),
            ("deploy", "docker", 8, ""),
            ("scripts/deploy.sh", "deploy", 11, ""),
        ],
        imports=[
            ('$(dirname "$0")/lib.sh', (), 3, "scripts/lib.sh", False),
        ],
    ),
    "scripts/lib.sh": Expected(
        language="bash",
        chunks=[
            (FUNCTION, "log", "log", 1, 3),
        ],
        calls=[
            ("log", "echo", 2, ""),
        ],
    ),
    "swift/Sources/Shop/Cart.swift": Expected(
        language="swift",
        chunks=[
            (INTERFACE, "Priced", "Priced", 3, 5),
            (CLASS, "Cart", "Cart", 7, 13),
            (METHOD, "total", "Cart.total", 10, 12),
            (METHOD, "add", "Cart.add", 16, 18),
        ],
        calls=[
            ("Cart.total", "reduce", 11, "items"),
            ("Cart.add", "append", 17, "items"),
        ],
        imports=[
            ("Foundation", (), 1, "", True),
        ],
    ),
    "tests/test_pricing.py": Expected(
        language="python",
        chunks=[
            (FUNCTION, "test_total_adds_tax", "test_total_adds_tax", 5, 8),
        ],
        calls=[
            ("test_total_adds_tax", "Order", 6, ""),
            ("test_total_adds_tax", "add", 7, "order"),
            ("test_total_adds_tax", "total", 8, ""),
        ],
        imports=[
            ("pyshop.models", ("Order",), 1, "pyshop/models.py", False),
            ("pyshop.pricing", ("total",), 2, "pyshop/pricing.py", False),
        ],
    ),
    "web/index.html": Expected(
        language="html",
        chunks=[
            (MODULE, "index.html", "web/index.html", 1, 9),
            (FUNCTION, "boot", "boot", 11, 13),
            (MODULE, "index.html", "web/index.html", 14, 17),
        ],
        calls=[
            ("boot", "getElementById", 12, "document"),
            ("web/index.html", "boot", 14, ""),
        ],
        imports=[
            ("styles/main.css", (), 5, "web/styles/main.css", False),
            ("src/legacy.js", (), 6, "web/src/legacy.js", False),
        ],
    ),
    "web/src/api.ts": Expected(
        language="typescript",
        chunks=[
            (CLASS, "ShopClient", "ShopClient", 5, 17),
            (METHOD, "constructor", "ShopClient.constructor", 7, 7),
            (METHOD, "items", "ShopClient.items", 9, 12),
            (METHOD, "label", "ShopClient.label", 14, 16),
            (FUNCTION, "createClient", "createClient", 19, 19),
        ],
        calls=[
            ("ShopClient.items", "get", 10, "axios"),
            ("ShopClient.items", "filter", 11, "response.data"),
            ("ShopClient.label", "formatPrice", 15, ""),
            ("createClient", "ShopClient", 19, ""),
        ],
        imports=[
            ("./models", ("Item", "validate"), 1, "web/src/models.ts", False),
            ("./format", ("formatPrice",), 2, "web/src/format.ts", False),
            ("axios", ("axios",), 3, "", True),
        ],
    ),
    "web/src/components/CartView.tsx": Expected(
        language="tsx",
        chunks=[
            (TYPE, "Props", "Props", 5, 5),
            (FUNCTION, "CartView", "CartView", 7, 17),
            (FUNCTION, "CartLine", "CartLine", 19, 21),
        ],
        calls=[
            ("CartView", "reduce", 8, "items"),
            ("CartView", "map", 11, "items"),
            ("CartView", "CartLine", 12, ""),
            ("CartView", "formatPrice", 14, ""),
        ],
        imports=[
            ("react", ("React",), 1, "", True),
            ("../models", ("Item",), 2, "web/src/models.ts", False),
            ("../format", ("formatPrice",), 3, "web/src/format.ts", False),
        ],
    ),
    "web/src/components/Counter.vue": Expected(
        language="vue",
        chunks=[
            (MODULE, "Counter.vue", "web/src/components/Counter.vue", 1, 9),
            (FUNCTION, "increment", "increment", 11, 14),
            (MODULE, "Counter.vue", "web/src/components/Counter.vue", 17, 19),
        ],
        calls=[
            ("web/src/components/Counter.vue", "ref", 9, ""),
            ("increment", "log", 13, "console"),
            ("increment", "formatPrice", 13, ""),
        ],
        imports=[
            ("vue", ("ref",), 6, "", True),
            ("../format", ("formatPrice",), 7, "web/src/format.ts", False),
        ],
    ),
    "web/src/format.ts": Expected(
        language="typescript",
        chunks=[
            (FUNCTION, "formatPrice", "formatPrice", 1, 3),
        ],
        calls=[
            ("formatPrice", "toFixed", 2, "(cents / 100)"),
        ],
    ),
    "web/src/legacy.js": Expected(
        language="javascript",
        chunks=[
            (FUNCTION, "legacyTotal", "legacyTotal", 3, 5),
        ],
        calls=[
            ("legacyTotal", "formatPrice", 4, ""),
            ("legacyTotal", "reduce", 4, "prices"),
        ],
        imports=[
            ("./format", ("formatPrice",), 1, "web/src/format.ts", False),
        ],
    ),
    "web/src/models.ts": Expected(
        language="typescript",
        chunks=[
            (INTERFACE, "Item", "Item", 1, 4),
            (TYPE, "Cart", "Cart", 6, 6),
            (ENUM, "Currency", "Currency", 8, 11),
            (FUNCTION, "validate", "validate", 13, 15),
        ],
    ),
    "web/styles/main.css": Expected(
        language="css",
        chunks=[
            (FILE, "main.css", "web/styles/main.css", 1, 9),
        ],
        imports=[
            ("reset.css", (), 1, "web/styles/reset.css", False),
        ],
    ),
    "web/styles/reset.css": Expected(
        language="css",
        chunks=[
            (FILE, "reset.css", "web/styles/reset.css", 1, 3),
        ],
    ),
    "zig/src/main.zig": Expected(
        language="zig",
        chunks=[
            (CLASS, "Point", "Point", 4, 11),
            (METHOD, "clamped", "Point.clamped", 8, 10),
            (FUNCTION, "main", "main", 13, 16),
            (FUNCTION, "clamps", "clamps", 18, 20),
        ],
        calls=[
            ("Point.clamped", "clamp", 9, "math"),
            ("main", "print", 15, ""),
            ("main", "clamped", 15, "p"),
            ("clamps", "expect", 19, ""),
            ("clamps", "clamp", 19, "math"),
        ],
        imports=[
            ("std", (), 1, "", True),
            ("math.zig", (), 2, "zig/src/math.zig", False),
        ],
    ),
    "zig/src/math.zig": Expected(
        language="zig",
        chunks=[
            (FUNCTION, "clamp", "clamp", 1, 3),
        ],
    ),
}


def _parse(path: str):
    return parse_file("polyglot", path, (FIXTURE / path).read_bytes())


def test_every_fixture_file_has_expectations():
    assert sorted(EXPECTED) == sorted(REPO_FILES)


def test_fixture_covers_the_required_languages():
    languages = {expected.language for expected in EXPECTED.values()}
    required = {"python", "typescript", "tsx", "javascript", "go", "rust", "java", "c", "cpp", "csharp",
                "ruby", "php", "kotlin", "swift", "scala", "bash", "lua", "zig", "vue", "html", "css", "toml",
                "markdown", "json", "yaml", "sql"}  # fmt: skip
    assert required <= languages


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_fixture_file_chunks(path: str):
    parsed = _parse(path)
    expected = EXPECTED[path]
    assert parsed.language == expected.language
    assert parsed.warnings == ()
    assert [
        (c.kind, c.name, c.qualified_name, c.start_line, c.end_line) for c in parsed.chunks
    ] == expected.chunks


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_fixture_file_call_sites(path: str):
    parsed = _parse(path)
    by_id = {chunk.id: chunk.qualified_name for chunk in parsed.chunks}
    calls = [(by_id[s.caller_id], s.callee_name, s.line, s.receiver) for s in parsed.call_sites]
    assert calls == EXPECTED[path].calls


@pytest.mark.parametrize("path", sorted(EXPECTED))
def test_fixture_file_resolved_imports(path: str):
    parsed = _parse(path)
    resolved = resolve_imports(parsed.imports, parsed.language, REPO_FILES, go_module=GO_MODULE)
    assert all(item.path == path for item in resolved)
    assert [(i.target, i.names, i.line, i.resolved_path, i.external) for i in resolved] == EXPECTED[
        path
    ].imports
