"""Doc trimming keeps line numbers and overlap ranges exact; headers skip docstrings; the adaptive
stop measures against the best candidate actually placed."""

import re
from dataclasses import replace

from gateway.domain.assembly import BudgetPolicy, CodeCandidate, assemble_context
from gateway.domain.code_render import source_lines
from gateway.domain.code_select import class_header
from kit.domain import Chunk, ChunkKind

NO_STOP = BudgetPolicy(stop_ratio=())
# Trimmed to fit the budget, not to a block share.
NO_CAP = BudgetPolicy(stop_ratio=(), lead_block_max_share=0.0, block_max_share=0.0)


def _chunk(cid: str, start: int, end: int, name: str, content: str, kind: ChunkKind) -> Chunk:
    return Chunk(
        id=cid,
        repo="r",
        path="src/a.py",
        language="python",
        kind=kind,
        name=name.rsplit(".", 1)[-1],
        qualified_name=name,
        start_line=start,
        end_line=end,
        content=content,
        content_hash=cid,
    )


def _long_function() -> Chunk:
    """A function at lines 100-167 whose 7-line docstring is trimmed; step k is source line 108+k."""
    lines = ["def run(job):", '    """Run the job.', "", "    a", "    b", "    c", "    d", '    """']
    lines += [f"    step_{k} = job.work({k})  # source line {108 + k}" for k in range(60)]
    assert len(lines) == 68
    return _chunk("c-run", 100, 167, "run", "\n".join(lines) + "\n", ChunkKind.FUNCTION)


def test_a_doc_trimmed_block_that_is_trimmed_reports_its_true_source_lines_and_overlap():
    run = _long_function()
    later = _chunk("c-later", 112, 115, "run.step", "step_5 = 1\n", ChunkKind.FUNCTION)
    result = assemble_context(
        "lookup",
        [CodeCandidate(run, 2.0), CodeCandidate(later, 1.0)],
        budget_tokens=260,
        policy=NO_CAP,
    )
    shown = re.findall(r"# source line (\d+)", result.text)
    last = int(shown[-1])
    assert last >= 112, result.text  # the budget shows source lines past 111
    assert [i.note for i in result.items] == [f"trimmed: lines 100-{last} shown"]
    assert f"… lines {last + 1}-167 elided" in result.text
    # the later candidate's lines are already on screen: cut as an overlap, not injected again
    assert [(c.chunk_id, c.note) for c in result.cut] == [
        ("c-later", "overlaps src/a.py:100-167 already shown")
    ]


def test_a_trimmed_class_header_reports_the_source_line_of_its_last_member():
    lines = ["class Big:", '    """Big thing.', "", "    more", '    """']
    for m in range(40):
        lines += [f"    def op{m}(self):  # source line {1 + len(lines)}", "        return 1"]
    klass = _chunk("c-big", 1, len(lines), "Big", "\n".join(lines) + "\n", ChunkKind.CLASS)
    result = assemble_context("lookup", [CodeCandidate(klass, 1.0)], budget_tokens=200, policy=NO_STOP)
    shown = re.findall(r"# source line (\d+)", result.text)
    assert shown and len(shown) < 40, result.text
    assert f"… lines {int(shown[-1]) + 1}-{len(lines)} elided" in result.text


def test_class_header_skips_the_whole_docstring_not_just_its_quotes():
    content = (
        "class Store:\n"
        '    """A key-value store.\n'
        "\n"
        "    Keeps values in memory.\n"
        "    limit: how many it holds\n"
        '    """\n'
        "\n"
        "    limit: int = 10\n"
        "\n"
        "    def get(self, key):\n"
        "        return self.data[key]\n"
    )
    header = class_header(_chunk("c", 1, 11, "Store", content, ChunkKind.CLASS))
    assert header.splitlines() == ["class Store:", "    limit: int = 10", "    def get(self, key):", "    …"]


def _fn(cid: str, line: int, name: str) -> Chunk:
    return _chunk(cid, line, line + 1, name, f"def {name}():\n    return 1\n", ChunkKind.FUNCTION)


def test_adaptive_stop_measures_against_the_first_candidate_placed_not_a_replaced_one():
    residue = "import os\n" + "X = 1\n" * 50 + "def inner():\n    return 2\n"
    module = _chunk("c-module", 1, 53, "src/a.py", residue, ChunkKind.MODULE)
    inner = _chunk("c-inner", 52, 53, "inner", "def inner():\n    return 2\n", ChunkKind.FUNCTION)
    policy = BudgetPolicy(stop_ratio=(("lookup", 0.5),), stop_min_items=2)
    result = assemble_context(
        "lookup",
        [
            CodeCandidate(module, 10.0),
            CodeCandidate(inner, 1.0),
            CodeCandidate(_fn("b", 60, "load_config"), 0.9),
            CodeCandidate(_fn("c", 70, "save_config"), 0.6),
            CodeCandidate(_fn("d", 80, "render_page"), 0.2),
        ],
        budget_tokens=2_000,
        policy=policy,
    )
    # best is 1.0 (the first placed), not 10.0 (the replaced residue): 0.6 ≥ 0.5 × 1.0 goes in
    assert [i.chunk_id for i in result.items] == ["c-inner", "b", "c"]
    assert [c.chunk_id for c in result.cut] == ["c-module", "d"]
    assert result.cut[1].note == "adaptive stop: score 0.2 below 0.5 × best 1"


