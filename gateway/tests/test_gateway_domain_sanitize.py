from gateway.domain.markers import CONTEXT_CLOSE, context_open
from gateway.domain.sanitize import (
    REMOVED_CODE_BLOCK,
    REMOVED_INJECTED_CONTEXT,
    REMOVED_LOG,
    REMOVED_SYSTEM_REMINDER,
    REMOVED_TRUNCATED,
    sanitize_prompt,
)

PY_TRACEBACK = """Traceback (most recent call last):
  File "/home/dev/proj/services/search/engine.py", line 88, in search
    hits = self._keyword.query(q)
  File "/home/dev/proj/.venv/lib/python3.11/site-packages/sqlite_utils/db.py", line 12, in execute
    return cur.execute(sql)
  File "/home/dev/proj/services/search/adapters/sqlite_keyword.py", line 41, in query
    rows = cur.execute(sql, params)
sqlite3.OperationalError: fts5: syntax error near "."
"""


def test_plain_prompt_is_unchanged():
    result = sanitize_prompt("where is the retry logic?")
    assert result.text == "where is the retry logic?"
    assert result.removed == ()


def test_system_reminders_are_removed():
    prompt = "<system-reminder>\nThe user opened src/a.py.\n</system-reminder>\nwho calls parse_config?"
    result = sanitize_prompt(prompt)
    assert result.text == "who calls parse_config?"
    assert REMOVED_SYSTEM_REMINDER in result.removed


def test_context_we_injected_earlier_is_removed_entirely():
    block = (
        f"{context_open(route='flow', commit='abc1234')}\nIndex of acme at abc1234, route flow.\n"
        "## Code\nsrc/a.py:1-3 function handle_request\n```python\ndef handle_request(): ...\n```\n"
        f"{CONTEXT_CLOSE}\n"
    )
    result = sanitize_prompt(f"you showed me this:\n{block}why is it slow?")
    assert "handle_request" not in result.text
    assert result.text == "you showed me this:\nwhy is it slow?"
    assert REMOVED_INJECTED_CONTEXT in result.removed


def test_an_unclosed_injected_block_is_removed_to_the_end():
    result = sanitize_prompt(f"question first\n{context_open(route='lookup')}\nsrc/a.py:1-3 function x\n")
    assert result.text == "question first"


def test_a_literal_mention_of_the_tag_inside_a_sentence_is_kept():
    result = sanitize_prompt("why does <reporecall-context> show up twice in my prompt?")
    assert "show up twice" in result.text


def test_fenced_traceback_becomes_a_summary_with_the_exception_and_repo_frames():
    result = sanitize_prompt(f"getting this when i run pytest:\n```\n{PY_TRACEBACK}```\nany idea?")
    assert result.text.startswith("getting this when i run pytest:\n[log: 8 lines; ")
    summary = result.summaries[0]
    assert 'sqlite3.OperationalError: fts5: syntax error near "."' in summary
    assert "services/search/engine.py:88 in search" in summary
    assert "sqlite_keyword.py:41 in query" in summary
    assert "site-packages" not in summary
    assert result.text.endswith("any idea?")
    assert REMOVED_LOG in result.removed


def test_unfenced_traceback_is_summarised_too():
    result = sanitize_prompt(f"{PY_TRACEBACK}\nwhat broke?")
    assert result.text.splitlines()[-1] == "what broke?"
    assert "OperationalError" in result.text
    assert "rows = cur.execute" not in result.text


def test_js_stack_keeps_the_first_exception_line_and_first_frames():
    log = (
        "TypeError: Cannot read properties of undefined (reading 'map')\n"
        "    at renderList (src/components/List.tsx:42:17)\n"
        "    at Dashboard (src/pages/Dashboard.tsx:88:5)\n"
        "    at node_modules/react-dom/cjs/react-dom.development.js:1234:22\n"
    )
    result = sanitize_prompt(f"the dashboard crashes:\n{log}")
    summary = result.summaries[0]
    assert summary.startswith("[log: 4 lines; TypeError: Cannot read properties of undefined")
    assert "src/components/List.tsx:42 in renderList" in summary
    assert "node_modules" not in summary


