"""The search contract, run on every backend combination (see conftest.py): what the indexer and the
gateway rely on, whichever stores are behind the service."""

from __future__ import annotations

import re

import pytest

from kit.domain import ChunkKind
from services.search.domain.model import (
    InvalidRequest,
    NotFound,
    SearchFilters,
    SearchMode,
    SymbolMatch,
    TestFilter,
)
from services.search.engine import SearchEngine
from services.search.tests.search_fakes import WordHashEmbedder, chunk

REPO = "repo"


def ids(result) -> list[str]:
    return [h.chunk.id for h in result.hits]


def names(result) -> list[str]:
    return [h.chunk.name for h in result.hits]


def backfilled(engine: SearchEngine) -> SearchEngine:
    while engine.backfill_once():
        pass
    assert engine.stats(REPO).embed_backlog == 0
    return engine


def test_reupserting_a_file_with_fewer_chunks_leaves_no_orphans(engine: SearchEngine) -> None:
    first = [
        chunk("parse_header", "src/http.py", body="def parse_header(raw):\n    return split_lines(raw)\n"),
        chunk("emit_trailer", "src/http.py", body="def emit_trailer(out):\n    out.write(trailer_bytes)\n"),
        chunk("flush_socket", "src/http.py", body="def flush_socket(sock):\n    sock.flush_buffers()\n"),
    ]
    assert engine.upsert_file(REPO, "src/http.py", first) == 3
    backfilled(engine)
    changed = chunk(
        "parse_header", "src/http.py", body="def parse_header(raw):\n    return decode_fields(raw)\n"
    )
    assert engine.upsert_file(REPO, "src/http.py", [changed]) == 1
    backfilled(engine)

    assert [c.id for c in engine.get_chunks(REPO, [c.id for c in first])] == [changed.id]
    assert engine.get_chunks(REPO, [changed.id])[0].content == changed.content
    for mode in (SearchMode.KEYWORD, SearchMode.VECTOR):
        assert ids(engine.search("emit trailer bytes", REPO, mode=mode)) in ([], [changed.id])
        assert ids(engine.search("flush socket buffers", REPO, mode=mode)) in ([], [changed.id])
    assert ids(engine.search("split lines", REPO, mode=SearchMode.KEYWORD)) == []
    assert ids(engine.search("decode fields", REPO, mode=SearchMode.KEYWORD)) == [changed.id]
    stats = engine.stats(REPO)
    assert (stats.files, stats.chunks, stats.vectors, stats.embed_backlog) == (1, 1, 1, 0)


def test_upserting_an_empty_file_removes_everything_stored_for_it(engine: SearchEngine) -> None:
    engine.upsert_file(REPO, "a.py", [chunk("alpha_handler", "a.py")])
    engine.upsert_file(REPO, "b.py", [chunk("beta_worker", "b.py")])
    backfilled(engine)
    assert engine.upsert_file(REPO, "a.py", []) == 0
    backfilled(engine)
    assert names(engine.search("alpha handler", REPO, mode=SearchMode.KEYWORD)) == []
    assert names(engine.search("alpha handler", REPO, mode=SearchMode.VECTOR)) == ["beta_worker"]
    stats = engine.stats(REPO)
    assert (stats.files, stats.chunks, stats.vectors) == (1, 1, 1)


def test_delete_files_removes_their_chunks_and_vectors_only(engine: SearchEngine) -> None:
    engine.upsert_file(REPO, "keep.py", [chunk("kept_function", "keep.py")])
    engine.upsert_file(REPO, "gone.py", [chunk("gone_one", "gone.py"), chunk("gone_two", "gone.py")])
    backfilled(engine)
    assert engine.delete_files(REPO, ["gone.py", "never-indexed.py"]) == 2
    assert engine.get_chunks(
        REPO, ["gone.py#gone_one#0", "gone.py#gone_two#0", "keep.py#kept_function#0"]
    ) == [engine.get_chunks(REPO, ["keep.py#kept_function#0"])[0]]
    assert names(engine.search("gone", REPO, mode=SearchMode.VECTOR)) == ["kept_function"]
    stats = engine.stats(REPO)
    assert (stats.files, stats.chunks, stats.vectors) == (1, 1, 1)