def _enclosing() -> tuple[Chunk, Chunk]:
    """A 60-line function (lines 10-69) whose closure `ready.run_hooks` spans source lines 20-29;
    every line names its source line."""
    lines = ["def ready(app):  # source line 10"]
    lines += [f"    state_{k} = app.load({k})  # source line {11 + k}" for k in range(9)]
    closure = ["    def run_hooks():  # source line 20"]
    closure += [f"        hook_{k}()  # source line {21 + k}" for k in range(9)]
    lines += closure
    lines += [f"    app.step({k})  # source line {30 + k}" for k in range(40)]
    outer = _chunk("c-ready", 10, 69, "ready", "\n".join(lines) + "\n", ChunkKind.FUNCTION)
    inner = _chunk("c-hooks", 20, 29, "ready.run_hooks", "\n".join(closure) + "\n", ChunkKind.FUNCTION)
    return outer, inner


def test_a_function_after_its_shown_closure_is_shown_with_the_closure_elided():
    outer, inner = _enclosing()
    result = assemble_context(
        "bug", [CodeCandidate(inner, 2.0), CodeCandidate(outer, 1.0)], budget_tokens=4_000, policy=NO_CAP
    )
    assert [i.chunk_id for i in result.items] == ["c-hooks", "c-ready"]
    assert result.text.count("def run_hooks():") == 1  # the closure is not shown twice
    assert "    … lines 20-29 shown above\n    app.step(0)  # source line 30" in result.text
    assert "state_8 = app.load(8)  # source line 19\n    … lines 20-29" in result.text
    assert not result.cut


def test_an_elided_function_trimmed_to_fit_reports_its_true_source_lines():
    outer, inner = _enclosing()
    result = assemble_context(
        "bug", [CodeCandidate(inner, 2.0), CodeCandidate(outer, 1.0)], budget_tokens=420, policy=NO_CAP
    )
    assert [i.chunk_id for i in result.items] == ["c-hooks", "c-ready"], result.cut
    shown = [int(n) for n in re.findall(r"# source line (\d+)", result.text.split("def ready", 1)[1])]
    last = shown[-1]
    assert 30 <= last < 69, result.text  # past the elided closure, short of the end
    assert result.items[1].note == f"trimmed: lines 10-{last} shown"
    assert f"… lines {last + 1}-69 elided" in result.text


def test_an_enclosing_chunk_with_almost_nothing_else_is_cut_as_an_overlap():
    # Longer than `header_min_lines`, so it does not take the closure's place; 2 lines of its own.
    closure = "    def run_hooks():\n" + "".join(f"        hook_{k}()\n" for k in range(44))
    outer = _chunk(
        "c-ready",
        10,
        56,
        "ready",
        "def ready(app):\n" + closure + "    return run_hooks\n",
        ChunkKind.FUNCTION,
    )
    inner = _chunk("c-hooks", 11, 55, "ready.run_hooks", closure, ChunkKind.FUNCTION)
    result = assemble_context(
        "bug", [CodeCandidate(inner, 2.0), CodeCandidate(outer, 1.0)], budget_tokens=4_000, policy=NO_CAP
    )
    assert [i.chunk_id for i in result.items] == ["c-hooks"]
    assert [(c.chunk_id, c.note) for c in result.cut] == [
        ("c-ready", "overlaps src/a.py:11-55 already shown")
    ]


def test_a_block_straddling_a_shown_one_is_still_cut_as_an_overlap():
    outer, _ = _enclosing()
    straddling = _chunk("c-mid", 60, 80, "later", "x = 1\n" * 21, ChunkKind.FUNCTION)
    result = assemble_context(
        "bug", [CodeCandidate(outer, 2.0), CodeCandidate(straddling, 1.0)], budget_tokens=4_000, policy=NO_CAP
    )
    assert [i.chunk_id for i in result.items] == ["c-ready"]
    assert [(c.chunk_id, c.note) for c in result.cut] == [("c-mid", "overlaps src/a.py:10-69 already shown")]


def test_an_outline_after_its_shown_closure_is_shown_as_it_is():
    """A long definition indexed as an outline holds one signature line per closure: line i is not source
    line start + i, so nothing is elided by number; the closure's body is not in it to repeat."""
    outer, inner = _enclosing()
    lines = outer.content.splitlines()
    outline = replace(outer, content="\n".join([*lines[:10], "    def run_hooks(): ...", *lines[20:]]) + "\n")
    result = assemble_context(
        "bug", [CodeCandidate(inner, 2.0), CodeCandidate(outline, 1.0)], budget_tokens=4_000, policy=NO_CAP
    )
    assert [i.chunk_id for i in result.items] == ["c-hooks", "c-ready"]
    assert "shown above" not in result.text and result.text.count("hook_0()") == 1
    assert "state_8 = app.load(8)  # source line 19\n    def run_hooks(): ...\n    app.step(0)" in result.text


def test_a_form_feed_line_break_is_no_source_line_break():
    outer, inner = _enclosing()
    with_form_feed = replace(
        outer, content=outer.content.replace("# source line 12\n", "# source line 12\x0c x\n")
    )
    assert source_lines(with_form_feed) is None  # splitlines would count a line the indexer did not
    assert source_lines(replace(outer, content=outer.content.replace("\n", "\r\n"))) is not None
    result = assemble_context(
        "bug",
        [CodeCandidate(inner, 2.0), CodeCandidate(with_form_feed, 1.0)],
        budget_tokens=4_000,
        policy=NO_CAP,
    )
    assert [i.chunk_id for i in result.items] == ["c-hooks"]
