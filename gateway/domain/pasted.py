"""Pasted material in a prompt: which lines are log, code or diff, and the one-line summary of each.

A summary keeps what is worth searching for — the exception line, repo `file:line` references, the
names a snippet defines — so the sanitiser can replace a paste with it (see gateway.domain.sanitize).
"""

from __future__ import annotations

import re

from kit.text import identifier_tokens

MAX_REFS = 4
MAX_NAMES = 5
MAX_SUMMARY_LINE = 200
# Line patterns only look at a line's start: a log or code line says what it is early, and a pasted
# megabyte-long line must not cost quadratic regex time.
MAX_LINE_SCAN = 300

_LOG_LINE = re.compile(
    r"""^(?:
        \s*Traceback\ \(most\ recent\ call\ last\)
      | \s+File\ ".*",\ line\ \d+
      | \s*at\ \S.*(?:\(.*:\d+(?::\d+)?\)|:\d+(?::\d+)?)\s*$      # JS / Java frames
      | \[?\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}                           # timestamps
      | \[?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\]?\s
      | \[?(?:DEBUG|INFO|WARN|WARNING|ERROR|FATAL|TRACE|CRITICAL)\]?[\s:]
      | E\s{2,}\S                                                    # pytest failure lines
      | (?:FAILED|PASSED|ERROR|SKIPPED|XFAIL)\s+\S+::
      | ={5,}.*={5,}\s*$ | _{5,}.*_{5,}\s*$
      | goroutine\ \d+\ \[ | \s+\S+\.go:\d+ | panic:\s
      | thread\ '.*'\ panicked | \s+-->\s\S+:\d+:\d+ | error(?:\[\w+\])?:\s
      | \S+\.\w+:\d+:\d+:\s*(?:error|warning)
      | \S+\(\d+,\d+\):\s*error
      | npm\ (?:ERR!|error) | Caused\ by:\s | \s*\.\.\.\ \d+\ more
      | \s*\^+\s*$ | \s*~*\^~*\s*$
      | (?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure|Fault)\b(?::\s.*)?\s*$
    )""",
    re.VERBOSE,
)
_EXCEPTION_LINE = re.compile(
    r"""^\s*(?:E\s+)?(?:
        (?:FAILED\s+\S+\s+-\s+)?(?:[\w.]+\.)?[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Failure|Fault|Warning)\b.*
      | panic:\s.* | thread\ '.*'\ panicked.* | error(?:\[\w+\])?:\s.* | \S+:\d+:\d+:\s*error.*
      | FAILED\s+\S+.* | npm\ ERR!.*
    )$""",
    re.VERBOSE,
)
PY_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>[\w<>.]+))?')
_AT_FRAME = re.compile(r"at (?:(?P<func>[\w$.<>]+) )?\(?(?P<path>[^\s():]+\.\w+):(?P<line>\d+)(?::\d+)?\)?")
_PATH_LINE = re.compile(r"(?P<path>(?:[\w.@~-]+/)*[\w.@-]+\.[A-Za-z]\w{0,5}):(?P<line>\d+)")
_NOT_REPO = re.compile(
    r"site-packages|dist-packages|node_modules|/usr/|/lib/python|<frozen|<anonymous>|internal/|"
    r"^node:|\.pyenv|\.rustup|/go/pkg/mod|^java\.|^sun\.|^jdk\."
)
CODE_LINE = re.compile(
    r"""^\s*(?:
        (?:async\s+)?def\s | class\s | import\s | from\s+\S+\s+import\s | return\b | (?:el)?if\s.*:\s*$
      | else:\s*$ | try:\s*$ | except\b.*:\s*$ | finally:\s*$ | for\s.*:\s*$ | while\s.*:\s*$ | with\s.*:\s*$
      | @\w | (?:export\s+)?(?:default\s+)?(?:async\s+)?function\b | (?:const|let|var)\s+\w+\s*=
      | (?:public|private|protected|static|final)\s | func\s | package\s+\w | \#include | fn\s | impl\b
      | [}\])]+[;,]?\s*$ | //
    )
    | [;{]\s*$ | \)\s*(?:->\s*[^:]+)?:\s*$ | =>\s*\{?\s*$""",
    re.VERBOSE,
)
_DEFINED_NAME = re.compile(
    r"^\s*(?:export\s+)?(?:default\s+)?(?:pub(?:\(\w+\))?\s+)?(?:async\s+)?"
    r"(?:def|class|function|func|fn|interface|struct|enum|type|trait)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)",
)


