"""Path rules every service shares: a stored or requested path names a place inside the repository, in
POSIX form, relative to its root; and which paths hold test code."""

from __future__ import annotations

import re


def is_repo_relative(path: str) -> bool:
    """True for `src/app.py`; False for an absolute path or one with a `..` segment. Emptiness, NUL and
    client-only refusals (backslashes, drive letters) are each caller's own checks."""
    return not path.startswith("/") and ".." not in path.split("/")


# Folders that hold test code (their files are tests whatever their names), in every indexed language.
TEST_DIRS: frozenset[str] = frozenset(
    {
        "test",
        "tests",
        "__tests__",
        "spec",
        "specs",
        "testdata",
        "__mocks__",
        "e2e",
        "integration_tests",
    }
)
# Test folders only at the top of a repo: `testing/` holds pytest's own tests, but `src/internal/testing/`
# (rxjs's TestScheduler) or `numpy/testing/` is test-support code the library ships.
TOP_TEST_DIRS: frozenset[str] = frozenset({"testing"})
_TEST_FILE = re.compile(
    r"""(
        ^test_.+\.py$ | .+_test\.py$ | ^conftest\.py$
      | .+_test\.go$
      | .+\.(test|spec)\.(ts|tsx|js|jsx|mjs|cjs|mts|cts)$
      | .+(Test|Tests|IT|Spec)\.(java|kt|kts|scala|cs|php|swift)$
      | .+_(spec|test)\.rb$ | ^test_.+\.rb$
      | .+_test\.rs$
      | .+[_.](spec|test)\.lua$
      | .+\.bats$ | ^test_.+\.sh$ | .+_test\.sh$
      | .+_test\.(c|cc|cpp|cxx)$ | ^test_.+\.(c|cc|cpp|cxx)$
      | .+_test\.zig$
    )""",
    re.VERBOSE,
)


def is_test_path(path: str) -> bool:
    """True for test code: files under a tests/ (spec/, __tests__/ …) folder or named like a test.

    Covers the conventions of the indexed languages: `tests/x.py`, `test_x.py`, `x_test.go`,
    `x.spec.ts`, `XTest.java`, `x_spec.rb`, `conftest.py` …
    """
    parts = path.replace("\\", "/").split("/")
    return tests_folder_index(parts) is not None or bool(_TEST_FILE.match(parts[-1]))


def tests_folder_index(parts: list[str]) -> int | None:
    """Where the first test folder is among a path's parts (its folders, not the file name), or None."""
    if len(parts) > 1 and parts[0].lower() in TOP_TEST_DIRS:
        return 0
    return next((i for i, part in enumerate(parts[:-1]) if part.lower() in TEST_DIRS), None)


# Files that declare types without bodies: TypeScript declaration files and Python stubs.
DECLARATION_SUFFIXES = (".d.ts", ".d.mts", ".d.cts", ".pyi")


def is_declaration_path(path: str) -> bool:
    """True for a file of bodiless declarations (`types/index.d.ts`, `module.pyi`): it restates the
    signatures whose implementations live elsewhere."""
    return path.lower().endswith(DECLARATION_SUFFIXES)
