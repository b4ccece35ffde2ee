"""The injected-context ledger and the PreToolUse note (pure)."""

from __future__ import annotations

from gateway.domain.injected import (
    NOTE_CHARS,
    InjectedLedger,
    InjectedSpan,
    LedgerLimits,
    matching_spans,
    pre_tool_use_note,
)

PARSE = InjectedSpan("src/shop/cart.py", 10, 42, "Cart.add_item", "method")
TOTAL = InjectedSpan("src/shop/pricing.py", 3, 20, "compute_total", "function")


def test_read_of_an_injected_file_matches_from_any_checkout_path() -> None:
    spans = [PARSE, TOTAL]
    assert matching_spans("Read", {"file_path": "/home/bob/work/shop/src/shop/cart.py"}, spans) == [PARSE]
    assert matching_spans("Read", {"file_path": "src/shop/pricing.py"}, spans) == [TOTAL]
    assert matching_spans("Read", {"file_path": "/home/bob/src/shop/other.py"}, spans) == []
    assert matching_spans("Read", {"file_path": "/x/notsrc/shop/cart.py"}, spans) == []  # not a path suffix


def test_grep_matches_a_symbol_name_and_glob_matches_a_path() -> None:
    spans = [PARSE, TOTAL]
    assert matching_spans("Grep", {"pattern": "def add_item"}, spans) == [PARSE]
    assert matching_spans("Grep", {"pattern": "compute_.*"}, spans) == [TOTAL]
    assert matching_spans("Grep", {"pattern": "add_item", "path": "/w/shop/tests"}, spans) == []
    assert matching_spans("Grep", {"pattern": "zzz", "path": "/w/shop/src/shop/cart.py"}, spans) == [PARSE]
    assert matching_spans("Glob", {"pattern": "**/pricing.py"}, spans) == [TOTAL]
    assert matching_spans("Glob", {"pattern": "src/**/*.py"}, spans) == [PARSE, TOTAL]
    assert matching_spans("Glob", {"pattern": "**/*.ts"}, spans) == []
    assert matching_spans("Bash", {"command": "cat src/shop/cart.py"}, spans) == []
    assert matching_spans("Grep", {"pattern": "(unclosed"}, spans) == []  # bad regex: no match, no error


def test_note_names_where_the_code_is_and_stays_short() -> None:
    note = pre_tool_use_note("Read", [PARSE])
    assert "src/shop/cart.py:10-42 method Cart.add_item" in note and "<reporecall-context>" in note
    many = [InjectedSpan(f"src/{'x' * 80}/{i}.py", 1, 2, f"f{i}") for i in range(40)]
    assert len(pre_tool_use_note("Glob", many)) <= NOTE_CHARS
    assert pre_tool_use_note("Read", []) == ""


def test_ledger_is_per_user_and_session_and_expires() -> None:
    ledger = InjectedLedger(LedgerLimits(ttl_seconds=60))
    ledger.record("alice", "s1", [PARSE], now=0)
    assert ledger.spans("alice", "s1", now=1) == [PARSE]
    assert ledger.spans("bob", "s1", now=1) == []  # same session id, another user: nothing
    assert ledger.spans("alice", "s2", now=1) == []
    assert ledger.spans("alice", "s1", now=61) == []
    ledger.record("alice", "", [PARSE], now=0)  # no session: nothing remembered
    assert ledger.spans("alice", "", now=1) == []


def test_ledger_is_bounded_per_session_per_user_and_overall() -> None:
    ledger = InjectedLedger(LedgerLimits(sessions_per_user=2, sessions_total=3, spans_per_session=2))
    ledger.record("alice", "s1", [InjectedSpan(f"f{i}.py", 1, 2) for i in range(5)], now=0)
    assert [s.path for s in ledger.spans("alice", "s1", now=0)] == ["f3.py", "f4.py"]
    ledger.record("alice", "s2", [PARSE], now=0)
    ledger.record("alice", "s3", [PARSE], now=0)
    assert ledger.spans("alice", "s1", now=0) == [] and len(ledger) == 2
    ledger.record("bob", "b1", [PARSE], now=0)
    ledger.record("carol", "c1", [PARSE], now=0)
    assert len(ledger) == 3 and ledger.spans("carol", "c1", now=0) == [PARSE]
