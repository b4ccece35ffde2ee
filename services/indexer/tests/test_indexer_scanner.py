"""Which files the scanner yields: ignore files, built-ins, size cap, binary sniffing, symlink confinement."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from services.indexer.adapters.fs_tree import RepoScanner, confine
from services.indexer.domain.ignore_rules import name_problem
from services.indexer.domain.scanner import PathOutsideRepo, content_skip_reason


def write(root: Path, rel: str, data: str | bytes = "x = 1\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data)
    return path


def paths(root: Path, **kwargs: object) -> set[str]:
    return {f.path for f in RepoScanner(root, **kwargs).walk()}  # type: ignore[arg-type]


def test_yields_repo_relative_posix_paths_with_stat(tmp_path: Path) -> None:
    target = write(tmp_path, "src/app/main.py", "print('hi')\n")
    [file] = list(RepoScanner(tmp_path).walk())
    assert file.path == "src/app/main.py"
    assert file.size == target.stat().st_size
    assert file.mtime_ns == target.stat().st_mtime_ns


def test_root_gitignore_applies_everywhere_and_negation_reincludes(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.log\nsecret/\n!keep.log\n")
    for rel in ["a.py", "debug.log", "sub/trace.log", "keep.log", "secret/x.py", "sub/secret/y.py"]:
        write(tmp_path, rel)
    assert paths(tmp_path) == {".gitignore", "a.py", "keep.log"}


def test_nested_gitignore_is_relative_to_its_folder_and_overrides_parent(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.txt\n")
    write(tmp_path, "pkg/.gitignore", "/local.py\n!notes.txt\n")
    for rel in ["local.py", "pkg/local.py", "pkg/deeper/local.py", "notes.txt", "pkg/notes.txt", "pkg/x.txt"]:
        write(tmp_path, rel)
    assert paths(tmp_path) == {
        ".gitignore",
        "pkg/.gitignore",
        "local.py",
        "pkg/deeper/local.py",
        "pkg/notes.txt",
    }


def test_nothing_below_an_ignored_folder_can_be_reincluded(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "gen/\n!gen/keep.py\n")
    write(tmp_path, "gen/keep.py")
    assert paths(tmp_path) == {".gitignore"}


def test_reporecallignore_adds_rules_and_wins_over_gitignore(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "fixtures/\n")
    write(tmp_path, ".reporecallignore", "docs/\n!fixtures/\n")
    for rel in ["docs/a.md", "fixtures/sample.py", "main.py"]:
        write(tmp_path, rel)
    assert paths(tmp_path) == {".gitignore", ".reporecallignore", "fixtures/sample.py", "main.py"}


def test_git_info_exclude_is_honoured(tmp_path: Path) -> None:
    write(tmp_path, ".git/info/exclude", "scratch.py\n")
    write(tmp_path, "scratch.py")
    write(tmp_path, "main.py")
    assert paths(tmp_path) == {"main.py"}


@pytest.mark.parametrize(
    "rel",
    [
        ".git/config",
        ".hg/store",
        "node_modules/react/index.js",
        "web/node_modules/x/y.js",
        ".venv/lib/a.py",
        "venv/bin/activate",
        "pkg/__pycache__/m.cpython-311.pyc",
        "build/lib/a.py",
        "dist/app.js",
        "target/debug/main.rs",
        "package-lock.json",
        "yarn.lock",
        "Cargo.lock",
        "poetry.lock",
        "go.sum",
        "static/app.min.js",
        "static/app.min.css",
        "static/app.js.map",
        "api/service_pb2.py",
        "api/service.pb.go",
        "vendor/lib/x.go",
        "img/logo.png",
        "x.egg-info/PKG-INFO",
    ],
)
def test_builtin_ignores(tmp_path: Path, rel: str) -> None:
    write(tmp_path, rel)
    write(tmp_path, "main.py")
    assert paths(tmp_path) == {"main.py"}


def test_any_folder_holding_pyvenv_cfg_is_a_virtualenv(tmp_path: Path) -> None:
    write(tmp_path, "myenv311/pyvenv.cfg", "home = /usr/bin\n")
    write(tmp_path, "myenv311/lib/site.py")
    write(tmp_path, "main.py")
    assert paths(tmp_path) == {"main.py"}


def test_builtin_ignore_can_be_reincluded_by_the_user(tmp_path: Path) -> None:
    write(tmp_path, ".reporecallignore", "!dist/\n")
    write(tmp_path, "dist/app.js")
    assert paths(tmp_path) == {".reporecallignore", "dist/app.js"}


def test_vcs_folders_are_never_reincluded(tmp_path: Path) -> None:
    write(tmp_path, ".reporecallignore", "!.git/\n")
    write(tmp_path, ".git/HEAD", "ref: refs/heads/main\n")
    assert paths(tmp_path) == {".reporecallignore"}


def test_files_over_the_size_cap_are_skipped(tmp_path: Path) -> None:
    write(tmp_path, "small.py", "a" * 100)
    write(tmp_path, "exact.py", "a" * 1000)
    write(tmp_path, "big.py", "a" * 1001)
    assert paths(tmp_path, max_file_bytes=1000) == {"small.py", "exact.py"}


def test_binary_files_are_dropped_by_sniffing(tmp_path: Path) -> None:
    write(tmp_path, "data.py", b"abc\x00def")
    write(tmp_path, "late_nul.py", b"a" * 9000 + b"\x00")  # NUL after the sniffed 8 KiB: treated as text
    write(tmp_path, "text.py", "x = 1\n")
    assert {f.path for f in RepoScanner(tmp_path).walk(sniff=True)} == {"text.py", "late_nul.py"}
    assert content_skip_reason(b"\x7fELF\x02\x01\x00\x00") == "binary"


def test_generated_marker_near_the_top_marks_a_file_generated() -> None:
    assert (
        content_skip_reason(b"// Code generated by protoc-gen-go. DO NOT EDIT.\npackage x\n") == "generated"
    )
    assert content_skip_reason(b"# @generated by tool\nx = 1\n") == "generated"
    assert content_skip_reason(b"def f():\n    return 'code generated later'\n" + b"x" * 2000) is None


def test_symlink_leaving_the_root_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    write(outside, "secret.py", "TOKEN = 1\n")
    repo = tmp_path / "repo"
    write(repo, "main.py")
    os.symlink(outside, repo / "linked_dir")
    os.symlink(outside / "secret.py", repo / "linked_file.py")
    assert paths(repo) == {"main.py"}
    scanner = RepoScanner(repo)
    assert scanner.skip_reason("linked_file.py") == "outside repository"
    assert scanner.stat("linked_dir/secret.py") is None


def test_symlinks_inside_the_root_are_followed_and_loops_are_impossible(tmp_path: Path) -> None:
    write(tmp_path, "lib/util.py")
    os.symlink(tmp_path / "lib" / "util.py", tmp_path / "alias.py")
    os.symlink(tmp_path, tmp_path / "lib" / "loop")  # a cycle back to the root
    os.symlink(tmp_path / "missing.py", tmp_path / "dangling.py")
    found = sorted(f.path for f in RepoScanner(tmp_path).walk())
    assert found == ["alias.py", "lib/util.py"]


def test_skip_reason_agrees_with_walk_for_single_paths(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "out.txt\n")
    write(tmp_path, "pkg/.gitignore", "*.tmp\n")
    write(tmp_path, "pkg/a.tmp")
    write(tmp_path, "pkg/a.py")
    write(tmp_path, "node_modules/x/index.js")
    write(tmp_path, "out.txt")
    scanner = RepoScanner(tmp_path)
    assert scanner.skip_reason("pkg/a.py") is None
    assert scanner.skip_reason("pkg/a.tmp") == "ignored"
    assert scanner.skip_reason("node_modules/x/index.js") == "ignored"
    assert scanner.skip_reason("out.txt") == "ignored"
    assert scanner.skip_reason("pkg/gone.py") == "missing"
    assert scanner.skip_reason("pkg") == "not a file"
    assert scanner.is_ignored("node_modules/new.js")  # rules apply to paths that do not exist yet
    assert not scanner.is_ignored("pkg/gone.py")


def test_walk_under_a_folder_applies_the_rules_of_its_ancestors(tmp_path: Path) -> None:
    write(tmp_path, ".gitignore", "*.gen.py\n")
    write(tmp_path, "a/b/x.py")
    write(tmp_path, "a/b/y.gen.py")
    write(tmp_path, "a/c.py")
    assert [f.path for f in RepoScanner(tmp_path).walk(under="a/b")] == ["a/b/x.py"]
    assert list(RepoScanner(tmp_path).walk(under="node_modules")) == []


def test_accept_filter_has_the_last_word(tmp_path: Path) -> None:
    write(tmp_path, "a.py")
    write(tmp_path, "b.unknownext")
    scanner = RepoScanner(tmp_path, accept=lambda p: p.endswith(".py"))
    assert [f.path for f in scanner.walk()] == ["a.py"]
    assert scanner.skip_reason("b.unknownext") == "unsupported file type"


@pytest.mark.parametrize("bad", ["../x.py", "a/../../x.py", "/etc/passwd", "", "a\x00b"])
def test_confine_rejects_paths_leaving_the_root(tmp_path: Path, bad: str) -> None:
    with pytest.raises(PathOutsideRepo):
        confine(tmp_path, bad)


def test_confine_accepts_relative_and_absolute_inside_and_rejects_symlink_escape(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo, "src/a.py")
    assert confine(repo, "src/./a.py") == "src/a.py"
    assert confine(repo, str(repo / "src" / "a.py")) == "src/a.py"
    assert confine(repo, "src/new_file.py") == "src/new_file.py"
    os.symlink(tmp_path, repo / "up")
    with pytest.raises(PathOutsideRepo, match="symlink"):
        confine(repo, "up/other.py")
    assert confine(repo, "up/repo/src/a.py") == "up/repo/src/a.py"  # a detour that ends inside


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("models.py", None),
        ("café ünïcode.py", None),
        ("emoji_\U0001f600.py", None),
        ("\ue000private.py", None),
        ("\x80latin1.py", None),
        (" spaced .py", None),
        ("bad\udcffbyte.py", "name is not valid UTF-8"),
        ("\ud800", "name is not valid UTF-8"),
        ("line\nbreak.py", "name contains control characters"),
        ("\x00nul", "name contains control characters"),
        ("unit\x1fsep", "name contains control characters"),
        ("del\x7f.py", "name contains control characters"),
        ("tab\there.py", "name contains control characters"),
    ],
)
def test_a_name_that_cannot_be_indexed_says_why(name: str, problem: str | None) -> None:
    assert name_problem(name) == problem
