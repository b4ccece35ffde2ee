"""Granular code selection, doc trimming and the adaptive stop of context assembly."""

from gateway.domain.assembly import AssembledContext, BudgetPolicy, CodeCandidate, assemble_context
from gateway.domain.code_select import class_header
from gateway.domain.doc_trim import trim_doc_comments
from kit.domain import Chunk, ChunkKind

NO_STOP = BudgetPolicy(stop_ratio=(), stop_search_strength=0.0)


def _chunk(
    cid: str, start: int, end: int, name: str, content: str, kind: ChunkKind, language: str = "python"
) -> Chunk:
    return Chunk(
        id=cid,
        repo="r",
        path="src/a.py",
        language=language,
        kind=kind,
        name=name.rsplit(".", 1)[-1],
        qualified_name=name,
        start_line=start,
        end_line=end,
        content=content,
        content_hash=cid,
    )


def _store_class(methods: int = 12) -> Chunk:
    lines = ["class Store(Base):", '    """A key-value store."""', "    limit: int = 10", ""]
    for m in range(methods):
        lines += [
            f"    def op{m}(self, key):",
            f"        value = self.data[key] + {m}",
            "        return value",
            "",
        ]
    return _chunk("c-class", 1, len(lines), "Store", "\n".join(lines) + "\n", ChunkKind.CLASS)


def test_class_header_lists_signature_fields_and_members_but_no_bodies():
    header = class_header(_store_class())
    assert header.splitlines()[0] == "class Store(Base):"
    assert "    limit: int = 10" in header
    assert "    def op0(self, key):" in header and "    def op11(self, key):" in header
    assert "self.data[key]" not in header and "key-value store" not in header


def test_js_class_header_keeps_the_closing_brace_and_drops_method_bodies():
    content = "class Queue {\n  size = 0;\n  push(x) {\n    this.items.push(x);\n  }\n"
    content += "  pop() {\n    return 1;\n  }\n}\n"
    header = class_header(_chunk("q", 1, 9, "Queue", content, ChunkKind.CLASS, "javascript"))
    assert header.splitlines() == ["class Queue {", "  size = 0;", "  push(x) {", "  pop() {", "  …", "}"]


def test_a_large_class_is_shown_as_its_header_followed_by_its_relevant_method():
    klass = _store_class()
    method = _chunk("c-op3", 17, 19, "Store.op3", "def op3(self, key):\n    return 3\n", ChunkKind.METHOD)
    result = assemble_context(
        "lookup", [CodeCandidate(klass, 2.0), CodeCandidate(method, 1.0)], budget_tokens=2_000, policy=NO_STOP
    )
    assert [(i.chunk_id, i.note) for i in result.items] == [
        ("c-class", "class header: signature, fields and members"),
        ("c-op3", ""),
    ]
    assert "value = self.data[key] + 5" not in result.text  # no method body of the class itself
    assert "def op3(self, key):\n    return 3" in result.text


def test_a_weaker_member_of_a_class_shown_as_its_header_keeps_its_own_rank():
    klass = _store_class()
    member = _chunk("c-op3", 17, 19, "Store.op3", "def op3(self, key):\n    return 3\n", ChunkKind.METHOD)
    other = _chunk("c-load", 200, 201, "load", "def load():\n    return 1\n", ChunkKind.FUNCTION)
    ranked = [CodeCandidate(klass, 2.0), CodeCandidate(other, 1.5), CodeCandidate(member, 1.0)]
    result = assemble_context("lookup", ranked, budget_tokens=2_000, policy=NO_STOP)
    assert [i.chunk_id for i in result.items] == ["c-class", "c-load", "c-op3"]


def test_a_small_class_is_still_shown_whole():
    klass = _store_class(methods=2)
    result = assemble_context("lookup", [CodeCandidate(klass, 2.0)], budget_tokens=2_000, policy=NO_STOP)
    assert result.items[0].note == ""
    assert "value = self.data[key] + 1" in result.text


