import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gateway.domain.assembly import (
    AssembledContext,
    BudgetPolicy,
    CodeCandidate,
    ContextItem,
    GraphFacts,
    MemoryItem,
    Section,
    Staleness,
    SymbolRef,
    assemble_context,
    empty_context,
    relative_path,
)
from gateway.domain.markers import CONTEXT_CLOSE
from gateway.domain.routing import classify
from gateway.domain.sanitize import sanitize_prompt
from gateway.domain.utf16 import utf16_len
from kit.domain import Chunk, ChunkKind
from kit.tokens import count_tokens


def chunk(
    cid: str,
    path: str,
    start: int,
    end: int,
    name: str,
    content: str,
    kind: ChunkKind = ChunkKind.FUNCTION,
    signature: str = "",
    language: str = "python",
) -> Chunk:
    return Chunk(
        id=cid,
        repo="acme",
        path=path,
        language=language,
        kind=kind,
        name=name.rsplit(".", 1)[-1],
        qualified_name=name,
        start_line=start,
        end_line=end,
        content=content,
        content_hash="h",
        signature=signature,
    )


MAIN = chunk("c-main", "src/cli.py", 5, 7, "main", "def main():\n    cfg = parse_config('x')\n    run(cfg)\n")
PARSE = chunk(
    "c-parse",
    "src/config.py",
    10,
    12,
    "parse_config",
    "def parse_config(path):\n    with open(path) as f:\n        return yaml.safe_load(f)\n",
)


def test_flow_block_has_header_facts_code_and_memories_in_that_order():
    result = assemble_context(
        "flow",
        [CodeCandidate(MAIN, 1.0, "caller"), CodeCandidate(PARSE, 2.0, "seed")],
        budget_tokens=2_000,
        facts=[
            GraphFacts(
                "parse_config",
                definitions=(SymbolRef("parse_config", "src/config.py", 10, "function"),),
                callers=(SymbolRef("main", "src/cli.py", 6),),
                callees=(SymbolRef("safe_load", "yaml/__init__.py", 80),),
            )
        ],
        memories=[MemoryItem("m1", "Config is YAML", "fact", "parse_config only reads YAML.", 0.9)],
        staleness=Staleness("0123456789abcdef0123", "0123456789abcdef0123"),
        repo="acme",
    )
    assert result.text == (
        '<reporecall-context repo="acme" route="flow" commit="0123456">\n'
        "Index of acme at 0123456, route flow.\n"
        "## Facts\n"
        "- parse_config: defined at src/config.py:10 (function parse_config)\n"
        "- parse_config: called by main (src/cli.py:6)\n"
        "- parse_config: calls safe_load (yaml/__init__.py:80)\n"
        "## Code\n"
        "src/config.py:10-12 function parse_config\n"
        "```python\n"
        "def parse_config(path):\n"
        "    with open(path) as f:\n"
        "        return yaml.safe_load(f)\n"
        "```\n"
        "src/cli.py:5-7 function main · caller\n"
        "```python\n"
        "def main():\n"
        "    cfg = parse_config('x')\n"
        "    run(cfg)\n"
        "```\n"
        "## Memories\n"
        "- [fact] Config is YAML: parse_config only reads YAML.\n"
        "</reporecall-context>\n"
    )
    assert result.tokens == count_tokens(result.text)
    assert result.chars == len(result.text)
    assert [(i.section, i.chunk_id) for i in result.items] == [
        (Section.FACTS, ""),
        (Section.FACTS, ""),
        (Section.FACTS, ""),
        (Section.CODE, "c-parse"),
        (Section.CODE, "c-main"),
        (Section.MEMORY, "m1"),
    ]
    assert sum(i.tokens for i in result.items) < result.tokens
    assert result.cut == ()