def test_delete_repo_leaves_other_repos_alone(engine: SearchEngine) -> None:
    engine.upsert_file("one", "x.py", [chunk("shared_name", "x.py", repo="one")])
    engine.upsert_file("two", "x.py", [chunk("shared_name", "x.py", repo="two")])
    backfilled(engine)
    assert engine.delete_repo("one") == 1
    assert engine.search("shared name", "one").hits == []
    assert [h.chunk.repo for h in engine.search("shared name", "two").hits] == ["two"]
    assert engine.stats("one").chunks == 0
    assert (engine.stats("two").chunks, engine.stats("two").vectors) == (1, 1)


def _filter_fixture(engine: SearchEngine) -> None:
    engine.upsert_file(REPO, "src/core/store.py", [chunk("save_record", "src/core/store.py")])
    engine.upsert_file(
        REPO, "src/core/types.ts", [chunk("saveRecord", "src/core/types.ts", language="typescript")]
    )
    engine.upsert_file(
        REPO,
        "src/cli/main.py",
        [
            chunk(
                "RecordSaver",
                "src/cli/main.py",
                kind=ChunkKind.CLASS,
                body="class RecordSaver:\n    def save_record(self): ...\n",
            )
        ],
    )
    engine.upsert_file(
        REPO, "tests/test_store.py", [chunk("test_save_record", "tests/test_store.py", is_test=True)]
    )
    engine.upsert_file(REPO, "src/core_extra/more.py", [chunk("save_record_more", "src/core_extra/more.py")])
    backfilled(engine)


FILTER_CASES = [
    (SearchFilters.of(languages=["typescript"]), {"saveRecord"}),
    (SearchFilters.of(kinds=[ChunkKind.CLASS]), {"RecordSaver"}),
    (SearchFilters.of(path_prefix="src/core/"), {"save_record", "saveRecord"}),
    (SearchFilters.of(path_prefix="src/core"), {"save_record", "saveRecord", "save_record_more"}),
    (SearchFilters.of(path_prefix="src/core_"), {"save_record_more"}),
    (SearchFilters.of(tests=TestFilter.ONLY), {"test_save_record"}),
    (
        SearchFilters.of(tests=TestFilter.EXCLUDE),
        {"save_record", "saveRecord", "RecordSaver", "save_record_more"},
    ),
    (SearchFilters.of(languages=["python"], path_prefix="tests/", tests=TestFilter.EXCLUDE), set()),
]


@pytest.mark.parametrize("mode", [SearchMode.KEYWORD, SearchMode.VECTOR, SearchMode.HYBRID])
def test_filters_restrict_every_signal(engine: SearchEngine, mode: SearchMode) -> None:
    _filter_fixture(engine)
    for filters, expected in FILTER_CASES:
        result = engine.search("save record", REPO, filters, limit=20, mode=mode)
        assert set(names(result)) == expected, filters


def test_an_unfiltered_search_ranks_like_a_filter_that_keeps_everything(engine: SearchEngine) -> None:
    """The unfiltered keyword query takes a shorter path (top rows first, then their ids)."""
    _filter_fixture(engine)
    everything = SearchFilters.of(languages=["python", "typescript"])
    for limit in (1, 3, 20):
        plain = engine.keyword.search(REPO, ["save", "record"], SearchFilters(), limit)
        filtered = engine.keyword.search(REPO, ["save", "record"], everything, limit)
        assert plain == filtered and len(plain) == min(limit, 5)


@pytest.mark.parametrize("query", ["validate_user_input", "validateUserInput", "validate user input"])
def test_an_exact_name_query_returns_the_definition_first(engine: SearchEngine, query: str) -> None:
    engine.upsert_file(
        REPO,
        "src/forms.py",
        [
            chunk(
                "validate_user_input",
                "src/forms.py",
                body="def validate_user_input(form):\n    return all(check(f) for f in form.fields)\n",
            ),
            chunk(
                "submit_form",
                "src/forms.py",
                start_line=10,
                body="def submit_form(form):\n    if not validate_user_input(form):\n"
                "        raise Invalid(form)\n"
                "    validate_user_input(form.user)  # validate user input again\n",
            ),
        ],
    )
    engine.upsert_file(
        REPO,
        "tests/test_forms.py",
        [
            chunk(
                "test_validate_user_input",
                "tests/test_forms.py",
                is_test=True,
                body="def test_validate_user_input():\n    assert validate_user_input(make_form())\n",
            )
        ],
    )
    engine.upsert_file(
        REPO,
        "docs/forms.md",
        [
            chunk(
                "forms.md",
                "docs/forms.md",
                kind=ChunkKind.FILE,
                language="markdown",
                body="# Forms\nCall validate_user_input to validate user input before saving.\n",
            )
        ],
    )
    backfilled(engine)
    result = engine.search(query, REPO, limit=5)
    assert names(result)[0] == "validate_user_input"
    assert result.hits[0].signals.adjustment > 1.0
    assert result.hits[0].signals.keyword_rank >= 1