def test_fenced_code_becomes_a_summary_naming_what_it_defines():
    code = "\n".join(
        [
            "def parse_config(path):",
            "    with open(path) as f:",
            "        return yaml.safe_load(f)",
            "",
            "class Loader:",
            "    pass",
        ]
    )
    result = sanitize_prompt(f"why does this return None?\n```python\n{code}\n```")
    assert result.text == "why does this return None?\n[code: python, 6 lines; defines parse_config, Loader]"
    assert REMOVED_CODE_BLOCK in result.removed


def test_small_fenced_snippet_stays_as_text():
    result = sanitize_prompt("running\n```\npytest -k test_rank\n```\nfails")
    assert result.text == "running\npytest -k test_rank\nfails"


def test_unfenced_pasted_code_is_summarised_but_prose_lists_are_not():
    code = (
        "def handle(event):\n    if event.kind == 'x':\n        return process(event)\n"
        "    for item in event.items:\n        queue.put(item)\n    return None\n"
    )
    result = sanitize_prompt(f"this handler drops events:\n{code}how come?")
    assert result.text.splitlines()[1] == "[code, 6 lines; defines handle]"
    assert "defines handle" in result.text
    prose = "please:\n- add a flag\n- update the docs\n- write a test\n- bump the version\n- tag it\n- ship"
    assert sanitize_prompt(prose).text == prose


def test_timestamped_log_lines_are_summarised():
    log = (
        "\n".join(f"2024-05-01 12:00:0{i} INFO worker: processed batch {i}" for i in range(6))
        + "\n2024-05-01 12:00:07 ERROR worker: ConnectionResetError: peer closed"
    )
    result = sanitize_prompt(f"{log}\nworker keeps dying")
    assert result.text.startswith("[log: 7 lines")
    assert result.text.endswith("worker keeps dying")


def test_slash_command_tags_are_unwrapped_and_command_output_dropped():
    prompt = (
        "<command-message>fix-issue is running…</command-message>\n<command-name>/fix-issue</command-name>\n"
        "<command-args>123</command-args>"
    )
    assert sanitize_prompt(prompt).text == "/fix-issue\n123"
    output = "<local-command-stdout>Total cost: $0.12\nTotal duration: 3m</local-command-stdout>"
    assert sanitize_prompt(output).text == ""


def test_long_prompts_keep_head_and_tail_within_the_cap():
    prompt = "start " + "filler words here " * 1000 + "the real question at the end?"
    result = sanitize_prompt(prompt, max_chars=600)
    assert len(result.text) <= 600
    assert result.text.startswith("start ")
    assert result.text.endswith("the real question at the end?")
    assert " … " in result.text
    assert REMOVED_TRUNCATED in result.removed


def test_huge_input_is_bounded_and_fast():
    import time

    prompt = "x = 1\n" * 200_000 + "why?"
    started = time.perf_counter()
    result = sanitize_prompt(prompt)
    assert time.perf_counter() - started < 2.0
    assert len(result.text) <= 4_000


def test_pasted_diff_names_its_files_and_hunk_functions():
    diff = (
        "diff --git a/src/config.py b/src/config.py\n"
        "--- a/src/config.py\n"
        "+++ b/src/config.py\n"
        "@@ -10,6 +10,8 @@ def parse_config(path):\n"
        "     with open(path) as f:\n"
        "-        return yaml.load(f)\n"
        "+        data = yaml.safe_load(f)\n"
        "+        return data or {}\n"
    )
    result = sanitize_prompt(f"does this look right?\n```diff\n{diff}```")
    assert result.text == "does this look right?\n[diff: 8 lines; files src/config.py; hunks in parse_config]"
