"""Prompt sanitising: reduce what a user typed to the prose that says what they want.

Claude Code hands the hook the whole prompt: pasted code, pasted logs and stack traces, its own
`<system-reminder>` blocks and, when a user copies an earlier answer, the context we injected. All of
that would drown the intent rules and the keyword search, so it is replaced by a one-line summary
that keeps what is worth searching for: the exception line, `file:line` references and the names a
pasted snippet defines. The result is capped in length (head and tail kept: the question is often
at the end, after the paste).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from gateway.domain.markers import CONTEXT_CLOSE_LINE, CONTEXT_OPEN_LINE
from kit.text import identifier_tokens

MAX_PROMPT_CHARS = 4_000
# Anything beyond this is never looked at (head and tail kept), so sanitising stays bounded in time.
MAX_SCAN_CHARS = 100_000
# Fenced blocks this small are kept verbatim: a one-line command or call is part of the question.
SMALL_BLOCK_LINES = 3
SMALL_BLOCK_CHARS = 200
# Unfenced runs of log-like lines at least this long are summarised; shorter ones stay verbatim.
MIN_LOG_RUN = 3
MIN_CODE_RUN = 6
MAX_REFS = 4
MAX_NAMES = 5
MAX_SUMMARY_LINE = 200
# Line patterns only look at a line's start: a log or code line says what it is early, and a pasted
# megabyte-long line must not cost quadratic regex time.
MAX_LINE_SCAN = 300

REMOVED_SYSTEM_REMINDER = "system_reminder"
REMOVED_INJECTED_CONTEXT = "injected_context"
REMOVED_CODE_BLOCK = "code_block"
REMOVED_LOG = "log"
REMOVED_COMMAND_OUTPUT = "command_output"
REMOVED_TRUNCATED = "truncated"


@dataclass(frozen=True, slots=True)
class SanitizedPrompt:
    """`text` is what routing and search should see; `summaries` are the one-line stand-ins it contains."""

    text: str
    removed: tuple[str, ...] = ()
    summaries: tuple[str, ...] = ()
    original_chars: int = 0

    @property
    def had_log(self) -> bool:
        return REMOVED_LOG in self.removed


_SYSTEM_REMINDER = re.compile(r"<system-reminder>.*?(?:</system-reminder>|\Z)", re.DOTALL)
# Claude Code wraps slash commands and `!` shell mode in tags; keep the command, drop the noise.
_DROP_TAGS = re.compile(r"<(command-message)>.*?</\1>", re.DOTALL)
_UNWRAP_TAGS = re.compile(r"<(command-name|command-args|bash-input)>(.*?)</\1>", re.DOTALL)
_OUTPUT_TAGS = re.compile(
    r"<(local-command-stdout|local-command-stderr|bash-stdout|bash-stderr)>(.*?)</\1>", re.DOTALL
)
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([\w+#.-]*)")

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
_PY_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+)(?:, in (?P<func>[\w<>.]+))?')
_AT_FRAME = re.compile(r"at (?:(?P<func>[\w$.<>]+) )?\(?(?P<path>[^\s():]+\.\w+):(?P<line>\d+)(?::\d+)?\)?")
_PATH_LINE = re.compile(r"(?P<path>(?:[\w.@~-]+/)*[\w.@-]+\.[A-Za-z]\w{0,5}):(?P<line>\d+)")
_NOT_REPO = re.compile(
    r"site-packages|dist-packages|node_modules|/usr/|/lib/python|<frozen|<anonymous>|internal/|"
    r"^node:|\.pyenv|\.rustup|/go/pkg/mod|^java\.|^sun\.|^jdk\."
)
_CODE_LINE = re.compile(
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
_WORD_CUT = re.compile(r"\s")
_LOG_LANGUAGES = frozenset({"log", "logs", "console", "text", "txt", "shell-session", "stacktrace", "output"})


def sanitize_prompt(prompt: str, max_chars: int = MAX_PROMPT_CHARS) -> SanitizedPrompt:
    """Strip pasted code, logs, system reminders and our own earlier context; cap at `max_chars`."""
    original_chars = len(prompt)
    removed: list[str] = []
    summaries: list[str] = []
    text = prompt.replace("\r\n", "\n").replace("\r", "\n")
    if len(text) > MAX_SCAN_CHARS:
        head = MAX_SCAN_CHARS * 3 // 4
        text = text[:head] + "\n" + text[-(MAX_SCAN_CHARS - head) :]
        removed.append(REMOVED_TRUNCATED)

    text, n = _SYSTEM_REMINDER.subn("", text)
    if n:
        removed.append(REMOVED_SYSTEM_REMINDER)
    text, injected = _strip_injected_context(text)
    if injected:
        removed.append(REMOVED_INJECTED_CONTEXT)
    text = _DROP_TAGS.sub("", text)
    text = _UNWRAP_TAGS.sub(lambda m: m.group(2), text)

    def _command_output(match: re.Match[str]) -> str:
        removed.append(REMOVED_COMMAND_OUTPUT)
        body = match.group(2).strip()
        if not body:
            return ""
        summary = _log_summary(body.splitlines()) if _looks_like_log(body.splitlines()) else ""
        if summary:
            summaries.append(summary)
        return summary

    text = _OUTPUT_TAGS.sub(_command_output, text)
    text = _replace_fenced_blocks(text, removed, summaries)
    text = _replace_unfenced_runs(text, removed, summaries)
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    if len(text) > max_chars:
        text = _cap(text, max_chars)
        removed.append(REMOVED_TRUNCATED)
    return SanitizedPrompt(
        text=text,
        removed=tuple(dict.fromkeys(removed)),
        summaries=tuple(summaries),
        original_chars=original_chars,
    )


def _strip_injected_context(text: str) -> tuple[str, bool]:
    """Remove every `<reporecall-context …>` … `</reporecall-context>` block (an unclosed one to the end)."""
    found = False
    while True:
        opening = CONTEXT_OPEN_LINE.search(text)
        if opening is None:
            return text, found
        found = True
        closing = CONTEXT_CLOSE_LINE.search(text, opening.end())
        end = len(text) if closing is None else closing.end()
        if text.startswith("\n", end):
            end += 1
        text = text[: opening.start()] + text[end:]


def _replace_fenced_blocks(text: str, removed: list[str], summaries: list[str]) -> str:
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        opening = _FENCE_OPEN.match(lines[i])
        if opening is None:
            out.append(lines[i])
            i += 1
            continue
        fence, language = opening.group(1), opening.group(2).lower()
        closing = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}\s*$")
        j = i + 1
        while j < len(lines) and not closing.match(lines[j]):
            j += 1
        body = lines[i + 1 : j]
        i = j + 1
        if not any(line.strip() for line in body):
            continue
        if len(body) <= SMALL_BLOCK_LINES and sum(len(line) + 1 for line in body) <= SMALL_BLOCK_CHARS:
            out.extend(line.strip() for line in body)
            continue
        log_fence = language in _LOG_LANGUAGES and bool(_log_summary(body, require_signal=True))
        if log_fence or _looks_like_log(body):
            removed.append(REMOVED_LOG)
            summary = _log_summary(body)
        elif language in {"diff", "patch"} or _looks_like_diff(body):
            removed.append(REMOVED_CODE_BLOCK)
            summary = _diff_summary(body)
        else:
            removed.append(REMOVED_CODE_BLOCK)
            summary = _code_summary(body, language)
        summaries.append(summary)
        out.append(summary)
    return "\n".join(out)


def _replace_unfenced_runs(text: str, removed: list[str], summaries: list[str]) -> str:
    """Summarise long unfenced stretches of log or code lines; prose lines pass through untouched."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        log_end = _log_run_end(lines, i)
        if log_end - i >= MIN_LOG_RUN or (log_end > i and "Traceback (most recent call last)" in lines[i]):
            summary = _log_summary(lines[i:log_end])
            removed.append(REMOVED_LOG)
            summaries.append(summary)
            out.append(summary)
            i = log_end
            continue
        code_end = _code_run_end(lines, i)
        if code_end - i >= MIN_CODE_RUN:
            summary = _code_summary(lines[i:code_end], "")
            removed.append(REMOVED_CODE_BLOCK)
            summaries.append(summary)
            out.append(summary)
            i = code_end
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def _is_log_line(line: str) -> bool:
    return bool(_LOG_LINE.match(line[:MAX_LINE_SCAN]))