def test_tests_rank_first_when_the_query_asks_for_tests(engine: SearchEngine) -> None:
    engine.upsert_file(REPO, "src/cache.py", [chunk("evict_entries", "src/cache.py")])
    engine.upsert_file(
        REPO,
        "tests/test_cache.py",
        [
            chunk(
                "test_evict_entries",
                "tests/test_cache.py",
                is_test=True,
                body="def test_evict_entries():\n    assert evict_entries() == []\n",
            )
        ],
    )
    backfilled(engine)
    assert names(engine.search("evict entries", REPO))[0] == "evict_entries"
    assert names(engine.search("tests for evict entries", REPO))[0] == "test_evict_entries"


def test_the_code_holding_a_quoted_message_ranks_first(engine: SearchEngine) -> None:
    """Two chunks of the same words, one holding the quoted message as written. The text is read for the
    candidates only when the query quotes a message (ranking is otherwise on metadata)."""
    for path, message in (
        ("src/a.py", "do the two values not match entered"),
        ("src/b.py", "the two entered values do not match"),
    ):
        engine.upsert_file(
            REPO, path, [chunk("check", path, body=f'def check():\n    raise Mismatch("{message}")\n')]
        )
    backfilled(engine)
    unquoted = engine.search("the two entered values do not match", REPO)
    assert [h.chunk.path for h in unquoted.hits] == ["src/a.py", "src/b.py"]  # a tie, broken by path
    quoted = engine.search("where does it say 'the two entered values do not match'?", REPO)
    assert [h.chunk.path for h in quoted.hits] == ["src/b.py", "src/a.py"]
    assert quoted.hits[0].chunk.content  # the hits still carry their text


def test_in_a_repo_about_testing_test_words_do_not_pull_tests_first(engine: SearchEngine) -> None:
    """A test runner's own code says "test" everywhere, so "test" in a question is its subject."""
    for i in range(4):
        engine.upsert_file(
            REPO,
            f"src/runner_{i}.py",
            [
                chunk(
                    f"run_test_phase_{i}",
                    f"src/runner_{i}.py",
                    body=f"def run_test_phase_{i}(test):\n    pass\n",
                )
            ],
        )
    engine.upsert_file(
        REPO,
        "testing/test_report.py",
        [
            chunk(
                "test_report_phase", "testing/test_report.py", is_test=True, body="def test_report_phase():\n"
            )
        ],
    )
    engine.upsert_file(
        REPO, "src/report.py", [chunk("report_phase", "src/report.py", body="def report_phase(test):\n")]
    )
    backfilled(engine)
    implementation = SearchFilters(tests=TestFilter.EXCLUDE)
    assert engine.keyword.document_share(REPO, "test", implementation) == pytest.approx(1.0)
    assert engine.keyword.document_share(REPO, "report", implementation) == pytest.approx(0.2)
    assert engine.keyword.document_share(REPO, "nowhere", implementation) == 0.0
    assert engine.keyword.document_share("other-repo", "test", implementation) == 0.0
    assert names(engine.search("report phase of a test", REPO))[0] == "report_phase"


def test_writes_are_visible_to_the_next_read(engine: SearchEngine) -> None:
    for i in range(5):
        c = chunk(f"generation_{i}_marker", "gen.py", body=f"def generation_{i}_marker():\n    return {i}\n")
        engine.upsert_file(REPO, "gen.py", [c])
        assert names(engine.search(f"generation_{i}_marker", REPO, mode=SearchMode.KEYWORD)) == [c.name]
        assert engine.get_chunks(REPO, [c.id]) == [c]
        assert engine.stats(REPO).chunks == 1
    engine.delete_files(REPO, ["gen.py"])
    assert engine.search("generation_4_marker", REPO).hits == []


def test_keyword_hits_come_before_the_backfill_and_the_result_says_partial(engine: SearchEngine) -> None:
    engine.upsert_file(REPO, "late.py", [chunk("compute_late_total", "late.py")])
    early = engine.search("compute late total", REPO)
    assert names(early) == ["compute_late_total"]
    assert early.partial
    assert engine.stats(REPO).embed_backlog == 1
    backfilled(engine)
    late = engine.search("compute late total", REPO)
    assert not late.partial
    assert late.hits[0].signals.vector_rank == 1 and late.hits[0].signals.keyword_rank == 1


