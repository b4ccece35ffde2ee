import pytest

from kit.paths import is_repo_relative


@pytest.mark.parametrize("path", ["src/app.py", "a", "docs/..notes.md", "a/b..c/d", "./x"])
def test_paths_inside_the_repo_are_repo_relative(path: str) -> None:
    assert is_repo_relative(path)


@pytest.mark.parametrize("path", ["/etc/passwd", "..", "../x", "a/../../b", "a/..", "//server/share"])
def test_absolute_paths_and_parent_segments_are_not(path: str) -> None:
    assert not is_repo_relative(path)
