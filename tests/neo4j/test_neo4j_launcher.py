"""The test-run Neo4j: the launcher's version matches the compose pin, and a run that expected it has it."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from bench.bench_graph import synthetic_repo
from services.graph.domain.communities import detect_communities
from services.graph.domain.model import RepoFacts
from tests.suite import ROOT

TOOLS = ROOT / "tools" / "neo4j"


def test_launcher_pins_the_neo4j_version_of_the_compose_file():
    pom = (TOOLS / "pom.xml").read_text()
    compose = (ROOT / "docker-compose.yml").read_text()
    pinned = re.search(r"<neo4j\.version>([^<]+)</neo4j\.version>", pom)
    image = re.search(r"image: neo4j:([0-9.]+)-community", compose)
    assert pinned and image
    assert pinned.group(1) == image.group(1)
    assert "<artifactId>neo4j-bolt</artifactId>" in pom


def test_a_run_that_started_neo4j_hands_its_url_to_the_tests():
    # with_neo4j.py sets both; an "expected" run without the URL would silently skip every Neo4j case.
    if os.environ.get("REPORECALL_TEST_NEO4J_EXPECTED"):
        assert os.environ.get("REPORECALL_TEST_NEO4J_URL", "").startswith("bolt://127.0.0.1:")


@pytest.mark.e2e  # runs the launcher as a process
def test_the_opt_out_is_refused_in_ci():
    env = {**os.environ, "CI": "true", "REPORECALL_TEST_NEO4J": "off"}
    env.pop("REPORECALL_TEST_NEO4J_URL", None)
    done = subprocess.run(
        [sys.executable, str(TOOLS / "with_neo4j.py"), "--", sys.executable, "-c", "print('ran')"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "ran" not in done.stdout
    assert "REPORECALL_TEST_NEO4J=off is refused when CI is set" in done.stderr


@pytest.mark.e2e  # runs the launcher as a process
def test_the_opt_out_runs_the_command_without_neo4j_outside_ci():
    env = {**os.environ, "REPORECALL_TEST_NEO4J": "off"}
    env.pop("CI", None)
    env.pop("REPORECALL_TEST_NEO4J_URL", None)
    script = "import os; print('url=' + os.environ.get('REPORECALL_TEST_NEO4J_URL', ''))"
    done = subprocess.run(
        [sys.executable, str(TOOLS / "with_neo4j.py"), "--", sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "url="
    assert "Neo4j cases will be skipped" in done.stderr


def test_the_same_facts_give_the_same_communities_every_time():
    files = list(synthetic_repo(600, 3, seed=5))
    facts = RepoFacts(
        tuple(s for _, syms, _, _ in files for s in syms),
        tuple(c for _, _, calls, _ in files for c in calls),
        tuple(i for _, _, _, imps in files for i in imps),
    )
    from datetime import UTC, datetime

    runs = [
        {c.member_ids for c in detect_communities(facts, generation=1, now=datetime.now(UTC)).communities}
        for _ in range(4)
    ]
    assert len(runs[0]) > 2
    assert all(run == runs[0] for run in runs)