def test_staleness_dirty_files_and_degraded_services_are_stated():
    result = assemble_context(
        classify("where is parse_config"),
        [CodeCandidate(PARSE, 1.0)],
        budget_tokens=1_000,
        staleness=Staleness("aaaaaaaaaaaa", "bbbbbbbbbbbb", tuple(f"src/f{i}.py" for i in range(7))),
        degraded=["graph", "memory"],
    )
    lines = result.text.splitlines()
    assert (
        lines[1] == "Repository index at aaaaaaa, route lookup. HEAD is bbbbbbb, so the index may be stale."
    )
    assert lines[2] == (
        "Uncommitted changes (the index may not reflect them): "
        "src/f0.py, src/f1.py, src/f2.py, src/f3.py, src/f4.py (+2 more)."
    )
    assert lines[3] == "Partial: graph, memory did not answer."
    assert result.partial


def test_short_and_full_commit_of_the_same_head_are_not_stale():
    assert not Staleness("0123456", "0123456789abcdef").head_differs
    assert Staleness("0123456", "1123456789abcdef").head_differs
    assert not Staleness("", "abc").head_differs


def test_section_titles_cost_what_the_ledger_assumes():
    from gateway.domain.ledger import SECTION_TITLES as _SECTION_TITLES
    from gateway.domain.ledger import TITLE_TOKENS as _TITLE_TOKENS

    assert all(count_tokens(title) <= _TITLE_TOKENS for title in _SECTION_TITLES.values())


def test_skip_route_and_empty_inputs_give_an_empty_block():
    assert assemble_context("skip", [CodeCandidate(MAIN, 1.0)], budget_tokens=2_000).text == ""
    assert assemble_context("lookup", [], budget_tokens=2_000).empty
    assert empty_context("skip") == AssembledContext("", 0, 0, "skip")


def test_budget_smaller_than_the_header_gives_an_empty_block_and_says_why():
    result = assemble_context("lookup", [CodeCandidate(MAIN, 1.0)], budget_tokens=10)
    assert result.text == ""
    assert [c.note for c in result.cut] == ["budget below the header size"]


def test_top_hit_too_long_for_the_budget_is_trimmed_keeping_its_signature():
    body = "".join(f"    total += item_{i}.price * item_{i}.quantity\n" for i in range(400))
    big = chunk(
        "c-big",
        "src/cart.py",
        100,
        503,
        "Cart.total",
        "@cached\ndef total(self) -> Decimal:\n" + body + "    return total\n",
        kind=ChunkKind.METHOD,
        signature="def total(self) -> Decimal:",
    )
    result = assemble_context("lookup", [CodeCandidate(big, 1.0)], budget_tokens=400)
    assert result.tokens <= 400
    code = result.text.split("## Code\n", 1)[1]
    assert code.startswith(
        "src/cart.py:100-503 method Cart.total\n```python\n@cached\ndef total(self) -> Decimal:\n"
    )
    assert "    total += item_0.price" in code
    (item,) = result.items
    shown_last = int(item.note.split("-")[1].split(" ")[0])
    assert item.note == f"trimmed: lines 100-{shown_last} shown"
    assert f"… lines {shown_last + 1}-503 elided\n```\n" in code


def test_trimming_starts_at_the_signature_when_decorators_do_not_fit():
    decorators = "".join(f"@decorator_number_{i}(option_a=1, option_b=2, option_c=3)\n" for i in range(60))
    content = decorators + "def handler(request):\n" + "    step()\n" * 50
    big = chunk("c-h", "src/h.py", 1, 111, "handler", content, signature="def handler(request):")
    result = assemble_context("lookup", [CodeCandidate(big, 1.0)], budget_tokens=260)
    assert result.tokens <= 260
    assert "… lines 1-60 elided\ndef handler(request):\n" in result.text


def test_lower_ranked_chunks_that_do_not_fit_are_cut_not_trimmed():
    filler = "".join(f"    x_{i} = compute_{i}()\n" for i in range(120))
    cands = [
        CodeCandidate(chunk(f"c{i}", f"src/m{i}.py", 1, 121, f"f{i}", f"def f{i}():\n{filler}"), 10.0 - i)
        for i in range(6)
    ]
    policy = BudgetPolicy(stop_ratio=(), block_max_share=0.0)
    result = assemble_context("lookup", cands, budget_tokens=3_000, policy=policy)
    included = [i.chunk_id for i in result.items]
    assert included[0] == "c0"
    notes = {c.chunk_id: c.note for c in result.cut}
    assert notes["c5"] in {"token budget", "token budget and character cap"}
    assert result.tokens <= 3_000


