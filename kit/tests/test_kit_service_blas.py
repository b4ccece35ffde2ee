"""A service process holds its BLAS libraries to one thread (kit.service `single_threaded_blas`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.suite import ROOT

PROBE = """
import json, numpy
from kit.service import blas_threads, single_threaded_blas
before = blas_threads()
single_threaded_blas()
print(json.dumps({"before": before, "after": blas_threads()}))
"""


def test_single_threaded_blas_holds_numpy_to_one_thread() -> None:
    # A child process with two BLAS threads allowed, so the limit has something to change, and this test
    # process's own BLAS stays as it was.
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2"}
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    threads = json.loads(out.stdout)
    if len(os.sched_getaffinity(0)) >= 2:  # OpenBLAS takes no more threads than the process may use cores
        assert threads["before"] == [2]
    assert threads["before"] and threads["after"] == [1] * len(threads["before"])
