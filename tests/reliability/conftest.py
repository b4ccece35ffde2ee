"""One shared suite for the read-mostly reliability tests (fuzz, confinement, injection, repo removal).

Tests that kill processes or fill disks start their own suite, so a fault never leaks into another test.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reliability.rel_support import FUZZ_CASES, index, make_marker_repo, restarts
from tests.suite import FIXTURES, Suite

SPINE = FIXTURES / "spine"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if FUZZ_CASES:
        cases = ", ".join(f"{surface} {count}" for surface, count in sorted(FUZZ_CASES.items()))
        terminalreporter.write_line(f"reliability fuzz cases tried: {sum(FUZZ_CASES.values())} ({cases})")


@pytest.fixture(scope="session")
def rel_suite(tmp_path_factory: pytest.TempPathFactory):
    # The fuzzer is one client sending hundreds of requests a second: lift the per-token rate limit.
    suite = Suite.start(tmp_path_factory.mktemp("relsuite"), env={"REPORECALL_RATE_LIMIT_PER_SECOND": "0"})
    yield suite
    assert suite.stop() == 0, suite.log()


@pytest.fixture(scope="session")
def shop(rel_suite: Suite) -> Suite:
    """The spine fixture indexed as "shop"."""
    final = index(rel_suite, SPINE, "shop")
    assert final["files_sent"] >= 4, final
    return rel_suite


@pytest.fixture(scope="session")
def harbor(shop: Suite, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A second repository, "harbor", whose every symbol and comment says `lighthousezq`."""
    root = make_marker_repo(tmp_path_factory.mktemp("harbor") / "harbor", "lighthousezq")
    index(shop, root, "harbor")
    return root


@pytest.fixture
def no_restarts(rel_suite: Suite):
    """Fails the test if any child process crashed (and was restarted by the supervisor) during it."""
    before = restarts(rel_suite)
    yield
    assert restarts(rel_suite) == before, f"a service crashed during the test: {restarts(rel_suite)}"
