"""Code over docs, type declarations and module-level residue for code questions (ranking.adjustment)."""

from __future__ import annotations

import pytest

from kit.domain import ChunkKind
from services.search.domain.keywords import is_example_path
from services.search.domain.ranking import (
    DECLARATION_PENALTY,
    DOC_PENALTY,
    EXAMPLE_PENALTY,
    RESIDUE_PENALTY,
    WANTED_BOOST,
    QueryIntent,
    adjustment,
)
from services.search.tests.search_fakes import chunk

CODE_QUESTION = QueryIntent.of("where is the request body limit enforced")


def test_the_implementation_outranks_its_type_declaration() -> None:
    impl = chunk("enforceLimit", "lib/core.js", language="javascript")
    declared = chunk("enforceLimit", "types/core.d.ts", language="typescript")
    stub = chunk("enforce_limit", "pkg/core.pyi")
    assert adjustment(declared, CODE_QUESTION) == pytest.approx(
        adjustment(impl, CODE_QUESTION) * DECLARATION_PENALTY
    )
    assert adjustment(stub, CODE_QUESTION) < adjustment(impl, CODE_QUESTION)


def test_the_library_outranks_an_example_program_unless_an_example_is_asked_for() -> None:
    impl = chunk("Recoverer", "middleware/recoverer.go", language="go")
    for path in ("_examples/logging/main.go", "examples/visit.rs", "doc/en/example/simple.py", "demo/app.js"):
        example = chunk("Recoverer", path, language="go")
        assert adjustment(example, CODE_QUESTION) == pytest.approx(
            adjustment(impl, CODE_QUESTION) * EXAMPLE_PENALTY
        ), path
        asked = QueryIntent.of("is there an example that enforces the request body limit")
        assert adjustment(example, asked) == pytest.approx(adjustment(impl, asked)), path
    # a file named like an example is the library's own code ("example.py" in a templating library)
    named = chunk("render", "src/example.py")
    assert adjustment(named, CODE_QUESTION) == adjustment(chunk("render", "src/render.py"), CODE_QUESTION)


def test_a_definition_outranks_module_level_residue_and_whole_files() -> None:
    definition = chunk("enforceLimit", "lib/core.js", language="javascript")
    for kind in (ChunkKind.MODULE, ChunkKind.FILE):
        residue = chunk("lib/core.js", "lib/core.js", kind=kind, language="javascript")
        assert adjustment(residue, CODE_QUESTION) == pytest.approx(RESIDUE_PENALTY)
    assert adjustment(definition, CODE_QUESTION) == 1.0


def test_a_docs_page_is_held_down_for_code_questions_and_wanted_when_docs_are_asked_for() -> None:
    page = chunk("docs/Reference/Core.md", "docs/Reference/Core.md", kind=ChunkKind.FILE, language="markdown")
    assert adjustment(page, CODE_QUESTION) == pytest.approx(DOC_PENALTY)  # no residue penalty on top
    assert adjustment(page, QueryIntent.of("docs for the body limit")) == pytest.approx(WANTED_BOOST)


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