def test_a_long_block_after_the_first_is_trimmed_to_its_share_so_the_next_ones_fit():
    filler = "".join(f"    x_{i} = compute_{i}()\n" for i in range(120))
    long = [
        CodeCandidate(chunk(f"c{i}", f"src/m{i}.py", 1, 121, f"f{i}", f"def f{i}():\n{filler}"), 10.0 - i)
        for i in range(5)
    ]
    short = [
        CodeCandidate(
            chunk(f"s{i}", f"src/s{i}.py", 1, 2, f"s{i}", f"def s{i}():\n    return {i}\n"), 5.0 - i
        )
        for i in range(3)
    ]
    policy = BudgetPolicy(stop_ratio=(), block_max_share=0.1, lead_block_max_share=0.0)
    result = assemble_context("lookup", long + short, budget_tokens=2_500, policy=policy)
    by_id = {i.chunk_id: i for i in result.items}
    assert set(by_id) == {"c0", "c1", "c2", "c3", "c4", "s0", "s1", "s2"}
    assert by_id["c0"].note == ""  # the first block has its own cap (none here)
    for cid in ("c1", "c2", "c3", "c4"):
        assert by_id[cid].tokens <= 250 and by_id[cid].note.startswith("trimmed: lines 1-")
        assert by_id[cid].end_line == 121  # the item still names the whole definition
    assert "… lines" in result.text and result.tokens <= 2_500
    # without the cap the long blocks after the top three are cut whole
    uncapped = BudgetPolicy(stop_ratio=(), block_max_share=0.0, lead_block_max_share=0.0)
    whole = assemble_context("lookup", long + short, budget_tokens=2_500, policy=uncapped)
    assert {"c3", "c4"}.isdisjoint(i.chunk_id for i in whole.items)


def test_the_first_block_is_trimmed_to_the_lead_share_and_leaves_room_for_the_others():
    rows = "".join(
        f"  - prompt: example number {i} of a routed prompt\n    route: lookup\n" for i in range(150)
    )
    data = chunk("y", "data/prompts.yaml", 1, 301, "data/prompts.yaml", rows, kind=ChunkKind.FILE)
    fns = [
        CodeCandidate(
            chunk(f"f{i}", f"src/f{i}.py", 1, 2, f"f{i}", f"def f{i}():\n    return {i}\n"), 5.0 - i
        )
        for i in range(4)
    ]
    policy = BudgetPolicy(stop_ratio=())
    result = assemble_context("lookup", [CodeCandidate(data, 9.0), *fns], budget_tokens=2_500, policy=policy)
    by_id = {i.chunk_id: i for i in result.items}
    assert by_id["y"].tokens <= 1_000 and by_id["y"].note.startswith("trimmed: lines 1-")
    assert {"f0", "f1", "f2", "f3"} <= set(by_id)


def test_a_definition_the_prompt_named_is_not_trimmed_to_the_block_share():
    filler = "".join(f"    x_{i} = compute_{i}()\n" for i in range(60))
    first = CodeCandidate(chunk("a", "src/a.py", 1, 2, "a", "def a():\n    return 1\n"), 9.0)
    seed = CodeCandidate(chunk("b", "src/b.py", 1, 61, "b", f"def b():\n{filler}"), 8.0, "seed")
    result = assemble_context(
        "lookup", [first, seed], budget_tokens=2_000, policy=BudgetPolicy(stop_ratio=())
    )
    assert {i.chunk_id: i.note for i in result.items} == {"a": "", "b": ""}