def is_log_line(line: str) -> bool:
    return bool(_LOG_LINE.match(line[:MAX_LINE_SCAN]))


def looks_like_log(lines: list[str]) -> bool:
    content = [line for line in lines if line.strip()]
    if not content:
        return False
    if any("Traceback (most recent call last)" in line for line in content):
        return True
    log_lines = sum(1 for line in content if is_log_line(line))
    return log_lines >= 2 and log_lines >= 0.3 * len(content)


def log_summary(lines: list[str], require_signal: bool = False) -> str:
    """`[log: 42 lines; KeyError: 'user_id'; at app/models.py:42 in get_user, app/views.py:17]`."""
    exceptions = [m.group(0).strip() for line in lines if (m := _EXCEPTION_LINE.match(line[:MAX_LINE_SCAN]))]
    python_order = any("Traceback (most recent call last)" in line for line in lines)
    refs = _file_refs(lines, innermost_last=python_order)
    if require_signal and not exceptions and not refs:
        return ""
    parts = [f"log: {len(lines)} lines"]
    if exceptions:
        # Python prints the real error last; other runtimes print it first.
        chosen = [exceptions[-1]] if python_order else [exceptions[0]]
        if len(exceptions) > 1 and exceptions[0] not in chosen:
            chosen.append(exceptions[0])
        parts.extend(_clip(e) for e in chosen)
    if refs:
        parts.append("at " + ", ".join(refs))
    return "[" + "; ".join(parts) + "]"


def _file_refs(lines: list[str], innermost_last: bool) -> list[str]:
    refs: dict[str, None] = {}
    for line in lines:
        line = line[:MAX_LINE_SCAN]
        match = PY_FRAME.search(line) or _AT_FRAME.search(line) or _PATH_LINE.search(line)
        if match is None:
            continue
        path = match.group("path")
        if _NOT_REPO.search(path):
            continue
        func = match.groupdict().get("func") or ""
        ref = f"{path}:{match.group('line')}" + (f" in {func}" if func and not func.startswith("<") else "")
        refs.setdefault(ref, None)
    ordered = list(refs)
    return ordered[-MAX_REFS:] if innermost_last else ordered[:MAX_REFS]


def looks_like_diff(lines: list[str]) -> bool:
    content = [line for line in lines if line.strip()]
    marked = sum(1 for line in content if line.startswith(("+", "-", "@@", "diff --git", "index ")))
    return bool(content) and any(line.startswith("@@") for line in content) and marked >= 0.5 * len(content)


def diff_summary(lines: list[str]) -> str:
    """`[diff: 40 lines; files src/a.py, src/b.py; hunks in parse_config, Loader]`."""
    files: dict[str, None] = {}
    hunks: dict[str, None] = {}
    for line in lines:
        if line.startswith("+++ ") or line.startswith("--- "):
            path = line[4:].strip().split("\t")[0]
            if path != "/dev/null":
                files.setdefault(re.sub(r"^[ab]/", "", path), None)
        elif line.startswith("@@"):
            context = line.split("@@", 2)[-1]
            match = _DEFINED_NAME.match(context.strip()[:MAX_LINE_SCAN])
            if match:
                hunks.setdefault(match.group(1), None)
    parts = [f"diff: {len(lines)} lines"]
    if files:
        parts.append("files " + ", ".join(list(files)[:MAX_REFS]))
    if hunks:
        parts.append("hunks in " + ", ".join(list(hunks)[:MAX_NAMES]))
    return "[" + "; ".join(parts) + "]"


def code_summary(lines: list[str], language: str) -> str:
    """`[code: python, 24 lines; defines parse_config, Loader]` — the defined names are good seeds."""
    names: dict[str, None] = {}
    for line in lines:
        match = _DEFINED_NAME.match(line[:MAX_LINE_SCAN])
        if match:
            names.setdefault(match.group(1), None)
    if not names:
        for token in identifier_tokens("\n".join(lines[:50])):
            names.setdefault(token, None)
            if len(names) >= MAX_NAMES - 1:
                break
        label = "mentions"
    else:
        label = "defines"
    head = "code" + (f": {language}" if language else "") + f", {len(lines)} lines"
    shown = list(names)[:MAX_NAMES]
    return "[" + head + (f"; {label} " + ", ".join(shown) if shown else "") + "]"


def _clip(line: str) -> str:
    return line if len(line) <= MAX_SUMMARY_LINE else line[: MAX_SUMMARY_LINE - 1] + "…"