def test_dedup_keeps_the_more_specific_chunk_inside_a_long_module_chunk():
    residue = "import os\n" + "X = 1\n" * 50 + "def inner():\n    return 2\n"
    module = _chunk("c-module", 1, 53, "src/a.py", residue, ChunkKind.MODULE)
    inner = _chunk("c-inner", 52, 53, "inner", "def inner():\n    return 2\n", ChunkKind.FUNCTION)
    other = _chunk("c-other", 60, 61, "helper", "def helper():\n    pass\n", ChunkKind.FUNCTION)
    result = assemble_context(
        "lookup",
        [CodeCandidate(module, 2.0), CodeCandidate(other, 1.8), CodeCandidate(inner, 1.0)],
        budget_tokens=2_000,
        policy=NO_STOP,
    )
    assert [i.chunk_id for i in result.items] == ["c-inner", "c-other"]
    assert [(c.chunk_id, c.note) for c in result.cut] == [
        ("c-module", "replaced by the more specific chunks inside it")
    ]


def test_a_long_function_stays_whole_and_its_nested_closure_is_listed_inside_it_at_no_cost():
    body = "def outer():\n" + "    x = 1\n" * 50 + "    def inner():\n        return 2\n"
    outer = _chunk("c-outer", 1, 53, "outer", body, ChunkKind.FUNCTION)
    inner = _chunk("c-inner", 52, 53, "outer.inner", "def inner():\n    return 2\n", ChunkKind.FUNCTION)
    result = assemble_context(
        "lookup", [CodeCandidate(outer, 2.0), CodeCandidate(inner, 1.0)], budget_tokens=2_000, policy=NO_STOP
    )
    assert [i.chunk_id for i in result.items] == ["c-outer", "c-inner"]
    listed = result.items[1]
    assert (listed.tokens, listed.note) == (0, "shown inside src/a.py:1-53")
    assert result.text.count("def inner") == 1 and not result.cut


def test_a_closure_inside_an_outline_is_not_listed_as_shown():
    # a long function indexed as an outline: its closure is one signature line, the body is not shown
    outline = "def outer():\n    x = 1\n    def inner(): ...\n    return inner\n"
    outer = _chunk("c-outer", 1, 200, "outer", outline, ChunkKind.FUNCTION)
    inner = _chunk("c-inner", 150, 151, "outer.inner", "def inner():\n    return 2\n", ChunkKind.FUNCTION)
    result = assemble_context(
        "lookup", [CodeCandidate(outer, 2.0), CodeCandidate(inner, 1.0)], budget_tokens=2_000, policy=NO_STOP
    )
    assert [i.chunk_id for i in result.items] == ["c-outer"]
    assert result.cut[0].chunk_id == "c-inner" and result.cut[0].note.startswith("overlaps")


def test_a_short_enclosing_function_takes_the_place_of_its_closure_that_ranked_above_it():
    body = (
        "def ready():\n    started = check()\n    def run_hooks():\n        return 2\n    return run_hooks\n"
    )
    outer = _chunk("c-ready", 1, 5, "ready", body, ChunkKind.FUNCTION)
    inner = _chunk("c-hooks", 3, 4, "ready.run_hooks", "def run_hooks():\n    return 2\n", ChunkKind.FUNCTION)
    other = _fn("c-other", 20, "other")
    ranked = [CodeCandidate(inner, 3.0), CodeCandidate(other, 2.0), CodeCandidate(outer, 1.0)]
    result = assemble_context("lookup", ranked, budget_tokens=2_000, policy=NO_STOP)
    # the enclosing function is shown whole at the closure's rank, the closure listed inside it right after
    assert [i.chunk_id for i in result.items] == ["c-ready", "c-hooks", "c-other"]
    assert result.items[0].score == 3.0
    assert (result.items[1].tokens, result.items[1].note) == (0, "shown inside src/a.py:1-5")
    assert result.text.count("def run_hooks") == 1 and not result.cut


def _ready(body_lines: int) -> tuple[Chunk, Chunk]:
    body = "def ready():\n" + "".join(f"    step_{k}()\n" for k in range(body_lines))
    body += "    def run_hooks():\n        return 2\n"
    end = body_lines + 3
    outer = _chunk("c-ready", 1, end, "ready", body, ChunkKind.FUNCTION)
    inner = _chunk(
        "c-hooks", end - 1, end, "ready.run_hooks", "def run_hooks():\n    return 2\n", ChunkKind.FUNCTION
    )
    return outer, inner