def test_a_method_inside_a_class_already_shown_is_listed_inside_it_at_no_cost():
    klass = chunk(
        "c-class",
        "src/a.py",
        1,
        10,
        "Store",
        "class Store:\n" + "    def get(self):\n        return 1\n" * 4 + "    pass\n",
        kind=ChunkKind.CLASS,
    )
    method = chunk(
        "c-get", "src/a.py", 2, 3, "Store.get", "def get(self):\n    return 1\n", kind=ChunkKind.METHOD
    )
    elsewhere = chunk("c-other", "src/b.py", 2, 3, "get", "def get():\n    return 2\n")
    result = assemble_context(
        "lookup",
        [CodeCandidate(klass, 2.0), CodeCandidate(method, 1.5), CodeCandidate(elsewhere, 1.0)],
        budget_tokens=2_000,
    )
    assert [(i.chunk_id, i.tokens, i.note) for i in result.items][1:] == [
        ("c-get", 0, "shown inside src/a.py:1-10"),
        ("c-other", result.items[2].tokens, ""),
    ]
    assert result.text.count("src/a.py") == 1 and not result.cut


def test_the_final_budget_check_drops_a_listed_definition_only_with_the_block_it_is_in():
    from gateway.domain.context_types import ContextItem, Section
    from gateway.domain.ledger import Ledger, Part, finish

    def item(cid: str) -> ContextItem:
        return ContextItem(Section.CODE, "src/a.py", cid, 1, 2, "function", 1.0, 0, "search", cid)

    first = Part("```\n" + "alpha beta gamma\n" * 20 + "```\n", 0, item("a"))
    second = Part("```\n" + "delta epsilon\n" * 20 + "```\n", 0, item("b"))
    inside_first = Part("", 0, item("a.inner"), within=first)
    inside_second = Part("", 0, item("b.inner"), within=second)
    ledger = Ledger(10_000, 100_000, {Section.CODE: [first, second, inside_first, inside_second]})
    only_first = count_tokens("## Code\n" + first.text) + 1
    cut: list = []
    result = finish("", "", ledger, "lookup", cut, False, only_first, 100_000)
    assert [i.chunk_id for i in result.items] == ["a", "a.inner"]  # the listed one stays with its block
    assert sorted(c.chunk_id for c in cut) == ["b", "b.inner"]


def test_lines_elided_from_a_block_do_not_count_as_shown_by_it():
    from gateway.domain.code_section import _minus

    assert _minus(1, 58, [(52, 53)]) == [(1, 51), (54, 58)]
    assert _minus(1, 58, [(1, 10), (20, 58)]) == [(11, 19)]
    assert _minus(5, 9, []) == [(5, 9)]


def test_a_method_in_the_part_of_a_class_trimmed_away_is_shown_itself():
    body = (
        "class Store:\n"
        + "".join(f"    field_{k} = {k}\n" for k in range(300))
        + "    def get(self):\n        return 1\n"
    )
    klass = chunk("c-class", "src/a.py", 1, 303, "Store", body, kind=ChunkKind.CLASS)
    method = chunk(
        "c-get", "src/a.py", 302, 303, "Store.get", "def get(self):\n    return 1\n", kind=ChunkKind.METHOD
    )
    result = assemble_context(
        "lookup",
        [CodeCandidate(klass, 2.0), CodeCandidate(method, 1.5)],
        budget_tokens=400,
        policy=BudgetPolicy(stop_ratio=(), header_min_lines=1_000),
    )
    assert result.items[0].note.startswith("trimmed")
    assert [(i.chunk_id, i.note) for i in result.items][1:] == [("c-get", "")]
    assert "def get(self)" in result.text


def test_the_same_chunk_twice_is_shown_once():
    result = assemble_context(
        "bug", [CodeCandidate(MAIN, 1.0, "search"), CodeCandidate(MAIN, 0.5, "caller")], budget_tokens=2_000
    )
    assert [i.chunk_id for i in result.items] == ["c-main"]
    assert [c.note for c in result.cut] == ["duplicate"]