def test_unchanged_code_is_never_embedded_twice(engine: SearchEngine) -> None:
    embedder = engine.embedder
    assert isinstance(embedder, WordHashEmbedder)
    c = chunk("stable_function", "s.py")
    engine.upsert_file(REPO, "s.py", [c])
    backfilled(engine)
    calls = list(embedder.calls)
    engine.upsert_file(REPO, "s.py", [c])  # re-index, same content
    assert engine.stats(REPO).embed_backlog == 0
    assert engine.stats(REPO).vectors == 1
    backfilled(engine)
    assert embedder.calls == calls


HOSTILE = [
    "a\x00b",
    '"',
    '""',
    "'",
    "\\",
    "*",
    "-",
    "^",
    "(",
    ")",
    ":",
    "NEAR(a b)",
    "names:*",
    "{names path}: x",
    "a OR b AND NOT c",
    'repo = "other" OR 1 = 1',
    'x" OR repo = "other',
    '\\" OR id EXISTS',
    "IN [a, b]",
    "_geoRadius(1, 2, 3)",
    "NOT",
    "AND",
    "sort:path:desc",
    "' OR '1'='1",
    "%",
    "\x00",
    "​‍",
]


def test_query_syntax_in_user_text_is_searched_literally(engine: SearchEngine) -> None:
    engine.upsert_file(
        REPO, "q.py", [chunk("near_neighbors", "q.py", body="def near_neighbors(a, b):\n    return a\n")]
    )
    engine.upsert_file("other", "q.py", [chunk("secret_other", "q.py", repo="other")])
    backfilled(engine)
    for query in HOSTILE:
        result = engine.search(query, REPO, limit=10)
        assert all(h.chunk.repo == REPO for h in result.hits), query
        for match in SymbolMatch:
            if "\x00" in query:  # no identifier holds a NUL: refused, never passed on to a store
                with pytest.raises(InvalidRequest, match="^name"):
                    engine.find_symbols(REPO, query, match)
                continue
            assert all(c.repo == REPO for c in engine.find_symbols(REPO, query, match)), query


def test_operators_in_a_query_match_chunks_containing_those_words(engine: SearchEngine) -> None:
    engine.upsert_file(
        REPO, "q.py", [chunk("near_neighbors", "q.py", body="def near_neighbors(a, b):\n    return a\n")]
    )
    engine.upsert_file(REPO, "r.py", [chunk("unrelated_thing", "r.py")])
    assert names(engine.search("NEAR(", REPO, mode=SearchMode.KEYWORD)) == ["near_neighbors"]


def test_quotes_and_backslashes_in_repo_and_path_are_data(engine: SearchEngine) -> None:
    repo, path = 'we"ird \\ repo', 'dir/"quoted" \\ file.py'
    c = chunk("odd_place", path, repo=repo)
    engine.upsert_file(repo, path, [c])
    engine.upsert_file(REPO, "x.py", [chunk("odd_place", "x.py")])
    backfilled(engine)
    assert [h.chunk.id for h in engine.search("odd place", repo).hits] == [c.id]
    assert engine.find_symbols(repo, "odd_place") == [engine.find_symbols(repo, "odd_place")[0]]
    assert engine.find_symbols(repo, "odd_place")[0].path == path
    filtered = engine.search("odd place", repo, SearchFilters.of(path_prefix='dir/"quoted"'))
    assert [h.chunk.id for h in filtered.hits] == [c.id]
    assert engine.delete_files(repo, [path]) == 1
    assert engine.stats(repo).chunks == 0
    assert engine.stats(REPO).chunks == 1