def _lead_closure_and_its_30_line_function(budget: int, **limits: float) -> AssembledContext:
    """A lead block, then a closure ranked above the 33-line function that encloses it."""
    outer, inner = _ready(30)
    ranked = [
        CodeCandidate(_fn("c-lead", 100, "lead"), 5.0),
        CodeCandidate(inner, 3.0),
        CodeCandidate(outer, 1.0),
    ]
    policy = BudgetPolicy(stop_ratio=(), stop_search_strength=0.0, **limits)  # type: ignore[arg-type]
    return assemble_context("bug", ranked, budget_tokens=budget, policy=policy)


def test_a_closure_is_placed_itself_when_its_enclosing_function_is_trimmed_before_it():
    result = _lead_closure_and_its_30_line_function(2_000, block_max_share=0.05)
    shown = {i.chunk_id: i.note for i in result.items}
    assert shown["c-ready"].startswith("trimmed")
    assert "c-hooks" in shown and "def run_hooks" in result.text


def test_a_closure_is_placed_itself_when_its_enclosing_function_is_cut():
    result = _lead_closure_and_its_30_line_function(120, trim_top=1)
    assert [i.chunk_id for i in result.items] == ["c-lead", "c-hooks"]
    assert {c.chunk_id for c in result.cut} >= {"c-ready"}


def test_the_enclosing_function_is_judged_by_its_closures_strength_and_reason():
    outer, inner = _ready(3)
    first, second = _fn("a", 100, "first"), _fn("b", 110, "second")
    ranked = [
        CodeCandidate(first, 5.0),
        CodeCandidate(second, 4.0),
        CodeCandidate(inner, 3.0, "seed", strength=1.0),
        CodeCandidate(outer, 1.0, strength=0.05),  # a faint search hit on its own
    ]
    policy = BudgetPolicy(stop_ratio=(("bug", 0.5),), stop_min_items=2, stop_search_strength=0.2)
    result = assemble_context("bug", ranked, budget_tokens=2_000, policy=policy)
    items = {i.chunk_id: i for i in result.items}
    assert "c-ready" in items and items["c-ready"].reason == "seed"


def test_a_type_declared_inside_a_short_function_gives_way_to_the_function():
    body = "function runner(value) {\n  type Old = number\n  return value as Old\n}\n"
    outer = _chunk("c-runner", 1, 4, "runner", body, ChunkKind.FUNCTION, language="typescript")
    alias = _chunk(
        "c-old", 2, 2, "runner.Old", "  type Old = number\n", ChunkKind.TYPE, language="typescript"
    )
    result = assemble_context(
        "lookup", [CodeCandidate(alias, 2.0), CodeCandidate(outer, 1.0)], budget_tokens=2_000, policy=NO_STOP
    )
    # not the one-line fragment, then an overlap: the function, with the alias listed inside it
    assert [(i.chunk_id, i.note) for i in result.items] == [
        ("c-runner", ""),
        ("c-old", "shown inside src/a.py:1-4"),
    ]


def test_a_long_enclosing_function_does_not_replace_its_closure():
    body = "def build():\n" + "    x = 1\n" * 60 + "    def route():\n        return 2\n"
    outer = _chunk("c-build", 1, 63, "build", body, ChunkKind.FUNCTION)
    inner = _chunk("c-route", 62, 63, "build.route", "def route():\n    return 2\n", ChunkKind.FUNCTION)
    ranked = [CodeCandidate(inner, 3.0), CodeCandidate(outer, 1.0)]
    result = assemble_context("lookup", ranked, budget_tokens=2_000, policy=NO_STOP)
    assert [i.chunk_id for i in result.items][0] == "c-route"


