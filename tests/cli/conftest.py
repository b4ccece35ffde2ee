"""The CLI's tests: the real `reporecall` entry point, in-process, against a suite started once per module."""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from cli.main import main
from tests.e2e.conftest import OFFLINE
from tests.suite import FIXTURES, ROOT, Suite, wait_for


@dataclass
class Run:
    code: int
    out: str
    err: str


def run_cli(*args: str) -> Run:
    """`reporecall ARGS` in this process: its exit code, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = int(exc.code or 0) if not isinstance(exc.code, str) else 1
    return Run(code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def cli_suite(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Suite]:
    """A suite started as the README writes it: `reporecall up --data-dir DIR` (option after the command)."""
    data_dir = tmp_path_factory.mktemp("cli-suite")
    log = open(data_dir / "up.log", "w")  # noqa: SIM115 - the child writes to it
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "up", "--data-dir", str(data_dir), "--base-port", "0"],
        cwd=ROOT,
        # The fixture repositories live under the temp folder: let `up`'s indexer register them there.
        env={
            **__import__("os").environ,
            **OFFLINE,
            "REPORECALL_REPO_ROOTS": f"{ROOT},{__import__('tempfile').gettempdir()}",
        },
        stdout=log,
        stderr=subprocess.STDOUT,
        text=True,
    )
    suite = Suite(data_dir, process, [])
    wait_for(lambda: "ready" in suite.log() or process.poll() is not None, 120, "the suite to start")
    assert process.poll() is None, suite.log()
    yield suite
    assert suite.stop() == 0, suite.log()


@pytest.fixture(scope="module")
def shop(cli_suite: Suite, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the spine fixture indexed as "shop"."""
    root = tmp_path_factory.mktemp("shop") / "shop"
    shutil.copytree(FIXTURES / "spine", root)
    result = run_cli("--data-dir", str(cli_suite.data_dir), "index", str(root), "--name", "shop")
    assert result.code == 0, result
    return root
