import pytest

from gateway.domain.assembly import CandidateReason
from gateway.domain.fusion import (
    HUB_AREA_HITS,
    RRF_K,
    WEIGHTS,
    CommunitySummary,
    HubSummary,
    Neighbour,
    architecture_overview,
    fuse_candidates,
    hubs_in_area,
    missing_content_ids,
    seeds_in_search_order,
    to_code_candidates,
)
from gateway.domain.routing import RouteName, classify
from kit.domain import Chunk, ChunkKind, Symbol


def chunk(
    cid: str, path: str = "src/a.py", content: str = "x = 1\n", is_test: bool = False, line: int = 1
) -> Chunk:
    return Chunk(
        id=cid,
        repo="acme",
        path=path,
        language="python",
        kind=ChunkKind.FUNCTION,
        name=cid,
        qualified_name=cid,
        start_line=line,
        end_line=line + 1,
        content=content,
        content_hash="h",
        is_test=is_test,
    )


def symbol(sid: str, path: str = "src/s.py") -> Symbol:
    return Symbol(
        id=sid, path=path, name=sid, qualified_name=sid, kind=ChunkKind.FUNCTION, start_line=1, end_line=2
    )


def test_weights_cover_every_non_skip_route_and_source():
    assert set(WEIGHTS) == set(RouteName) - {RouteName.SKIP}
    for weights in WEIGHTS.values():
        assert set(weights) == set(CandidateReason)


def test_score_is_the_weighted_reciprocal_rank_sum():
    fused = fuse_candidates("lookup", search=[chunk("a"), chunk("b")], seeds=[chunk("b")])
    scores = {c.id: c.score for c in fused}
    assert scores["a"] == pytest.approx(1.0 / (RRF_K + 1))
    assert scores["b"] == pytest.approx(1.0 / (RRF_K + 2) + 1.1 / (RRF_K + 1))
    assert [c.id for c in fused] == ["b", "a"]
    assert fused[0].reason is CandidateReason.SEED  # 1.1/11 from the seed beats 1/12 from search
    assert fused[0].sources == (CandidateReason.SEED, CandidateReason.SEARCH)


def named(sid: str, name: str, path: str) -> Symbol:
    return Symbol(
        id=sid, path=path, name=name, qualified_name=sid, kind=ChunkKind.FUNCTION, start_line=1, end_line=2
    )


def test_definitions_of_one_name_follow_search_and_each_name_keeps_its_place():
    app, router, types = (
        named("app", "hasRoute", "app.js"),
        named("router", "hasRoute", "lib/route.js"),
        named("types", "hasRoute", "types.d.ts"),
    )
    other = named("listen", "listen", "lib/server.js")
    search = [chunk("router", "lib/route.js"), chunk("listen"), chunk("app", "app.js")]
    assert seeds_in_search_order([app, types, router, other], search) == [router, app, types, other]
    assert seeds_in_search_order([other, app, router], []) == [other, app, router]  # no search: as resolved
    # Only one name's adjacent definitions are reordered: two asked names that share a short name keep their
    # places around the name between them.
    again = named("again", "hasRoute", "lib/other.js")
    assert seeds_in_search_order([app, other, again], [chunk("again")]) == [app, other, again]


def test_the_search_order_decides_between_two_definitions_of_a_named_function():
    app, router = named("app", "hasRoute", "app.js"), named("router", "hasRoute", "lib/route.js")
    search = [chunk("router", "lib/route.js"), chunk("app", "app.js")]
    # Resolved app first (shallower path); search read the prompt and put the router's first.
    assert [c.id for c in fuse_candidates("bug", search=search, seeds=[app, router])][:2] == ["router", "app"]


def test_flow_prefers_the_seed_and_its_call_tree_over_search():
    kwargs = dict(
        search=[chunk("s1"), chunk("s2"), chunk("s3")],
        seeds=[chunk("seed")],
        callers=[Neighbour(chunk("caller1")), Neighbour(chunk("caller2"), depth=2)],
        callees=[Neighbour(chunk("callee1"))],
    )
    flow = [c.id for c in fuse_candidates("flow", **kwargs)]
    lookup = [c.id for c in fuse_candidates("lookup", **kwargs)]
    assert flow[:3] == ["seed", "caller1", "callee1"]
    assert lookup[:2] == ["seed", "s1"]
    assert flow.index("caller2") > flow.index("caller1")  # depth 2 counts half


def test_bug_ranks_seed_and_search_first_then_callers_above_callees():
    fused = fuse_candidates(
        "bug",
        callers=[Neighbour(chunk("caller"))],
        callees=[Neighbour(chunk("callee"))],
        search=[chunk("hit")],
        seeds=[chunk("seed")],
    )
    assert [c.id for c in fused] == ["seed", "hit", "caller", "callee"]


def test_architecture_adds_the_hubs_of_the_area_search_found_below_its_hits():
    search = [chunk("s1", "src/area/a.py"), chunk("s2", "src/area/b.py")]
    hubs = [symbol("elsewhere", "src/other/core.py"), symbol("hub", "src/area/b.py")]
    fused = fuse_candidates("architecture", hubs=hubs, search=search)
    assert [c.id for c in fused] == ["s1", "s2", "hub"]  # a repo-wide hub far from the prompt is left out
    assert fused[2].reason is CandidateReason.HUB