def test_long_doc_comments_are_cut_to_their_first_sentence_in_any_syntax():
    jsdoc = "/**\n * Emits the values.\n * More.\n * More.\n * @param x a value\n */\nfunction of(x) {}\n"
    assert trim_doc_comments(jsdoc, "javascript") == (
        "/**\n * Emits the values.\n * … 3 more comment lines trimmed\n */\nfunction of(x) {}\n"
    )
    docstring = 'def f():\n    """Double it.\n\n    a\n    b\n    c\n    """\n    return 2\n'
    assert trim_doc_comments(docstring, "python") == (
        'def f():\n    """Double it.\n    … 4 more comment lines trimmed\n    """\n    return 2\n'
    )
    rust = "/// Parses it.\n/// a\n/// b\n/// c\n/// d\nfn parse() {}\n"
    assert (
        trim_doc_comments(rust, "rust")
        == "/// Parses it.\n/// … 4 more comment lines trimmed\nfn parse() {}\n"
    )
    hashes = "# Sets it up.\n# a\n# b\n# c\n# d\nx = 1\n"
    assert trim_doc_comments(hashes, "python") == "# Sets it up.\n# … 4 more comment lines trimmed\nx = 1\n"


def test_short_comments_and_string_literals_are_left_alone():
    code = '/** One line. */\n// two\n// lines\nconst s = """\na\nb\nc\nd\ne\n"""\n#[derive(Debug)]\n'
    for language in ("javascript", "python", "rust"):
        assert trim_doc_comments(code, language) == code
    # a triple-quoted string that is not a docstring is code, however long
    sql = 'def q():\n    sql = (\n        """\n        SELECT a,\n        b,\n        c\n'
    sql += '        FROM t\n        """\n    )\n'
    assert trim_doc_comments(sql, "python") == sql
    # `#` is a heading in Markdown and a preprocessor line in C, not a comment
    headings = "# Title\n# Part\n# More\n# Even more\n# Last\n"
    assert trim_doc_comments(headings, "markdown") == headings
    defines = "# define A 1\n# define B 2\n# define C 3\n# define D 4\n# define E 5\n"
    assert trim_doc_comments(defines, "c") == defines


def test_injected_code_has_its_long_doc_comment_trimmed():
    content = (
        "/**\n * Emits the values.\n"
        + " * filler words here\n" * 30
        + " */\nfunction of(x) {\n  return x;\n}\n"
    )
    of = _chunk("c-of", 1, 35, "of", content, ChunkKind.FUNCTION, "typescript")
    result = assemble_context("lookup", [CodeCandidate(of, 1.0)], budget_tokens=2_000, policy=NO_STOP)
    assert "Emits the values." in result.text and "function of(x) {" in result.text
    assert "filler words here" not in result.text


def _fn(cid: str, line: int, name: str) -> Chunk:
    return _chunk(cid, line, line + 1, name, f"def {name}():\n    return 1\n", ChunkKind.FUNCTION)


def test_adaptive_stop_leaves_out_candidates_much_weaker_than_the_best():
    strong = [
        CodeCandidate(_fn("a", 1, "parse_config"), 1.0),
        CodeCandidate(_fn("b", 10, "load_config"), 0.9),
    ]
    weak = CodeCandidate(_fn("c", 20, "render_page"), 0.1)
    policy = BudgetPolicy(stop_ratio=(("lookup", 0.5),), stop_min_items=2)
    stopped = assemble_context("lookup", [*strong, weak], budget_tokens=2_000, policy=policy)
    assert [i.chunk_id for i in stopped.items] == ["a", "b"]
    assert stopped.cut[0].chunk_id == "c" and stopped.cut[0].note.startswith("adaptive stop")
    # the same candidates on a route with no stop ratio all go in
    flow = assemble_context("flow", [*strong, weak], budget_tokens=2_000, policy=policy)
    assert [i.chunk_id for i in flow.items] == ["a", "b", "c"]


