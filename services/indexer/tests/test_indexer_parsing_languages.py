"""Every supported language: one snippet each, its definitions extracted with the right kind, name and lines;
plus language detection and test-file recognition."""

from __future__ import annotations

import textwrap

import pytest

from kit.domain import ChunkKind
from kit.paths import is_test_path
from services.indexer.domain.languages import CODE_LANGUAGES, detect_language
from services.indexer.domain.parsing import QUERY_DIR, parse_file

K = ChunkKind

# language → (file name, source, expected (kind, qualified name, start line, end line) chunks, in order)
SMOKE: dict[str, tuple[str, str, list[tuple[ChunkKind, str, int, int]]]] = {
    "python": (
        "m.py",
        """
        class Greeter:
            def hello(self, name):
                return name
        """,
        [(K.CLASS, "Greeter", 1, 3), (K.METHOD, "Greeter.hello", 2, 3)],
    ),
    "typescript": (
        "m.ts",
        """
        export interface Shape { area(): number }
        export function area(s: Shape): number {
          return s.area();
        }
        """,
        [(K.INTERFACE, "Shape", 1, 1), (K.METHOD, "Shape.area", 1, 1), (K.FUNCTION, "area", 2, 4)],
    ),
    "tsx": (
        "m.tsx",
        """
        export function Badge({ label }: { label: string }) {
          return <span>{label}</span>;
        }
        """,
        [(K.FUNCTION, "Badge", 1, 3)],
    ),
    "javascript": (
        "m.js",
        """
        class Counter {
          increment() {
            this.n += 1;
          }
        }
        """,
        [(K.CLASS, "Counter", 1, 5), (K.METHOD, "Counter.increment", 2, 4)],
    ),
    "go": (
        "m.go",
        """
        package m

        type Point struct{ X int }

        func (p Point) Norm() int { return p.X }
        """,
        [(K.CLASS, "Point", 3, 3), (K.METHOD, "Point.Norm", 5, 5)],
    ),
    "rust": (
        "m.rs",
        """
        pub enum Color { Red }
        impl Color {
            pub fn name(&self) -> &str { "red" }
        }
        """,
        [(K.ENUM, "Color", 1, 1), (K.METHOD, "Color.name", 3, 3)],
    ),
    "java": (
        "M.java",
        """
        public interface Repo {
            void save();
        }
        """,
        [(K.INTERFACE, "Repo", 1, 3)],
    ),
    "c": (
        "m.c",
        """
        int add(int a, int b) {
            return a + b;
        }
        """,
        [(K.FUNCTION, "add", 1, 3)],
    ),
    "cpp": (
        "m.cpp",
        """
        class Stack {
         public:
          void push(int v) { items.push_back(v); }
        };
        """,
        [(K.CLASS, "Stack", 1, 4), (K.METHOD, "Stack.push", 3, 3)],
    ),
    "csharp": (
        "M.cs",
        """
        public enum Level { Low, High }
        public record Point(int X, int Y);
        """,
        [(K.ENUM, "Level", 1, 1), (K.CLASS, "Point", 2, 2)],
    ),
    "ruby": (
        "m.rb",
        """
        class Cat
          def meow
            puts "meow"
          end
        end
        """,
        [(K.CLASS, "Cat", 1, 5), (K.METHOD, "Cat.meow", 2, 4)],
    ),
    "php": (
        "m.php",
        """
        <?php
        interface Shape {}
        function area($s) { return $s->area(); }
        """,
        [(K.INTERFACE, "Shape", 2, 2), (K.FUNCTION, "area", 3, 3)],
    ),
    "kotlin": (
        "m.kt",
        """
        enum class Color {
            RED
        }

        fun paint(c: Color) {
            println(c)
        }
        """,
        [(K.ENUM, "Color", 1, 3), (K.FUNCTION, "paint", 5, 7)],
    ),
    "swift": (
        "m.swift",
        """
        enum Suit {
            case hearts
        }
        func deal() -> Suit { return .hearts }
        """,
        [(K.ENUM, "Suit", 1, 3), (K.FUNCTION, "deal", 4, 4)],
    ),
    "scala": (
        "m.scala",
        """
        trait Animal {
          def sound: String
        }
        object Dog extends Animal {
          def sound: String = "woof"
        }
        """,
        [(K.INTERFACE, "Animal", 1, 3), (K.CLASS, "Dog", 4, 6), (K.METHOD, "Dog.sound", 5, 5)],
    ),
    "bash": (
        "m.sh",
        """
        greet() {
          echo "hi $1"
        }
        """,
        [(K.FUNCTION, "greet", 1, 3)],
    ),
    "lua": (
        "m.lua",
        """
        local function square(x)
          return x * x
        end
        """,
        [(K.FUNCTION, "square", 1, 3)],
    ),
    "zig": (
        "m.zig",
        """
        const Color = enum { red, green };
        pub fn add(a: i32, b: i32) i32 {
            return a + b;
        }
        """,
        [(K.ENUM, "Color", 1, 1), (K.FUNCTION, "add", 2, 4)],
    ),
    "vue": (
        "m.vue",
        """
        <script>
        export default {
          methods: {
            save() { this.$emit("save"); }
          }
        }
        </script>
        """,
        [(K.MODULE, "m.vue", 2, 3), (K.FUNCTION, "save", 4, 4)],
    ),
    "html": (
        "m.html",
        """
        <p>Hi</p>
        <script>
          function greet() { alert("hi"); }
        </script>
        """,
        [(K.FUNCTION, "greet", 3, 3)],
    ),
    "css": (
        "m.css",
        """
        .button {
          color: red;
        }
        """,
        [(K.FILE, "m.css", 1, 3)],
    ),
    "toml": (
        "m.toml",
        """
        [server]
        port = 8080
        """,
        [(K.FILE, "m.toml", 1, 2)],
    ),
}


