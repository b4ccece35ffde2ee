"""One real suite per test session, shared by the end-to-end modules (starting one costs ~10 s)."""

from __future__ import annotations

import json

import pytest

from tests.suite import FIXTURES, Suite

SPINE = FIXTURES / "spine"


@pytest.fixture(scope="session")
def suite(tmp_path_factory: pytest.TempPathFactory):
    suite = Suite.start(tmp_path_factory.mktemp("suite"))
    yield suite
    assert suite.stop() == 0, suite.log()


@pytest.fixture(scope="session")
def indexed(suite: Suite) -> Suite:
    result = suite.cli("index", str(SPINE), "--name", "shop", "--json")
    assert result.returncode == 0, result.stderr + result.stdout
    final = json.loads(result.stdout)
    assert final["repo"] == "shop" and final["files_sent"] >= 4, final
    return suite