def test_adaptive_stop_keeps_a_weaker_candidate_that_names_an_uncovered_prompt_term():
    strong = [
        CodeCandidate(_fn("a", 1, "parse_config"), 1.0),
        CodeCandidate(_fn("b", 10, "load_config"), 0.9),
    ]
    named = CodeCandidate(_fn("c", 20, "render_page"), 0.3)
    policy = BudgetPolicy(stop_ratio=(("lookup", 0.5),), stop_min_items=2)
    result = assemble_context(
        "lookup",
        [*strong, named],
        budget_tokens=2_000,
        policy=policy,
        query="how is the config page rendered? render",
    )
    assert [i.chunk_id for i in result.items] == ["a", "b", "c"]
    # a term already covered by what is shown does not keep it
    covered = assemble_context("lookup", [*strong, named], budget_tokens=2_000, policy=policy, query="config")
    assert [i.chunk_id for i in covered.items] == ["a", "b"]


def test_adaptive_stop_measures_a_search_hit_or_neighbour_against_the_best_of_its_source():
    seed = CodeCandidate(_fn("seed", 1, "mount"), 1.0, "seed")  # the user named it and search found it
    hit = CodeCandidate(_fn("hit", 10, "route"), 0.5)
    callers = [
        CodeCandidate(_fn("caller1", 20, "register"), 0.4, "caller"),
        CodeCandidate(_fn("caller2", 30, "attach"), 0.3, "caller"),
        CodeCandidate(_fn("caller3", 40, "helper"), 0.1, "caller"),
    ]
    weak_hit = CodeCandidate(_fn("weak", 50, "render_page"), 0.2)
    policy = BudgetPolicy(stop_ratio=(("flow", 0.5),), stop_min_items=2)
    result = assemble_context("flow", [seed, hit, *callers, weak_hit], budget_tokens=2_000, policy=policy)
    # the callers are far below half the seed, but the second is not below half the first caller
    assert [i.chunk_id for i in result.items] == ["seed", "hit", "caller1", "caller2"]
    notes = {c.chunk_id: c.note for c in result.cut}
    # ...nor ever less than ratio × the first block: a test file calling the seed is no second answer
    assert notes["caller3"] == "adaptive stop: score 0.1 below 0.5 × best 0.5"
    assert notes["weak"] == "adaptive stop: score 0.2 below 0.5 × best 0.5"  # against the best search hit


def test_the_first_neighbour_of_its_kind_still_needs_ratio_times_the_first_block():
    seed = CodeCandidate(_fn("seed", 1, "has_route"), 1.0, "seed")
    hit = CodeCandidate(_fn("hit", 10, "find_route"), 0.9)
    test_caller = CodeCandidate(_fn("t", 20, "test_has_route"), 0.1, "caller")  # ×0.3 as test code
    policy = BudgetPolicy(stop_ratio=(("bug", 0.5),), stop_min_items=2)
    result = assemble_context("bug", [seed, hit, test_caller], budget_tokens=2_000, policy=policy)
    assert [i.chunk_id for i in result.items] == ["seed", "hit"]
    assert result.cut[0].note == "adaptive stop: score 0.1 below 0.5 × best 0.5"


def test_a_search_hit_far_below_the_top_search_score_is_left_out_unless_it_names_a_new_term():
    strong = [
        CodeCandidate(_fn("a", 1, "parse_config"), 1.0),
        CodeCandidate(_fn("b", 10, "load_config"), 0.9),
    ]
    faint = CodeCandidate(_fn("c", 20, "walk_tree"), 0.85, strength=0.1)  # close in rank, far in score
    named = CodeCandidate(_fn("d", 30, "render_page"), 0.8, strength=0.1)
    seed = CodeCandidate(_fn("e", 40, "merge_maps"), 0.8, "seed")  # not a search hit: strength 1.0
    policy = BudgetPolicy(stop_ratio=(("bug", 0.5),), stop_min_items=2, stop_search_strength=0.2)
    result = assemble_context(
        "bug", [*strong, faint, named, seed], budget_tokens=2_000, policy=policy, query="config page render"
    )
    assert [i.chunk_id for i in result.items] == ["a", "b", "e", "d"]  # on equal scores a seed first
    assert {c.chunk_id: c.note for c in result.cut} == {
        "c": "adaptive stop: search score 0.1 of the top hit's"
    }
    # the first blocks always go in, however faint
    first = assemble_context("bug", [faint, named], budget_tokens=2_000, policy=policy)
    assert [i.chunk_id for i in first.items] == ["c", "d"]
