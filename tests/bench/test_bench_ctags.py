"""bench ctags: a ctags definition counts as recalled only when a chunk of its own holds it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.ctags import Tag, ctags_available, is_recalled, run_ctags
from services.indexer.domain.parsing import parse_file

SOURCE = b'''"""Module."""

CONFIG = load()


def top():
    """Doc."""
    return 1


class Box:
    @property
    def size(self):
        return 2
'''


def chunks():
    return parse_file("r", "m.py", SOURCE).chunks


def test_a_definition_with_its_own_chunk_is_recalled():
    assert is_recalled(Tag("m.py", "top", 6, "function"), chunks()) == (True, "")
    assert is_recalled(Tag("m.py", "size", 13, "member"), chunks()) == (True, "")  # below its decorator


def test_a_name_inside_another_chunk_is_a_miss_naming_the_holder():
    recalled, holder = is_recalled(Tag("m.py", "CONFIG", 3, "function"), chunks())
    assert not recalled and holder == "module m.py"
    recalled, holder = is_recalled(Tag("m.py", "other", 8, "function"), chunks())
    assert not recalled and holder == "function top"


@pytest.mark.skipif(not ctags_available(), reason="Universal Ctags not installed (make bench-setup)")
def test_ctags_tags_of_a_python_file_are_all_recalled(tmp_path: Path):
    (tmp_path / "m.py").write_bytes(SOURCE)
    tags = run_ctags(tmp_path, "python", ["m.py"])
    assert {(t.name, t.line) for t in tags} >= {("top", 6), ("Box", 11), ("size", 13)}
    assert all(is_recalled(tag, chunks())[0] for tag in tags)