def test_find_symbols_exact_prefix_and_fuzzy(engine: SearchEngine) -> None:
    engine.upsert_file(
        REPO,
        "src/parser.py",
        [
            chunk("Parser", "src/parser.py", kind=ChunkKind.CLASS, body="class Parser:\n    pass\n"),
            chunk(
                "parse", "src/parser.py", kind=ChunkKind.METHOD, qualified_name="Parser.parse", start_line=3
            ),
            chunk("parse_tokens", "src/parser.py", start_line=9),
            chunk("tokenize_input", "src/parser.py", start_line=20),
        ],
    )
    engine.upsert_file(REPO, "tests/test_parser.py", [chunk("parse", "tests/test_parser.py", is_test=True)])
    exact = engine.find_symbols(REPO, "parse", SymbolMatch.EXACT)
    assert [(c.qualified_name, c.is_test) for c in exact] == [("Parser.parse", False), ("parse", True)]
    assert exact[0].content == ""
    assert [c.qualified_name for c in engine.find_symbols(REPO, "Parser.parse")] == ["Parser.parse"]
    assert engine.find_symbols(REPO, "PARSE", SymbolMatch.EXACT) == []
    prefix = [c.name for c in engine.find_symbols(REPO, "PARSE", SymbolMatch.PREFIX)]
    assert prefix[0] == "parse" and set(prefix) == {"parse", "parse_tokens", "Parser"}
    fuzzy = [c.name for c in engine.find_symbols(REPO, "tokenise_input", SymbolMatch.FUZZY)]
    assert fuzzy[0] == "tokenize_input"
    assert "parse_tokens" in [c.name for c in engine.find_symbols(REPO, "tokens_parse", SymbolMatch.FUZZY)]


def test_a_long_pasted_prompt_is_searched_by_its_beginning(engine: SearchEngine) -> None:
    engine.upsert_file(REPO, "p.py", [chunk("parse_manifest", "p.py")])
    backfilled(engine)
    prompt = "why does parse_manifest fail on this input?\n" + "Traceback line with noise\n" * 2000
    assert names(engine.search(prompt, REPO))[0] == "parse_manifest"


def test_get_chunks_returns_request_order_and_skips_unknown_ids(engine: SearchEngine) -> None:
    cs = [chunk(f"f{i}", "m.py", start_line=i * 10 + 1) for i in range(3)]
    engine.upsert_file(REPO, "m.py", cs)
    got = engine.get_chunks(REPO, [cs[2].id, "missing", cs[0].id, cs[2].id])
    assert got == [cs[2], cs[0]]
    assert engine.get_chunks("other-repo", [cs[0].id]) == []


BAD_CALLS = [
    (lambda e: e.search("x", ""), "repo"),
    (lambda e: e.search("   ", REPO), "query"),
    (lambda e: e.search("x" * 70_000, REPO), "query"),
    (lambda e: e.search("x", REPO, limit=0), "limit"),
    (lambda e: e.search("x", REPO, limit=201), "limit"),
    (lambda e: e.upsert_file(REPO, "", []), "path"),
    (lambda e: e.upsert_file(REPO, "a.py", [chunk("f", "b.py")]), "chunks[0]"),
    (lambda e: e.upsert_file(REPO, "a.py", [chunk("f", "a.py"), chunk("f", "a.py")]), "chunks[1].id"),
    (lambda e: e.find_symbols(REPO, " "), "name"),
    (lambda e: e.delete_files("", ["a"]), "repo"),
]


def test_bad_input_is_rejected_with_the_field_named_and_nothing_written(engine: SearchEngine) -> None:
    for call, field in BAD_CALLS:
        with pytest.raises(InvalidRequest, match="^" + re.escape(field)):
            call(engine)
    assert engine.stats("").chunks == 0


def test_file_chunks_returns_the_whole_file_in_line_order(engine: SearchEngine) -> None:
    cs = [chunk(f"step_{i}", "flow.py", start_line=line) for i, line in enumerate((30, 1, 12))]
    engine.upsert_file(REPO, "flow.py", cs)
    engine.upsert_file(REPO, "other.py", [chunk("elsewhere", "other.py")])
    got = engine.file_chunks(REPO, "flow.py")
    assert [c.start_line for c in got] == [1, 12, 30]
    assert all(c.content for c in got)
    assert engine.file_chunks(REPO, "missing.py") == []
    assert engine.file_chunks("other-repo", "flow.py") == []


def test_file_lines_gives_each_indexed_file_its_last_line_without_content(engine: SearchEngine) -> None:
    engine.upsert_file(REPO, "a.py", [chunk("f", "a.py", start_line=1), chunk("g", "a.py", start_line=40)])
    engine.upsert_file(REPO, "b.py", [chunk("h", "b.py", start_line=7)])
    engine.upsert_file("other-repo", "c.py", [chunk("k", "c.py", repo="other-repo", start_line=3)])
    last_a = max(c.end_line for c in engine.file_chunks(REPO, "a.py"))
    last_b = max(c.end_line for c in engine.file_chunks(REPO, "b.py"))
    assert engine.file_lines(REPO, ["a.py", "b.py", "c.py", "missing.py", "a.py"]) == {
        "a.py": last_a,
        "b.py": last_b,
    }
    assert engine.file_lines(REPO, []) == {}
    with pytest.raises(InvalidRequest, match=re.escape("paths[0]")):
        engine.file_lines(REPO, ["../etc/passwd"])
    with pytest.raises(InvalidRequest, match="at most 1000"):
        engine.file_lines(REPO, [f"f{i}.py" for i in range(1001)])


