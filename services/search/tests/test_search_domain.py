"""Pure domain logic: query words, fusion, adjustments, symbol matching, the embedded view."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kit.domain import ChunkKind
from services.search.domain.embedding_text import MAX_CHARS, embedding_text
from services.search.domain.keywords import chunk_fields, query_words, words
from services.search.domain.model import (
    ScoredId,
    SearchFilters,
    SearchHit,
    SignalScores,
    SymbolMatch,
    TestFilter,
    path_dirs,
    prefix_directory,
)
from services.search.domain.ranking import (
    DOC_PENALTY,
    EXACT_NAME_BOOST,
    FILE_CONTEXT_BOOST,
    KEYWORD_WEIGHT,
    QUOTED_BOOST,
    STUB_DECLARATION_PENALTY,
    SUBJECT_SHARE,
    TEST_PENALTY,
    WANTED_BOOST,
    QueryIntent,
    adjustment,
    feedback_factor,
    fuse,
    rank,
    with_file_context,
)
from services.search.domain.symbols import (
    edit_distance,
    fuzzy_score,
    query_word_prefixes,
    select_symbols,
    spread_over_files,
)
from services.search.tests.search_fakes import chunk


def test_identifiers_match_their_spoken_words_and_their_written_forms() -> None:
    assert {"validate", "user", "input", "validateuserinput"} <= set(words("validateUserInput"))
    assert "validateuserinput" in words("validate_user_input")
    assert {"parser", "parse"} <= set(words("Parser::parse"))
    assert query_words("how does the parser validate user input?") == ["parser", "validate", "user", "input"]
    assert query_words("the") == ["the"]  # only stop words: keep them rather than search nothing
    # asked about as code, it is a term
    assert query_words("where is `fix` defined") == ["fix", "defined"]
    assert query_words("who calls fix() twice") == ["calls", "fix", "twice"]
    assert query_words("fix(forEach): unsubscribe after an error") == [
        "foreach",
        "each",
        "unsubscribe",
        "after",
        "error",
    ]
    # "fix" is the request; the identifier that holds it is still searched whole and by its other parts
    assert query_words("Fixed crash in fix_imports when the path is empty") == [
        "crash",
        "fiximports",
        "imports",
        "path",
        "empty",
    ]


@given(st.text(max_size=200))
def test_query_words_are_plain_lowercase_words_whatever_the_input(text: str) -> None:
    assert all(re.fullmatch(r"[a-z0-9]+", w) for w in query_words(text))


def test_chunk_fields_weight_names_and_paths_separately_from_bodies() -> None:
    fields = chunk_fields(
        chunk("loadConfig", "src/config_loader.py", body="def loadConfig():\n    return x\n")
    )
    assert {"load", "config", "loadconfig"} <= set(fields["names"].split())
    assert {"src", "config", "loader", "py"} <= set(fields["path"].split())


def test_fusion_combines_normalised_scores_and_keeps_each_signal() -> None:
    fused = fuse(
        [ScoredId("a", 9.0), ScoredId("b", 4.5)], [ScoredId("b", 0.9), ScoredId("c", 0.7), ScoredId("d", 0.5)]
    )  # cosines 0.5..0.9: c is halfway
    assert fused["a"].fused == pytest.approx(KEYWORD_WEIGHT)  # best keyword score, no vector
    assert fused["b"].fused == pytest.approx(KEYWORD_WEIGHT * 0.5 + (1 - KEYWORD_WEIGHT))
    assert fused["c"].fused == pytest.approx((1 - KEYWORD_WEIGHT) * 0.5)
    assert fused["d"].fused == 0.0  # the weakest vector candidate adds nothing
    assert (fused["b"].keyword_rank, fused["b"].vector_rank, fused["b"].vector_score) == (2, 1, 0.9)
    assert (fused["c"].keyword_rank, fused["c"].vector_rank) == (0, 2)


def test_fusion_keeps_a_clear_keyword_lead_over_a_name_boosted_runner_up() -> None:
    """bm25 34.6 against 17.7 is a clear winner; as reciprocal ranks (1/61 vs 1/62) a ×1.35 name boost
    on the runner-up used to overturn it."""
    exact = chunk("ImportPathMismatchError", "src/pathlib.py")
    loose = chunk("ImportMismatchError", "src/path.py")
    signals = fuse([ScoredId(exact.id, 34.6), ScoredId(loose.id, 17.7)], [])
    hits = rank(signals, {exact.id: exact, loose.id: loose}, QueryIntent.of("import mismatch error"), 10)
    assert hits[1].signals.adjustment > hits[0].signals.adjustment
    assert [h.chunk.name for h in hits] == ["ImportPathMismatchError", "ImportMismatchError"]


def test_nearly_equal_cosines_stay_nearly_tied() -> None:
    fused = fuse([], [ScoredId("a", 0.52), ScoredId("b", 0.50)])
    assert fused["a"].fused - fused["b"].fused == pytest.approx((1 - KEYWORD_WEIGHT) * 0.02 / 0.15)


def test_fusion_of_single_or_equal_candidates_does_not_divide_by_zero() -> None:
    fused = fuse([ScoredId("a", 0.0)], [ScoredId("b", 0.3), ScoredId("c", 0.3)])
    assert fused["a"].fused == pytest.approx(KEYWORD_WEIGHT)
    assert fused["b"].fused == fused["c"].fused == pytest.approx(1 - KEYWORD_WEIGHT)
    assert fuse([], []) == {}
    duplicated = fuse([ScoredId("a", 2.0), ScoredId("a", 9.0)], [])
    assert duplicated["a"].keyword_rank == 1 and duplicated["a"].fused == pytest.approx(KEYWORD_WEIGHT)


def test_adjustments_prefer_implementation_exact_names_and_short_chunks() -> None:
    intent = QueryIntent.of("where is parse_config defined")
    impl = chunk("parse_config", "src/config.py")
    test = chunk("parse_config", "tests/test_config.py", is_test=True)
    doc = chunk("config.md", "docs/config.md", kind=ChunkKind.FILE, language="markdown")
    huge = chunk("parse_config", "src/big.py", lines=2000)
    assert adjustment(impl, intent) == pytest.approx(EXACT_NAME_BOOST * 1.2)  # name and file stem "config"
    assert adjustment(test, intent) == pytest.approx(EXACT_NAME_BOOST * TEST_PENALTY)
    assert adjustment(doc, intent) < DOC_PENALTY * 1.2 + 1e-9
    assert adjustment(huge, intent) < adjustment(impl, intent)
    assert adjustment(test, QueryIntent.of("tests of parse_config")) > adjustment(
        impl, QueryIntent.of("tests")
    )


def test_a_declaration_stub_ranks_below_the_code_that_does_the_work() -> None:
    intent = QueryIntent.of("fix set Vary header in the compress middleware")
    alias = chunk("HeaderRouter", "middleware/route_headers.go", kind=ChunkKind.TYPE, lines=1)
    struct = chunk("Config", "middleware/compress.go", kind=ChunkKind.CLASS, lines=12)
    method = chunk("WriteHeader", "middleware/compress.go", kind=ChunkKind.METHOD, lines=2)
    assert adjustment(alias, intent) == pytest.approx(STUB_DECLARATION_PENALTY)
    assert adjustment(struct, intent) == pytest.approx(1.2)  # a real declaration; its file stem is asked for
    assert adjustment(method, intent) == pytest.approx(1.2)  # a short function is code, not a stub
    # asked for by name, a stub is the answer
    asked = QueryIntent.of("where is HeaderRouter declared")
    assert adjustment(alias, asked) == pytest.approx(EXACT_NAME_BOOST)


def test_test_words_ask_for_tests_unless_testing_is_the_repos_subject() -> None:
    intent = QueryIntent.of("which fixtures record output written by the test")
    assert intent.wants_tests and intent.test_words == {"fixtures", "test"}
    assert intent.subject_words() == {"fixtures", "test"}
    web_app = intent.in_repo({"fixtures": 0.0, "test": 0.05})
    test_runner = intent.in_repo({"fixtures": 0.01, "test": SUBJECT_SHARE + 0.1})
    assert web_app.wants_tests and not test_runner.wants_tests
    unit_test = chunk("test_capture", "testing/test_capture.py", is_test=True)
    assert adjustment(unit_test, web_app) == pytest.approx(WANTED_BOOST)
    assert adjustment(unit_test, test_runner) == pytest.approx(TEST_PENALTY)


@pytest.mark.parametrize(
    "query",
    [
        "tests for evict entries",
        "write a test for the config parser",
        "where are the tests for routing?",
        "which tests cover the retry logic",
        "is the cache eviction tested anywhere?",
        "is there a test for an empty input",
        "add unit tests for parse_config",
    ],
)
def test_a_query_that_asks_for_tests_wants_them(query: str) -> None:
    assert QueryIntent.of(query).wants_tests


@pytest.mark.parametrize(
    "query",
    [
        "my test fails when I compare floats, where is the tolerance computed?",
        "saving was refused as a secret, it was just a base64 test fixture",
        "in marble tests, what does ^ mean and where is it parsed?",
        "the load test with 16 clients keeps tripping the rate limit",
        "which test ids are generated for parametrized values",
    ],
)
def test_a_query_that_mentions_a_test_does_not_pull_tests_first(query: str) -> None:
    intent = QueryIntent.of(query)
    assert not intent.wants_tests and intent.subject_words() == frozenset()
    spec = chunk("check_totals", "spec/totals_spec.js", is_test=True)
    assert adjustment(spec, intent) == pytest.approx(TEST_PENALTY)


def test_a_message_the_query_quotes_lifts_the_code_that_holds_it_verbatim() -> None:
    prompts = chunk(
        "prompt_twice",
        "src/termui.py",
        body='def prompt_twice():\n    echo(_("Error: The two entered values\n do not match."))\n',
    )
    other = chunk("confirm", "src/core.py", body="def confirm():\n    return values_match()\n")
    intent = QueryIntent.of("where is the loop that prints 'the two entered values do not match'?")
    assert intent.quoted == ("the two entered values do not match",)
    assert adjustment(prompts, intent) == pytest.approx(QUOTED_BOOST)  # case and line breaks aside
    assert adjustment(other, intent) == pytest.approx(1.0)
    # One quoted word is a name or a flag (left to the name boosts); an apostrophe opens no quote.
    assert QueryIntent.of("what's the 'verbose' flag for? it's not 'obvious' to me").quoted == ()
    # An apostrophe inside a message is part of it; code that builds a string is not a message.
    assert QueryIntent.of("it says 'can't open the config file' at start").quoted == (
        "can't open the config file",
    )
    assert (
        QueryIntent.of("print('Hello ' + name + ' welcome') shows 'Saved.' and then '--dry-run'").quoted == ()
    )


def test_a_query_without_test_words_needs_no_repo_vocabulary() -> None:
    intent = QueryIntent.of("where is the output captured")
    assert intent.subject_words() == frozenset()
    assert intent.in_repo({}) == intent


def test_qualified_names_and_written_paths_count_as_exact_matches() -> None:
    method = chunk("parse", "src/parser.py", kind=ChunkKind.METHOD, qualified_name="Parser.parse")
    assert adjustment(method, QueryIntent.of("Parser.parse")) >= EXACT_NAME_BOOST
    assert adjustment(method, QueryIntent.of("what does src/parser.py do")) > 1.0
    assert adjustment(chunk("other", "src/lexer.py"), QueryIntent.of("what does src/parser.py do")) == 1.0


def test_rank_drops_missing_chunks_orders_by_score_and_records_the_adjustment() -> None:
    a, b = chunk("alpha", "a.py"), chunk("beta", "b.py", is_test=True)
    signals = fuse([ScoredId(b.id, 2.0), ScoredId(a.id, 1.0), ScoredId("gone", 0.5)], [])
    hits = rank(signals, {a.id: a, b.id: b}, QueryIntent.of("something"), limit=10)
    assert [h.chunk.name for h in hits] == ["alpha", "beta"]
    assert hits[1].signals.adjustment == TEST_PENALTY
    assert hits[0].score == pytest.approx(hits[0].signals.fused * hits[0].signals.adjustment)


def test_a_hit_among_other_leading_hits_of_its_file_outranks_a_lone_hit_of_equal_score() -> None:
    helper = chunk("decode_param", "lib/router/layer.js")
    handler = chunk("handle_request", "lib/router/layer.js", ordinal=1)
    stray = chunk("decode", "lib/utils.js")
    signals = fuse([ScoredId(stray.id, 3.0), ScoredId(helper.id, 3.0), ScoredId(handler.id, 1.5)], [])
    chunks = {c.id: c for c in (helper, handler, stray)}
    hits = rank(signals, chunks, QueryIntent.of("bad percent sequence"), limit=10)
    assert [h.chunk.id for h in hits] == [helper.id, stray.id, handler.id]
    by_id = {h.chunk.id: h for h in hits}
    # the helper's file holds the handler (half the top score), the handler's the helper (all of it)
    assert by_id[helper.id].signals.adjustment == pytest.approx(1 + FILE_CONTEXT_BOOST * 0.5)
    assert by_id[handler.id].signals.adjustment == pytest.approx(1 + FILE_CONTEXT_BOOST * 1.0)
    assert by_id[stray.id].signals.adjustment == 1.0
    for h in hits:
        assert h.score == pytest.approx(h.signals.fused * h.signals.adjustment)


def test_file_context_counts_only_the_leading_hits_and_survives_empty_or_zero_scores() -> None:
    assert with_file_context([]) == []
    a, b, c = chunk("a", "x.py"), chunk("b", "x.py", ordinal=1), chunk("c", "y.py")
    zeros = [SearchHit(x, 0.0, SignalScores()) for x in (a, b)]
    assert with_file_context(zeros) == zeros  # no best score to measure against: unchanged
    hits = [
        SearchHit(c, 3.0, SignalScores()),
        SearchHit(a, 2.0, SignalScores()),
        SearchHit(b, 1.5, SignalScores()),
    ]
    boosted = {h.chunk.id: h for h in with_file_context(hits, boost=0.4, depth=2)}
    # only c and a lead: a's file holds no other leading hit, b (outside them) counts a's 2.0 of 3.0
    assert boosted[c.id].score == 3.0 and boosted[a.id].score == 2.0
    assert boosted[b.id].score == pytest.approx(1.5 * (1 + 0.4 * 2.0 / 3.0))
    assert boosted[b.id].signals.adjustment == pytest.approx(1 + 0.4 * 2.0 / 3.0)


def test_filters_reference_semantics() -> None:
    f = SearchFilters.of(
        languages=["go"], kinds=[ChunkKind.METHOD], path_prefix="pkg/", tests=TestFilter.EXCLUDE
    )
    assert f.accepts(path="pkg/a.go", language="go", kind="method", is_test=False)
    assert not f.accepts(path="pkg/a.go", language="go", kind="method", is_test=True)
    assert not f.accepts(path="cmd/a.go", language="go", kind="method", is_test=False)
    assert not f.accepts(path="pkg/a.go", language="python", kind="method", is_test=False)
    assert SearchFilters.of(tests=TestFilter.ONLY).accepts(path="x", language="x", kind="x", is_test=True)
    assert path_dirs("a/b/c.py") == ["a/", "a/b/"] and path_dirs("c.py") == []
    assert (prefix_directory("src/sea"), prefix_directory("src/"), prefix_directory("src")) == (
        "src/",
        "src/",
        "",
    )


def test_edit_distance_and_fuzzy_scores() -> None:
    assert edit_distance("kitten", "sitting", 5) == 3
    assert edit_distance("a", "abcdefgh", 2) == 3  # capped
    assert fuzzy_score("tokenise_input", "tokenize_input") > 0.9
    assert fuzzy_score("input_tokens", "tokens_input") == pytest.approx(1.0)  # same words, other order
    assert fuzzy_score("parse", "render") < 0.5
    assert query_word_prefixes("valdateUserInput") == ["vald", "user", "inpu"]


def test_select_symbols_orders_implementation_first() -> None:
    cands = [
        chunk("parse", "tests/test_p.py", is_test=True),
        chunk("parse", "src/deep/nested/p.py"),
        chunk("parse", "src/p.py", kind=ChunkKind.METHOD, qualified_name="P.parse"),
        chunk("parser_state", "src/p.py"),
    ]
    exact = select_symbols("parse", cands, SymbolMatch.EXACT, 10)
    assert [(c.path, c.qualified_name) for c in exact] == [
        ("src/deep/nested/p.py", "parse"),
        ("src/p.py", "P.parse"),
        ("tests/test_p.py", "parse"),
    ]
    assert [c.name for c in select_symbols("PARSER", cands, SymbolMatch.PREFIX, 10)] == ["parser_state"]
    assert select_symbols("parse", cands, SymbolMatch.EXACT, 1) == exact[:1]


def test_embedding_text_leads_with_name_signature_and_doc_and_is_bounded() -> None:
    c = chunk(
        "loadUserProfile",
        "src/users/profile.py",
        body="def loadUserProfile(user_id):\n" + "    x = 1\n" * 500,
        doc="Load a user's profile from the database.",
        qualified_name="Users.loadUserProfile",
    )
    text = embedding_text(c)
    assert text.startswith("function Users.loadUserProfile (load user profile)\nsrc/users/profile.py\n")
    assert "Load a user's profile" in text
    assert len(text) <= MAX_CHARS


def test_spread_over_files_takes_each_files_first_definitions_first() -> None:
    defs = [
        chunk(f"{f}{i}", f"{f}.py", start_line=10 - i) for f in "abc" for i in range(3 if f != "b" else 1)
    ]
    picked = spread_over_files(defs, 5)
    assert [(c.path, c.start_line) for c in picked] == [
        ("a.py", 8),
        ("b.py", 10),
        ("c.py", 8),
        ("a.py", 9),
        ("c.py", 9),
    ]
    assert len(spread_over_files(defs, 100)) == len(defs)


def test_feedback_factor_is_bounded() -> None:
    assert [feedback_factor(v) for v in (-100, -1, 0, 2, 100)] == pytest.approx([0.5, 0.9, 1.0, 1.2, 1.5])
