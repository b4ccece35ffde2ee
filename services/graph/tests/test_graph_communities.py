"""Louvain communities: planted modules are recovered; hubs, bridges, stats; recompute is debounced."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest

from kit.testing import wait_for
from services.graph.domain.communities import detect_communities
from services.graph.domain.model import RepoFacts
from services.graph.engine import GraphEngine
from services.graph.tests.graph_builders import FileSpec, load, sid

GROUPS = ["billing", "auth", "search", "render"]


def planted_files(seed: int = 7) -> tuple[list[FileSpec], dict[str, str]]:
    """4 packages × 3 files × 5 functions, dense calls inside a package, 3 calls across packages."""
    rng = random.Random(seed)
    files: list[FileSpec] = []
    truth: dict[str, str] = {}
    for group in GROUPS:
        specs = [FileSpec(f"src/{group}/m{j}.py") for j in range(3)]
        names = []
        for j, spec in enumerate(specs):
            for k in range(5):
                name = f"{group}_{j}_{k}"
                spec.define(name)
                names.append((spec, name))
                truth[sid(spec.path, name)] = group
        for spec, name in names:
            for _, callee in rng.sample([n for n in names if n[1] != name], 4):
                spec.call(name, callee)
        for j, spec in enumerate(specs):
            other = specs[(j + 1) % 3]
            spec.imports_(f"src.{group}.m{(j + 1) % 3}", other.path)
        files.extend(specs)
    # A few cross-package calls: these are the bridges.
    files[0].call("billing_0_0", "auth_0_0")
    files[3].call("auth_0_0", "search_0_0")
    files[6].call("search_0_0", "render_0_0")
    return files, truth


def test_louvain_recovers_planted_communities(engine, repo):
    files, truth = planted_files()
    load(engine, repo, files)
    report = engine.communities(repo, recompute=True)

    assert len(report.communities) == len(GROUPS)
    assert report.modularity > 0.5
    for community in report.communities:
        groups = {truth[m] for m in community.member_ids}
        assert len(groups) == 1, f"community {community.label} mixes {groups}"
        (group,) = groups
        assert community.size == 15
        assert community.dominant_paths[0] == f"src/{group}"
        assert community.label.startswith(f"src/{group}: ")
        assert len(community.top_symbols) == 5
    assert {b.edge.callee_name for b in report.bridges} == {"auth_0_0", "search_0_0", "render_0_0"}
    for bridge in report.bridges:
        assert bridge.from_community != bridge.to_community
    degrees = [h.in_degree + h.out_degree for h in report.hubs]
    assert degrees == sorted(degrees, reverse=True)


def test_communities_limit_and_stats(engine, repo):
    files, _ = planted_files()
    load(engine, repo, files)
    assert len(engine.communities(repo, limit=2).communities) == 2
    stats = engine.stats(repo)
    assert stats.symbols == 60
    assert stats.communities == 4
    assert stats.resolved_edges > 0 and stats.external_calls == 0
    assert stats.imports == 12
    assert stats.last_recompute is not None


def test_empty_repository_has_no_communities(engine, repo):
    report = engine.communities(repo)
    assert report.communities == () and report.hubs == () and report.modularity == 0.0


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_recompute_waits_until_writes_settle(store, repo):
    clock = FakeClock()
    engine = GraphEngine(store, settle_seconds=5, clock=clock)
    files, _ = planted_files()
    load(engine, repo, files[:6])
    first = engine.communities(repo)  # no report yet: computed at once
    assert sum(c.size for c in first.communities) == 30

    load(engine, repo, files[6:])
    clock.now += 1
    assert engine.communities(repo) is not None
    assert sum(c.size for c in engine.communities(repo).communities) == 30  # still settling: last report
    assert engine.recompute_settled() == []

    clock.now += 5
    assert engine.recompute_settled() == [repo]  # quiet for settle_seconds: recomputed in the background
    assert sum(c.size for c in engine.communities(repo).communities) == 60
    assert engine.recompute_settled() == []


def test_a_restarted_engine_computes_stored_repos_before_anyone_asks(store, repo):
    files, _ = planted_files()
    load(GraphEngine(store, settle_seconds=60), repo, files)
    restarted = GraphEngine(store, settle_seconds=60)  # reports live in memory: a restart has none
    restarted.start_background(interval_s=60)
    try:
        wait_for(lambda: repo in restarted._reports, 30, "the background computation", interval=0.02)
        assert sum(c.size for c in restarted._reports[repo].communities) == 60
    finally:
        restarted.stop_background()


def test_forced_recompute_ignores_settling(store, repo):
    clock = FakeClock()
    engine = GraphEngine(store, settle_seconds=60, clock=clock)
    files, _ = planted_files()
    load(engine, repo, files[:3])
    engine.communities(repo)
    load(engine, repo, files[3:])
    assert sum(c.size for c in engine.communities(repo, recompute=True).communities) == 60


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_planted_recovery_is_stable_across_random_fixtures(seed):
    files, truth = planted_files(seed)
    symbols = tuple(s for f in files for s in f.symbols)
    facts = RepoFacts(
        symbols, tuple(c for f in files for c in f.calls), tuple(i for f in files for i in f.imports)
    )
    report = detect_communities(facts, generation=1, now=datetime.now(UTC))
    assert sorted({truth[m] for m in c.member_ids}.pop() for c in report.communities) == sorted(GROUPS)
    assert all(len({truth[m] for m in c.member_ids}) == 1 for c in report.communities)


def loose_files(seed: int) -> list[FileSpec]:
    """Sparse random calls over few files: many near-equal partitions, so visiting order would show."""
    rng = random.Random(seed)
    specs = [FileSpec(f"src/p{j}.py") for j in range(4)]
    names = []
    for j, spec in enumerate(specs):
        for k in range(6):
            spec.define(f"f{j}_{k}")
            names.append((spec, f"f{j}_{k}"))
    for spec, name in names:
        for _, callee in rng.sample([n for n in names if n[1] != name], 2):
            spec.call(name, callee)
    specs[0].imports_("src.p1", specs[1].path)
    specs[2].imports_("src.p3", specs[3].path)
    return specs


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_communities_do_not_depend_on_the_order_a_store_returns_facts_in(seed):
    files = loose_files(seed)
    symbols = [s for f in files for s in f.symbols]
    calls = [c for f in files for c in f.calls]
    imports = [i for f in files for i in f.imports]
    now = datetime.now(UTC)
    first = detect_communities(RepoFacts(tuple(symbols), tuple(calls), tuple(imports)), generation=1, now=now)
    shuffle = random.Random(seed)
    for _ in range(5):
        for facts in (symbols, calls, imports):
            shuffle.shuffle(facts)
        again = detect_communities(
            RepoFacts(tuple(symbols), tuple(calls), tuple(imports)), generation=1, now=now
        )
        assert again == first