def test_memories_never_take_more_than_a_quarter_of_the_budget():
    memories = [
        MemoryItem(f"m{i}", f"Rule {i}", "rule", "Always do the thing " * 10, 1.0 - i / 100)
        for i in range(50)
    ]
    result = assemble_context("lookup", [CodeCandidate(MAIN, 1.0)], budget_tokens=2_000, memories=memories)
    memory_tokens = sum(i.tokens for i in result.items if i.section == Section.MEMORY)
    assert 0 < memory_tokens <= 2_000 * 0.10  # the rule class share is 10 %
    assert any(i.chunk_id == "c-main" for i in result.items)
    assert {c.note for c in result.cut} == {"rule memory budget"}


def test_memory_classes_have_their_own_budgets_and_order():
    memories = [
        MemoryItem("e1", "Yesterday", "episode", "We debugged the watcher.", 0.99),
        MemoryItem("r1", "Style", "rule", "Use structlog.", 0.1),
        MemoryItem("f1", "Storage", "fact", "Keyword index is FTS5.", 0.5),
        MemoryItem("x1", "Odd", "whatever", "Unknown class.", 0.5),
    ]
    result = assemble_context("lookup", [CodeCandidate(MAIN, 1.0)], budget_tokens=2_000, memories=memories)
    section = result.text.split("## Memories\n", 1)[1]
    assert section.splitlines()[:4] == [
        "- [rule] Style: Use structlog.",
        "- [fact] Storage: Keyword index is FTS5.",
        "- [episode] Yesterday: We debugged the watcher.",
        "- [other] Odd: Unknown class.",
    ]


def test_a_long_memory_is_shortened_not_dropped():
    memory = MemoryItem("m", "Long", "fact", "word " * 2_000, 1.0)
    result = assemble_context("lookup", [CodeCandidate(MAIN, 1.0)], budget_tokens=4_000, memories=[memory])
    (item,) = [i for i in result.items if i.section == Section.MEMORY]
    assert item.tokens <= BudgetPolicy().memory_item_max_tokens
    assert "… \n" in result.text or "…\n" in result.text


def test_facts_are_capped_and_overflowing_refs_are_counted():
    callers = tuple(SymbolRef(f"caller_{i}", f"src/c{i}.py", i + 1) for i in range(12))
    result = assemble_context(
        "flow",
        [CodeCandidate(PARSE, 1.0, "seed")],
        budget_tokens=2_000,
        facts=[
            GraphFacts("parse_config", callers=callers, more_callers=5, notes=("`load` has 3 definitions",))
        ],
    )
    line = next(line for line in result.text.splitlines() if "called by" in line)
    assert line.endswith("caller_7 (src/c7.py:8) (+9 more)")
    assert "- parse_config: `load` has 3 definitions" in result.text


def test_architecture_overview_section_comes_before_code():
    result = assemble_context(
        "architecture",
        [CodeCandidate(MAIN, 1.0, "hub")],
        budget_tokens=2_000,
        overview="Areas of the code:\n- services/search (400 symbols)",
    )
    assert "## Overview\nAreas of the code:\n- services/search (400 symbols)\n## Code\n" in result.text


def test_paths_are_made_repo_relative():
    absolute = chunk("c-abs", "/home/dev/acme/src/x.py", 1, 1, "x", "x = 1\n")
    result = assemble_context(
        "lookup", [CodeCandidate(absolute, 1.0)], budget_tokens=500, repo_root="/home/dev/acme/"
    )
    assert "\nsrc/x.py:1-1 function x\n" in result.text
    assert result.items[0].path == "src/x.py"
    assert relative_path("./a/b.py") == "a/b.py"
    assert relative_path("C:\\repo\\a.py", "C:\\repo") == "a.py"


def test_content_with_backtick_fences_gets_a_longer_fence():
    md = chunk(
        "c-md",
        "README.md",
        1,
        5,
        "README",
        "# Title\n```python\nprint(1)\n```\n",
        kind=ChunkKind.FILE,
        language="markdown",
    )
    result = assemble_context("lookup", [CodeCandidate(md, 1.0)], budget_tokens=500)
    assert "````markdown\n# Title\n```python\nprint(1)\n```\n````\n" in result.text


