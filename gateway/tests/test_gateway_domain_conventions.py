from gateway.domain.conventions import (
    MAX_CHARS,
    DefinedName,
    RepoProfile,
    name_style,
    summarize_conventions,
)
from kit.domain import Chunk, ChunkKind, Import, Symbol
from kit.paths import is_test_path


def test_name_styles():
    assert name_style("parse_config") == "snake_case"
    assert name_style("_private_helper") == "snake_case"
    assert name_style("parseConfig") == "camelCase"
    assert name_style("ConfigLoader") == "PascalCase"
    assert name_style("HTTPServer") == "PascalCase"
    assert name_style("MAX_SIZE") == "UPPER_CASE"
    assert name_style("run") == "lower"
    assert name_style("__init__") == "other"
    assert name_style("parse_HTTP") == "other"


def test_test_paths():
    assert is_test_path("tests/test_a.py")
    assert is_test_path("services/search/tests/helpers.py")
    assert is_test_path("pkg/scan_test.go")
    assert is_test_path("src/Button.test.tsx")
    assert is_test_path("src/api.spec.ts")
    assert not is_test_path("src/testing_utils.py")
    assert not is_test_path("src/contest.py")


def python_profile() -> RepoProfile:
    definitions = [DefinedName(f"do_thing_{i}", "function", f"pkg/m{i}.py") for i in range(19)]
    definitions.append(DefinedName("doThing", "function", "pkg/odd.py"))
    definitions += [DefinedName(f"Thing{i}", "class", f"pkg/m{i}.py") for i in range(6)]
    definitions += [DefinedName("main", "function", "pkg/cli.py"), DefinedName("run", "function", "pkg/x.py")]
    files = [f"pkg/m{i}.py" for i in range(19)] + [
        "pkg/__main__.py",
        "pkg/cli.py",
        "tests/test_m1.py",
        "tests/test_m2.py",
        "tests/conftest.py",
        "pkg/sub/m_test.py",
        "Makefile",
        "pyproject.toml",
        "README.md",
    ]
    return RepoProfile(
        repo="acme",
        files=files,
        language_files={"python": 27, "markdown": 1},
        definitions=definitions,
        imports=[Import("tests/test_m1.py", "pytest"), Import("pkg/m1.py", "os")],
        scripts={"pyproject.toml": {"acme": "pkg.cli:main"}},
        communities=[("pkg/core", 120), ("pkg/io", 40), ("tests", 10)],
    )


def test_python_repository_summary():
    text = summarize_conventions(python_profile())
    assert text == (
        "Repository conventions (acme, detected from the index):\n"
        "- Languages: python 27 files, markdown 1.\n"
        "- Naming: python classes PascalCase 100%, functions snake_case 95%.\n"
        "- Tests: 4 files; pytest; in test folders (tests/) 75% and beside the code 25%; "
        "files named test_*.py, *_test.py.\n"
        "- Entry points: __main__.py in pkg; main() in pkg/cli.py; pyproject.toml scripts: acme.\n"
        "- Build and run files: Makefile, pyproject.toml.\n"
        "- Main areas (call-graph communities): "
        "pkg/core (120 symbols), pkg/io (40 symbols), tests (10 symbols)."
    )


def test_typescript_and_go_frameworks_layout_and_entry_points():
    definitions = [
        DefinedName(f"renderItem{i}", "function", f"web/src/c{i}.tsx", "typescript") for i in range(8)
    ]
    definitions += [DefinedName(f"Widget{i}", "class", f"web/src/c{i}.tsx", "typescript") for i in range(5)]
    definitions += [
        Symbol(f"g{i}", f"cmd/srv/h{i}.go", f"handleReq{i}", f"handleReq{i}", ChunkKind.FUNCTION, 1, 2)
        for i in range(3)
    ]
    definitions += [
        Symbol(f"G{i}", f"cmd/srv/h{i}.go", f"Handle{i}", f"Handle{i}", ChunkKind.FUNCTION, 1, 2)
        for i in range(4)
    ]
    definitions.append(Symbol("m", "cmd/srv/main.go", "main", "main", ChunkKind.FUNCTION, 1, 2))
    files = [
        "web/src/c1.test.tsx",
        "web/src/c2.test.tsx",
        "web/vitest.config.ts",
        "cmd/srv/h_test.go",
        "package.json",
    ]
    text = summarize_conventions(
        RepoProfile(
            files=files,
            definitions=definitions,
            imports=[Import("web/src/c1.test.tsx", "vitest")],
            scripts={"web/package.json": {"test": "vitest", "build": "vite build", "dev": "vite"}},
        )
    )
    assert (
        "- Naming: go functions PascalCase 57% / camelCase 43%; "
        "typescript classes PascalCase 100%, functions camelCase 100%." in text
    )
    assert (
        "- Tests: 3 files; vitest, go test; beside the code 100%; files named *.test.ts/js, *_test.go."
        in text
    )
    assert "main() in cmd/srv/main.go; npm scripts: build, dev, test." in text


def test_main_guard_is_found_in_module_chunks():
    module = Chunk(
        id="m",
        repo="r",
        path="tools/gen.py",
        language="python",
        kind=ChunkKind.MODULE,
        name="gen",
        qualified_name="gen",
        start_line=1,
        end_line=9,
        content='if __name__ == "__main__":\n    main()\n',
        content_hash="h",
    )
    text = summarize_conventions(RepoProfile(files=["tools/gen.py"], definitions=[module]))
    assert '`if __name__ == "__main__"` in tools/gen.py' in text


def test_nothing_known_gives_empty_text():
    assert summarize_conventions(RepoProfile()) == ""


def test_summary_is_capped():
    definitions = [DefinedName("main", "function", f"very/long/path/number_{i}/main.py") for i in range(500)]
    files = [f"tests/group_{i}/test_{i}.py" for i in range(500)] + [f"bin/tool_{i}" for i in range(50)]
    communities = [(f"area/{'x' * 80}/{i}", 1000 - i) for i in range(100)]
    scripts = {f"pkg{i}/package.json": {f"script_{j}": "x" for j in range(40)} for i in range(20)}
    text = summarize_conventions(
        RepoProfile(
            repo="big", files=files, definitions=definitions, communities=communities, scripts=scripts
        )
    )
    assert 0 < len(text) <= MAX_CHARS
    assert summarize_conventions(python_profile(), max_chars=120).startswith("Repository conventions")
    assert len(summarize_conventions(python_profile(), max_chars=120)) <= 120