def _log_run_end(lines: list[str], start: int) -> int:
    """End of the run of log lines starting at `start` (indented continuation lines belong to it)."""
    if not _is_log_line(lines[start]):
        return start
    end = start + 1
    while end < len(lines):
        line = lines[end]
        if _is_log_line(line):
            end += 1
        elif line.startswith((" ", "\t")) and line.strip():
            end += 1  # a source line quoted under a frame, or a wrapped log message
        else:
            break
    # Trailing indented lines only belong to the run when a log line follows them.
    while end > start + 1 and not _is_log_line(lines[end - 1]) and not _is_frame_source(lines, end - 1):
        end -= 1
    return end


def _is_frame_source(lines: list[str], index: int) -> bool:
    return index > 0 and bool(_PY_FRAME.search(lines[index - 1][:MAX_LINE_SCAN]))


def _code_run_end(lines: list[str], start: int) -> int:
    """End of a stretch where code-like lines dominate (blank lines allowed inside); `start` if none."""
    if not _CODE_LINE.match(lines[start][:MAX_LINE_SCAN]):
        return start
    end, code, total, last_code = start, 0, 0, start
    while end < len(lines):
        line = lines[end]
        if not line.strip():
            end += 1
            continue
        total += 1
        indented = line.startswith(("    ", "\t")) and not line.lstrip().startswith(("-", "*"))
        if indented or _CODE_LINE.match(line[:MAX_LINE_SCAN]):
            code += 1
            last_code = end
        elif total - code > 1 or code < 0.7 * total:
            break
        end += 1
    return last_code + 1


