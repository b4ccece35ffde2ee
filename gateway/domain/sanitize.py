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
from gateway.domain.pasted import (
    CODE_LINE,
    MAX_LINE_SCAN,
    PY_FRAME,
    code_summary,
    diff_summary,
    is_log_line,
    log_summary,
    looks_like_diff,
    looks_like_log,
)

MAX_PROMPT_CHARS = 4_000
# Anything beyond this is never looked at (head and tail kept), so sanitising stays bounded in time.
MAX_SCAN_CHARS = 100_000
# Fenced blocks this small are kept verbatim: a one-line command or call is part of the question.
SMALL_BLOCK_LINES = 3
SMALL_BLOCK_CHARS = 200
# Unfenced runs of log-like lines at least this long are summarised; shorter ones stay verbatim.
MIN_LOG_RUN = 3
MIN_CODE_RUN = 6

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
        summary = log_summary(body.splitlines()) if looks_like_log(body.splitlines()) else ""
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
        log_fence = language in _LOG_LANGUAGES and bool(log_summary(body, require_signal=True))
        if log_fence or looks_like_log(body):
            removed.append(REMOVED_LOG)
            summary = log_summary(body)
        elif language in {"diff", "patch"} or looks_like_diff(body):
            removed.append(REMOVED_CODE_BLOCK)
            summary = diff_summary(body)
        else:
            removed.append(REMOVED_CODE_BLOCK)
            summary = code_summary(body, language)
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
            summary = log_summary(lines[i:log_end])
            removed.append(REMOVED_LOG)
            summaries.append(summary)
            out.append(summary)
            i = log_end
            continue
        code_end = _code_run_end(lines, i)
        if code_end - i >= MIN_CODE_RUN:
            summary = code_summary(lines[i:code_end], "")
            removed.append(REMOVED_CODE_BLOCK)
            summaries.append(summary)
            out.append(summary)
            i = code_end
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def _log_run_end(lines: list[str], start: int) -> int:
    """End of the run of log lines starting at `start` (indented continuation lines belong to it)."""
    if not is_log_line(lines[start]):
        return start
    end = start + 1
    while end < len(lines):
        line = lines[end]
        if is_log_line(line):
            end += 1
        elif line.startswith((" ", "\t")) and line.strip():
            end += 1  # a source line quoted under a frame, or a wrapped log message
        else:
            break
    # Trailing indented lines only belong to the run when a log line follows them.
    while end > start + 1 and not is_log_line(lines[end - 1]) and not _is_frame_source(lines, end - 1):
        end -= 1
    return end


def _is_frame_source(lines: list[str], index: int) -> bool:
    return index > 0 and bool(PY_FRAME.search(lines[index - 1][:MAX_LINE_SCAN]))


def _code_run_end(lines: list[str], start: int) -> int:
    """End of a stretch where code-like lines dominate (blank lines allowed inside); `start` if none."""
    if not CODE_LINE.match(lines[start][:MAX_LINE_SCAN]):
        return start
    end, code, total, last_code = start, 0, 0, start
    while end < len(lines):
        line = lines[end]
        if not line.strip():
            end += 1
            continue
        total += 1
        indented = line.startswith(("    ", "\t")) and not line.lstrip().startswith(("-", "*"))
        if indented or CODE_LINE.match(line[:MAX_LINE_SCAN]):
            code += 1
            last_code = end
        elif total - code > 1 or code < 0.7 * total:
            break
        end += 1
    return last_code + 1


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
