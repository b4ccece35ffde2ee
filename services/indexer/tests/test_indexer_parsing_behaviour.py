"""parse_file behaviour across languages: stable ids, failure handling, chunk shapes, offline use."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kit.domain import ChunkKind
from services.indexer.domain.ids import chunk_id, content_hash
from services.indexer.domain.parsing import LARGE_CLASS_LINES, MAX_PIECE_LINES, parse_file

ROOT = Path(__file__).resolve().parents[3]


def src(text: str) -> bytes:
    return textwrap.dedent(text).lstrip("\n").encode()


THREE_FUNCTIONS = src(
    """
    def first(x):
        return x + 1


    def second(x):
        return x * 2


    def third(x):
        return first(second(x))
    """
)


def by_name(parsed):
    return {chunk.qualified_name: chunk for chunk in parsed.chunks}


# --- stable ids ------------------------------------------------------------------------------------


def test_parsing_the_same_file_twice_gives_identical_results():
    assert parse_file("r", "m.py", THREE_FUNCTIONS) == parse_file("r", "m.py", THREE_FUNCTIONS)


def test_chunk_id_is_a_fixed_function_of_its_inputs():
    # A changed id scheme would orphan every stored vector: pin it.
    assert chunk_id("repo", "src/a.py", "function", "f", 0) == chunk_id(
        "repo", "src/a.py", "function", "f", 0
    )
    assert chunk_id("repo", "src/a.py", "function", "f", 0) == "73ad2f1fbbdea2ba0d77f2354a25e4a9"
    assert len({chunk_id("r", "a", "function", "f", n) for n in range(3)}) == 3
    assert chunk_id("r", "a", "function", "f", 0) != chunk_id("r", "b", "function", "f", 0)
    assert content_hash("x") == content_hash("x") != content_hash("y")


def test_editing_one_function_body_changes_only_that_chunks_hash():
    before = by_name(parse_file("r", "m.py", THREE_FUNCTIONS))
    edited = THREE_FUNCTIONS.replace(b"return x * 2", b"return x * 3")
    after = by_name(parse_file("r", "m.py", edited))
    assert {name: c.id for name, c in before.items()} == {name: c.id for name, c in after.items()}
    changed = {name for name in before if before[name].content_hash != after[name].content_hash}
    assert changed == {"second"}


def test_growing_one_function_keeps_the_other_ids_and_hashes_and_shifts_lines():
    before = by_name(parse_file("r", "m.py", THREE_FUNCTIONS))
    edited = THREE_FUNCTIONS.replace(b"return x * 2", b"y = x * 2\n    return y")
    after = by_name(parse_file("r", "m.py", edited))
    assert {n: c.id for n, c in before.items()} == {n: c.id for n, c in after.items()}
    assert after["first"].content_hash == before["first"].content_hash
    assert after["third"].content_hash == before["third"].content_hash
    assert after["third"].start_line == before["third"].start_line + 1


def test_overloads_get_distinct_ids_by_ordinal():
    parsed = parse_file(
        "r",
        "A.java",
        src(
            """
            class A {
                void put(int x) {}
                void put(String x) {}
            }
            """
        ),
    )
    puts = [c for c in parsed.chunks if c.name == "put"]
    assert len(puts) == 2 and puts[0].id != puts[1].id
    assert puts[0].id == chunk_id("r", "A.java", ChunkKind.METHOD, "A.put", 0)
    assert puts[1].id == chunk_id("r", "A.java", ChunkKind.METHOD, "A.put", 1)


# --- failures never raise ----------------------------------------------------------------------------


def test_a_file_with_only_broken_syntax_gives_file_chunks_and_a_warning():
    parsed = parse_file("r", "broken.py", b"def (:\n    return ]]\nclass\n")
    assert [(c.kind, c.start_line, c.end_line) for c in parsed.chunks] == [(ChunkKind.FILE, 1, 3)]
    assert (
        len(parsed.warnings) == 1
        and "broken.py" in parsed.warnings[0]
        and "syntax error" in parsed.warnings[0]
    )


def test_a_broken_function_does_not_take_its_healthy_neighbours_down():
    source = src(
        """
        def healthy():
            return 1


        def broken(:
            return (


        def also_healthy():
            return 2
        """
    )
    parsed = parse_file("r", "m.py", source)
    names = [(c.kind, c.qualified_name) for c in parsed.chunks]
    assert (ChunkKind.FUNCTION, "healthy") in names
    assert (ChunkKind.FUNCTION, "broken") not in names
    assert parsed.warnings
    covered = {line for c in parsed.chunks for line in range(c.start_line, c.end_line + 1)}
    assert 5 in covered  # the broken lines are still indexed, as module text


def test_binary_looking_content_gives_a_file_chunk_and_a_warning():
    blob = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4
    parsed = parse_file("r", "image.py", blob)
    assert [c.kind for c in parsed.chunks] == [ChunkKind.FILE]
    assert "\x00" not in parsed.chunks[0].content
    assert parsed.warnings and "binary" in parsed.warnings[0]
    assert parsed.call_sites == () and parsed.imports == ()


def test_invalid_utf8_is_replaced_not_fatal():
    parsed = parse_file("r", "m.py", b"def f():\n    return '\xff\xfe'\n")
    assert [c.qualified_name for c in parsed.chunks] == ["f"]
    assert "\ufffd" in parsed.chunks[0].content


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.binary(max_size=400)
    | st.text(alphabet="{}()[]<>;:=.,'\"`#/*\\ \nabcdefXYZ019_@$!?-", max_size=400),
    name=st.sampled_from(
        ["a.py", "a.ts", "a.tsx", "a.rs", "a.go", "a.c", "a.rb", "a.php", "a.vue", "a.html", "a.md"]
    ),
)
def test_arbitrary_input_never_raises(data: bytes | str, name: str):
    source = data.encode() if isinstance(data, str) else data
    parsed = parse_file("r", name, source)
    ids = [chunk.id for chunk in parsed.chunks]
    assert len(ids) == len(set(ids))
    lines = source.count(b"\n") + 1
    assert all(1 <= c.start_line <= c.end_line <= lines for c in parsed.chunks)
    assert {site.caller_id for site in parsed.call_sites} <= set(ids)


def test_unknown_and_text_languages_give_file_chunks_without_warnings():
    for path in ("notes.txt", "schema.sql", "data.unknownext"):
        parsed = parse_file("r", path, b"one\ntwo\n")
        assert [(c.kind, c.content) for c in parsed.chunks] == [(ChunkKind.FILE, "one\ntwo")]
        assert parsed.warnings == ()


def test_an_explicit_language_overrides_detection():
    parsed = parse_file("r", "script", b"def f():\n    pass\n", language="python")
    assert parsed.language == "python" and [c.name for c in parsed.chunks] == ["f"]


def test_empty_and_blank_files_give_no_chunks():
    assert parse_file("r", "a.py", b"").chunks == ()
    assert parse_file("r", "a.md", b"\n\n  \n").chunks == ()


def test_crlf_line_endings():
    parsed = parse_file("r", "m.py", b"def f():\r\n    return 1\r\n\r\ndef g():\r\n    return 2\r\n")
    assert [(c.name, c.start_line, c.end_line, c.content) for c in parsed.chunks] == [
        ("f", 1, 2, "def f():\n    return 1"),
        ("g", 4, 5, "def g():\n    return 2"),
    ]


# --- chunk shapes --------------------------------------------------------------------------------------


def test_chunk_fields_for_a_method():
    source = src(
        '''
        class Repo:
            """Stores things."""

            @cached
            def load(self, key: str) -> bytes:
                """Load one value.

                Raises KeyError.
                """
                return self.db.get(key)
        '''
    )
    chunk = by_name(parse_file("acme", "pkg/repo.py", source))["Repo.load"]
    assert chunk.kind == ChunkKind.METHOD
    assert (chunk.name, chunk.parent, chunk.start_line, chunk.end_line) == ("load", "Repo", 4, 10)
    assert chunk.signature == "def load(self, key: str) -> bytes"
    assert chunk.doc == "Load one value.\n\nRaises KeyError."
    assert chunk.content.startswith("    @cached\n    def load")
    assert chunk.content_hash == content_hash(chunk.content)
    assert (chunk.repo, chunk.path, chunk.language, chunk.is_test) == ("acme", "pkg/repo.py", "python", False)
    assert chunk.id == chunk_id("acme", "pkg/repo.py", "method", "Repo.load", 0)


@pytest.mark.parametrize(
    ("path", "source", "qualified", "doc", "start"),
    [
        ("a.ts", "/**\n * Adds numbers.\n * @param a first\n */\nexport function add(a, b) {}\n", "add",
         "Adds numbers.\n@param a first", 1),
        ("a.rs", "/// Adds numbers.\n/// Saturating.\n#[inline]\npub fn add() {}\n", "add",
         "Adds numbers.\nSaturating.", 1),
        ("a.go", "package a\n\n// Add adds numbers.\nfunc Add() {}\n", "Add", "Add adds numbers.", 3),
        ("a.rb", "# Adds numbers.\ndef add\nend\n", "add", "Adds numbers.", 1),
        ("a.lua", "-- Adds numbers.\nlocal function add() end\n", "add", "Adds numbers.", 1),
        ("a.c", "/* Adds numbers. */\nint add(void) { return 0; }\n", "add", "Adds numbers.", 1),
        ("a.py", "x = 1  # trailing comment, not a doc\ndef add():\n    pass\n", "add", "", 2),
        ("a.py", "# Detached comment.\n\ndef add():\n    pass\n", "add", "", 3),
    ],
)  # fmt: skip
def test_leading_comments_become_the_doc_and_the_chunk_start(
    path: str, source: str, qualified: str, doc: str, start: int
):
    chunk = by_name(parse_file("r", path, source.encode()))[qualified]
    assert (chunk.doc, chunk.start_line) == (doc, start)


def test_large_classes_become_an_outline_beside_their_methods():
    methods = "\n".join(
        f"    def m{i}(self, x):\n" + "        y = x\n" * 8 + "        return y\n" for i in range(14)
    )
    source = f'class Big(Base):\n    """Lots of methods."""\n\n    limit = 3\n\n{methods}'.encode()
    chunks = by_name(parse_file("r", "big.py", source))
    big = chunks["Big"]
    assert big.end_line - big.start_line + 1 > LARGE_CLASS_LINES
    assert big.kind == ChunkKind.CLASS
    assert big.content.splitlines()[:4] == [
        "class Big(Base):",
        '    """Lots of methods."""',
        "",
        "    limit = 3",
    ]
    assert "    def m0(self, x)" in big.content.splitlines()
    assert "y = x" not in big.content
    assert [name for name in chunks if name.startswith("Big.")] == [f"Big.m{i}" for i in range(14)]
    assert all(chunks[f"Big.m{i}"].parent == "Big" for i in range(14))


def test_small_classes_keep_their_full_text():
    chunks = by_name(parse_file("r", "m.py", src("class A:\n    def f(self):\n        return 1\n")))
    assert chunks["A"].content == "class A:\n    def f(self):\n        return 1"


def test_functions_nested_in_functions_are_chunks_of_their_own_and_own_their_calls():
    source = src(
        """
        def outer():
            def helper():
                return inner_call()
            return helper()
        """
    )
    parsed = parse_file("r", "m.py", source)
    chunks = {c.qualified_name: c for c in parsed.chunks}
    assert list(chunks) == ["outer", "outer.helper"]
    assert chunks["outer.helper"].kind is ChunkKind.FUNCTION and chunks["outer.helper"].parent == "outer"
    assert "def helper" in chunks["outer"].content  # a small outer function keeps its full text
    owner = {s.callee_name: s.caller_id for s in parsed.call_sites}
    assert owner == {"inner_call": chunks["outer.helper"].id, "helper": chunks["outer"].id}


def test_module_level_code_is_grouped_and_trivial_runs_are_skipped():
    source = src(
        """
        import os

        CONFIG = load_config(os.environ)
        DEBUG = CONFIG.debug


        def run():
            return 1


        VERSION = "1"


        def stop():
            return 0


        if __name__ == "__main__":
            run()
        """
    )
    parsed = parse_file("r", "app.py", source)
    assert [(c.kind, c.start_line, c.end_line) for c in parsed.chunks] == [
        (ChunkKind.MODULE, 1, 4),
        (ChunkKind.FUNCTION, 7, 8),  # the lone `VERSION = "1"` (line 11) is too trivial for a chunk
        (ChunkKind.FUNCTION, 14, 15),
        (ChunkKind.MODULE, 18, 19),
    ]
    module_ids = [c.id for c in parsed.chunks if c.kind == ChunkKind.MODULE]
    callers = {s.callee_name: s.caller_id for s in parsed.call_sites}
    assert callers["load_config"] == module_ids[0]
    assert callers["run"] == module_ids[1]
    assert all(
        c.name == "app.py" and c.qualified_name == "app.py" for c in parsed.chunks if c.kind == "module"
    )


def test_files_with_only_imports_give_one_file_chunk():
    parsed = parse_file("r", "pkg/__init__.py", b"from .a import b\nfrom .c import d\n")
    assert [(c.kind, c.name, c.qualified_name) for c in parsed.chunks] == [
        (ChunkKind.FILE, "__init__.py", "pkg/__init__.py")
    ]


def test_long_markdown_is_split_at_headings():
    sections = [f"## Section {i}\n\n" + "text line\n" * 60 for i in range(6)]
    source = ("# Title\n\n" + "\n".join(sections)).encode()
    chunks = parse_file("r", "docs/guide.md", source).chunks
    assert len(chunks) > 1
    assert all(c.kind == ChunkKind.FILE and c.end_line - c.start_line + 1 <= MAX_PIECE_LINES for c in chunks)
    assert all(c.content.startswith(("# Title", "## Section")) for c in chunks)
    assert chunks[1].signature.startswith("## Section")
    assert len({c.id for c in chunks}) == len(chunks)
    assert "\n".join(c.content for c in chunks).count("text line") == 360


def test_long_files_without_sections_are_split_into_bounded_pieces():
    source = "\n".join(f'  "key{i}": {i},' for i in range(700)).encode()
    chunks = parse_file("r", "big.json", source).chunks
    assert [c.start_line for c in chunks][0] == 1 and chunks[-1].end_line == 700
    assert all(c.end_line - c.start_line + 1 <= MAX_PIECE_LINES for c in chunks)
    assert all(a.end_line + 1 == b.start_line for a, b in zip(chunks, chunks[1:], strict=False))


def test_long_module_level_code_is_split():
    source = ("def f():\n    pass\n\n" + "".join(f"call_{i}()\n" for i in range(400))).encode()
    modules = [c for c in parse_file("r", "script.py", source).chunks if c.kind == ChunkKind.MODULE]
    assert len(modules) >= 3
    assert all(c.end_line - c.start_line + 1 <= MAX_PIECE_LINES for c in modules)
    assert modules[0].start_line == 4 and modules[-1].end_line == 403


def test_chunks_of_test_files_are_flagged():
    source = b"import pytest\n\nCASES = load_cases()\n\n\ndef test_a():\n    pass\n"
    chunks = parse_file("r", "tests/test_x.py", source).chunks
    assert [c.kind for c in chunks] == [ChunkKind.MODULE, ChunkKind.FUNCTION]
    assert all(c.is_test for c in chunks)
    assert all(c.is_test for c in parse_file("r", "tests/data.json", b"{}").chunks)
    assert not any(c.is_test for c in parse_file("r", "src/x.py", b"def a():\n    pass\n").chunks)


def test_rust_functions_marked_as_tests_in_a_source_file_are_flagged():
    source = b"""pub fn real(x: i32) -> i32 { x + 1 }

#[cfg(test)]
mod checks {
    fn helper() -> i32 { 1 }

    #[test]
    fn adds_one() { assert_eq!(super::real(1), 2); }

    #[test]
    #[should_panic]
    fn panics() { panic!() }

    #[tokio::test]
    async fn async_one() {}

    #[inline]
    fn inlined() {}

    #[test]
    // a note between
    fn commented() {}

    #[rstest]
    fn with_cases() {}
}
"""
    flags = {c.qualified_name: c.is_test for c in parse_file("r", "src/lib.rs", source).chunks}
    assert flags == {
        "real": False,
        "checks.helper": False,
        "checks.adds_one": True,
        "checks.panics": True,
        "checks.async_one": True,
        "checks.inlined": False,
        "checks.commented": True,
        "checks.with_cases": True,
    }


def test_vue_script_lang_ts_is_parsed_as_typescript():
    source = src(
        """
        <template><p>{{ n }}</p></template>
        <script lang="ts">
        interface Props { n: number }
        export function double(p: Props): number { return twice(p.n) }
        </script>
        """
    )
    parsed = parse_file("r", "A.vue", source)
    assert [(c.kind, c.qualified_name, c.start_line) for c in parsed.chunks] == [
        (ChunkKind.INTERFACE, "Props", 3),
        (ChunkKind.FUNCTION, "double", 4),
    ]
    assert [(s.callee_name, s.line) for s in parsed.call_sites] == [("twice", 4)]
    assert all(c.language == "vue" for c in parsed.chunks)


def test_html_scripts_with_a_data_type_are_not_parsed_as_code():
    source = b'<script type="application/ld+json">{"a": "function x() {}"}</script>\n<p>text</p>\n'
    parsed = parse_file("r", "a.html", source)
    assert [c.kind for c in parsed.chunks] == [ChunkKind.FILE]


# --- concurrency and offline use -----------------------------------------------------------------------


def test_parse_file_is_safe_to_call_from_several_threads():
    fixture = ROOT / "tests" / "fixtures" / "polyglot"
    files = [p for p in sorted(fixture.rglob("*")) if p.is_file()]
    jobs = [(p.relative_to(fixture).as_posix(), p.read_bytes()) for p in files] * 3
    expected = [parse_file("r", path, data) for path, data in jobs]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda job: parse_file("r", *job), jobs))
    assert results == expected


@pytest.mark.e2e  # a fresh interpreter (only a new process proves no download)
def test_parse_file_works_with_the_network_unreachable():
    env = {k: v for k, v in os.environ.items() if k.lower() not in ("no_proxy", "http_proxy", "https_proxy")}
    dead = "http://127.0.0.1:9"
    env.update(HTTPS_PROXY=dead, HTTP_PROXY=dead, ALL_PROXY=dead, https_proxy=dead, http_proxy=dead)
    code = textwrap.dedent(
        """
        from services.indexer.domain.languages import CODE_LANGUAGES
        from services.indexer.domain.parsing import _grammar, parse_file
        for language in sorted(CODE_LANGUAGES | {"markdown", "json", "yaml"}):
            assert _grammar(language) is not None, language
        parsed = parse_file("r", "a.rs", b"fn main() { run(); }")
        assert [c.name for c in parsed.chunks] == ["main"], parsed
        print("ok")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