def _source(text: str) -> bytes:
    return textwrap.dedent(text).lstrip("\n").encode()


def test_every_code_language_has_a_smoke_test_and_a_query_file():
    assert set(SMOKE) == set(CODE_LANGUAGES)
    assert all((QUERY_DIR / f"{language}.scm").is_file() for language in CODE_LANGUAGES)


@pytest.mark.parametrize("language", sorted(SMOKE))
def test_language_definitions_are_extracted(language: str):
    name, source, expected = SMOKE[language]
    assert detect_language(name) == language
    parsed = parse_file("r", name, _source(source))
    assert parsed.language == language
    assert parsed.warnings == ()
    assert [(c.kind, c.qualified_name, c.start_line, c.end_line) for c in parsed.chunks] == expected


def test_css_and_toml_file_chunks_carry_their_first_section_header():
    css = parse_file("r", "a.css", _source(SMOKE["css"][1]))
    toml = parse_file("r", "a.toml", _source(SMOKE["toml"][1]))
    assert css.chunks[0].signature == ".button {"
    assert toml.chunks[0].signature == "[server]"


@pytest.mark.parametrize(
    ("path", "language"),
    [
        ("src/app.py", "python"),
        ("types.d.ts", "typescript"),
        ("ui/App.tsx", "tsx"),
        ("lib/x.mjs", "javascript"),
        ("include/vec.hpp", "cpp"),
        ("include/vec.h", "c"),
        ("Program.cs", "csharp"),
        ("Rakefile", "ruby"),
        ("build.gradle.kts", "kotlin"),
        ("deploy.sh", "bash"),
        ("Component.vue", "vue"),
        ("README.md", "markdown"),
        ("config/app.yml", "yaml"),
        ("db/schema.sql", "sql"),
        ("Dockerfile", "dockerfile"),
        ("Makefile", "make"),
        ("LICENSE", "text"),
        ("package.json", "json"),
        ("Cargo.toml", "toml"),
        ("logo.png", None),
        ("bundle.min.js", None),
        ("go.sum", None),
        ("data/rows.csv", None),
        ("noextension", None),
    ],
)
def test_detect_language(path: str, language: str | None):
    assert detect_language(path) == language


@pytest.mark.parametrize(
    "path",
    [
        "tests/test_api.py",
        "pkg/test_api.py",
        "pkg/api_test.py",
        "conftest.py",
        "internal/store/store_test.go",
        "web/src/api.spec.ts",
        "web/src/api.test.tsx",
        "web/__tests__/api.js",
        "src/test/java/com/x/UserTest.java",
        "spec/models/user_spec.rb",
        "Tests/OrderServiceTests.cs",
        "crates/engine/tests/integration.rs",
        "testdata/sample.json",
        "testing/python/raises.py",
        "e2e/login.ts",
    ],
)
def test_test_paths_are_recognised(path: str):
    assert is_test_path(path)


@pytest.mark.parametrize(
    "path",
    [
        "src/api.py",
        "src/latest.py",
        "pkg/contest.go",
        "web/src/testing-library.ts",
        "src/internal/testing/TestScheduler.ts",  # test support the library ships (rxjs/testing)
        "numpy/testing/utils.py",
        "src/Attestation.java",
        "x.rs",
    ],
)
def test_ordinary_paths_are_not_tests(path: str):
    assert not is_test_path(path)