def test_keyword_index_lists_the_repositories_it_holds(engine: SearchEngine) -> None:
    engine.upsert_file(REPO, "a.py", [chunk("f", "a.py")])
    engine.upsert_file("zeta", "z.py", [chunk("z", "z.py", repo="zeta")])
    engine.upsert_file("alpha", "y.py", [chunk("y", "y.py", repo="alpha")])
    engine.delete_repo("alpha")
    assert engine.keyword.repos() == sorted([REPO, "zeta"])


def test_profile_lists_files_and_samples_definitions_across_files(engine: SearchEngine) -> None:
    for f in range(4):
        path = f"pkg/mod{f}.py"
        defs = [chunk(f"fn_{f}_{i}", path, start_line=1 + 10 * i) for i in range(5)]
        module = chunk(f"mod{f}", path, kind=ChunkKind.MODULE, start_line=100, ordinal=1)
        engine.upsert_file(REPO, path, [*defs, module])
    engine.upsert_file(REPO, "tests/test_x.py", [chunk("test_x", "tests/test_x.py", is_test=True)])
    profile = engine.profile(REPO, max_symbols=6)
    assert [(f.path, f.language, f.is_test) for f in profile.files] == [
        ("pkg/mod0.py", "python", False),
        ("pkg/mod1.py", "python", False),
        ("pkg/mod2.py", "python", False),
        ("pkg/mod3.py", "python", False),
        ("tests/test_x.py", "python", True),
    ]
    names = [c.name for c in profile.symbols]
    # Every file's first definition before any file's second; module chunks are not definitions.
    assert names[:5] == ["fn_0_0", "fn_1_0", "fn_2_0", "fn_3_0", "test_x"] and len(names) == 6
    assert all(c.content == "" for c in profile.symbols)


def test_useful_feedback_moves_a_chunk_up_and_noise_down(engine: SearchEngine) -> None:
    engine.upsert_file(REPO, "a.py", [chunk("load_settings_file", "a.py")])
    engine.upsert_file(REPO, "b.py", [chunk("load_settings_dict", "b.py")])
    backfilled(engine)
    before = names(engine.search("load settings", REPO))
    loser = before[-1]
    loser_id = f"{'a' if loser.endswith('file') else 'b'}.py#{loser}#0"
    assert engine.feedback(REPO, loser_id, useful=True, query="load settings") == 1
    # Fusion keeps score gaps (the runner-up's cosine is a few points lower), so it takes a few votes.
    for votes in (2, 3, 4):
        assert engine.feedback(REPO, loser_id, useful=True) == votes
    after = engine.search("load settings", REPO)
    assert names(after)[0] == loser
    assert after.hits[0].signals.adjustment > before_adjustment(engine, loser) * 1.3
    assert engine.feedback(REPO, loser_id, useful=False) == 3
    with pytest.raises(NotFound, match="^chunk_id"):
        engine.feedback(REPO, "no-such-chunk", useful=True)


def before_adjustment(engine: SearchEngine, name: str) -> float:
    from services.search.domain.ranking import QueryIntent, adjustment

    (found,) = engine.find_symbols(REPO, name)
    return adjustment(found, QueryIntent.of("load settings"))


@pytest.mark.parametrize("path", ["../../../../etc/passwd", "/etc/passwd", "src/../../x.py", "src/\x00.py"])
def test_paths_that_could_leave_the_repository_are_refused(engine: SearchEngine, path: str) -> None:
    with pytest.raises(InvalidRequest, match="^path"):
        engine.upsert_file("confined", path, [chunk("f", path, repo="confined")])
    with pytest.raises(InvalidRequest, match=re.escape("paths[1]")):
        engine.delete_files("confined", ["ok.py", path])
    with pytest.raises(InvalidRequest, match="^path"):
        engine.file_chunks("confined", path)
    assert engine.stats("confined").chunks == 0