def test_the_block_is_factual_not_imperative():
    result = assemble_context("bug", [CodeCandidate(MAIN, 1.0)], budget_tokens=1_000, repo="acme")
    header = result.text.split("## Code", 1)[0].lower()
    for word in ("you must", "you should", "always", "never", "ignore", "instruction"):
        assert word not in header


def test_the_sanitiser_recognises_and_strips_an_assembled_block():
    result = assemble_context("flow", [CodeCandidate(MAIN, 1.0)], budget_tokens=1_000, repo="acme")
    echoed = f"earlier you said:\n{result.text}so who calls run?"
    assert sanitize_prompt(echoed).text == "earlier you said:\nso who calls run?"


def test_output_does_not_depend_on_candidate_or_memory_input_order():
    cands = [CodeCandidate(MAIN, 1.0, "caller"), CodeCandidate(PARSE, 1.0, "seed")]
    mems = [MemoryItem("a", "A", "fact", "x", 0.5), MemoryItem("b", "B", "fact", "y", 0.5)]
    one = assemble_context("flow", cands, budget_tokens=1_000, memories=mems)
    two = assemble_context("flow", cands[::-1], budget_tokens=1_000, memories=mems[::-1])
    assert one == two
    assert one.items[0].chunk_id == "c-parse"  # equal scores: seed before caller


# ---------------------------------------------------------------------------------------------------
# Property: for arbitrary inputs both limits hold and assembly is deterministic.

_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=400)  # utf-8 excludes lone surrogates
_code_text = st.one_of(
    _text,
    st.builds(lambda line, n: (line + "\n") * n, _text.filter(lambda t: "\n" not in t), st.integers(1, 600)),
    st.builds(
        lambda c, n: c * n, st.sampled_from(["x", "é", "漢", "🙂", "`", "\n", "a b "]), st.integers(1, 60_000)
    ),
)


@st.composite
def _candidates(draw):
    count = draw(st.integers(0, 14))
    out = []
    for i in range(count):
        start = draw(st.integers(1, 400))
        end = start + draw(st.integers(0, 300))
        path = draw(st.sampled_from(["src/a.py", "src/b.py", "lib/ü.py", "/abs/root/x.go", "z/漢.ts"]))
        content = draw(_code_text)
        cid = f"id{draw(st.integers(0, 9))}" if draw(st.booleans()) else f"u{i}"
        kind = draw(st.sampled_from(list(ChunkKind)))
        c = chunk(
            cid, path, start, end, draw(st.sampled_from(["f", "Cls.m", "ü_name", ""])), content, kind=kind
        )
        score = draw(st.floats(allow_nan=True, allow_infinity=False, width=32))
        reason = draw(st.sampled_from(["seed", "search", "caller", "callee", "active_file", "hub", "weird"]))
        out.append(CodeCandidate(c, score, reason))
    return out


_memories = st.lists(
    st.builds(
        MemoryItem,
        id=st.text(max_size=4),
        name=_text,
        memory_class=st.sampled_from(["rule", "fact", "episode", "working", "other", "?"]),
        body=st.one_of(_text, st.builds(lambda t, n: t * n, _text, st.integers(1, 200))),
        score=st.floats(0, 1),
    ),
    max_size=60,
)
_facts = st.lists(
    st.builds(
        GraphFacts,
        seed=_text,
        definitions=st.lists(
            st.builds(SymbolRef, _text, _text, st.integers(0, 10**6), _text), max_size=4
        ).map(tuple),
        callers=st.lists(st.builds(SymbolRef, _text, _text, st.integers(0, 10**6)), max_size=30).map(tuple),
        callees=st.lists(st.builds(SymbolRef, _text, _text, st.integers(0, 10**6)), max_size=30).map(tuple),
        notes=st.lists(_text, max_size=3).map(tuple),
        more_callers=st.integers(0, 100),
    ),
    max_size=3,
)


@settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example],
)
@given(
    candidates=_candidates(),
    memories=_memories,
    facts=_facts,
    budget=st.integers(1, 20_000),
    route=st.sampled_from(["lookup", "flow", "bug", "architecture", "skip"]),
    overview=_text,
    staleness=st.builds(Staleness, _text, _text, st.lists(_text, max_size=8).map(tuple)),
    degraded=st.lists(st.sampled_from(["search", "graph", "memory"]), max_size=3),
    seed=st.integers(0, 1000),
)
def test_any_input_stays_within_both_limits_and_is_deterministic(
    candidates, memories, facts, budget, route, overview, staleness, degraded, seed
):
    kwargs = dict(
        budget_tokens=budget,
        facts=facts,
        memories=memories,
        staleness=staleness,
        overview=overview,
        degraded=degraded,
        repo="acme",
        repo_root="/abs/root",
    )
    result = assemble_context(route, candidates, **kwargs)
    assert utf16_len(result.text) <= 10_000
    assert count_tokens(result.text) <= budget
    assert result.tokens == count_tokens(result.text)
    assert result.chars == utf16_len(result.text)
    if result.text:
        assert result.text.endswith(CONTEXT_CLOSE + "\n")
        assert all(i.tokens >= 0 for i in result.items)
    shuffled = list(candidates)
    random.Random(seed).shuffle(shuffled)
    again = assemble_context(route, candidates, **kwargs)
    assert again == result
    if not any(c.score != c.score for c in candidates):  # NaN scores have no order to be independent of
        assert assemble_context(route, shuffled, **kwargs).text == result.text


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sizes=st.lists(st.integers(200, 4_000), min_size=3, max_size=20),
    char=st.sampled_from(["a", "é", "漢", "🙂", "x = 1"]),
    budget=st.integers(2_000, 20_000),
)
def test_large_budgets_are_held_by_the_character_cap(sizes, char, budget):
    candidates = [
        CodeCandidate(chunk(f"c{i}", f"src/m{i}.py", 1, 50, f"f{i}", (char * size)[:size] + "\n"), float(-i))
        for i, size in enumerate(sizes)
    ]
    result = assemble_context("lookup", candidates, budget_tokens=budget)
    assert len(result.text) <= 10_000
    assert count_tokens(result.text) <= budget
    total = sum(sizes)
    if total > 12_000 and budget >= 6_000 and char in {"a", "x = 1"}:
        # the cap is used, not left idle while code is cut (a one-line chunk is shown trimmed, so the raw
        # sizes may add up to more than ever needs the cap)
        assert len(result.text) > 6_000 or not result.cut


def test_plenty_of_code_fills_most_of_the_character_cap():
    lines = "".join(f"    value_{i} = compute(value_{i - 1})\n" for i in range(1, 60))
    candidates = [
        CodeCandidate(chunk(f"c{i}", f"src/m{i}.py", 1, 60, f"f{i}", f"def f{i}():\n{lines}"), 100.0 - i)
        for i in range(30)
    ]
    result = assemble_context("lookup", candidates, budget_tokens=20_000)
    assert 8_000 < len(result.text) <= 10_000
    assert {c.note for c in result.cut} == {"character cap"}  # 20k tokens: only the 10k characters bind


def test_the_final_check_drops_parts_when_counted_sizes_were_too_optimistic():
    from gateway.domain.ledger import Ledger as _Ledger
    from gateway.domain.ledger import Part as _Part
    from gateway.domain.ledger import finish as _finish

    ledger = _Ledger(tokens=0, chars=0)
    for i in range(5):
        block = f"src/m{i}.py:1-2 function f{i}\n```python\n" + "word " * 100 + "\n```\n"
        item = ContextItem(Section.CODE, f"src/m{i}.py", f"f{i}", 1, 2, "function", 1.0, 1, "search", f"c{i}")
        ledger.take(Section.CODE, _Part(block, 1, item))  # pretend each block costs one token
    result = _finish("<h>\n", "</h>\n", ledger, "lookup", [], False, budget=250, char_cap=10_000)
    assert count_tokens(result.text) <= 250
    assert len(result.items) == 2
    assert [c.note for c in result.cut] == ["token budget (final check)"] * 3
