"""`POST /hooks/pre-tool-use` (Claude Code PreToolUse for Grep|Glob|Read): a pointer to injected context.

Who may call: any authenticated token (member, admin, local `up` token), like the prompt hook; the ledger
is keyed by the token's user, so a member only ever sees what was injected into their own sessions. It
never blocks a tool (no permissionDecision) and never fails one: any problem answers 200 `{}`. All it
does is a dictionary lookup, so it costs well under a millisecond of server time.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence

import structlog
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from gateway import metrics
from gateway.authorization import Principal
from gateway.domain.injected import InjectedLedger, matching_spans, pre_tool_use_note, spans_from_items
from gateway.validation import LIMITS, read_json_object, str_field

log = structlog.get_logger("hooks.pre_tool_use")


def remember_injected(
    ledger: InjectedLedger, who: Principal, session_id: str, items: Sequence[object]
) -> None:
    """Called by the prompt hook after it injected `items` into `session_id`."""
    ledger.record(who.user, session_id, spans_from_items(items), time.monotonic())


def pre_tool_use_endpoint(ledger: InjectedLedger) -> Callable[[Request], Awaitable[Response]]:
    async def pre_tool_use(request: Request) -> Response:
        started = time.perf_counter()
        outcome = "none"
        try:
            principal = request.scope.get("state", {}).get("principal")
            if not isinstance(principal, Principal):
                return JSONResponse({})
            data = read_json_object(await request.body())
            session_id = str_field(data, "session_id", max_len=LIMITS.session_id)
            tool_name = str_field(data, "tool_name", max_len=100)
            tool_input = data.get("tool_input")
            if not session_id or not isinstance(tool_input, dict):
                return JSONResponse({})
            spans = ledger.spans(principal.user, session_id, time.monotonic())
            note = pre_tool_use_note(tool_name, matching_spans(tool_name, tool_input, spans))
            if not note:
                return JSONResponse({})
            outcome = "note"
            return JSONResponse(
                {"hookSpecificOutput": {"hookEventName": "PreToolUse", "additionalContext": note}}
            )
        except Exception as exc:  # a hook never fails a tool call: empty and valid
            outcome = "error"
            metrics.HOOK_FAILURES.labels("PreToolUse", type(exc).__name__[:40]).inc()
            log.warning("hook.pre_tool_use.failed", error=repr(exc)[:300])
            return JSONResponse({})
        finally:
            elapsed = time.perf_counter() - started
            metrics.HOOK_SECONDS.labels("PreToolUse", outcome).observe(elapsed)
            log.info("hook.pre_tool_use", outcome=outcome, server_ms=round(elapsed * 1000, 3))

    return pre_tool_use