def test_a_hub_that_search_also_found_ranks_above_the_hits_it_beat():
    search = [chunk("s1", "src/a.py"), chunk("s2", "src/a.py"), chunk("central", "src/a.py")]
    fused = fuse_candidates("architecture", hubs=[symbol("central", "src/a.py")], search=search)
    assert [c.id for c in fused][0] == "central"
    assert fused[0].sources == (CandidateReason.SEARCH, CandidateReason.HUB)


def test_hubs_count_only_in_the_files_of_the_leading_search_hits():
    search = [chunk(f"s{i}", f"src/f{i}.py") for i in range(HUB_AREA_HITS + 1)]
    late = symbol("late", f"src/f{HUB_AREA_HITS}.py")
    early = symbol("early", "src/f0.py")
    assert [h.id for h in hubs_in_area([late, early], search)] == ["early"]


def test_tests_are_ranked_down_unless_the_prompt_is_about_tests():
    search = [chunk("test_x", "tests/test_a.py", is_test=True), chunk("impl")]
    assert [c.id for c in fuse_candidates("lookup", search=search)] == ["impl", "test_x"]
    assert [c.id for c in fuse_candidates("lookup", search=search, prefer_tests=True)] == ["test_x", "impl"]


def test_active_files_lift_candidates_in_them():
    search = [chunk("far", "src/far.py"), chunk("near", "src/open.py")]
    fused = fuse_candidates("bug", search=search, active_files=["./src/open.py"])
    assert [c.id for c in fused] == ["near", "far"]
    assert CandidateReason.ACTIVE_FILE in fused[0].sources


def test_active_chunks_become_candidates():
    fused = fuse_candidates("lookup", active_chunks=[chunk("cursor")])
    assert [(c.id, c.reason) for c in fused] == [("cursor", CandidateReason.ACTIVE_FILE)]


def test_skip_route_and_zero_limit_fuse_nothing():
    assert fuse_candidates(classify("thanks"), search=[chunk("a")]) == []
    assert fuse_candidates("lookup", search=[chunk("a")], limit=0) == []


def test_ties_break_deterministically():
    one = fuse_candidates(
        "lookup", callers=[Neighbour(chunk("b", "src/b.py"))], callees=[Neighbour(chunk("a", "src/a.py"))]
    )
    two = fuse_candidates(
        "lookup", callees=[Neighbour(chunk("a", "src/a.py"))], callers=[Neighbour(chunk("b", "src/b.py"))]
    )
    assert one == two
    assert [c.id for c in one] == ["b", "a"]  # equal scores: caller before callee


def test_symbols_and_content_less_chunks_need_fetching_and_the_text_wins_when_merged():
    empty = chunk("e", content="")
    fused = fuse_candidates("flow", seeds=[symbol("sym"), empty], callers=[Neighbour(chunk("full"))])
    assert set(missing_content_ids(fused)) == {"sym", "e"}
    fetched = {"sym": chunk("sym", content="def sym(): ...\n")}
    candidates = to_code_candidates(fused, fetched)
    assert [c.chunk.id for c in candidates] == ["sym", "full"]  # "e" has no text anywhere: left out
    merged = fuse_candidates(
        "lookup", seeds=[chunk("x", content="")], search=[chunk("x", content="def x(): ...\n")]
    )
    assert merged[0].has_content


def test_a_search_candidate_carries_its_search_score_over_the_top_hits():
    fused = fuse_candidates(
        "bug", search=[chunk("top"), chunk("weak")], callers=[Neighbour(chunk("caller", "src/c.py"))]
    )
    candidates = to_code_candidates(fused, search_scores={"top": 2.0, "weak": 0.3, "caller": 0.1})
    strength = {c.chunk.id: c.strength for c in candidates}
    # a graph neighbour is not measured by search's scores, even when search found it too
    assert strength == {"top": 1.0, "weak": 0.15, "caller": 1.0}
    assert {c.strength for c in to_code_candidates(fused)} == {1.0}  # no search scores: nothing to say


def test_limit_keeps_the_best():
    fused = fuse_candidates("lookup", search=[chunk(f"c{i}") for i in range(50)], limit=5)
    assert [c.id for c in fused] == ["c0", "c1", "c2", "c3", "c4"]


def test_architecture_overview_lists_largest_areas_and_hubs():
    text = architecture_overview(
        [
            CommunitySummary("kit", 50, ("kit",), ("count_tokens",)),
            CommunitySummary(
                "services/search", 400, ("services/search", "services/search/adapters"), ("Engine.search",)
            ),
            CommunitySummary("", 3, ()),
        ],
        [HubSummary("count_tokens", "kit/tokens.py", 20, in_degree=48, out_degree=1, community="kit")],
        max_communities=2,
    )
    assert text == (
        "Areas of the code (call-graph communities, 3 in total, 453 symbols):\n"
        "- services/search (400 symbols) in services/search, services/search/adapters; "
        "central: Engine.search\n"
        "- kit (50 symbols); central: count_tokens\n"
        "- 1 smaller areas (3 symbols)\n"
        "Most connected symbols:\n"
        "- count_tokens (kit/tokens.py:20): 48 callers, 1 callee, in kit"
    )
    assert architecture_overview([], []) == ""


def test_a_test_search_ranked_first_sits_below_the_first_five_implementation_hits():
    search = [chunk("test_x", "tests/test_a.py", is_test=True)] + [chunk(f"impl{i}") for i in range(6)]
    ranked = [c.id for c in fuse_candidates("lookup", search=search)]
    assert ranked.index("test_x") > ranked.index("impl4")
