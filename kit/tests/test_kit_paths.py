import pytest

from kit.paths import is_example_path, is_repo_relative


@pytest.mark.parametrize("path", ["src/app.py", "a", "docs/..notes.md", "a/b..c/d", "./x"])
def test_paths_inside_the_repo_are_repo_relative(path: str) -> None:
    assert is_repo_relative(path)


@pytest.mark.parametrize("path", ["/etc/passwd", "..", "../x", "a/../../b", "a/..", "//server/share"])
def test_absolute_paths_and_parent_segments_are_not(path: str) -> None:
    assert not is_repo_relative(path)


@pytest.mark.parametrize(
    ("path", "example"),
    [
        ("examples/visit.rs", True),
        ("_examples/logging/main.go", True),
        ("doc/en/example/assertion/failure_demo.py", True),
        ("Samples/Console/Program.cs", True),
        ("demo/app.js", True),
        ("src/example.py", False),  # a file's own name: the library's code ("example" is its subject)
        ("src/examples_util.py", False),
        ("lib/router/index.js", False),
    ],
)
def test_example_programs_are_files_under_an_examples_folder(path: str, example: bool) -> None:
    assert is_example_path(path) is example
