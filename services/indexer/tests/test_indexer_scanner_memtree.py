"""The scanner's file selection is pure: ignore rules, never-indexed folders, caps and confinement decided
over an in-memory tree (no disk), the same way as over a working tree."""

from __future__ import annotations

from services.indexer.domain.scanner import TreeScanner
from services.indexer.ports import FileTree
from services.indexer.tests.indexer_memtree import MemTree


def walked(tree: FileTree, **kwargs: object) -> list[str]:
    return [f.path for f in TreeScanner(tree, **kwargs).walk()]  # type: ignore[arg-type]


def test_ignore_files_nested_rules_and_negation_apply_without_a_disk() -> None:
    tree = MemTree(
        {
            ".gitignore": b"*.log\nsecret/\n!keep.log\n",
            "pkg/.gitignore": b"/local.py\n",
            "a.py": b"x",
            "debug.log": b"x",
            "keep.log": b"x",
            "secret/x.py": b"x",
            "pkg/local.py": b"x",
            "pkg/deeper/local.py": b"x",
        }
    )
    assert walked(tree) == [".gitignore", "a.py", "keep.log", "pkg/.gitignore", "pkg/deeper/local.py"]


def test_a_walk_reads_only_the_ignore_files_a_folder_holds() -> None:
    tree = MemTree(
        {
            "pkg/.reporecallignore": b"generated.py\n",
            "pkg/generated.py": b"x",
            "pkg/sub/generated.py": b"x",
            "pkg/sub/kept.py": b"x",
            "docs/a/b/c.py": b"x",
        }
    )
    assert walked(tree) == ["docs/a/b/c.py", "pkg/.reporecallignore", "pkg/sub/kept.py"]
    # the root's are tried before anything is listed; below it, only names the listings hold
    assert tree.reads == [".gitignore", ".reporecallignore", "pkg/.reporecallignore"]


def test_vcs_agent_config_builtins_and_virtualenvs_are_left_out() -> None:
    tree = MemTree(
        {
            ".git/config": b"x",
            ".claude/settings.json": b"{}",
            ".mcp.json": b"{}",
            "node_modules/lib/index.js": b"x",
            "env311/pyvenv.cfg": b"home = /usr",
            "env311/lib/site.py": b"x",
            "src/app.py": b"x",
        }
    )
    assert walked(tree) == ["src/app.py"]


def test_size_cap_accept_filter_and_escaping_symlinks_are_applied() -> None:
    tree = MemTree(
        {"big.py": b"x" * 200, "small.py": b"x", "notes.txt": b"x", "link/leak.py": b"x", "out.py": b"x"},
        escaping={"link", "out.py"},
    )
    assert walked(tree, max_file_bytes=100, accept=lambda p: p.endswith(".py")) == ["small.py"]


def test_an_unreadable_folder_is_reported_and_the_walk_goes_on() -> None:
    tree = MemTree({"ok/a.py": b"x", "locked/b.py": b"x"}, unreadable={"locked"})
    scanner = TreeScanner(tree)
    assert [f.path for f in scanner.walk()] == ["ok/a.py"]
    assert scanner.last_walk.total == 1 and "locked" in scanner.last_walk.examples[0]


def test_single_path_judgements_agree_with_the_walk() -> None:
    tree = MemTree({".gitignore": b"gen/\n", "gen/x.py": b"x", "src/a.py": b"x", "src/data.bin": b"\x00\x01"})
    scanner = TreeScanner(tree)
    assert scanner.skip_reason("gen/x.py") == "ignored"
    assert scanner.skip_reason("src/missing.py") == "missing"
    assert scanner.skip_reason("src") == "not a file"
    assert scanner.stat("src/a.py") is not None and scanner.stat("gen/x.py") is None
    assert scanner.sniff("src/data.bin") == "binary" and scanner.sniff("src/a.py") is None
    assert scanner.rules_changed("src/.gitignore") and not scanner.rules_changed("src/a.py")
