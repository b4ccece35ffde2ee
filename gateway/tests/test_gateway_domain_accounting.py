from gateway.domain.accounting import (
    LINE_NUMBER_TOKENS,
    READ_LINE_LIMIT,
    TOKENS_PER_LINE,
    FileSize,
    read_cost,
    token_savings,
)
from gateway.domain.assembly import ContextItem, Section


def item(path: str, section: str = Section.CODE, tokens: int = 50) -> ContextItem:
    return ContextItem(section, path, "f", 1, 5, "function", 1.0, tokens, "search", "id")


def test_read_cost_counts_file_tokens_plus_line_number_prefixes():
    assert read_cost(FileSize("a.py", lines=100, tokens=1_200)) == 1_200 + 100 * LINE_NUMBER_TOKENS


def test_read_cost_estimates_the_missing_measure():
    assert read_cost(FileSize("a.py", lines=30)) == 30 * TOKENS_PER_LINE + 30 * LINE_NUMBER_TOKENS
    assert read_cost(FileSize("a.py", tokens=95)) == 95 + 10 * LINE_NUMBER_TOKENS  # ceil(95 / 10) lines
    assert read_cost(FileSize("a.py")) == 0


def test_read_cost_stops_at_the_read_tools_line_limit():
    cost = read_cost(FileSize("big.py", lines=4 * READ_LINE_LIMIT, tokens=80_000))
    assert cost == 20_000 + READ_LINE_LIMIT * LINE_NUMBER_TOKENS


def test_savings_count_each_code_file_once_and_ignore_memories_and_facts():
    items = [
        item("src/a.py"),
        item("src/a.py"),
        item("./src/b.py"),
        item("", Section.MEMORY),
        item("", Section.FACTS),
    ]
    sizes = [FileSize("src/a.py", lines=200, tokens=2_000), FileSize("src/b.py", lines=50, tokens=400)]
    savings = token_savings(900, items, sizes)
    assert savings.files == ("src/a.py", "src/b.py")
    assert savings.spared_tokens == (2_000 + 600) + (400 + 150)
    assert savings.injected_tokens == 900
    assert savings.net_tokens == 3_150 - 900
    assert savings.unknown_files == ()


def test_files_without_a_size_count_zero_and_are_reported():
    savings = token_savings(
        300, [item("src/a.py"), item("/repo/src/c.py")], {"a": FileSize("src/a.py", lines=10)}, "/repo"
    )
    assert savings.files == ("src/a.py", "src/c.py")
    assert savings.unknown_files == ("src/c.py",)
    assert savings.spared_tokens == 10 * (TOKENS_PER_LINE + LINE_NUMBER_TOKENS)


def test_an_empty_reply_spares_nothing():
    savings = token_savings(0, [], [])
    assert (savings.injected_tokens, savings.spared_tokens, savings.net_tokens) == (0, 0, 0)
