"""structlog set-up shared by every process: JSON lines (console renderer on a TTY), request ids in context.

The gateway mints a request id per request; gRPC interceptors carry it in the `x-request-id` metadata key and
bind it with `bind_contextvars`, so every log line written while serving that request carries it.
"""

from __future__ import annotations

import logging
import sys
import uuid

import structlog

REQUEST_ID_HEADER = "x-request-id"


def configure_logging(service: str, fmt: str = "auto", level: str = "info") -> None:
    use_console = fmt == "console" or (fmt == "auto" and sys.stderr.isatty())
    renderer: structlog.typing.Processor = (
        structlog.dev.ConsoleRenderer() if use_console else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            _add_service(service),
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelNamesMapping()[level.upper()]),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )


def _add_service(service: str) -> structlog.typing.Processor:
    def add(_: object, __: str, event: structlog.typing.EventDict) -> structlog.typing.EventDict:
        event.setdefault("service", service)
        return event

    return add


def new_request_id() -> str:
    return uuid.uuid4().hex


def current_request_id() -> str | None:
    value = structlog.contextvars.get_contextvars().get("request_id")
    return str(value) if value else None