def _looks_like_log(lines: list[str]) -> bool:
    content = [line for line in lines if line.strip()]
    if not content:
        return False
    if any("Traceback (most recent call last)" in line for line in content):
        return True
    log_lines = sum(1 for line in content if _is_log_line(line))
    return log_lines >= 2 and log_lines >= 0.3 * len(content)


def _log_summary(lines: list[str], require_signal: bool = False) -> str:
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
        match = _PY_FRAME.search(line) or _AT_FRAME.search(line) or _PATH_LINE.search(line)
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


def _looks_like_diff(lines: list[str]) -> bool:
    content = [line for line in lines if line.strip()]
    marked = sum(1 for line in content if line.startswith(("+", "-", "@@", "diff --git", "index ")))
    return bool(content) and any(line.startswith("@@") for line in content) and marked >= 0.5 * len(content)


def _diff_summary(lines: list[str]) -> str:
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


def _code_summary(lines: list[str], language: str) -> str:
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


def _cap(text: str, max_chars: int) -> str:
    """Keep two thirds from the head and one third from the tail, cut at whitespace, joined by `…`."""
    if max_chars <= 3:
        return text[:max_chars]
    budget = max_chars - 3
    head_len, tail_len = budget * 2 // 3, budget - budget * 2 // 3
    head = text[:head_len]
    cut = max((m.start() for m in _WORD_CUT.finditer(head)), default=-1)
    if cut > head_len // 2:
        head = head[:cut]
    tail = text[len(text) - tail_len :] if tail_len else ""
    first_space = _WORD_CUT.search(tail)
    if first_space and first_space.start() < tail_len // 2:
        tail = tail[first_space.start() + 1 :]
    return f"{head} … {tail}".strip()
