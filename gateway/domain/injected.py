"""What the prompt hook already put in a session's context, and the PreToolUse note that points back to it. Pure.

A Read/Grep/Glob that asks for code the `<reporecall-context>` block already holds gets a one-line note
saying where it is, so the model can skip the round-trip. The ledger is bounded three ways (sessions per
user, sessions overall, spans per session) and forgets a session `ttl` seconds after its last injection.
The caller passes the clock (`now`), so expiry is tested without waiting.
"""

from __future__ import annotations

import fnmatch
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

NOTE_SPANS = 5  # spans named in one note
NOTE_CHARS = 700  # a note is a pointer, not a second copy of the code


@dataclass(frozen=True)
class InjectedSpan:
    """One code block of an injected context: repo-relative path, line range, symbol name."""

    path: str
    start_line: int
    end_line: int
    symbol: str = ""
    kind: str = ""

    def label(self) -> str:
        what = f" {self.kind} {self.symbol}".rstrip() if self.symbol else ""
        return f"{self.path}:{self.start_line}-{self.end_line}{what}"


@dataclass
class _Session:
    expires: float
    spans: OrderedDict[tuple[str, int, int], InjectedSpan] = field(default_factory=OrderedDict)


@dataclass(frozen=True)
class LedgerLimits:
    ttl_seconds: float = 6 * 3600.0
    sessions_per_user: int = 32
    sessions_total: int = 4096
    spans_per_session: int = 300


class InjectedLedger:
    """Per (user, session_id): the spans injected so far. A user's lookups never see another user's sessions."""

    def __init__(self, limits: LedgerLimits = LedgerLimits()) -> None:
        self.limits = limits
        self._sessions: OrderedDict[tuple[str, str], _Session] = OrderedDict()

    def __len__(self) -> int:
        return len(self._sessions)

    def record(self, user: str, session_id: str, spans: Iterable[InjectedSpan], now: float) -> None:
        if not session_id:
            return  # no session to remember it for
        self._expire(now)
        key = (user, session_id)
        session = self._sessions.pop(key, None) or _Session(expires=0.0)
        session.expires = now + self.limits.ttl_seconds
        for span in spans:
            ident = (span.path, span.start_line, span.end_line)
            session.spans.pop(ident, None)
            session.spans[ident] = span
        while len(session.spans) > self.limits.spans_per_session:
            session.spans.popitem(last=False)
        self._sessions[key] = session  # most recently used last
        mine = [k for k in self._sessions if k[0] == user]
        for old in mine[: max(0, len(mine) - self.limits.sessions_per_user)]:
            del self._sessions[old]
        while len(self._sessions) > self.limits.sessions_total:
            self._sessions.popitem(last=False)

    def spans(self, user: str, session_id: str, now: float) -> list[InjectedSpan]:
        session = self._sessions.get((user, session_id))
        if session is None or session.expires <= now:
            return []
        return list(session.spans.values())

    def _expire(self, now: float) -> None:
        for key in [k for k, s in self._sessions.items() if s.expires <= now]:
            del self._sessions[key]


def spans_from_items(items: Iterable[Any]) -> list[InjectedSpan]:
    """The code items of a ContextResult (anything with path/start_line/end_line/symbol/kind)."""
    return [
        InjectedSpan(str(i.path), int(i.start_line), int(i.end_line), str(i.symbol), str(i.kind))
        for i in items
        if getattr(i, "path", "")
    ]


def _path_matches(given: str, rel: str) -> bool:
    """A client path (absolute in any checkout, or relative) names the repo-relative `rel`."""
    given = given.strip().replace("\\", "/").rstrip("/")
    if not given or not rel:
        return False
    return given == rel or given.endswith("/" + rel) or given.removeprefix("./") == rel


def _dir_contains(given: str, rel: str) -> bool:
    """A client directory (absolute or relative) that holds `rel` somewhere below it."""
    given = given.strip().replace("\\", "/").rstrip("/")
    if not given:
        return False
    parts = rel.split("/")
    return any(_path_matches(given, "/".join(parts[:i])) for i in range(1, len(parts)))


def _glob_matches(pattern: str, rel: str) -> bool:
    pattern = pattern.strip().replace("\\", "/")
    if not pattern:
        return False
    candidates = {pattern, pattern.removeprefix("**/"), pattern.lstrip("/")}
    return any(
        fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(rel.rsplit("/", 1)[-1], p) for p in candidates
    )


def _short(symbol: str) -> str:
    return re.split(r"[.:#]", symbol)[-1] if symbol else ""


def _grep_matcher(pattern: str) -> Callable[[InjectedSpan], bool]:
    """Whether the pattern names a span's symbol: as a word in it, or as a regex the name matches whole."""
    words = set(_WORD.findall(pattern))
    try:
        regex: re.Pattern[str] | None = re.compile(pattern) if pattern else None
    except re.error:
        regex = None

    def matches(span: InjectedSpan) -> bool:
        name = _short(span.symbol)
        if len(name) < 3:
            return False
        if name in words:
            return True
        return regex is not None and bool(regex.fullmatch(name) or regex.fullmatch(span.symbol))

    return matches


_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def matching_spans(
    tool_name: str, tool_input: Mapping[str, Any], spans: list[InjectedSpan]
) -> list[InjectedSpan]:
    """The injected spans a Read, Grep or Glob call asks for again (other tools: none)."""

    def text(key: str) -> str:
        value = tool_input.get(key)
        return value[:4096] if isinstance(value, str) else ""

    if tool_name == "Read":
        path = text("file_path")
        return [s for s in spans if _path_matches(path, s.path)]
    if tool_name == "Glob":
        pattern, base = text("pattern"), text("path")
        return [
            s for s in spans if _glob_matches(pattern, s.path) and (not base or _dir_contains(base, s.path))
        ]
    if tool_name == "Grep":
        pattern, path, glob = text("pattern"), text("path"), text("glob")
        named_by = _grep_matcher(pattern)
        found = []
        for s in spans:
            if path and not (_path_matches(path, s.path) or _dir_contains(path, s.path)):
                continue
            if glob and not _glob_matches(glob, s.path):
                continue
            named = named_by(s)
            if named or (path and _path_matches(path, s.path)):
                found.append(s)
        return found
    return []


def pre_tool_use_note(tool_name: str, spans: list[InjectedSpan]) -> str:
    """The short pointer a PreToolUse hook returns, "" when nothing matched."""
    if not spans:
        return ""
    shown = ", ".join(s.label() for s in spans[:NOTE_SPANS])
    more = f" (+{len(spans) - NOTE_SPANS} more)" if len(spans) > NOTE_SPANS else ""
    note = (
        f"RepoRecall: this {tool_name} asks for code already in this session's context — {shown}{more} — "
        "in a <reporecall-context> block injected with an earlier prompt; read it there unless you need "
        "lines outside those ranges or the file changed since."
    )
    return note if len(note) <= NOTE_CHARS else note[: NOTE_CHARS - 1] + "…"
